// plugins/cpu_backend/fused_transformer_attention.cc — ge.Attention: softmax(scale · Q · Kt +
// mask) · V for every batch·head (Vaswani et al. 2017, eq. 1; ORT com.microsoft.Attention core).
//
// Q [.., S, d], Kt [.., d, S2], V [.., S2, dv]; batch dims (B, H) flattened to BH. Three steps:
//  1. scores = Q·Kt — one batched oneDNN matmul over BH;
//  2. per score row: · scale, + mask row (broadcast by strides), max, exp, sum, normalize — one pass
//     set over a row that stays in L1 (the unfused graph runs Div, Add and Softmax as three
//     full passes over BH·S·S2 floats);
//  3. Y = P·V — a second batched oneDNN matmul.
// The scores live in a scratch buffer owned by the kernel (BH·S·S2 floats: 256 KiB for
// bert_small), so nothing of the intermediate reaches the arena.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cpu_backend.h"
#include "kernels.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {

using dnnl::memory;
using dt = memory::data_type;

#define GE_TRF_SIMD __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

/// Below this exp(x) leaves float's normal range (e^-87.3 ~ FLT_MIN): 0, as an underflowing exp
/// gives. Clamping there instead would turn every masked score (BERT's additive -10000 mask,
/// GPT-2's finfo.min) into ~1.2e-38, which the normalization and P·V make subnormal — each an FP
/// assist on Intel cores (bert_small's attention ran 15x slower there than with zeros).
constexpr float kExpFlushBelow = -87.3f;

/// exp(x) for x <= 0 (softmax after subtracting the row max): Cephes expf — x = n ln2 + r,
/// |r| <= ln2/2, degree-6 polynomial for e^r, 2^n from the exponent bits. Relative error ~2e-7;
/// 0 below kExpFlushBelow.
/// Written branch-free so GCC vectorizes the loop that calls it.
inline float exp_nonpositive(float x) {
  const float x0 = x;
  x = std::max(x, -87.3f);
  const float n = std::nearbyint(x * 1.44269504088896341f);
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.f;
  const int32_t e = (static_cast<int32_t>(n) + 127) << 23;
  float two_n;
  std::memcpy(&two_n, &e, sizeof two_n);
  return x0 < kExpFlushBelow ? 0.f : p * two_n;
}

/// One softmax row in place: y = softmax(scale · y + mask) where mask has stride ms (0 = one
/// value). The scale is applied here, in the pass over a row already in L1, rather than as the
/// Q·Kt matmul's output scale: oneDNN 2.6 runs a matmul with output scales on its gemm-based
/// implementation instead of brgemm. With the AVX-512 softmax row (vecmath.h) bert_small's four
/// attention nodes 464 → 355 µs (1 thread).
GE_TRF_SIMD void masked_softmax_row(float* __restrict y, float scale, const float* __restrict mask, int64_t ms,
                                    int64_t n) {
  if (!mask && vec::softmax(y, y, n, scale)) return;  // the Softmax kernel's AVX-512 row
  if (scale != 1.f)
    for (int64_t i = 0; i < n; ++i) y[i] *= scale;
  if (mask) {
    if (ms == 0)
      for (int64_t i = 0; i < n; ++i) y[i] += mask[0];
    else
      for (int64_t i = 0; i < n; ++i) y[i] += mask[i];
  }
  if (vec::softmax(y, y, n)) return;  // same flush below -87.3 as the loop below
  float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
  for (int64_t i = 0; i < n; ++i) m = std::max(m, y[i]);
  float s = 0.f;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) {
    y[i] = exp_nonpositive(y[i] - m);
    s += y[i];
  }
  const float inv = 1.f / s;
  for (int64_t i = 0; i < n; ++i) y[i] *= inv;
}

