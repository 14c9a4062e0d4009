// plugins/cpu_backend/squeeze_excitation.cc — ge.SqueezeExcitation: the squeeze (a mean per
// channel) and excitation (two fully connected layers) of a squeeze-and-excitation block, Hu et
// al. 2018, eqs. 2–3, in one kernel:
//   m = mean_{H,W}(X)             X [N, C, H, W] (NCHW or NC1HWC0)
//   h = act(W1 · m + B1)          W1 [R, C, 1, 1], B1 [R]
//   S = gate(W2 · h + B2)         W2 [C2, R, 1, 1], B2 [C2]; S [N, C2, 1, 1] in X's format
// The block's final channel scaling (X · S, often with the gate: MobileNetV3's HardSigmoid) stays
// a separate elementwise kernel. Unfused, the block is a GlobalAveragePool and two 1×1
// convolutions on a 1×1 map — three kernels (three thread fork/joins) for a few microseconds of
// work; the matrices are read once here with AVX-512 dot products, the mean is the
// GlobalAveragePool kernel's loop (positions summed in order, then × 1/(H·W)).
#include <algorithm>
#include <string>
#include <vector>

#include "blocked.h"
#include "conv.h"
#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

#define GE_SE_SIMD __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

/// acc[c] = Σ_p xb[p·16 + c]: one NC1HWC0 channel block's sum over its hw positions, in order.
GE_SE_SIMD void block_sum(const float* __restrict xb, int64_t hw, float* __restrict acc) {
  for (int64_t c = 0; c < kFormatC0; ++c) acc[c] = 0.f;
  for (int64_t p = 0; p < hw; ++p)
    for (int64_t c = 0; c < kFormatC0; ++c) acc[c] += xb[p * kFormatC0 + c];
}

/// y[r] = bias[r] + Σ_c w[r·k + c] · x[c] for r in [r0, r1) (w row-major [rows, k]).
GE_SE_SIMD void gemv_rows(const float* __restrict w, const float* __restrict x, const float* __restrict bias,
                          float* __restrict y, int64_t k, int64_t r0, int64_t r1) {
  for (int64_t r = r0; r < r1; ++r) {
    const float* wr = w + r * k;
    float acc = 0.f;
#pragma omp simd reduction(+ : acc)
    for (int64_t c = 0; c < k; ++c) acc += wr[c] * x[c];
    y[r] = acc + (bias ? bias[r] : 0.f);
  }
}

