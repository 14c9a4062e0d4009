// plugins/ascend_backend/vector_kernels.cc — the Vector unit's elementwise ops: Add Sub Mul Div
// and Pow (numpy broadcasting), Sum (variadic), Relu, LeakyRelu, Clip, Sigmoid, Sqrt, Erf. Computed in fp32 on the operands'
// values and rounded once to the output's dtype: bit-exact fp16 arithmetic for Add/Sub/Mul/Div
// (tensor_io.h); Sigmoid's fp16 result is fp32 expf rounded to fp16 (the device's own
// approximation is not public), as are Pow, Sqrt and Erf.
#include <cmath>
#include <limits>
#include <memory>

#include "ge/sdk/error.h"
#include "kernels.h"
#include "placement.h"
#include "tensor_io.h"

namespace ge::ascend {
namespace {

/// Element strides of `in` broadcast to `out` (0 on broadcast axes).
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<int64_t> s(out.rank(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < in.rank(); ++k) {
    const size_t ai = in.rank() - 1 - k, ao = out.rank() - 1 - k;
    s[ao] = in[ai] == 1 ? 0 : stride;
    stride *= in[ai];
  }
  return s;
}

class BinaryKernel : public Kernel {
 public:
  explicit BinaryKernel(const KernelBuildContext& ctx) : node_(ctx.node), op_(ctx.node.op_type()) {
    require_float(ctx, 0);
    require_float(ctx, 1);
  }
  void run(KernelIO& io) override {
    const std::vector<float> a = read_plain(io.inputs[0]), b = read_plain(io.inputs[1]);
    const Shape& out = io.outputs[0].shape();
    const auto sa = broadcast_strides(io.inputs[0].shape(), out), sb = broadcast_strides(io.inputs[1].shape(), out);
    const size_t r = out.rank();
    std::vector<float> y(static_cast<size_t>(out.numel()));
    std::vector<int64_t> idx(r, 0);
    int64_t ia = 0, ib = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      const float x0 = a[ia], x1 = b[ib];
      y[i] = op_ == "Add" ? x0 + x1 : op_ == "Sub" ? x0 - x1 : op_ == "Mul" ? x0 * x1 : op_ == "Div" ? x0 / x1 : std::pow(x0, x1);
      for (size_t d = r; d-- > 0;) {  // odometer increment
        ia += sa[d], ib += sb[d];
        if (++idx[d] < out[d]) break;
        ia -= sa[d] * out[d], ib -= sb[d] * out[d];
        idx[d] = 0;
      }
    }
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return "aicore:vector:" + op_; }

 private:
  const Node& node_;
  std::string op_;
};

/// Sum (variadic, broadcasting): one Vector add per extra operand, each result rounded to the
/// output dtype (fp16: what a chain of fp16 adds gives).
class SumKernel : public Kernel {
 public:
  explicit SumKernel(const KernelBuildContext& ctx) : node_(ctx.node) {
    for (size_t i = 0; i < ctx.node.num_inputs(); ++i) require_float(ctx, i);
    half_ = ctx.output_type(0) == DataType::Float16;
  }
  void run(KernelIO& io) override {
    const Shape& out = io.outputs[0].shape();
    const size_t r = out.rank();
    std::vector<float> y(static_cast<size_t>(out.numel()), 0.f);
    for (size_t k = 0; k < io.inputs.size(); ++k) {
      const std::vector<float> a = read_plain(io.inputs[k]);
      const auto sa = broadcast_strides(io.inputs[k].shape(), out);
      std::vector<int64_t> idx(r, 0);
      int64_t ia = 0;
      for (size_t i = 0; i < y.size(); ++i) {
        y[i] = k == 0 ? a[ia] : y[i] + a[ia];
        if (half_ && k > 0) y[i] = round_fp16(y[i]);
        for (size_t d = r; d-- > 0;) {
          ia += sa[d];
          if (++idx[d] < out[d]) break;
          ia -= sa[d] * out[d];
          idx[d] = 0;
        }
      }
    }
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return "aicore:vector:Sum"; }

 private:
  const Node& node_;
  bool half_ = false;
};

class UnaryKernel : public Kernel {
 public:
  explicit UnaryKernel(const KernelBuildContext& ctx) : node_(ctx.node), op_(ctx.node.op_type()) {
    require_float(ctx, 0);
    alpha_ = ctx.node.attrs.get_float("alpha", 0.01f);
    lo_ = -std::numeric_limits<float>::infinity(), hi_ = std::numeric_limits<float>::infinity();
    if (op_ == "Clip" && ctx.opset < 11) {
      lo_ = ctx.node.attrs.get_float("min", lo_);
      hi_ = ctx.node.attrs.get_float("max", hi_);
    }
  }
  void run(KernelIO& io) override {
    std::vector<float> y = read_plain(io.inputs[0]);
    float lo = lo_, hi = hi_;
    if (op_ == "Clip") {
      if (io.inputs.size() > 1 && io.inputs[1].data()) lo = read_plain(io.inputs[1]).at(0);
      if (io.inputs.size() > 2 && io.inputs[2].data()) hi = read_plain(io.inputs[2]).at(0);
    }
    for (float& v : y) {
      if (op_ == "Relu") v = v > 0.f ? v : 0.f;
      else if (op_ == "LeakyRelu") v = v >= 0.f ? v : alpha_ * v;
      else if (op_ == "Sigmoid") v = 1.f / (1.f + std::exp(-v));
      else if (op_ == "Sqrt") v = std::sqrt(v);
      else if (op_ == "Erf") v = std::erf(v);
      else v = std::min(std::max(v, lo), hi);  // Clip
    }
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return "aicore:vector:" + op_; }

 private:
  const Node& node_;
  std::string op_;
  float alpha_ = 0.01f, lo_ = 0, hi_ = 0;
};

}  // namespace

void register_vector_kernels(Registrar& r) {
  auto bin = [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<BinaryKernel>(c); };
  auto un = [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<UnaryKernel>(c); };
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) r.add_kernel({"ascend", "", op, bin, ""});
  r.add_kernel({"ascend", "", "Sum",
                [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<SumKernel>(c); }, ""});
  for (const char* op : {"Relu", "LeakyRelu", "Clip", "Sigmoid", "Sqrt", "Erf"}) r.add_kernel({"ascend", "", op, un, ""});
}

}  // namespace ge::ascend