class AttentionKernel : public CpuKernel {
 public:
  explicit AttentionKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    ThreadScope threads(threads_);
    require_f32(ctx, {0, 1, 2, 3});
    const std::string what = "Attention in " + who(ctx);
    const Shape &q = ctx.input_shape(0), &k = ctx.input_shape(1), &v = ctx.input_shape(2);
    const size_t r = q.rank();
    if (r < 3 || k.rank() != r || v.rank() != r) throw UnsupportedError(what + ": Q, Kt, V need one rank >= 3");
    S_ = q[r - 2], d_ = q[r - 1], S2_ = k[r - 1], dv_ = v[r - 1];
    BH_ = q.numel() / std::max<int64_t>(S_ * d_, 1);
    scale_ = ctx.node.attrs.get_float("scale", 1.f);
    // Mask strides over the scores' dims [batch.., S, S2], 0 where the mask broadcasts.
    if (ctx.has_input(3)) {
      std::vector<int64_t> md = ctx.input_shape(3).dims();
      md.insert(md.begin(), r - md.size(), 1);
      std::vector<int64_t> st = contiguous_strides(Shape(md));
      mask_strides_.resize(r);
      for (size_t i = 0; i < r; ++i) mask_strides_[i] = md[i] == 1 ? 0 : st[i];
      scores_dims_ = q.dims();
      scores_dims_[r - 1] = S2_;
    }
    empty_ = BH_ * S_ * S2_ == 0 || dv_ == 0;
    if (empty_) return;
    scores_.assign(static_cast<size_t>(BH_ * S_ * S2_), 0.f);
    q_md_ = memory::desc({BH_, S_, d_}, dt::f32, memory::format_tag::abc);
    k_md_ = memory::desc({BH_, d_, S2_}, dt::f32, memory::format_tag::abc);
    s_md_ = memory::desc({BH_, S_, S2_}, dt::f32, memory::format_tag::abc);
    v_md_ = memory::desc({BH_, S2_, dv_}, dt::f32, memory::format_tag::abc);
    y_md_ = memory::desc({BH_, S_, dv_}, dt::f32, memory::format_tag::abc);
    try {
      qk_pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(q_md_, k_md_, s_md_), dnnl_engine());
      pv_pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(s_md_, v_md_, y_md_), dnnl_engine());
      qk_ = dnnl::matmul(qk_pd_);
      pv_ = dnnl::matmul(pv_pd_);
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, what);
    }
  }

  void run(KernelIO& io) override {
    if (empty_) return;
    ThreadScope threads(threads_);
    dnnl::engine& eng = dnnl_engine();
    dnnl::stream& st = dnnl_stream();
    auto mem = [&](const memory::desc& md, const void* p) { return memory(md, eng, const_cast<void*>(p)); };
    try {
      qk_.execute(st, {{DNNL_ARG_SRC, mem(q_md_, io.inputs[0].data())},
                       {DNNL_ARG_WEIGHTS, mem(k_md_, io.inputs[1].data())},
                       {DNNL_ARG_DST, mem(s_md_, scores_.data())}});
      st.wait();
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "Attention (Q·Kt)");
    }
    const float* mask = present_input(io, 3) ? io.inputs[3].data_as<float>() : nullptr;
    const int64_t rows = BH_ * S_, n = S2_;
    const size_t r = scores_dims_.size();
    parallel_range(rows, 32, [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        const float* mrow = nullptr;
        int64_t ms = 0;
        if (mask) {  // offset of this row in the broadcast mask: walk the row index's digits
          int64_t off = 0, rem = row;
          for (size_t i = r - 1; i-- > 0;) {
            off += (rem % scores_dims_[i]) * mask_strides_[i];
            rem /= scores_dims_[i];
          }
          mrow = mask + off;
          ms = mask_strides_[r - 1];
        }
        masked_softmax_row(scores_.data() + row * n, scale_, mrow, ms, n);
      }
    });
    try {
      pv_.execute(st, {{DNNL_ARG_SRC, mem(s_md_, scores_.data())},
                       {DNNL_ARG_WEIGHTS, mem(v_md_, io.inputs[2].data())},
                       {DNNL_ARG_DST, mem(y_md_, io.outputs[0].data())}});
      st.wait();
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "Attention (P·V)");
    }
  }
  std::string impl_name() const override { return std::string("onednn:matmul+cpu:masked_softmax:") + qk_pd_.impl_info_str(); }

 private:
  static bool present_input(const KernelIO& io, size_t i) { return io.inputs.size() > i && io.inputs[i].data(); }
  int64_t BH_ = 0, S_ = 0, d_ = 0, S2_ = 0, dv_ = 0;
  float scale_ = 1.f;
  bool empty_ = false;
  std::vector<int64_t> mask_strides_, scores_dims_;
  std::vector<float> scores_;
  memory::desc q_md_, k_md_, s_md_, v_md_, y_md_;
  dnnl::matmul::primitive_desc qk_pd_, pv_pd_;
  dnnl::matmul qk_, pv_;
};

}  // namespace

void register_fused_attention_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "ge", "Attention",
                         onednn_factory([](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<AttentionKernel>(ctx);
                         }),
                         ""});
}

}  // namespace ge::cpu
