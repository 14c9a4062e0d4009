// plugins/cpu_backend/elementwise_variadic.cc — Min-13, Max-13, Mean-13: variadic elementwise
// ops with numpy broadcasting of every input to the output shape.
//
// Folded left to right: out = op(in0, in1), then out = op(out, in_k), each step one broadcast
// plan. When the output buffer is one of the inputs k >= 2 (an in-place assignment), reading
// in_k after writing out would see the partial result, so the fold then starts from in_k:
// every op here is commutative (Min/Max propagate NaN from either side).
#include <cmath>
#include <vector>

#include "elementwise_common.h"
#include "elementwise_ops.h"

namespace ge::cpu {
namespace {
using namespace ops;
struct AddOp {
  template <class T> T operator()(T a, T b) const { return static_cast<T>(a + b); }
};
struct DivideOp {
  template <class T> T operator()(T a, T d) const { return a / d; }
};

template <class T, class Op>
class VariadicKernel final : public Kernel {
 public:
  VariadicKernel(loops::LoopPlan first, std::vector<loops::LoopPlan> acc, int64_t numel, bool mean, int threads,
                 std::string name)
      : first_(std::move(first)), acc_(std::move(acc)), numel_(numel), mean_(mean), threads_(threads),
        name_(std::move(name)) {}

  void run(KernelIO& io) override {
    T* out = io.outputs[0].data_as<T>();
    const size_t n = io.inputs.size();
    const WideBinary<T, Op> op{};
    size_t start = n;  // an input k >= 2 that is the output buffer
    for (size_t k = 2; k < n; ++k)
      if (io.inputs[k].data() == out && io.inputs[k].numel() == numel_) start = k;
    if (n == 1) {
      loops::copy_rows(first_, io.inputs[0].data_as<T>(), out, threads_);
    } else if (start == n) {
      loops::binary_rows<T, T, T>(first_, io.inputs[0].data_as<T>(), io.inputs[1].data_as<T>(), out, threads_, op);
      for (size_t k = 2; k < n; ++k) loops::binary_rows<T, T, T>(acc_[k], out, io.inputs[k].data_as<T>(), out, threads_, op);
    } else {
      for (size_t k = 0; k < n; ++k)
        if (k != start) loops::binary_rows<T, T, T>(acc_[k], out, io.inputs[k].data_as<T>(), out, threads_, op);
    }
    if (mean_) {
      using C = wide_t<T>;
      const T d = Wide<T>::out(static_cast<C>(n));  // sum / n, as np.mean divides
      const WideBinary<T, DivideOp> divide{};
      loops::parallel_chunks(numel_, threads_, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = divide(out[i], d);
      });
    }
  }
  std::string impl_name() const override { return "cpu:" + name_; }

 private:
  loops::LoopPlan first_;
  std::vector<loops::LoopPlan> acc_;  // (out, out, in_k) per k
  int64_t numel_;
  bool mean_;
  int threads_;
  std::string name_;
};

template <class Op, class TypeList>
KernelFactory variadic_factory(const std::string& name, TypeList types, bool mean) {
  return [name, types, mean](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
    const size_t n = ctx.node.num_inputs();
    if (n == 0) throw InvalidGraphError(ctx.node.describe() + ": " + name + " needs at least one input");
    const DataType t = ctx.input_type(0);
    for (size_t i = 0; i < n; ++i) {
      if (!ctx.has_input(i)) throw InvalidGraphError(ctx.node.describe() + ": input " + std::to_string(i) + " is missing");
      if (ctx.input_type(i) != t) throw InvalidGraphError(ctx.node.describe() + ": inputs have different dtypes");
    }
    const Shape& out = ctx.output_shape(0);
    const std::string what = ctx.node.describe();
    loops::LoopPlan first = n == 1 ? loops::broadcast_plan(out, {ctx.input_shape(0)}, what)
                                   : loops::broadcast_plan(out, {ctx.input_shape(0), ctx.input_shape(1)}, what);
    std::vector<loops::LoopPlan> acc;
    for (size_t k = 0; k < n; ++k) acc.push_back(loops::broadcast_plan(out, {out, ctx.input_shape(k)}, what));
    std::unique_ptr<Kernel> k;
    if (!visit_type(types, t, [&](auto tag) {
          using T = typename decltype(tag)::type;
          k = std::make_unique<VariadicKernel<T, Op>>(std::move(first), std::move(acc), out.numel(), mean, ctx.threads,
                                                      name);
        })) {
      unsupported_node_dtype(ctx, t);
    }
    return k;
  };
}

}  // namespace

void register_variadic_kernels(Registrar& r) {
  add_cpu_kernel(r, "Min", variadic_factory<MinOp>("Min", AnyNumericTypes{}, false));
  add_cpu_kernel(r, "Max", variadic_factory<MaxOp>("Max", AnyNumericTypes{}, false));
  add_cpu_kernel(r, "Mean", variadic_factory<AddOp>("Mean", AnyFloatTypes{}, true));
}

}  // namespace ge::cpu
