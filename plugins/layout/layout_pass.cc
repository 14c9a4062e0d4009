// plugins/layout/layout_pass.cc — the "layout" pass: Stage::Layout, O2 (standard), numerics
// Reassociates (a convolution on NC1HWC0 runs another oneDNN kernel, which may sum its
// products in another order, so numerics = "strict" keeps every tensor NCHW).
//
// Manifest: [layout] format = "auto" (default: follow the backend's format preferences) |
// "NC1HWC0" (the same, and an error if the backend registered no preferences) | "NCHW" (the
// pass leaves the graph alone). Steps: layout_steps.h; design: docs/layout.md.
#include <string>

#include "ge/sdk/error.h"
#include "layout_steps.h"

namespace ge::layout {
namespace {

std::string read_format(const PassContext& ctx) {
  std::optional<std::string> text = ctx.option("layout", "format");
  if (!text) return "auto";
  std::string s = *text;
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  // ConfigError: the pass manager stops with it instead of undoing the pass (which would compile
  // another layout than the one asked for).
  if (s != "auto" && s != "NCHW" && s != "NC1HWC0")
    throw ConfigError("layout.format = " + *text + ": must be one of auto, NCHW, NC1HWC0");
  return s;
}

class LayoutPass : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "layout";
    i.stage = Stage::Layout;
    i.min_level = OptLevel::O2;
    i.numerics = NumericsEffect::Reassociates;
    i.summary = "NC1HWC0 where the backend prefers it: TransData at format boundaries, sunk past "
                "elementwise ops and cancelled in inverse pairs; constant weights converted at compile time";
    i.options = {"layout.format"};
    return i;
  }
  bool run(Graph& g, PassContext& ctx) override {
    const std::string format = read_format(ctx);
    if (format == "NCHW") return false;
    const FormatPreferenceFn* prefer = ctx.format_preference(ctx.backend());
    if (!prefer) {
      if (format == "NC1HWC0")
        throw ConfigError("layout.format = \"NC1HWC0\": backend '" + ctx.backend() +
                    "' registered no format preferences (Registrar::add_format_preference)");
      return false;
    }
    return assign_layout(g, *prefer, &ctx);
  }
};

}  // namespace

std::shared_ptr<Pass> make_layout_pass() { return std::make_shared<LayoutPass>(); }

}  // namespace ge::layout
