// plugins/ascend_backend/conv_c04.cc — small-channel convolutions read from C04 storage
// (conv_c04.h).
#include "conv_c04.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "ge/sdk/error.h"

namespace ge::ascend {
namespace {

/// The stored elements of t (padding included, storage order) as float32; fp16 widened exactly.
std::vector<float> storage_floats(const Tensor& t, const std::string& who) {
  const size_t n = static_cast<size_t>(t.storage_numel());
  std::vector<float> out(n);
  if (t.dtype() == DataType::Float16) {
    const uint16_t* h = t.data_as<uint16_t>();
    for (size_t i = 0; i < n; ++i) out[i] = half_to_float(h[i]);
  } else if (t.dtype() == DataType::Float32) {
    if (n) std::memcpy(out.data(), t.data(), n * sizeof(float));
  } else {
    throw UnsupportedError("ascend: C04 operand of dtype " + std::string(dtype_name(t.dtype())) + " in " + who);
  }
  return out;
}

}  // namespace

bool reads_c04(Format x, Format w, const ConvGeometry& g) {
  return x == Format::NC1HWC0_C04 && w == Format::FRACTAL_Z_C04 && ConvKOrder(g.C / g.group, g.group, g.Kh, g.Kw).c04;
}

std::vector<float> conv2d_tiled_c04(const Tensor& x, const Tensor& w, const std::vector<float>& bias, const ConvGeometry& g,
                                    const CubeTiling& t, const std::string& who) {
  constexpr int64_t c0 = kFormatC04, f = kFormatC0;  // C04 pixel block; fractal side
  const ConvKOrder kidx(g.C, g.group, g.Kh, g.Kw);
  if (!reads_c04(x.format(), w.format(), g))
    throw Error("ascend: " + who + ": conv2d_tiled_c04 needs NC1HWC0_C04 / FRACTAL_Z_C04 operands of a group-1 convolution with C <= 4");
  const int64_t K = kidx.K, O = g.O, S = g.OH * g.OW, M = g.N * S;
  const std::vector<int64_t> wd = format_storage_dims(w.shape().dims(), w.format());
  if (wd.size() != 4 || wd[0] * f != K)
    throw Error("ascend: " + who + ": FRACTAL_Z_C04 weights of " + std::to_string(wd.empty() ? 0 : wd[0]) +
                " K fractals for the Cube's K " + std::to_string(K));
  if (t.batch != 1 || t.M != M || t.N != O || t.K != K)
    throw Error("ascend: " + who + ": the tiling's problem (batch " + std::to_string(t.batch) + ", M " + std::to_string(t.M) + ", N " +
                std::to_string(t.N) + ", K " + std::to_string(t.K) + ") is not this convolution's");
  const std::vector<float> xs = storage_floats(x, who), ws = storage_floats(w, who);
  // B (K × O): the fractals as stored, [K1, N1, N0 = o%16, 16 = k%16].
  const int64_t N1 = wd[1];
  std::vector<float> B(static_cast<size_t>(K * O));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t o = 0; o < O; ++o) B[k * O + o] = ws[((k / f * N1 + o / f) * f + o % f) * f + k % f];
  // A (M × K): per output pixel and in-bounds tap, the input pixel's 4 stored channels (C1 = 1;
  // the padding channels are stored zeros) at k = (kh·Kw + kw)·4.
  std::vector<float> A(static_cast<size_t>(M * K), 0.f);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oh = 0; oh < g.OH; ++oh)
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        float* row = A.data() + (n * S + oh * g.OW + ow) * K;
        for_each_input_tap(g, oh, ow, [&](int64_t kh, int64_t kw, int64_t ih, int64_t iw) {
          const float* px = xs.data() + ((n * g.H + ih) * g.W + iw) * c0;
          std::copy(px, px + c0, row + kidx(0, kh, kw));
        });
      }
  std::vector<float> init(static_cast<size_t>(O));
  for (int64_t o = 0; o < O; ++o) init[o] = bias.empty() ? 0.f : bias[o];
  std::vector<float> C(static_cast<size_t>(M * O));
  cube_batch_tiles(A.data(), B.data(), init.data(), C.data(), t, 0);
  std::vector<float> y(static_cast<size_t>(g.N * O * S));
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t s = 0; s < S; ++s)
      for (int64_t o = 0; o < O; ++o) y[(n * O + o) * S + s] = C[(n * S + s) * O + o];
  return y;
}

}  // namespace ge::ascend
