// The Cube's accumulation order: fp32 partial sums per 16-wide fractal of K, added to the
// accumulator fractal by fractal — a result that a plain running fp32 sum does not give.
#include <gtest/gtest.h>

#include <cmath>

#include "cube.h"

namespace ge::ascend {
namespace {

TEST(AscendCube, AccumulatesInFractalKOrder) {
  // K = 32: A row = [4096, 0 x 15, 1, 1, 0 x 14], B column = [4096, 0 x 15, 1, 1, 0 x 14].
  std::vector<float> a(32, 0.f), b(32, 0.f);
  a[0] = b[0] = 4096.f;  // product 2^24
  a[16] = a[17] = b[16] = b[17] = 1.f;
  // Cube: block 0 = 2^24, block 1 = 1 + 1 = 2 -> 2^24 + 2 (exact in fp32).
  EXPECT_EQ(gemm(a, b, {}, 1, 1, 32, 16)[0], 16777218.f);
  // AI CPU running sum: 2^24 + 1 rounds to 2^24 (tie to even), twice.
  EXPECT_EQ(gemm(a, b, {}, 1, 1, 32, 0)[0], 16777216.f);
}

TEST(AscendCube, SmallChannelConvsReduceInFractalZC04Order) {
  // 3 channels, 7×7: 4·49 = 196 taps padded to 208 (FRACTAL_Z: 16·49 = 784).
  const ConvKOrder k7(3, 1, 7, 7);
  EXPECT_TRUE(k7.c04);
  EXPECT_EQ(k7.K, 208);
  EXPECT_EQ(k7(0, 0, 0), 0);
  EXPECT_EQ(k7(2, 1, 3), (1 * 7 + 3) * 4 + 2);  // (kh, kw, c0): 42
  EXPECT_EQ(k7(2, 6, 6), 194);                   // last tap; 195 (c0 = 3) and 196..207 stay zero
  // 3 channels, 3×3: 36 padded to 48 (FRACTAL_Z: 144); 4 channels still C04, 1×1: 16.
  EXPECT_EQ(ConvKOrder(3, 1, 3, 3).K, 48);
  EXPECT_EQ(ConvKOrder(4, 1, 3, 3).K, 48);
  EXPECT_EQ(ConvKOrder(1, 1, 1, 1).K, 16);
  // 5 channels, or 3 channels per group of a grouped conv: FRACTAL_Z (c1, kh, kw, c0), C0 = 16.
  const ConvKOrder fz(5, 1, 3, 3), grouped(3, 2, 7, 7);
  EXPECT_FALSE(fz.c04);
  EXPECT_EQ(fz.K, 144);
  EXPECT_EQ(fz(4, 1, 2), (1 * 3 + 2) * 16 + 4);
  EXPECT_FALSE(grouped.c04);
  EXPECT_EQ(grouped.K, 784);
}

TEST(AscendCube, SmallChannelConvMatchesADoubleReference) {
  // C04 order, fp16-valued operands: only fp32 rounding separates it from a double reference.
  ConvGeometry g{2, 3, 11, 11, 6, 7, 7, 6, 6, 1, 2, 2, 1, 1, 3, 3};
  std::vector<float> x(2 * 3 * 121), w(6 * 3 * 49);
  uint32_t s = 5;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return static_cast<float>((s >> 9) % 2001) / 1000.f - 1.f; };
  for (float& v : x) v = rnd();
  for (float& v : w) v = rnd();
  const std::vector<float> y = conv2d(x, w, {}, g, true);
  double d = 0, n = 0;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t o = 0; o < 6; ++o)
      for (int64_t h = 0; h < 6; ++h)
        for (int64_t ww = 0; ww < 6; ++ww) {
          double ref = 0;
          for (int64_t c = 0; c < 3; ++c)
            for (int64_t kh = 0; kh < 7; ++kh)
              for (int64_t kw = 0; kw < 7; ++kw) {
                const int64_t ih = h * 2 - 3 + kh, iw = ww * 2 - 3 + kw;
                if (ih < 0 || ih >= 11 || iw < 0 || iw >= 11) continue;
                ref += static_cast<double>(x[((b * 3 + c) * 11 + ih) * 11 + iw]) * w[((o * 3 + c) * 7 + kh) * 7 + kw];
              }
          const double v = y[static_cast<size_t>(((b * 6 + o) * 6 + h) * 6 + ww)];
          d += (v - ref) * (v - ref), n += ref * ref;
        }
  EXPECT_GT(n, 0.0);
  EXPECT_LT(std::sqrt(d / n), 1e-6);
}

TEST(AscendCube, ConvMatchesADoubleReferenceWithFp16Operands) {
  // fp16-valued operands, fp32 accumulation: the Cube's result differs from a double-precision
  // reference only by fp32 rounding (relative L2 < 1e-6) — the fp16 error comes from rounding
  // operands and the result, not from the accumulation.
  ConvGeometry g{1, 19, 7, 7, 5, 3, 3, 7, 7, 1, 1, 1, 1, 1, 1, 1};
  std::vector<float> x(19 * 49), w(5 * 19 * 9), bias(5);
  uint32_t s = 1;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return static_cast<float>((s >> 9) % 2001) / 1000.f - 1.f; };
  for (float& v : x) v = rnd();
  for (float& v : w) v = rnd();
  for (float& v : bias) v = rnd();
  const std::vector<float> y = conv2d(x, w, bias, g, true), y0 = conv2d(x, w, bias, g, false);
  double d = 0, n = 0, d0 = 0;
  for (int64_t o = 0; o < 5; ++o)
    for (int64_t h = 0; h < 7; ++h)
      for (int64_t ww = 0; ww < 7; ++ww) {
        double ref = bias[o];
        for (int64_t c = 0; c < 19; ++c)
          for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
              const int64_t ih = h - 1 + kh, iw = ww - 1 + kw;
              if (ih < 0 || ih >= 7 || iw < 0 || iw >= 7) continue;
              ref += static_cast<double>(x[(c * 7 + ih) * 7 + iw]) * w[((o * 19 + c) * 3 + kh) * 3 + kw];
            }
        const size_t i = static_cast<size_t>((o * 7 + h) * 7 + ww);
        d += (y[i] - ref) * (y[i] - ref), d0 += (y0[i] - ref) * (y0[i] - ref), n += ref * ref;
      }
  EXPECT_LT(std::sqrt(d / n), 1e-6);
  EXPECT_LT(std::sqrt(d0 / n), 1e-6);
}

}  // namespace
}  // namespace ge::ascend
