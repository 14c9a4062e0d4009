#include <gtest/gtest.h>

#include <cmath>

#include "ge/core/compare.h"
#include "ge/sdk/layout.h"

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

// Large logits with one small element off by 0.1: relative L2 = 0.1 / ‖(20, 0.07, -15)‖ = 0.1 /
// 25.0001 = 4.0e-3. With elementwise checks the small element fails (0.1 > 1e-6·20 + 1e-4·0.07);
// with `elementwise = false` (gec run --max-rel-l2 alone) only the L2 bound decides.
TEST(Compare, RelativeL2AloneIgnoresPerElementErrors) {
  core::Tolerance t;
  t.max_rel_l2 = 1e-2;
  auto both = core::compare_tensors(floats({20.f, 0.17f, -15.f}), floats({20.f, 0.07f, -15.f}), t);
  EXPECT_FALSE(both.ok);
  EXPECT_NEAR(both.rel_l2, 0.1 / std::sqrt(400.0 + 0.0049 + 225.0), 1e-6);
  t.elementwise = false;
  auto l2 = core::compare_tensors(floats({20.f, 0.17f, -15.f}), floats({20.f, 0.07f, -15.f}), t);
  EXPECT_TRUE(l2.ok) << l2.message;
  t.max_rel_l2 = 1e-3;
  EXPECT_FALSE(core::compare_tensors(floats({20.f, 0.17f, -15.f}), floats({20.f, 0.07f, -15.f}), t).ok);
}

// A tensor in NC1HWC0 and the same values in NCHW are equal: compare_tensors unpacks blocked
// layouts first (gec compare between runs whose layout passes chose differently).
TEST(Compare, BlockedLayoutsCompareByLogicalElements) {
  Tensor nchw = Tensor::allocate(DataType::Float32, Shape{1, 3, 2, 2});
  for (int i = 0; i < 12; ++i) nchw.data_as<float>()[i] = 1.0f + i;
  Tensor blocked = convert_format(nchw, Format::NC1HWC0);
  ASSERT_EQ(blocked.format(), Format::NC1HWC0);
  auto c = core::compare_tensors(blocked, nchw, {});
  EXPECT_TRUE(c.ok) << c.message;
  EXPECT_EQ(c.rel_l2, 0.0);
  nchw.data_as<float>()[5] = 100.f;  // element (c=1, h=0, w=1) differs
  auto d = core::compare_tensors(blocked, nchw, {});
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.worst_index, 5);
}
