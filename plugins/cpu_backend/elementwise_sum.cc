// plugins/cpu_backend/elementwise_sum.cc — Sum-13: variadic elementwise sum with numpy
// broadcasting of every input to the output shape (float16/32/64, bfloat16).
//
// Computed as out = in0 + in1, then out += in_k for k >= 2, one broadcast plan per step, so
// each pass is a vectorized binary loop; a single input is a broadcast copy.
#include <vector>

#include "elementwise_common.h"

namespace ge::cpu {
namespace {

struct AddOp {
  template <class T> T operator()(T a, T b) const { return a + b; }
};

template <class T>
class SumKernel final : public Kernel {
 public:
  SumKernel(std::vector<loops::LoopPlan> plans, int threads) : plans_(std::move(plans)), threads_(threads) {}

  void run(KernelIO& io) override {
    T* out = io.outputs[0].data_as<T>();
    const size_t n = io.inputs.size();
    if (n == 1) {
      loops::copy_rows(plans_[0], io.inputs[0].data_as<T>(), out, threads_);
      return;
    }
    loops::binary_rows<T, T, T>(plans_[0], io.inputs[0].data_as<T>(), io.inputs[1].data_as<T>(), out, threads_, WideBinary<T, AddOp>{});
    for (size_t k = 2; k < n; ++k) {
      loops::binary_rows<T, T, T>(plans_[k - 1], out, io.inputs[k].data_as<T>(), out, threads_, WideBinary<T, AddOp>{});
    }
  }
  std::string impl_name() const override { return "cpu:Sum"; }

 private:
  std::vector<loops::LoopPlan> plans_;
  int threads_;
};

std::unique_ptr<Kernel> make_sum(const KernelBuildContext& ctx) {
  const size_t n = ctx.node.num_inputs();
  if (n == 0) throw InvalidGraphError(ctx.node.describe() + ": Sum needs at least one input");
  const DataType t = ctx.input_type(0);
  for (size_t i = 0; i < n; ++i) {
    if (!ctx.has_input(i)) throw InvalidGraphError(ctx.node.describe() + ": input " + std::to_string(i) + " is missing");
    if (ctx.input_type(i) != t) {
      throw InvalidGraphError(ctx.node.describe() + ": inputs have different dtypes");
    }
  }
  const Shape& out = ctx.output_shape(0);
  const std::string what = ctx.node.describe();
  std::vector<loops::LoopPlan> plans;
  if (n == 1) {
    plans.push_back(loops::broadcast_plan(out, {ctx.input_shape(0)}, what));
  } else {
    plans.push_back(loops::broadcast_plan(out, {ctx.input_shape(0), ctx.input_shape(1)}, what));
    for (size_t k = 2; k < n; ++k) plans.push_back(loops::broadcast_plan(out, {out, ctx.input_shape(k)}, what));
  }
  std::unique_ptr<Kernel> k;
  if (!visit_type(AnyFloatTypes{}, t, [&](auto tag) {
        k = std::make_unique<SumKernel<typename decltype(tag)::type>>(std::move(plans), ctx.threads);
      })) {
    unsupported_dtype("Sum", t);
  }
  return k;
}

}  // namespace

void register_sum_kernels(Registrar& r) { add_cpu_kernel(r, "Sum", make_sum); }

}  // namespace ge::cpu
