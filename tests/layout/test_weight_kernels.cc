// The CPU convolution with weights in GE's oneDNN weight formats that are NOT the layout its
// primitive chose (a plan compiled on another CPU): it reorders them once at build and still
// computes the plain graph's result; a format that cannot describe the weights is refused with
// an error naming the value and the node.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "blocked_conv_support.h"
#include "ge/sdk/error.h"
#include "ge/sdk/layout.h"
#include "pass_harness.h"

namespace {

using ge::Format;

const char* kConvs = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,24,8,8]
  const %w1: f32[40,24,3,3]
  const %w2: f32[40,1,3,3]
  %c1: f32[1,40,8,8] = Conv(%x, %w1) {pads=[1,1,1,1]}
  %c2: f32[1,40,8,8] = Conv(%c1, %w2) {group=40, pads=[1,1,1,1]}
  %y: f32[1,2560] = Flatten(%c2)
  output %y
})";

/// Replaces input 1 of `conv` by the same weights stored in format f.
void restore_weights_as(ge::Graph& g, const std::string& conv_output, Format f) {
  ge::Node* n = g.find_value(conv_output)->producer();
  const ge::Value* w = n->input(1);
  ge::Tensor plain = ge::convert_format(*w->data, Format::NCHW);
  g.set_input(n, 1, g.add_constant(w->name() + "_" + std::string(ge::format_name(f)), ge::convert_format(plain, f)));
}

TEST(WeightKernels, WeightsInAnotherOneDnnLayoutAreReorderedAndStayCorrect) {
  GE_REQUIRE_BLOCKED_CONVS();
  ge::test::PassHarness h;
  auto plain = h.parse(kConvs);
  ge::test::PassHarness::randomize_constants(*plain);
  auto g = h.parse(kConvs);
  ge::test::PassHarness::randomize_constants(*g);
  h.run(*g, {"layout"}, ge::OptLevel::O2);
  ASSERT_EQ(g->find_value("c1")->producer()->input(1)->format, Format::OIhw16i16o);
  ASSERT_EQ(g->find_value("c2")->producer()->input(1)->format, Format::Goihw16g);
  // oneDNN picks OIhw16i16o for c1; Ohwi16o is a valid description it did not choose.
  restore_weights_as(*g, "c1", Format::Ohwi16o);
  // Plain OIHW for the depthwise conv: reordered at build as before this format existed.
  restore_weights_as(*g, "c2", Format::NCHW);
  auto in = ge::test::PassHarness::random_inputs(*plain);
  auto want = h.execute(std::shared_ptr<const ge::Graph>(std::move(plain)), in);
  auto got = h.execute(std::shared_ptr<const ge::Graph>(std::move(g)), in);
  const float* a = want[0].data_as<float>();
  const float* b = got[0].data_as<float>();
  for (int64_t i = 0; i < want[0].numel(); ++i) ASSERT_NEAR(b[i], a[i], 1e-4f * (1.f + std::abs(a[i]))) << i;
}

TEST(WeightKernels, GroupedWeightsInAnUngroupedFormatAreRefusedNamingTheValue) {
  ge::test::PassHarness h;
  auto g = h.parse(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,32,8,8]
  const %w: f32[32,16,3,3]
  %c: f32[1,32,8,8] = Conv(%x, %w) {group=2, pads=[1,1,1,1]}
  %y: f32[1,2048] = Flatten(%c)
  output %y
})");
  restore_weights_as(*g, "c", Format::OIhw16i16o);
  auto in = ge::test::PassHarness::random_inputs(*g);
  try {
    h.execute(std::shared_ptr<const ge::Graph>(std::move(g)), in);
    FAIL() << "a grouped conv ran with OIhw16i16o weights";
  } catch (const ge::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'w_OIhw16i16o'"), std::string::npos) << m;
    EXPECT_NE(m.find("node"), std::string::npos) << m;
    std::printf("%s\n", m.c_str());
  }
}

}  // namespace
