// plugins/ascend_backend/data_kernels.cc — data movement on the AI Core: ge.TransData (format
// conversion, ge::convert_format), ge.Cast (fp32 <-> fp16, round to nearest even, overflow
// refused) and Concat (any axis, any formats: operands unpacked, result packed).
#include <cstring>
#include <memory>

#include "ge/sdk/error.h"
#include "ge/sdk/layout.h"
#include "kernels.h"
#include "tensor_io.h"

namespace ge::ascend {
namespace {

class TransDataKernel : public Kernel {
 public:
  explicit TransDataKernel(const KernelBuildContext& ctx) : node_(ctx.node) {
    const Value* x = ctx.node.input(0);
    const Value* y = ctx.node.output(0);
    if (!can_convert_format(x->format, y->format, x->shape.rank()))
      throw UnsupportedError("TransData: no conversion " + std::string(format_name(x->format)) + " -> " +
                             std::string(format_name(y->format)) + " in " + who(node_));
  }
  void run(KernelIO& io) override { convert_format_into(io.inputs[0], io.outputs[0]); }
  std::string impl_name() const override { return "aicore:vector:TransData"; }

 private:
  const Node& node_;
};

class CastKernel : public Kernel {
 public:
  explicit CastKernel(const KernelBuildContext& ctx) : node_(ctx.node) {
    require_float(ctx, 0);
    const DataType t = ctx.output_type(0);
    if (t != DataType::Float16 && t != DataType::Float32)
      throw UnsupportedError("Cast: to " + std::string(dtype_name(t)) + " not supported (float16, float32) in " + who(node_));
  }
  void run(KernelIO& io) override { write_plain(io.outputs[0], read_plain(io.inputs[0]), who(node_)); }
  std::string impl_name() const override { return "aicore:vector:Cast"; }

 private:
  const Node& node_;
};

class ConcatKernel : public Kernel {
 public:
  explicit ConcatKernel(const KernelBuildContext& ctx) : node_(ctx.node) {
    for (size_t i = 0; i < ctx.node.num_inputs(); ++i) require_float(ctx, i);
    const Shape& y = ctx.output_shape(0);
    int64_t axis = ctx.node.attrs.get_int("axis", 1);
    if (axis < 0) axis += static_cast<int64_t>(y.rank());
    if (axis < 0 || axis >= static_cast<int64_t>(y.rank())) throw InvalidGraphError("Concat: axis out of range in " + who(node_));
    outer_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= y[d];
    inner_ = 1;
    for (size_t d = static_cast<size_t>(axis) + 1; d < y.rank(); ++d) inner_ *= y[d];
    axis_ = axis;
  }
  void run(KernelIO& io) override {
    const Shape& ys = io.outputs[0].shape();
    std::vector<float> y(static_cast<size_t>(ys.numel()));
    const int64_t ytotal = ys[axis_] * inner_;
    int64_t off = 0;
    for (const Tensor& t : io.inputs) {
      const std::vector<float> x = read_plain(t);
      const int64_t chunk = t.shape()[axis_] * inner_;
      for (int64_t o = 0; o < outer_; ++o)
        std::memcpy(y.data() + o * ytotal + off, x.data() + o * chunk, static_cast<size_t>(chunk) * sizeof(float));
      off += chunk;
    }
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return "aicore:vector:Concat"; }

 private:
  const Node& node_;
  int64_t outer_ = 1, inner_ = 1, axis_ = 1;
};

}  // namespace

void register_data_kernels(Registrar& r) {
  r.add_kernel({"ascend", "ge", "TransData",
                [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<TransDataKernel>(c); }, ""});
  r.add_kernel({"ascend", "ge", "Cast",
                [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<CastKernel>(c); }, ""});
  r.add_kernel({"ascend", "", "Concat",
                [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<ConcatKernel>(c); }, ""});
}

}  // namespace ge::ascend
