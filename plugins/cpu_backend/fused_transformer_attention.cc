// plugins/cpu_backend/fused_transformer_attention.cc — ge.Attention: softmax(scale · Q · Kt +
// mask) · V for every batch·head (Vaswani et al. 2017, eq. 1; ORT com.microsoft.Attention core).
//
// Q [.., S, d], Kt [.., d, S2], V [.., S2, dv]; batch dims (B, H) flattened to BH. Per head:
//  1. scores = Q·Kt (oneDNN matmul);
//  2. per score row: · scale, + mask row, fill where the condition row says so (both broadcast by
//     strides), max, exp, sum, normalize — one pass set over a row that stays in L1 (the unfused
//     graph runs Div, Add or Where, and Softmax as three full passes over BH·S·S2 floats);
//  3. Y = P·V (oneDNN matmul).
// When the heads split evenly over the threads they are the parallel loop, as in ORT's attention
// kernels (onnxruntime/contrib_ops/cpu/bert/attention_cpu_base.h): each thread runs
// single-threaded matmuls on one head at a time, so its S·S2 scores stay in its L2 between the
// three steps (ViT-B's 197 × 197 head: 152 KiB, where all twelve heads' 1.8 MiB go to L3 and
// back), and the node is one parallel region instead of three. Otherwise (one long sequence, or
// small heads at one thread) each step is one batched matmul over BH, and the rows of step 2 are
// split over the threads. The scores live in a scratch buffer owned by the kernel, so nothing of
// the intermediate reaches the arena.
#include <omp.h>
#include <unistd.h>

#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
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

/// The L2 of one core in bytes (sysconf; 1 MiB when the system does not say).
int64_t l2_bytes() {
  static const int64_t b = [] {
    const long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return v > 0 ? static_cast<int64_t>(v) : int64_t{1} << 20;
  }();
  return b;
}

