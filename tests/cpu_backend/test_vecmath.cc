// The float32 vector math of the cpu backend (plugins/cpu_backend/vecmath.h) against libm in
// double precision, over a dense sweep and the special values. Bounds: what the algorithms
// documented in vecmath.cc reach, with margin — a change of approximation that loses accuracy
// fails here. Runs the AVX-512 bodies where the CPU has them, the <cmath> fallback otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "vecmath.h"

namespace ge::test {
namespace {

using Fn = void (*)(const float*, float*, int64_t);

struct Error {
  double abs = 0, rel = 0;
};

/// Largest absolute error, and relative error where |ref| > 1e-30, of f over [lo, hi] in n steps.
Error sweep(Fn f, double (*ref)(double), double lo, double hi, int n) {
  std::vector<float> x(static_cast<size_t>(n)), y(x.size());
  for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>(lo + (hi - lo) * i / (n - 1));
  f(x.data(), y.data(), n);
  Error e;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = ref(x[i]), d = std::abs(static_cast<double>(y[i]) - r);
    e.abs = std::max(e.abs, d);
    if (std::abs(r) > 1e-30) e.rel = std::max(e.rel, d / std::abs(r));
  }
  return e;
}

std::vector<float> apply(Fn f, std::vector<float> x) {
  std::vector<float> y(x.size());
  f(x.data(), y.data(), static_cast<int64_t>(x.size()));
  return y;
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(VecMath, ErfAgainstLibm) {
  // MLAS's erf is faithfully rounded: within one float ulp (2^-23 ≈ 1.2e-7 relative).
  const Error near0 = sweep(cpu::vec::erf, [](double v) { return std::erf(v); }, -1e-3, 1e-3, 20001);
  EXPECT_LT(near0.rel, 1.5e-7);
  const Error wide = sweep(cpu::vec::erf, [](double v) { return std::erf(v); }, -6, 6, 200001);
  EXPECT_LT(wide.rel, 1.5e-7);
  EXPECT_LT(wide.abs, 1.2e-7);
  const auto y = apply(cpu::vec::erf, {0.0f, -0.0f, 4.0f, -4.0f, 10.0f, kInf, -kInf, kNaN});
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_TRUE(std::signbit(y[1]));
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], -1.0f);
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_EQ(y[5], 1.0f);
  EXPECT_EQ(y[6], -1.0f);
  EXPECT_TRUE(std::isnan(y[7]));
}

TEST(VecMath, TanhAgainstLibm) {
  const Error near0 = sweep(cpu::vec::tanh, [](double v) { return std::tanh(v); }, -1e-3, 1e-3, 20001);
  EXPECT_LT(near0.rel, 3e-7);
  const Error wide = sweep(cpu::vec::tanh, [](double v) { return std::tanh(v); }, -12, 12, 200001);
  EXPECT_LT(wide.rel, 5e-7);  // "a couple of ulp" (Eigen's comment on the rational)
  const auto y = apply(cpu::vec::tanh, {0.0f, -0.0f, 10.0f, 100.0f, -100.0f, kInf, -kInf, kNaN});
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_TRUE(std::signbit(y[1]));
  EXPECT_EQ(y[2], 1.0f);  // tanh(x) rounds to 1 in float from x ≈ 9.01 on
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_EQ(y[4], -1.0f);
  EXPECT_EQ(y[5], 1.0f);
  EXPECT_EQ(y[6], -1.0f);
  EXPECT_TRUE(std::isnan(y[7]));
}

TEST(VecMath, ExpLogSigmoidAgainstLibm) {
  EXPECT_LT(sweep(cpu::vec::exp, [](double v) { return std::exp(v); }, -80, 80, 200001).rel, 3e-7);
  EXPECT_LT(sweep(cpu::vec::log, [](double v) { return std::log(v); }, 1e-6, 1e6, 200001).rel, 3e-7);
  EXPECT_LT(sweep(cpu::vec::sigmoid, [](double v) { return 1 / (1 + std::exp(-v)); }, -80, 80, 200001).rel, 3e-7);
  const auto e = apply(cpu::vec::exp, {0.0f, -kInf, kInf, kNaN, 200.0f, -200.0f});
  EXPECT_EQ(e[0], 1.0f);
  EXPECT_EQ(e[1], 0.0f);
  EXPECT_EQ(e[2], kInf);
  EXPECT_TRUE(std::isnan(e[3]));
  EXPECT_EQ(e[4], kInf);
  EXPECT_EQ(e[5], 0.0f);
}

