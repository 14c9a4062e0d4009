// plugins/cpu_backend/conv_grouped_pointwise.cc — grouped 1×1 convolution on plain NCHW as a
// register-blocked GEMM per group (AVX-512).
//
// ONNX Conv (onnx/docs/Operators.md#Conv) with a 1×1 kernel, stride 1, no padding and group
// G > 1 with more than one input channel per group is, per image n and group g, a GEMM of
// (M/G) × (C/G) × (H·W):
//   Y[n, g·Mg + m, p] = B[g·Mg + m] + Σ_{c < Cg} W[g·Mg + m, c] · X[n, g·Cg + c, p]
// (Mg = M/G, Cg = C/G, p over the H·W pixels). oneDNN 2.6 has a blocked (nChw16c) kernel for a
// grouped convolution only when Cg and Mg are multiples of 16; otherwise — ShuffleNet v1's 34, 68
// and 136 channels per group — it runs the node as its gemm convolution (one sgemm per group and
// image with a K of 34..136, the post-ops a second pass over the output), 52–65 % of the machine's
// peak at one thread on ShuffleNet's. This kernel is the micro-kernel of Goto & van de Geijn
// ("Anatomy of High-Performance Matrix Multiplication", ACM TOMS 34(3), 2008), as BLIS writes it:
// a tile of R output channels × V·16 pixels lives in R·V AVX-512 registers (6 × 4 = 24 of 32);
// each step of the reduction over c loads V vectors of X's row c and broadcasts R packed weights;
// the bias, the residual Z and a Relu/LeakyRelu/Clip activation are applied on the registers
// before the one store. A pixel tile of X (Cg rows × 64 floats, ≤ 35 KB for Cg ≤ 136) stays in L1
// while every output-channel tile of its group passes over it.
//
// Used for such nodes on plain float32 NCHW with constant weights when the CPU has AVX-512
// (F, DQ, BW, VL: vec::has_avx512); make_grouped_pointwise_conv returns null otherwise and the
// caller keeps oneDNN's convolution. `cpu.conv_algorithm = "direct"` does not change it: this is a
// direct convolution too, and its sums run in the same order as the naive loop's (c ascending).
#include <immintrin.h>

#include <algorithm>
#include <string>
#include <vector>

#include "conv.h"
#include "cpu_backend.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {

// GCC 12 reports the _mm512_undefined_ps() inside its own _mm512_max_ps/_mm512_min_ps as "may be
// used uninitialized" (a false positive: the instruction writes every lane).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define GE_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))

constexpr int kRows = 6;  ///< output channels per register tile (R)
constexpr int kVecs = 4;  ///< 16-pixel vectors per register tile (V)
constexpr int kTilePixels = kVecs * 16;

/// The activation applied on the registers: none, max(x, 0) / LeakyRelu, or Clip.
enum class Act { None, Relu, Leaky, Clip };

struct Epilogue {
  const float* bias;  ///< Mg values of this group, or null
  const float* z;     ///< residual at the tile's first output (same layout as y), or null
  Act act;
  float alpha, beta;  ///< LeakyRelu slope; Clip bounds
};

