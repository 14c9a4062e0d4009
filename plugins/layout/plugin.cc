// plugins/layout/plugin.cc — entry point of libge_layout.so: TransData's definition and shape
// inference, and the layout pass (docs/layout.md).
#include "ge/sdk/plugin.h"
#include "layout_steps.h"

namespace ge::layout {
std::shared_ptr<Pass> make_layout_pass();
OptionDecl layout_format_option();
}

namespace {

void register_layout(ge::Registrar& r) {
  for (const ge::layout::OpFile& f : ge::layout::embedded_op_files())
    for (ge::OpDef& d : ge::parse_op_defs_toml(f.text, f.origin)) r.add_op(std::move(d));
  r.set_shape_inference("ge", "TransData", ge::layout::infer_transdata);
  r.declare_option(ge::layout::layout_format_option());
  r.add_pass(ge::layout::make_layout_pass());
}

}  // namespace

GE_PLUGIN("layout", "0.1.0", register_layout)
