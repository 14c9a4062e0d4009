// plugins/cpu_backend/conv_channel_affine.cc — a depthwise 1×1 convolution (group = C = M, 1×1
// kernel, stride 1, no padding) is a per-channel affine map:
//   y[n, c, h, w] = W[c, 0, 0, 0] · x[n, c, h, w] + B[c]      (onnx/docs/Operators.md#Conv)
// one multiply-add per element, bound by memory. The fusion rule batchnorm_relu writes an
// inference BatchNormalization followed by Relu in this form (ONNX Runtime's NCHWc transformer
// turns BatchNormalization into the same depthwise convolution), so a pre-activation block
// (DenseNet's norm → relu → conv) reads and writes its input once instead of twice. oneDNN's
// depthwise kernel runs it at about the two separate passes' cost (densenet121's 62 pairs:
// 1.13 ms against 1.13 ms, 1 thread); this loop is the BatchNormalization kernel's
// (batchnorm.cc: simd::affine_c0 per channel block of NC1HWC0, simd::affine per channel row of
// NCHW) with the Relu applied before the store.
#include <string>

#include "blocked.h"
#include "conv.h"
#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

class ChannelAffineKernel : public CpuKernel {
 public:
  ChannelAffineKernel(const KernelBuildContext& ctx, bool relu) : CpuKernel(ctx), relu_(relu) {
    const Shape& xs = ctx.input_shape(0);
    N_ = xs[0];
    C_ = xs[1];
    hw_ = xs[2] * xs[3];
    blocked_ = is_blocked(ctx.node.input(0));
    const int64_t padded = blocked_ ? (C_ + kFormatC0 - 1) / kFormatC0 * kFormatC0 : C_;
    a_.assign(static_cast<size_t>(padded), 0.f);  // padding channels: 0 · x + 0 = 0, Relu keeps it
    b_.assign(static_cast<size_t>(padded), 0.f);
    const float* w = const_f32(ctx, 1);
    std::copy(w, w + C_, a_.begin());
    if (const float* b = ctx.has_input(2) ? const_f32(ctx, 2) : nullptr) std::copy(b, b + C_, b_.begin());
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const float *a = a_.data(), *b = b_.data();
    const int64_t hw = hw_;
    const bool relu = relu_;
    if (blocked_) {
      const int64_t c1 = (C_ + kFormatC0 - 1) / kFormatC0;
      parallel_for(N_ * c1, [&](int64_t blk) {
        const int64_t c = blk % c1 * kFormatC0, off = blk * hw * kFormatC0;
        if (relu)
          simd::affine_relu_c0(y + off, x + off, a + c, b + c, hw);
        else
          simd::affine_c0(y + off, x + off, a + c, b + c, hw);
      });
      return;
    }
    parallel_for(N_ * C_, [&](int64_t row) {
      const int64_t c = row % C_;
      if (relu)
        simd::affine_relu(y + row * hw, x + row * hw, a[c], b[c], hw);
      else
        simd::affine(y + row * hw, x + row * hw, a[c], b[c], hw);
    });
  }
  std::string impl_name() const override { return blocked_ ? "cpu:channel_affine:nc1hwc0" : "cpu:channel_affine"; }

 private:
  bool relu_, blocked_ = false;
  int64_t N_ = 0, C_ = 0, hw_ = 0;
  std::vector<float> a_, b_;
};

bool all_equal(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v)
    if (e != x) return false;
  return true;
}

}  // namespace

bool conv_is_channel_affine(const Node& n) {
  const bool fused = n.domain() == "ge" && n.op_type() == "FusedConv";
  if (!fused && !(n.domain().empty() && n.op_type() == "Conv")) return false;
  const Value *x = n.input(0), *w = n.num_inputs() > 1 ? n.input(1) : nullptr, *y = n.output(0);
  const Value* b = n.num_inputs() > 2 ? n.input(2) : nullptr;
  if (!x || !w || !y || x->shape.rank() != 4 || x->dtype != DataType::Float32 || y->dtype != DataType::Float32)
    return false;
  if (n.num_inputs() > 3 && n.input(3)) return false;  // no residual Z
  const int64_t C = x->shape[1];
  if (!w->is_constant() || !w->data || w->dtype != DataType::Float32 || w->shape != Shape{C, 1, 1, 1}) return false;
  if (format_is_blocked(w->format)) return false;
  if (b && (!b->is_constant() || !b->data || b->dtype != DataType::Float32 || b->shape != Shape{C})) return false;
  if (n.attrs.get_int("group", 1) != C || !(y->shape == x->shape)) return false;
  if (!all_equal(n.attrs.get_ints("strides"), 1) || !all_equal(n.attrs.get_ints("dilations"), 1) ||
      !all_equal(n.attrs.get_ints("pads"), 0))
    return false;
  const std::string auto_pad = n.attrs.get_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && !auto_pad.empty()) return false;
  const std::string act = fused ? n.attrs.get_string("activation", "") : "";
  return act.empty() || act == "Relu";
}

std::unique_ptr<Kernel> make_channel_affine_conv(const KernelBuildContext& ctx) {
  const Node& n = ctx.node;
  if (!conv_is_channel_affine(n) || n.input(0)->format != n.output(0)->format) return nullptr;
  const Format f = n.input(0)->format;
  if (f != Format::NC1HWC0 && f != Format::NCHW && f != Format::ND) return nullptr;
  const bool relu = n.domain() == "ge" && n.attrs.get_string("activation", "") == "Relu";
  return std::make_unique<ChannelAffineKernel>(ctx, relu);
}

}  // namespace ge::cpu
