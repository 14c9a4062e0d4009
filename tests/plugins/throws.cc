// Registers an op and a kernel, then throws: the host must roll both back.
#include <stdexcept>

#include "ge/sdk/plugin.h"
static void reg(ge::Registrar& r) {
  ge::OpDef d;
  d.op_type = "ThrowsOp";
  d.infer = [](ge::InferContext& c) { c.set_output(0, c.input_type(0), c.input_shape(0)); };
  r.add_op(d);
  r.add_kernel({"cpu", "", "ThrowsOp", [](const ge::KernelBuildContext&) -> std::unique_ptr<ge::Kernel> { return nullptr; }, ""});
  throw std::runtime_error("deliberate failure after registering ThrowsOp");
}
GE_PLUGIN("throws", "1.0.0", reg)