// softmax over one row, every length from 1 to 40 (each tail mask) and ViT's 197, against a
// double-precision softmax; shifted values below -87.3 give 0 (not a subnormal); a NaN spreads
// through the row; in place (y = x) gives the same, and a scale the same as scaling x first. Skipped without AVX-512 (false returned).
TEST(VecMath, SoftmaxRowsAgainstDouble) {
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 40; ++n) lengths.push_back(n);
  lengths.push_back(197);
  uint32_t state = 7;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f * 20.0f - 10.0f;  // [-10, 10)
  };
  for (const int64_t n : lengths) {
    std::vector<float> x(static_cast<size_t>(n)), y(x.size());
    for (float& v : x) v = next();
    if (!cpu::vec::softmax(x.data(), y.data(), n)) GTEST_SKIP() << "no AVX-512";
    double m = -INFINITY, sum = 0;
    for (float v : x) m = std::max(m, static_cast<double>(v));
    for (float v : x) sum += std::exp(v - m);
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_NEAR(y[i], std::exp(x[i] - m) / sum, 1e-6 * std::exp(x[i] - m) / sum + 1e-12) << "n=" << n << " i=" << i;
    std::vector<float> z = x;
    cpu::vec::softmax(z.data(), z.data(), n);
    EXPECT_EQ(z, y) << "in place, n=" << n;
    // scale · x (attention's 1/√d): the same as scaling first.
    std::vector<float> scaled = x, ys(x.size()), yx(x.size());
    for (float& v : scaled) v *= 0.125f;
    cpu::vec::softmax(x.data(), ys.data(), n, 0.125f);
    cpu::vec::softmax(scaled.data(), yx.data(), n);
    EXPECT_EQ(ys, yx) << "scale, n=" << n;
  }
  std::vector<float> x = {0.0f, -86.0f, -88.0f, -100.0f, -kInf, 1.0f, 0.5f}, y(x.size());  // max 1
  ASSERT_TRUE(cpu::vec::softmax(x.data(), y.data(), 7));
  EXPECT_GT(y[1], 0.0f);  // e^-87 below the row max: kept
  EXPECT_EQ(y[2], 0.0f);  // e^-89: below -87.3, 0 rather than a subnormal
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 0.0f);
  x[3] = kNaN;
  ASSERT_TRUE(cpu::vec::softmax(x.data(), y.data(), 7));
  for (float v : y) EXPECT_TRUE(std::isnan(v));
}

TEST(VecMath, Transpose32EveryBlockSize) {
  // Every ni x nj from 1x1 to 16x16, strides wider than the block; words outside the block are
  // never written (a sentinel survives) and inside it out[i][j] = in[j][i].
  constexpr int64_t kIn = 21, kOut = 19;
  std::vector<uint32_t> in(16 * kIn);
  for (size_t k = 0; k < in.size(); ++k) in[k] = static_cast<uint32_t>(k * 2654435761u);
  for (int ni = 1; ni <= 16; ++ni)
    for (int nj = 1; nj <= 16; ++nj) {
      std::vector<uint32_t> out(16 * kOut, 0xDEADBEEFu);
      if (!cpu::vec::transpose32(in.data(), kIn, out.data(), kOut, ni, nj)) GTEST_SKIP() << "no AVX-512";
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < kOut; ++j) {
          const uint32_t want = i < ni && j < nj ? in[static_cast<size_t>(j * kIn + i)] : 0xDEADBEEFu;
          ASSERT_EQ(out[static_cast<size_t>(i * kOut + j)], want) << ni << "x" << nj << " at " << i << "," << j;
        }
    }
  std::vector<uint32_t> out(16);
  EXPECT_FALSE(cpu::vec::transpose32(in.data(), kIn, out.data(), 16, 17, 1));  // past a block
  EXPECT_FALSE(cpu::vec::transpose32(in.data(), kIn, out.data(), 16, 1, 0));
}

}  // namespace
}  // namespace ge::test