/// One register tile: y[r·HW + v·16 + j] for r < R, v < V (the last vector's lanes limited by
/// `tail`) = epilogue(Σ_c w[c·R + r] · x[c·HW + v·16 + j]).
template <int R, int V>
GE_AVX512 void tile(const float* __restrict x, const float* __restrict w, float* __restrict y, int64_t cg, int64_t hw,
                    __mmask16 tail, const Epilogue& ep) {
  // Every loop over r and v is unrolled completely, so acc stays in registers (GCC keeps an
  // array in memory when any loop indexing it is not unrolled).
  __m512 acc[R][V];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  for (int64_t c = 0; c < cg; ++c) {
    const float* xr = x + c * hw;
    __m512 xv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V - 1; ++v) xv[v] = _mm512_loadu_ps(xr + 16 * v);
    xv[V - 1] = _mm512_maskz_loadu_ps(tail, xr + 16 * (V - 1));
    const float* wc = w + c * R;
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 wb = _mm512_set1_ps(wc[r]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(wb, xv[v], acc[r][v]);
    }
  }
  const __m512 zero = _mm512_setzero_ps(), alpha = _mm512_set1_ps(ep.alpha), beta = _mm512_set1_ps(ep.beta);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const __m512 b = ep.bias ? _mm512_set1_ps(ep.bias[r]) : zero;
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __mmask16 m = v == V - 1 ? tail : __mmask16(0xFFFF);
      __m512 a = _mm512_add_ps(acc[r][v], b);
      if (ep.z) a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(m, ep.z + r * hw + 16 * v));
      switch (ep.act) {
        case Act::Relu:  // max(0, a): a NaN stays NaN (max returns its second operand then)
          a = _mm512_max_ps(zero, a);
          break;
        case Act::Leaky:
          a = _mm512_mask_mul_ps(a, _mm512_cmp_ps_mask(a, zero, _CMP_LT_OQ), a, alpha);
          break;
        case Act::Clip:
          a = _mm512_min_ps(beta, _mm512_max_ps(alpha, a));
          break;
        case Act::None:
          break;
      }
      _mm512_mask_storeu_ps(y + r * hw + 16 * v, m, a);
    }
  }
}

using TileFn = void (*)(const float*, const float*, float*, int64_t, int64_t, __mmask16, const Epilogue&);

template <int R>
constexpr TileFn tile_for_vecs(int v) {
  return v == 1 ? tile<R, 1> : v == 2 ? tile<R, 2> : v == 3 ? tile<R, 3> : tile<R, 4>;
}
TileFn tile_fn(int rows, int vecs) {
  switch (rows) {
    case 1: return tile_for_vecs<1>(vecs);
    case 2: return tile_for_vecs<2>(vecs);
    case 3: return tile_for_vecs<3>(vecs);
    case 4: return tile_for_vecs<4>(vecs);
    case 5: return tile_for_vecs<5>(vecs);
    default: return tile_for_vecs<6>(vecs);
  }
}

