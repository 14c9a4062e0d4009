// ReduceMean and Softmax/LogSoftmax tests (onnx/docs/Operators.md#ReduceMean, #Softmax;
// ONNX's documented examples where they exist).
// test_util.h first: it brings ge/sdk/error.h, which kernel_harness.h uses without including.
#include "test_util.h"
#include "kernel_harness.h"
#include "kernels.h"
#include "cpu_backend.h"

namespace ge::test {
namespace {

Tensor run1(const std::string& op, const Tensor& x, Shape out, Attributes a, int64_t opset = 13) {
  KernelHarness h(cpu::register_reduce_kernels);
  return h.run(op, {x}, {OutSpec{DataType::Float32, out}}, a, opset)[0];
}

// test_reduce_mean_*_example data: shape [3, 2, 2]
Tensor example() { return f32({3, 2, 2}, {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2}); }

TEST(ReduceMean, KeepDimsAxis1) {  // test_reduce_mean_keepdims_example
  expect_near(run1("ReduceMean", example(), {3, 1, 2}, attrs({{"axes", Ints{1}}})), {12.5f, 1.5f, 35, 1.5f, 57.5f, 1.5f});
}

TEST(ReduceMean, NoKeepDimsNegativeAxis) {
  expect_near(run1("ReduceMean", example(), {3, 2}, attrs({{"axes", Ints{-1}}, {"keepdims", int64_t{0}}})),
              {3, 11, 15.5f, 21, 28, 31});
}

TEST(ReduceMean, DefaultAxes) {  // test_reduce_mean_default_axes_keepdims_example
  expect_near(run1("ReduceMean", example(), {1, 1, 1}, attrs({})), {18.25f});
}

TEST(ReduceMean, InterleavedAxes) {
  // axes 0 and 2 (not adjacent): mean over the outer and inner axis for each middle index.
  // middle 0: {5,1,30,1,55,1} → 93/6 = 15.5; middle 1: {20,2,40,2,60,2} → 126/6 = 21
  expect_near(run1("ReduceMean", example(), {2}, attrs({{"axes", Ints{0, 2}}, {"keepdims", int64_t{0}}})), {15.5f, 21});
}

TEST(ReduceMean, OuterAxis) {
  // axis 0: element-wise mean of the three [2,2] slices.
  expect_near(run1("ReduceMean", example(), {1, 2, 2}, attrs({{"axes", Ints{0}}})), {30, 1, 40, 2});
}

// x [2, 2, 2]: rows [1 2], [3 5], [0 0], [1 -1]
Tensor cube() { return f32({2, 2, 2}, {1, 2, 3, 5, 0, 0, 1, -1}); }
float e(float v) { return std::exp(v); }

TEST(Softmax, Opset13LastAxis) {
  Tensor y = run1("Softmax", cube(), {2, 2, 2}, attrs({}), 13);
  float a = e(1) / (e(1) + e(2)), b = e(3) / (e(3) + e(5)), c = e(1) / (e(1) + e(-1));
  expect_near(y, {a, 1 - a, b, 1 - b, 0.5f, 0.5f, c, 1 - c});
}

TEST(Softmax, Opset13MiddleAxis) {
  // axis 1: normalize pairs (x[n,0,k], x[n,1,k]).
  Tensor y = run1("Softmax", cube(), {2, 2, 2}, attrs({{"axis", int64_t{1}}}), 13);
  float p = e(1) / (e(1) + e(3)), q = e(2) / (e(2) + e(5)), r = e(0) / (e(0) + e(1)), s = e(0) / (e(0) + e(-1));
  expect_near(y, {p, q, 1 - p, 1 - q, r, s, 1 - r, 1 - s});
}

TEST(Softmax, Opset11AxisOneFlattensTrailingDims) {
  // opset 11, axis 1: each batch row of 4 values is normalized as one vector.
  Tensor y = run1("Softmax", cube(), {2, 2, 2}, attrs({{"axis", int64_t{1}}}), 11);
  float z0 = e(1) + e(2) + e(3) + e(5), z1 = e(0) + e(0) + e(1) + e(-1);
  expect_near(y, {e(1) / z0, e(2) / z0, e(3) / z0, e(5) / z0, 1 / z1, 1 / z1, e(1) / z1, e(-1) / z1});
}

TEST(Softmax, MaskedScoresAreExactZerosNotSubnormals) {
  // An additive attention mask (-10000, or finfo.min) puts scores 87.3 or more below the row max:
  // e^(x - m) underflows there, so the probability is 0 — not the 1.2e-38 a clamped exp gives,
  // which the normalization makes subnormal (slow in every later multiply on Intel cores).
  // 32 elements: the vector loop as well as the tail.
  std::vector<float> x(33, -10000.f);
  x[0] = 0.f, x[1] = 0.f, x[32] = -3.4e38f, x[31] = -87.2f;
  Tensor y = run1("Softmax", f32({1, 33}, x), {1, 33}, attrs({}), 13);
  const float* p = y.data_as<float>();
  const float tail = std::exp(-87.2f);  // just inside float's normal range: kept
  EXPECT_NEAR(p[0], 0.5f, 1e-7f);
  EXPECT_NEAR(p[1], 0.5f, 1e-7f);
  EXPECT_NEAR(p[31] / tail, 0.5f, 1e-5f);
  for (int i = 2; i < 31; ++i) EXPECT_EQ(p[i], 0.f) << i;
  EXPECT_EQ(p[32], 0.f);
}

TEST(Softmax, LargeNumbersAreStable) {  // test_softmax_large_number
  Tensor y = run1("Softmax", f32({1, 4}, {10000, 10001, 10002, 10003}), {1, 4}, attrs({}), 13);
  expect_near(y, {0.032058604f, 0.08714432f, 0.23688284f, 0.6439143f});
}

TEST(Softmax, VectorExpIsAccurate) {  // simd::exp_shifted against std::exp over softmax's range
  std::vector<float> x, y(2001);
  for (int i = 0; i <= 2000; ++i) x.push_back(-80.0f + 0.04f * i);
  float sum = cpu::simd::exp_shifted(y.data(), x.data(), 0.5f, static_cast<int64_t>(x.size()));
  double want_sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    // Reference from the float difference, as the kernel sees it (the rounding of x - m itself
    // is ~4e-6 relative at |x| = 64 and not the approximation's error).
    double want = std::exp(static_cast<double>(x[i] - 0.5f));
    want_sum += want;
    EXPECT_NEAR(y[i], want, 1e-6 * want) << "x = " << x[i];
  }
  EXPECT_NEAR(sum, want_sum, 1e-5 * want_sum);
}

TEST(LogSoftmax, Row) {
  Tensor y = run1("LogSoftmax", f32({1, 3}, {1, 2, 3}), {1, 3}, attrs({}), 13);
  float lse = std::log(e(1) + e(2) + e(3));
  expect_near(y, {1 - lse, 2 - lse, 3 - lse});
}

}  // namespace
}  // namespace ge::test
