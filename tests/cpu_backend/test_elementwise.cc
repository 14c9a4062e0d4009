// tests/cpu_backend/test_elementwise.cc — the CPU backend's elementwise kernels, with
// hand-computed expected values (ONNX semantics: docs/Broadcasting.md and docs/Operators.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "ge/sdk/error.h"  // kernel_harness.h uses ge::Error without including it
#include "kernel_harness.h"
#include "kernels.h"
#include "tensor_test_util.h"

namespace ge::test {
namespace {

using DT = DataType;

KernelHarness& harness() {
  static KernelHarness h(cpu::register_elementwise_kernels);
  return h;
}

TEST(CpuElementwise, AddBroadcasts234With31) {
  // [2,3,4] + [3,1]: b is right-aligned to [1,3,1], so out[i,j,k] = a[i,j,k] + b[j].
  Tensor a = iota<float>({2, 3, 4});
  Tensor b = make<float>({3, 1}, {100, 200, 300});
  auto out = harness().run("Add", {a, b}, {{DT::Float32, {2, 3, 4}}});
  auto v = values<float>(out[0]);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(v[i * 12 + j * 4 + k], i * 12 + j * 4 + k + 100.0f * (j + 1));
}

TEST(CpuElementwise, BroadcastBothSides) {
  // [3,1] - [1,2] -> [3,2]: out[i,j] = a[i] - b[j].
  auto out = harness().run("Sub", {make<int32_t>({3, 1}, {10, 20, 30}), make<int32_t>({1, 2}, {1, 2})},
                           {{DT::Int32, {3, 2}}});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{9, 8, 19, 18, 29, 28}));
}

TEST(CpuElementwise, MulPerChannelAndScalar) {
  auto out = harness().run("Mul", {iota<double>({1, 2, 2, 2}), make<double>({2, 1, 1}, {2, -1})},
                           {{DT::Float64, {1, 2, 2, 2}}});
  EXPECT_EQ(values<double>(out[0]), (std::vector<double>{0, 2, 4, 6, -4, -5, -6, -7}));
  out = harness().run("Mul", {make<uint8_t>({}, {3}), make<uint8_t>({3}, {1, 2, 100})}, {{DT::UInt8, {3}}});
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<uint8_t>{3, 6, 44}));  // 300 wraps mod 256
}

TEST(CpuElementwise, IntegerDivTruncatesAndNeverTraps) {
  auto out = harness().run("Div", {make<int32_t>({6}, {7, -7, 7, -7, 5, INT32_MIN}), make<int32_t>({6}, {2, 2, -2, -2, 0, -1})},
                           {{DT::Int32, {6}}});
  // C truncation (the ONNX reference divides in float64 and casts back); x/0 gives 0 and
  // INT_MIN/-1 wraps instead of raising SIGFPE.
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{3, -3, -3, 3, 0, INT32_MIN}));
  out = harness().run("Div", {make<uint8_t>({3}, {255, 10, 7}), make<uint8_t>({}, {3})}, {{DT::UInt8, {3}}});
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<uint8_t>{85, 3, 2}));
}

TEST(CpuElementwise, PowByConstantTwoIsASquare) {
  // A constant exponent 2 runs as x·x (kernel "Pow:square"): the same values as powf, signs and
  // specials included; a non-constant exponent keeps the general kernel with the same results.
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = make<float>({6}, {-3.f, 0.5f, -0.f, inf, -inf, nan});
  const Tensor two = make<float>({}, {2.f});
  for (std::set<size_t> constant : {std::set<size_t>{1}, std::set<size_t>{}}) {
    auto out = harness().run("Pow", {x, two}, {{DT::Float32, {6}}}, {}, 15, constant);
    const float* y = out[0].data_as<float>();
    EXPECT_EQ(y[0], 9.f);
    EXPECT_EQ(y[1], 0.25f);
    EXPECT_EQ(y[2], 0.f);
    EXPECT_FALSE(std::signbit(y[2]));
    EXPECT_EQ(y[3], inf);
    EXPECT_EQ(y[4], inf);
    EXPECT_TRUE(std::isnan(y[5]));
  }
}

TEST(CpuElementwise, PowMixedTypes) {
  // Output type = base type (Pow-15); float^int64 as in test_pow_types_float32_int64.
  auto out = harness().run("Pow", {make<float>({3}, {1, 2, 3}), make<int64_t>({3}, {4, 5, 6})}, {{DT::Float32, {3}}});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 32, 729}));
  // int^float computes in double and truncates: 2^0.5 = 1.41 -> 1.
  out = harness().run("Pow", {make<int32_t>({2}, {2, 3}), make<float>({2}, {0.5f, 2})}, {{DT::Int32, {2}}});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{1, 9}));
  out = harness().run("Pow", {make<int64_t>({2}, {2, -3}), make<int64_t>({2}, {10, 3})}, {{DT::Int64, {2}}});
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{1024, -27}));
  out = harness().run("Pow", {make<float>({2, 1}, {2, 3}), make<uint32_t>({2}, {0, 2})}, {{DT::Float32, {2, 2}}});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 4, 1, 9}));
}