class SqueezeExcitationKernel : public CpuKernel {
 public:
  explicit SqueezeExcitationKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    require_f32(ctx, {0, 1, 2, 3, 4});
    const Shape &xs = ctx.input_shape(0), &w1 = ctx.input_shape(1), &w2 = ctx.input_shape(3);
    if (xs.rank() != 4 || w1.rank() != 4 || w2.rank() != 4)
      throw InvalidGraphError("SqueezeExcitation: X, W1 and W2 must be 4-D" + where);
    N_ = xs[0], C_ = xs[1], hw_ = xs[2] * xs[3], R_ = w1[0], C2_ = w2[0];
    if (w1[1] != C_ || w2[1] != R_ || w1[2] * w1[3] != 1 || w2[2] * w2[3] != 1)
      throw InvalidGraphError("SqueezeExcitation: W1 " + w1.str() + " and W2 " + w2.str() +
                              " are not 1×1 maps C → R → C2 for X " + xs.str() + where);
    if (format_is_blocked(ctx.node.input(1)->format) || format_is_blocked(ctx.node.input(3)->format))
      throw UnsupportedError("SqueezeExcitation: W1 and W2 must be plain" + where);
    blocked_ = is_blocked(ctx.node.input(0));
    if (blocked_ != is_blocked(ctx.node.output(0)))
      throw UnsupportedError("SqueezeExcitation: X and S must have one format" + where);
    act_ = read_activation_post_op(ctx, "activation", "activation_params");
    gate_ = read_activation_post_op(ctx, "gate", "gate_params");
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    const float* w1 = io.inputs[1].data_as<float>();
    const float* b1 = io.inputs.size() > 2 && present(io.inputs[2]) ? io.inputs[2].data_as<float>() : nullptr;
    const float* w2 = io.inputs[3].data_as<float>();
    const float* b2 = io.inputs.size() > 4 && present(io.inputs[4]) ? io.inputs[4].data_as<float>() : nullptr;
    float* s = io.outputs[0].data_as<float>();
    m_.assign(static_cast<size_t>(N_ * C_), 0.f);
    h_.assign(static_cast<size_t>(R_), 0.f);
    e_.assign(static_cast<size_t>(C2_), 0.f);
    const float inv = hw_ ? 1.f / static_cast<float>(hw_) : 0.f;
    // Squeeze: threads only for a large X (each takes whole channel blocks of at least 64 Ki floats).
    if (blocked_) {
      const int64_t c1 = (C_ + kFormatC0 - 1) / kFormatC0;
      parallel_range(N_ * c1, std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(hw_ * kFormatC0, 1)),
                     [&](int64_t b0, int64_t b1e) {
                       for (int64_t b = b0; b < b1e; ++b) {
                         float acc[kFormatC0];
                         block_sum(x + b * hw_ * kFormatC0, hw_, acc);
                         const int64_t n = b / c1, cb = (b % c1) * kFormatC0;
                         for (int64_t c = 0; c < kFormatC0 && cb + c < C_; ++c) m_[n * C_ + cb + c] = acc[c] * inv;
                       }
                     });
    } else {
      parallel_range(N_ * C_, std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(hw_, 1)),
                     [&](int64_t b0, int64_t b1e) {
                       for (int64_t b = b0; b < b1e; ++b) m_[b] = simd::sum(x + b * hw_, hw_) * inv;
                     });
    }
    // Excitation, one image at a time: rows split over the threads only for large matrices.
    const int64_t row_chunk1 = std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(C_, 1));
    const int64_t row_chunk2 = std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(R_, 1));
    const int64_t c2_stride = blocked_ ? (C2_ + kFormatC0 - 1) / kFormatC0 * kFormatC0 : C2_;
    for (int64_t n = 0; n < N_; ++n) {
      parallel_range(R_, row_chunk1,
                     [&](int64_t r0, int64_t r1) { gemv_rows(w1, m_.data() + n * C_, b1, h_.data(), C_, r0, r1); });
      apply_post_ops_in_place(act_, h_.data(), nullptr, R_);
      parallel_range(C2_, row_chunk2,
                     [&](int64_t r0, int64_t r1) { gemv_rows(w2, h_.data(), b2, e_.data(), R_, r0, r1); });
      apply_post_ops_in_place(gate_, e_.data(), nullptr, C2_);
      float* sn = s + n * c2_stride;  // NC1HWC0 [N, C2/16, 1, 1, 16] is [N, C2 rounded up] with zero padding
      std::copy(e_.begin(), e_.end(), sn);
      std::fill(sn + C2_, sn + c2_stride, 0.f);
    }
  }
  std::string impl_name() const override {
    return blocked_ ? "cpu:squeeze_excitation:nc1hwc0" : "cpu:squeeze_excitation";
  }

 private:
  int64_t N_ = 0, C_ = 0, hw_ = 0, R_ = 0, C2_ = 0;
  bool blocked_ = false;
  ConvPostOps act_, gate_;
  std::vector<float> m_, h_, e_;
};

}  // namespace

bool squeeze_excitation_supports_blocked(const Node& n) {
  const Value* x = n.input(0);
  return n.domain() == "ge" && n.op_type() == "SqueezeExcitation" && x && x->shape.rank() == 4 &&
         x->dtype == DataType::Float32 && x->shape[1] >= kFormatC0;
}

void register_squeeze_excitation_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "ge", "SqueezeExcitation",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<SqueezeExcitationKernel>(ctx);
                         },
                         ""});
}

}  // namespace ge::cpu