class GroupedPointwiseConvKernel : public CpuKernel {
 public:
  GroupedPointwiseConvKernel(const KernelBuildContext& ctx, int64_t group, const float* w, const float* b,
                             const ConvPostOps& post)
      : CpuKernel(ctx) {
    const Shape& xs = ctx.input_shape(0);
    N_ = xs[0], C_ = xs[1], HW_ = xs[2] * xs[3], G_ = group;
    M_ = ctx.output_shape(0)[1];
    Cg_ = C_ / G_, Mg_ = M_ / G_;
    // Weights packed per group and output-channel tile: tile t of group g holds, for each input
    // channel c, its rows' W[g·Mg + t·R + r, c] side by side (the micro-kernel's broadcasts).
    tiles_ = (Mg_ + kRows - 1) / kRows;
    packed_.resize(static_cast<size_t>(M_ * Cg_));
    for (int64_t g = 0; g < G_; ++g)
      for (int64_t t = 0; t < tiles_; ++t) {
        const int64_t m0 = t * kRows, rows = std::min<int64_t>(kRows, Mg_ - m0);
        float* dst = packed_.data() + (g * Mg_ + m0) * Cg_;
        for (int64_t c = 0; c < Cg_; ++c)
          for (int64_t r = 0; r < rows; ++r) dst[c * rows + r] = w[(g * Mg_ + m0 + r) * Cg_ + c];
      }
    if (b) bias_.assign(b, b + M_);
    sum_ = post.sum;
    switch (post.eltwise) {
      case dnnl::algorithm::eltwise_relu:
        act_ = post.alpha == 0.f ? Act::Relu : Act::Leaky;
        alpha_ = post.alpha;
        break;
      case dnnl::algorithm::eltwise_clip:
        act_ = Act::Clip, alpha_ = post.alpha, beta_ = post.beta;
        break;
      default:
        act_ = Act::None;  // make_grouped_pointwise_conv wraps the kernel for the others
    }
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    const float* z = sum_ ? io.inputs[3].data_as<float>() : nullptr;
    float* y = io.outputs[0].data_as<float>();
    const int64_t pixel_tiles = (HW_ + kTilePixels - 1) / kTilePixels;
    // Work items (image, group, pixel tile, channel tile), channel tile fastest: a thread's
    // contiguous range walks the channel tiles of one pixel tile while its X stays in L1.
    const int64_t items = N_ * G_ * pixel_tiles * tiles_;
    parallel_range(items, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t t = i % tiles_, pt = i / tiles_ % pixel_tiles, g = i / (tiles_ * pixel_tiles) % G_,
                      n = i / (tiles_ * pixel_tiles * G_);
        const int64_t m0 = t * kRows, rows = std::min<int64_t>(kRows, Mg_ - m0);
        const int64_t p0 = pt * kTilePixels, pixels = std::min<int64_t>(kTilePixels, HW_ - p0);
        const int vecs = static_cast<int>((pixels + 15) / 16);
        const int last = static_cast<int>(pixels - 16 * (vecs - 1));
        const __mmask16 tail = static_cast<__mmask16>((1u << last) - 1);
        const int64_t out = (n * M_ + g * Mg_ + m0) * HW_ + p0;
        const Epilogue ep{bias_.empty() ? nullptr : bias_.data() + g * Mg_ + m0, z ? z + out : nullptr, act_, alpha_,
                          beta_};
        tile_fn(static_cast<int>(rows), vecs)(x + (n * C_ + g * Cg_) * HW_ + p0, packed_.data() + (g * Mg_ + m0) * Cg_,
                                              y + out, Cg_, HW_, tail, ep);
      }
    });
  }
  std::string impl_name() const override { return "cpu:conv_grouped_1x1_avx512"; }

 private:
  int64_t N_, C_, M_, G_, HW_, Cg_, Mg_, tiles_;
  std::vector<float> packed_, bias_;
  bool sum_ = false;
  Act act_ = Act::None;
  float alpha_ = 0.f, beta_ = 0.f;
};

}  // namespace

std::unique_ptr<Kernel> make_grouped_pointwise_conv(const KernelBuildContext& ctx, const Window& w, int64_t group,
                                                    bool has_bias, const ConvPostOps& post) {
  const Shape& xs = ctx.input_shape(0);
  const Shape& ws = ctx.input_shape(1);
  if (!vec::has_avx512() || xs.rank() != 4 || group <= 1 || ws[1] <= 1 || ws[2] != 1 || ws[3] != 1) return nullptr;
  for (size_t d = 0; d < 2; ++d)
    if (w.stride[d] != 1 || w.pad_begin[d] != 0 || w.pad_end[d] != 0) return nullptr;
  const float* wc = const_f32(ctx, 1);
  const float* bc = has_bias ? const_f32(ctx, 2) : nullptr;
  if (!wc || (has_bias && !bc) || xs.numel() == 0 || ctx.output_shape(0).numel() == 0) return nullptr;
  if (xs[2] * xs[3] > (int64_t{1} << 31)) return nullptr;
  const bool inline_act = post.eltwise == dnnl::algorithm::undef || post.eltwise == dnnl::algorithm::eltwise_relu ||
                          post.eltwise == dnnl::algorithm::eltwise_clip;
  if (inline_act) return std::make_unique<GroupedPointwiseConvKernel>(ctx, group, wc, bc, post);
  // Another activation: the sum on the registers, the activation as one pass after the kernel.
  ConvPostOps sum_only;
  sum_only.sum = post.sum;
  ConvPostOps act_only = post;
  act_only.sum = false;
  return apply_post_ops(std::make_unique<GroupedPointwiseConvKernel>(ctx, group, wc, bc, sum_only), ctx, act_only);
}

}  // namespace ge::cpu
