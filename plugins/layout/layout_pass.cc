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

/// layout.format (declared by layout_format_option: checked when the environment loads).
std::string read_format(const PassContext& ctx) { return ctx.string_option("layout", "format", "auto"); }

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

OptionDecl layout_format_option() {
  return {"layout.format", OptionType::String, std::string("auto"), {}, {}, {"auto", "NCHW", "NC1HWC0"},
          "activation layout: auto (NC1HWC0 where the backend prefers it), or one format everywhere it applies", OptionPhase::Compile, ""};
}

}  // namespace ge::layout
