#include <gtest/gtest.h>

#include <cmath>

#include "ge/core/compare.h"

using namespace ge;

namespace {
Tensor floats(std::vector<float> v) {
  Tensor t = Tensor::allocate(DataType::Float32, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data_as<float>());
  return t;
}
}  // namespace

TEST(Compare, PassesWithinBothBounds) {
  auto c = core::compare_tensors(floats({1000.f, 1.f}), floats({1000.001f, 1.f}), {});
  EXPECT_TRUE(c.ok) << c.message;
  EXPECT_NEAR(c.rel_l2, 1e-6, 2e-7);
  EXPECT_DOUBLE_EQ(c.atol, 1e-6 * 1000.001f);
}

TEST(Compare, FailsOnRelativeL2AndNamesTheWorstElement) {
  auto c = core::compare_tensors(floats({1.f, 2.f, 3.f}), floats({1.f, 2.1f, 3.f}), {});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.worst_index, 1);
  EXPECT_NE(c.message.find("worst[1]: got 2.0000000e+00 expected 2.0999999e+00 (relative L2 above 1.000e-05)"), std::string::npos) << c.message;
}

TEST(Compare, NanInOutputFails) {
  auto c = core::compare_tensors(floats({NAN}), floats({1.f}), {});
  EXPECT_FALSE(c.ok);
}

TEST(Compare, ShapeMismatchFails) {
  auto c = core::compare_tensors(floats({1.f}), floats({1.f, 2.f}), {});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.message, "type mismatch: got f32[1], expected f32[2]");
}
