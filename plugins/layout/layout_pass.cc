// plugins/layout/layout_pass.cc — the "layout" pass: Stage::Layout, O2 (standard), numerics
// Reassociates (a convolution on NC1HWC0 runs another oneDNN kernel, which may sum its
// products in another order, so numerics = "strict" keeps every tensor NCHW).
//
// Manifest: [layout] format = "auto" (default: follow the backend's format preferences) |
// "NC1HWC0" (the same, and an error if the backend registered no preferences) | "NCHW" (the
// pass leaves the graph alone) | "NHWC" (every 2-D float32 convolution the backend runs on a
// non-plain layout reads and writes NHWC — channels innermost, oneDNN's nhwc — with TransData at
// the boundaries; graph inputs and outputs stay as the caller feeds and reads them). Steps:
// layout_steps.h; design: docs/layout.md.
#include <string>

#include "ge/sdk/error.h"
#include "layout_steps.h"

namespace ge::layout {
namespace {

/// layout.format (declared by layout_format_option: checked when the environment loads).
std::string read_format(const PassContext& ctx) { return ctx.string_option("layout", "format", "auto"); }

/// NHWC mode (the cpu backend): every 2-D float32 convolution (Conv, ge.FusedConv) takes X, Z and
/// Y in NHWC, every other input plain (the kernel reorders constant weights once when it builds);
/// no other node changes format.
FormatPreferenceFn nhwc_preference() {
  return [](const Node& n) -> std::optional<NodeFormats> {
    const bool conv = (n.domain().empty() && n.op_type() == "Conv") || (n.domain() == "ge" && n.op_type() == "FusedConv");
    const Value* x = n.input(0);
    const Value* w = n.input(1);
    if (!conv || !x || !w || x->shape.rank() != 4 || x->dtype != DataType::Float32 || w->dtype != DataType::Float32 ||
        n.output(0)->dtype != DataType::Float32)
      return std::nullopt;
    NodeFormats f;
    f.inputs.assign(n.num_inputs(), Format::NCHW);
    f.outputs.assign(n.num_outputs(), Format::NHWC);
    f.inputs[0] = Format::NHWC;
    if (n.num_inputs() > 3 && n.input(3)) f.inputs[3] = Format::NHWC;
    return f;
  };
}

class LayoutPass : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "layout";
    i.stage = Stage::Layout;
    i.min_level = OptLevel::O2;
    i.numerics = NumericsEffect::Reassociates;
    i.summary = "NC1HWC0 where the backend prefers it (or NHWC convolutions with layout.format = NHWC): TransData at format boundaries, sunk past "
                "elementwise ops and cancelled in inverse pairs; constant weights converted at compile time";
    i.options = {"layout.format"};
    return i;
  }
  bool run(Graph& g, PassContext& ctx) override {
    const std::string format = read_format(ctx);
    if (format == "NCHW") return false;
    const FormatPreferenceFn* prefer = ctx.format_preference(ctx.backend());
    if (!prefer) {
      if (format != "auto")
        throw ConfigError("layout.format = \"" + format + "\": backend '" + ctx.backend() +
                    "' registered no format preferences (Registrar::add_format_preference)");
      return false;
    }
    if (format == "NHWC") {
      if (ctx.backend() != "cpu")
        throw ConfigError("layout.format = \"NHWC\": backend '" + ctx.backend() +
                          "' has no NHWC convolutions (the cpu backend's oneDNN convolutions read and write NHWC)");
      return assign_layout(g, nhwc_preference(), &ctx, /*graph_outputs=*/true);
    }
    return assign_layout(g, *prefer, &ctx);
  }
};

}  // namespace

std::shared_ptr<Pass> make_layout_pass() { return std::make_shared<LayoutPass>(); }

OptionDecl layout_format_option() {
  return {"layout.format", OptionType::String, std::string("auto"), {}, {}, {"auto", "NCHW", "NHWC", "NC1HWC0"},
          "activation layout: auto (NC1HWC0 where the backend prefers it), or one format everywhere it applies", OptionPhase::Compile, ""};
}

}  // namespace ge::layout
