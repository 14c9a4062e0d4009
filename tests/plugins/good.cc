// A well-formed plugin adding one op (Negate, domain "test") with shape inference and a CPU kernel.
#include "ge/sdk/plugin.h"

namespace {
class NegateKernel : public ge::Kernel {
 public:
  void run(ge::KernelIO& io) override {
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    for (int64_t i = 0; i < io.outputs[0].numel(); ++i) y[i] = -x[i];
  }
};
void reg(ge::Registrar& r) {
  ge::OpDef d;
  d.op_type = "Negate";
  d.domain = "test";
  d.inputs = {{"X", {ge::DataType::Float32}}};
  d.outputs = {{"Y", {ge::DataType::Float32}}};
  d.pattern = ge::OpPattern::Elementwise;
  r.add_op(d);
  r.set_shape_inference("test", "Negate", [](ge::InferContext& c) { c.set_output(0, c.input_type(0), c.input_shape(0)); });
  r.add_kernel({"cpu", "test", "Negate", [](const ge::KernelBuildContext&) { return std::make_unique<NegateKernel>(); }, ""});
}
}  // namespace
GE_PLUGIN("good", "1.2.3", reg)
