// plugins/ascend_backend/vector_kernels.cc — the Vector unit's elementwise ops: Add Sub Mul Div
// and Pow (numpy broadcasting), Sum (variadic), Relu, LeakyRelu, Clip, Sigmoid, Sqrt, Erf, Tanh, Exp,
// Abs, Neg, HardSigmoid, HardSwish, BatchNormalization (inference). Computed in fp32 on the operands' values and rounded once to the output's dtype: bit-exact fp16 arithmetic for Add/Sub/Mul/Div
// (tensor_io.h); Sigmoid's fp16 result is fp32 expf rounded to fp16 (the device's own
// approximation is not public), as are Pow, Sqrt, Erf, Tanh and Exp. On the AI Core the elements are
// computed UB tile by UB tile from the stored tiling (vector_walk.h).
#include <cmath>
#include <limits>
#include <memory>

#include "ge/sdk/error.h"
#include "kernels.h"
#include "placement.h"
#include "tensor_io.h"
#include "vector_walk.h"

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
  BinaryKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), op_(ctx.node.op_type()), walk_(ctx, dir) {
    require_float(ctx, 0);
    require_float(ctx, 1);
    code_ = op_ == "Add" ? 0 : op_ == "Sub" ? 1 : op_ == "Mul" ? 2 : op_ == "Div" ? 3 : 4;
  }
  void run(KernelIO& io) override {
    const std::vector<float> a = read_plain(io.inputs[0]), b = read_plain(io.inputs[1]);
    const Shape& out = io.outputs[0].shape();
    const auto sa = broadcast_strides(io.inputs[0].shape(), out), sb = broadcast_strides(io.inputs[1].shape(), out);
    const size_t r = out.rank();
    std::vector<float> y(static_cast<size_t>(out.numel()));
    walk_.elements([&](int64_t i) {
      int64_t ia = 0, ib = 0, rem = i;
      for (size_t d = r; d-- > 0;) {
        const int64_t k = rem % out[d];
        rem /= out[d];
        ia += k * sa[d], ib += k * sb[d];
      }
      const float x0 = a[ia], x1 = b[ib];
      y[i] = code_ == 0 ? x0 + x1 : code_ == 1 ? x0 - x1 : code_ == 2 ? x0 * x1 : code_ == 3 ? x0 / x1 : std::pow(x0, x1);
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl(op_); }

 private:
  const Node& node_;
  std::string op_;
  VectorWalk walk_;
  int code_ = 0;
};

/// Sum (variadic, broadcasting): one Vector add per extra operand, each result rounded to the
/// output dtype (fp16: what a chain of fp16 adds gives).
class SumKernel : public Kernel {
 public:
  SumKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir) {
    for (size_t i = 0; i < ctx.node.num_inputs(); ++i) require_float(ctx, i);
    half_ = ctx.output_type(0) == DataType::Float16;
  }
  void run(KernelIO& io) override {
    const Shape& out = io.outputs[0].shape();
    const size_t r = out.rank();
    std::vector<std::vector<float>> in;
    std::vector<std::vector<int64_t>> st;
    for (const Tensor& t : io.inputs) in.push_back(read_plain(t)), st.push_back(broadcast_strides(t.shape(), out));
    std::vector<float> y(static_cast<size_t>(out.numel()), 0.f);
    walk_.elements([&](int64_t i) {
      std::vector<int64_t> idx(r);
      int64_t rem = i;
      for (size_t d = r; d-- > 0;) idx[d] = rem % out[d], rem /= out[d];
      float acc = 0.f;
      for (size_t k = 0; k < in.size(); ++k) {
        int64_t ia = 0;
        for (size_t d = 0; d < r; ++d) ia += idx[d] * st[k][d];
        acc = k == 0 ? in[k][ia] : acc + in[k][ia];
        if (half_ && k > 0) acc = round_fp16(acc);
      }
      y[i] = acc;
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl("Sum"); }

 private:
  const Node& node_;
  VectorWalk walk_;
  bool half_ = false;
};

class UnaryKernel : public Kernel {
 public:
  UnaryKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), op_(ctx.node.op_type()), walk_(ctx, dir) {
    require_float(ctx, 0);
    alpha_ = ctx.node.attrs.get_float("alpha", op_ == "HardSigmoid" ? 0.2f : 0.01f);
    beta_ = ctx.node.attrs.get_float("beta", 0.5f);  // HardSigmoid
    lo_ = -std::numeric_limits<float>::infinity(), hi_ = std::numeric_limits<float>::infinity();
    if (op_ == "Clip" && ctx.opset < 11) {
      lo_ = ctx.node.attrs.get_float("min", lo_);
      hi_ = ctx.node.attrs.get_float("max", hi_);
    }
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]);
    std::vector<float> y(x.size());
    float lo = lo_, hi = hi_;
    if (op_ == "Clip") {
      if (io.inputs.size() > 1 && io.inputs[1].data()) lo = read_plain(io.inputs[1]).at(0);
      if (io.inputs.size() > 2 && io.inputs[2].data()) hi = read_plain(io.inputs[2]).at(0);
    }
    walk_.elements([&](int64_t i) {
      const float v = x[i];
      float& o = y[i];
      if (op_ == "Relu") o = v > 0.f ? v : 0.f;
      else if (op_ == "LeakyRelu") o = v >= 0.f ? v : alpha_ * v;
      else if (op_ == "Sigmoid") o = 1.f / (1.f + std::exp(-v));
      else if (op_ == "Sqrt") o = std::sqrt(v);
      else if (op_ == "Erf") o = std::erf(v);
      else if (op_ == "Tanh") o = std::tanh(v);
      else if (op_ == "Exp") o = std::exp(v);
      else if (op_ == "Abs") o = std::fabs(v);
      else if (op_ == "Neg") o = -v;
      // ONNX: HardSigmoid = max(0, min(1, alpha·x + beta)); HardSwish = x · HardSigmoid(x) with
      // alpha = 1/6, beta = 0.5 (Operators.md).
      else if (op_ == "HardSigmoid") o = std::max(0.f, std::min(1.f, alpha_ * v + beta_));
      else if (op_ == "HardSwish") o = v * std::max(0.f, std::min(1.f, v / 6.f + 0.5f));
      else o = std::min(std::max(v, lo), hi);  // Clip
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl(op_); }

 private:
  const Node& node_;
  std::string op_;
  VectorWalk walk_;
  float alpha_ = 0.01f, beta_ = 0.5f, lo_ = 0, hi_ = 0;
};

/// BatchNormalization in inference (ONNX Operators.md: Y = (X − mean) / √(var + ε) · scale + B,
/// per channel = dim 1): per channel the Vector unit's multiply-add Y = a·X + b with
/// a = scale / √(var + ε), b = B − mean·a, computed in fp32 from the (fp16 under force_fp16)
/// parameters; each element rounded once. Training-mode outputs (running mean / var) are refused.
class BatchNormKernel : public Kernel {
 public:
  BatchNormKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir) {
    for (size_t i = 0; i < 5; ++i) require_float(ctx, i);
    for (size_t k = 1; k < ctx.node.num_outputs(); ++k)
      if (ctx.node.output(k)) throw UnsupportedError("BatchNormalization: training-mode outputs in " + who(node_));
    const Shape& x = ctx.input_shape(0);
    if (x.rank() < 2) throw UnsupportedError("BatchNormalization: input of rank < 2 in " + who(node_));
    channels_ = x[1];
    inner_ = 1;
    for (size_t d = 2; d < x.rank(); ++d) inner_ *= x[d];
    for (size_t i = 1; i < 5; ++i)
      if (ctx.input_shape(i).numel() != channels_)
        throw UnsupportedError("BatchNormalization: parameter " + std::to_string(i) + " " + ctx.input_shape(i).str() +
                               " is not one value per channel in " + who(node_));
    eps_ = ctx.node.attrs.get_float("epsilon", 1e-5f);
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]), scale = read_plain(io.inputs[1]), bias = read_plain(io.inputs[2]),
                             mean = read_plain(io.inputs[3]), var = read_plain(io.inputs[4]);
    std::vector<float> a(static_cast<size_t>(channels_)), b(static_cast<size_t>(channels_));
    for (int64_t c = 0; c < channels_; ++c) a[c] = scale[c] / std::sqrt(var[c] + eps_), b[c] = bias[c] - mean[c] * a[c];
    std::vector<float> y(x.size());
    walk_.elements([&](int64_t i) {
      const int64_t c = (i / inner_) % channels_;
      y[i] = a[c] * x[i] + b[c];
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl("BatchNormalization"); }

 private:
  const Node& node_;
  VectorWalk walk_;
  int64_t channels_ = 1, inner_ = 1;
  float eps_ = 1e-5f;
};

}  // namespace

void register_vector_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  auto bin = [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<BinaryKernel>(c, dir); };
  auto un = [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<UnaryKernel>(c, dir); };
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) r.add_kernel({"ascend", "", op, bin, ""});
  r.add_kernel({"ascend", "", "Sum",
                [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<SumKernel>(c, dir); }, ""});
  for (const char* op : {"Relu", "LeakyRelu", "Clip", "Sigmoid", "Sqrt", "Erf", "Tanh", "Exp", "Abs", "Neg", "HardSigmoid",
                         "HardSwish"})
    r.add_kernel({"ascend", "", op, un, ""});
  r.add_kernel({"ascend", "", "BatchNormalization",
                [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<BatchNormKernel>(c, dir); }, ""});
}

}  // namespace ge::ascend