TEST(CpuElementwise, UnsupportedDtypesNameTheDtype) {
  // Add has no bool form in ONNX; the error names the op, the dtype and the node.
  Tensor h = Tensor::allocate(DT::Bool, {2});
  try {
    harness().run("Add", {h, h}, {{DT::Bool, {2}}});
    FAIL() << "expected UnsupportedError";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("Add: dtype bool"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("node"), std::string::npos) << e.what();
  }
  EXPECT_THROW(harness().run("Pow", {make<int8_t>({1}, {2}), make<int32_t>({1}, {2})}, {{DT::Int8, {1}}}),
               UnsupportedError);
  EXPECT_THROW(harness().run("Sqrt", {make<int32_t>({1}, {4})}, {{DT::Int32, {1}}}), UnsupportedError);
  EXPECT_THROW(harness().run("Relu", {make<uint8_t>({1}, {4})}, {{DT::UInt8, {1}}}), UnsupportedError);
  EXPECT_THROW(harness().run("Sum", {make<int32_t>({1}, {4})}, {{DT::Int32, {1}}}), UnsupportedError);
}

TEST(CpuElementwise, UnaryMath) {
  auto out = harness().run("Sqrt", {make<float>({3}, {4, 2.25f, 0})}, {{DT::Float32, {3}}});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{2, 1.5f, 0}));
  out = harness().run("Erf", {make<double>({3}, {0, 1, -1})}, {{DT::Float64, {3}}});
  EXPECT_NEAR(values<double>(out[0])[1], 0.8427007929497149, 1e-15);
  EXPECT_NEAR(values<double>(out[0])[2], -0.8427007929497149, 1e-15);
  out = harness().run("Sigmoid", {make<float>({3}, {0, -1000, 2})}, {{DT::Float32, {3}}});
  EXPECT_EQ(values<float>(out[0])[0], 0.5f);
  EXPECT_EQ(values<float>(out[0])[1], 0.0f);
  EXPECT_NEAR(values<float>(out[0])[2], 0.8807970779778823f, 1e-7);
  out = harness().run("Relu", {make<int8_t>({4}, {-128, -1, 0, 127})}, {{DT::Int8, {4}}});
  EXPECT_EQ(values<int8_t>(out[0]), (std::vector<int8_t>{0, 0, 0, 127}));
}

TEST(CpuElementwise, ClipWithOmittedMinAndAttributes) {
  auto out = harness().run("Clip", {make<float>({4}, {-2, 0, 5, 10}), omitted(), make<float>({}, {3})},
                           {{DT::Float32, {4}}}, {}, 13);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{-2, 0, 3, 3}));
  out = harness().run("Clip", {make<int8_t>({3}, {-100, 0, 100}), make<int8_t>({}, {-5})}, {{DT::Int8, {3}}}, {}, 13);
  EXPECT_EQ(values<int8_t>(out[0]), (std::vector<int8_t>{-5, 0, 100}));
  Attributes a;
  a.set("min", -1.0f);
  out = harness().run("Clip", {make<float>({3}, {-3, 0.5f, 7})}, {{DT::Float32, {3}}}, a, 6);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{-1, 0.5f, 7}));
  // np.clip: min > max gives max everywhere.
  out = harness().run("Clip", {make<float>({2}, {0, 9}), make<float>({}, {5}), make<float>({}, {1})},
                      {{DT::Float32, {2}}}, {}, 13, {1, 2});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 1}));
}

TEST(CpuElementwise, SumIsVariadicWithBroadcasting) {
  auto out = harness().run("Sum", {iota<float>({2, 2}), make<float>({2}, {10, 20}), make<float>({}, {0.5f})},
                           {{DT::Float32, {2, 2}}});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{10.5f, 21.5f, 12.5f, 23.5f}));
  out = harness().run("Sum", {make<double>({1, 2}, {1, 2})}, {{DT::Float64, {2, 2}}});
  EXPECT_EQ(values<double>(out[0]), (std::vector<double>{1, 2, 1, 2}));
}

// A memory planner may give Sum's output the buffer of any same-shaped input; input 2 is read
// after the first pass wrote the output, so it must still give 1 + 10 + 100 (not 1 + 10 + 11).
TEST(CpuElementwise, SumWithOutputInTheBufferOfALateInput) {
  const std::vector<Tensor> in = {make<float>({2}, {1, 2}), make<float>({2}, {10, 20}), make<float>({2}, {100, 200}),
                                  make<float>({2}, {1000, 2000})};
  for (int shared = 0; shared < 4; ++shared) {
    auto out = harness().run("Sum", in, {{DT::Float32, {2}}}, {}, 13, {}, 1, shared);
    EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1111, 2222})) << "output over input " << shared;
  }
}

TEST(CpuElementwise, LargeParallelBroadcastMatchesSerial) {
  // [2,16,64,64] + [16,1,1] (per-channel) and [2,16,64,64] - [64] with two threads.
  const Shape s{2, 16, 64, 64};
  Tensor x = iota<float>(s);
  Tensor c = iota<float>({16, 1, 1});
  Tensor w = iota<float>({64});
  auto add = harness().run("Add", {x, c}, {{DT::Float32, s}}, {}, 13, {}, 2);
  auto sub = harness().run("Sub", {x, w}, {{DT::Float32, s}}, {}, 13, {}, 2);
  auto va = values<float>(add[0]), vs = values<float>(sub[0]);
  for (int64_t i = 0; i < s.numel(); ++i) {
    ASSERT_EQ(va[i], static_cast<float>(i) + static_cast<float>((i / 4096) % 16)) << i;
    ASSERT_EQ(vs[i], static_cast<float>(i) - static_cast<float>(i % 64)) << i;
  }
  auto relu = harness().run("Relu", {sub[0]}, {{DT::Float32, s}}, {}, 13, {}, 2);
  EXPECT_EQ(values<float>(relu[0]), vs);
}

TEST(CpuElementwise, ShapeMismatchIsInvalidGraph) {
  EXPECT_THROW(harness().run("Add", {iota<float>({2, 3}), iota<float>({4})}, {{DT::Float32, {2, 3}}}), InvalidGraphError);
}

}  // namespace
}  // namespace ge::test