/// Where the fill condition `cond` (stride cs, 0 = one value) equals fill_if, y = fill.
GE_TRF_SIMD void fill_row(float* __restrict y, const bool* __restrict cond, int64_t cs, bool fill_if, float fill,
                          int64_t n) {
  if (cs == 0) {
    if (cond[0] == fill_if)
      for (int64_t i = 0; i < n; ++i) y[i] = fill;
    return;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = cond[i] == fill_if ? fill : y[i];
}

/// One softmax row in place: y = softmax(scale · y + mask) where mask has stride ms (0 = one
/// value), with y = fill where cond == fill_if after the mask (cond null: none). The scale is
/// applied here, in the pass over a row already in L1, rather than as the Q·Kt matmul's output
/// scale: oneDNN 2.6 runs a matmul with output scales on its gemm-based implementation instead of
/// brgemm. With the AVX-512 softmax row (vecmath.h) bert_small's four attention nodes 464 → 355 µs
/// (1 thread).
GE_TRF_SIMD void masked_softmax_row(float* __restrict y, float scale, const float* __restrict mask, int64_t ms,
                                    const bool* __restrict cond, int64_t cs, bool fill_if, float fill, int64_t n) {
  if (!mask && !cond && vec::softmax(y, y, n, scale)) return;  // the Softmax kernel's AVX-512 row
  if (scale != 1.f)
    for (int64_t i = 0; i < n; ++i) y[i] *= scale;
  if (mask) {
    if (ms == 0)
      for (int64_t i = 0; i < n; ++i) y[i] += mask[0];
    else
      for (int64_t i = 0; i < n; ++i) y[i] += mask[i];
  }
  if (cond) fill_row(y, cond, cs, fill_if, fill, n);
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
    fill_ = ctx.node.attrs.get_float("fill", 0.f);
    fill_if_ = ctx.node.attrs.get_int("fill_if", 1) != 0;
    // Mask and condition strides over the scores' dims [batch.., S, S2], 0 where they broadcast.
    scores_dims_ = q.dims();
    scores_dims_[r - 1] = S2_;
    if (ctx.has_input(3)) mask_strides_ = broadcast_strides(ctx.input_shape(3), r);
    if (ctx.has_input(4)) {
      if (ctx.input_type(4) != DataType::Bool) throw UnsupportedError(what + ": the fill condition must be bool");
      cond_strides_ = broadcast_strides(ctx.input_shape(4), r);
    }
    empty_ = BH_ * S_ * S2_ == 0 || dv_ == 0;
    if (empty_) return;
    // Per head when the heads split evenly over the threads (or are many: the last round's
    // imbalance is small), and at one thread when all heads' scores would not stay in half the L2
    // (ViT-B's 1.8 MiB); else batched, which saves the per-call overhead of 2·BH small matmuls
    // (bert_small, 4 heads of 128 × 128: 90 against 94 µs per node at one thread).
    const int64_t scores_bytes = BH_ * S_ * S2_ * static_cast<int64_t>(sizeof(float));
    per_head_ = threads_ > 1 ? BH_ % threads_ == 0 || BH_ >= 4 * threads_ : scores_bytes > l2_bytes() / 2;
    try {
      // Per head: 2-D matmuls built for one thread, the count they run with — inside the parallel
      // loop over heads oneDNN's OpenMP runtime runs a primitive on the calling thread alone, so
      // their blocking is chosen for that — with a user scratchpad, each thread's own: the
      // library's belongs to the building thread, and two threads sharing it gave wrong results.
      // Batched: 3-D over BH on all the kernel's threads, the library's scratchpad.
      std::optional<ThreadScope> one;
      dnnl::primitive_attr attr;
      if (per_head_) {
        one.emplace(1);
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      }
      auto md = [&](int64_t rows, int64_t cols) {
        return per_head_ ? memory::desc({rows, cols}, dt::f32, memory::format_tag::ab)
                         : memory::desc({BH_, rows, cols}, dt::f32, memory::format_tag::abc);
      };
      q_md_ = md(S_, d_), k_md_ = md(d_, S2_), s_md_ = md(S_, S2_), v_md_ = md(S2_, dv_), y_md_ = md(S_, dv_);
      qk_pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(q_md_, k_md_, s_md_), attr, dnnl_engine());
      pv_pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(s_md_, v_md_, y_md_), attr, dnnl_engine());
      qk_ = dnnl::matmul(qk_pd_);
      pv_ = dnnl::matmul(pv_pd_);
      if (per_head_) qk_scratch_ = qk_pd_.scratchpad_desc(), pv_scratch_ = pv_pd_.scratchpad_desc();
      scores_.assign(static_cast<size_t>((per_head_ ? threads_ : BH_) * S_ * S2_), 0.f);
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, what);
    }
  }

  void run(KernelIO& io) override {
    if (empty_) return;
    ThreadScope threads(threads_);
    const float* q = io.inputs[0].data_as<float>();
    const float* kt = io.inputs[1].data_as<float>();
    const float* v = io.inputs[2].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const float* mask = present_input(io, 3) ? io.inputs[3].data_as<float>() : nullptr;
    const bool* cond = present_input(io, 4) ? io.inputs[4].data_as<bool>() : nullptr;
    if (per_head_) {
      // No exception may leave the OpenMP region: the first one is kept and rethrown after it.
      std::exception_ptr failed;
      parallel_for(BH_, [&](int64_t h) {
        float* sc = scores_.data() + static_cast<size_t>(omp_get_thread_num()) * S_ * S2_;
        try {
          matmul(qk_, q_md_, q + h * S_ * d_, k_md_, kt + h * d_ * S2_, s_md_, sc, &qk_scratch_);
          softmax_rows(sc, h * S_, S_, mask, cond);
          matmul(pv_, s_md_, sc, v_md_, v + h * S2_ * dv_, y_md_, y + h * S_ * dv_, &pv_scratch_);
        } catch (...) {
#pragma omp critical(ge_attention_error)
          if (!failed) failed = std::current_exception();
        }
      });
      if (failed) try {
          std::rethrow_exception(failed);
        } catch (const dnnl::error& e) {
          rethrow_dnnl(e, "Attention (per head)");
        }
      return;
    }
    try {
      matmul(qk_, q_md_, q, k_md_, kt, s_md_, scores_.data());
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "Attention (Q·Kt)");
    }
    parallel_range(BH_ * S_, 32,
                   [&](int64_t b, int64_t e) { softmax_rows(scores_.data() + b * S2_, b, e - b, mask, cond); });
    try {
      matmul(pv_, s_md_, scores_.data(), v_md_, v, y_md_, y);
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "Attention (P·V)");
    }
  }
  std::string impl_name() const override {
    return std::string(per_head_ ? "onednn:matmul+cpu:masked_softmax:per_head:" : "onednn:matmul+cpu:masked_softmax:") +
           qk_pd_.impl_info_str();
  }

 private:
  static bool present_input(const KernelIO& io, size_t i) { return io.inputs.size() > i && io.inputs[i].data(); }

  /// dst = src · weights on the calling thread's stream (and its scratchpad, when the primitive
  /// has a user one: `scratch`).
  static void matmul(const dnnl::matmul& p, const memory::desc& a_md, const float* a, const memory::desc& b_md,
                     const float* b, const memory::desc& c_md, float* c, const memory::desc* scratch = nullptr) {
    dnnl::engine& eng = dnnl_engine();
    dnnl::stream& st = dnnl_stream();
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(a_md, eng, const_cast<float*>(a))},
                                         {DNNL_ARG_WEIGHTS, memory(b_md, eng, const_cast<float*>(b))},
                                         {DNNL_ARG_DST, memory(c_md, eng, c)}};
    if (scratch) args.emplace(DNNL_ARG_SCRATCHPAD, memory(*scratch, eng, thread_scratchpad(scratch->get_size())));
    p.execute(st, args);
    st.wait();
  }

  /// Strides of a tensor of shape `m` broadcast to the scores' rank r: 0 along its size-1 dims.
  static std::vector<int64_t> broadcast_strides(const Shape& m, size_t r) {
    std::vector<int64_t> md = m.dims();
    md.insert(md.begin(), r - md.size(), 1);
    std::vector<int64_t> st = contiguous_strides(Shape(md));
    for (size_t i = 0; i < r; ++i)
      if (md[i] == 1) st[i] = 0;
    return st;
  }
  /// Offset of score row `row` (of the flattened [BH·S] rows) in a broadcast tensor: walk the row
  /// index's digits.
  int64_t row_offset(const std::vector<int64_t>& strides, int64_t row) const {
    int64_t off = 0;
    for (size_t k = scores_dims_.size() - 1; k-- > 0;) {
      off += (row % scores_dims_[k]) * strides[k];
      row /= scores_dims_[k];
    }
    return off;
  }

  /// Softmax of `rows` score rows of S2_ floats at `sc`, the first being row `row0` of the
  /// flattened [BH·S] scores (which picks its mask and condition rows). In blocks of 16 rows, the
  /// even rows first, then the odd: rows done in place one after the other share a cache line at
  /// each row boundary when S2 is not a multiple of 16, and the next row's first (masked) load
  /// then waits for the previous row's last masked store to retire — a ViT's 2364 rows of 197
  /// took 177 µs in order against 124 this way (the Softmax kernel, out of place, 124).
  void softmax_rows(float* sc, int64_t row0, int64_t rows, const float* mask, const bool* cond) const {
    constexpr int64_t kBlock = 16;
    for (int64_t k = 0; k < rows; ++k) {
      const int64_t b = k / kBlock * kBlock, nb = std::min(kBlock, rows - b), j = k - b, half = (nb + 1) / 2;
      const int64_t i = b + (j < half ? 2 * j : 2 * (j - half) + 1);
      const float* mrow = mask ? mask + row_offset(mask_strides_, row0 + i) : nullptr;
      const bool* crow = cond ? cond + row_offset(cond_strides_, row0 + i) : nullptr;
      masked_softmax_row(sc + i * S2_, scale_, mrow, mask ? mask_strides_.back() : 0, crow,
                         cond ? cond_strides_.back() : 0, fill_if_, fill_, S2_);
    }
  }

  int64_t BH_ = 0, S_ = 0, d_ = 0, S2_ = 0, dv_ = 0;
  float scale_ = 1.f, fill_ = 0.f;
  bool empty_ = false, per_head_ = false, fill_if_ = true;
  std::vector<int64_t> mask_strides_, cond_strides_, scores_dims_;
  std::vector<float> scores_;
  memory::desc q_md_, k_md_, s_md_, v_md_, y_md_, qk_scratch_, pv_scratch_;
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
