// Defines op test.NoKernel (shape inference, no kernel anywhere): gec must name the op, the node
// and the backends searched.
#include "ge/sdk/plugin.h"
static void reg(ge::Registrar& r) {
  ge::OpDef d;
  d.op_type = "NoKernel";
  d.domain = "test";
  d.inputs = {{"X", {}}};
  d.outputs = {{"Y", {}}};
  r.add_op(d);
  r.set_shape_inference("test", "NoKernel", [](ge::InferContext& c) { c.set_output(0, c.input_type(0), c.input_shape(0)); });
}
GE_PLUGIN("op_only", "1.0.0", reg)
