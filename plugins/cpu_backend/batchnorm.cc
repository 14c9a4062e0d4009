// plugins/cpu_backend/batchnorm.cc — ONNX BatchNormalization, inference form.
//
// onnx/docs/Operators.md#BatchNormalization: Y = scale * (X - mean) / sqrt(var + epsilon) + B,
// per channel of X [N, C, D...]. Rewritten as Y = a * X + b with a = scale / sqrt(var + eps),
// b = B - mean * a, precomputed at build when the four parameters are constant.
//
// Opset < 9 has `spatial`: spatial = 0 gives parameters of shape [C, D...] (one per activation,
// not per channel). Both cases are "P parameter rows of `inner` contiguous elements":
// spatial = 1 → P = C, inner = prod(D); spatial = 0 → P = C * prod(D), inner = 1.
// training_mode = 1 (opset 14+) computes batch statistics: not supported (inference engine).
// On NC1HWC0 (4-D, spatial, constant parameters: batchnorm_supports_blocked) a and b are padded to
// C1·16 channels with zeros, so the padding channels come out zero (0·x + 0).
#include <cmath>
#include <string>

#include "blocked.h"
#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

class BatchNormKernel : public CpuKernel {
 public:
  explicit BatchNormKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    const Attributes& at = ctx.node.attrs;
    if (at.get_int("training_mode", 0) != 0)
      throw UnsupportedError("BatchNormalization: training_mode=1 not supported" + where);
    // Opsets before 14 list the training outputs (mean, var, saved_mean, saved_var) as optional;
    // an inference engine cannot produce them.
    for (size_t i = 1; i < ctx.node.num_outputs(); ++i) {
      const Value* v = ctx.node.output(i);
      if (v && (!v->uses().empty() || v->is_graph_output()))
        throw UnsupportedError("BatchNormalization: training outputs (output " + std::to_string(i) + ") not supported" + where);
    }
    require_f32(ctx, {0, 1, 2, 3, 4});
    blocked_ = is_blocked(ctx.node.input(0)) || is_blocked(ctx.node.output(0));
    if (blocked_ && !batchnorm_supports_blocked(ctx.node, ctx.opset))
      throw UnsupportedError("BatchNormalization: NC1HWC0 needs a 4-D float32 input and constant parameters" + where);
    if (blocked_ && ctx.node.input(0)->format != ctx.node.output(0)->format)
      throw UnsupportedError("BatchNormalization: input and output formats differ" + where);
    if (!blocked_) require_plain(ctx);
    for (size_t i = 1; i <= 4; ++i)
      if (!ctx.has_input(i)) throw InvalidGraphError("BatchNormalization: input " + std::to_string(i) + " missing" + where);
    eps_ = at.get_float("epsilon", 1e-5f);
    const Shape& xs = ctx.input_shape(0);
    if (xs.rank() < 2) throw InvalidGraphError("BatchNormalization: input rank " + std::to_string(xs.rank()) + " < 2" + where);
    const bool spatial = ctx.opset >= 9 || at.get_int("spatial", 1) != 0;
    N_ = xs[0];
    P_ = spatial ? xs[1] : xs.numel() / std::max<int64_t>(N_, 1);
    inner_ = N_ * P_ == 0 ? 0 : xs.numel() / (N_ * P_);
    for (size_t i = 1; i <= 4; ++i)
      if (ctx.input_shape(i).numel() != P_)
        throw InvalidGraphError("BatchNormalization: input " + std::to_string(i) + " has shape " + ctx.input_shape(i).str() +
                                ", expected " + std::to_string(P_) + " elements" + where);
    if (ctx.output_shape(0) != xs)
      throw InvalidGraphError("BatchNormalization: output shape " + ctx.output_shape(0).str() + " differs from input " + xs.str() + where);
    a_.resize(P_);
    b_.resize(P_);
    const float *s = const_f32(ctx, 1), *bb = const_f32(ctx, 2), *m = const_f32(ctx, 3), *v = const_f32(ctx, 4);
    folded_ = s && bb && m && v;
    if (folded_) fold(s, bb, m, v);
    if (blocked_) {
      hw_ = xs[2] * xs[3];
      c1_ = (P_ + kFormatC0 - 1) / kFormatC0;
      a_.resize(static_cast<size_t>(c1_ * kFormatC0), 0.f);
      b_.resize(static_cast<size_t>(c1_ * kFormatC0), 0.f);
    }
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    if (!folded_)
      fold(io.inputs[1].data_as<float>(), io.inputs[2].data_as<float>(), io.inputs[3].data_as<float>(),
           io.inputs[4].data_as<float>());
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const int64_t inner = inner_, P = P_;
    const float *a = a_.data(), *b = b_.data();
    if (blocked_) {
      const int64_t hw = hw_, c1 = c1_;
      parallel_for(N_ * c1, [&](int64_t blk) {
        const int64_t c = blk % c1 * kFormatC0;
        simd::affine_c0(y + blk * hw * kFormatC0, x + blk * hw * kFormatC0, a + c, b + c, hw);
      });
      return;
    }
    if (inner == 1) {
      // spatial = 0 or [N, C] input: one parameter per element of a row.
      parallel_for(N_, [&](int64_t n) { simd::affine_vec(y + n * P, x + n * P, a, b, P); });
      return;
    }
    parallel_for(N_ * P, [&](int64_t row) {
      const int64_t p = row % P;
      simd::affine(y + row * inner, x + row * inner, a[p], b[p], inner);
    });
  }
  std::string impl_name() const override { return "cpu:batchnorm"; }

 private:
  void fold(const float* s, const float* bb, const float* m, const float* v) {
    for (int64_t p = 0; p < P_; ++p) {
      // Double keeps the folded constants as close as possible to the reference formula.
      const double a = static_cast<double>(s[p]) / std::sqrt(static_cast<double>(v[p]) + static_cast<double>(eps_));
      a_[p] = static_cast<float>(a);
      b_[p] = static_cast<float>(static_cast<double>(bb[p]) - static_cast<double>(m[p]) * a);
    }
  }

  float eps_ = 1e-5f;
  int64_t N_ = 0, P_ = 0, inner_ = 0, hw_ = 0, c1_ = 0;
  bool folded_ = false, blocked_ = false;
  std::vector<float> a_, b_;
};

}  // namespace

bool batchnorm_supports_blocked(const Node& n, int64_t opset) {
  if (!n.domain().empty() || n.op_type() != "BatchNormalization" || n.num_inputs() < 5) return false;
  if (n.attrs.get_int("training_mode", 0) != 0 || (opset < 9 && n.attrs.get_int("spatial", 1) == 0)) return false;
  for (size_t i = 1; i < n.num_outputs(); ++i)
    if (n.output(i) && (!n.output(i)->uses().empty() || n.output(i)->is_graph_output())) return false;
  const Value *x = n.input(0), *y = n.output(0);
  if (!x || !y || x->shape.rank() != 4 || x->dtype != DataType::Float32 || !(y->shape == x->shape)) return false;
  for (size_t i = 1; i <= 4; ++i)
    if (!n.input(i) || !n.input(i)->data || n.input(i)->dtype != DataType::Float32 || n.input(i)->numel() != x->shape[1])
      return false;
  return true;
}

void register_norm_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "BatchNormalization",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<BatchNormKernel>(ctx);
                         },
                         ""});
}

}  // namespace ge::cpu
