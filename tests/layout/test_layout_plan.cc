// Blocked tensors survive a plan file: a FRACTAL_Z constant keeps its format and its padded
// bytes, and the reloaded plan's TransData (FRACTAL_Z -> NCHW, the reference routine) restores
// the OIHW weights exactly; convolution weights the layout pass converted into oneDNN's
// layouts (OIhw16i16o, Ohwi16o, Goihw16g) load and run to the plain graph's results.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <memory>
#include <vector>

#include "blocked_conv_support.h"
#include "ge/core/plan.h"
#include "ge/sdk/layout.h"
#include "pass_harness.h"

namespace {

using ge::Format;

TEST(LayoutPlan, FractalZConstantRoundTripsThroughAPlanFile) {
  ge::test::PassHarness h;
  auto g = h.parse(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[20,18,3,2]
  %y: f32[20,18,3,2] = Add(%x, %x)
  output %y
})");
  // W in FRACTAL_Z (padded to [2*3*2, 2, 16, 16]) read back through a TransData.
  ge::Tensor w = ge::Tensor::allocate(ge::DataType::Float32, ge::Shape{20, 18, 3, 2}, Format::NCHW);
  for (int64_t i = 0; i < w.numel(); ++i) w.data_as<float>()[i] = 0.5f * static_cast<float>(i);
  ge::Value* wz = g->add_constant("wz", ge::convert_format(w, Format::FRACTAL_Z));
  ge::Value* wn = g->add_value("wn", ge::DataType::Float32, w.shape());
  ge::Attributes a;
  a.set("src_format", std::string("FRACTAL_Z"));
  a.set("dst_format", std::string("NCHW"));
  g->add_node("TransData", "", {wz}, {wn}, a, "ge");
  g->set_input(g->find_value("y")->producer(), 1, wn);
  g->sort_topologically();
  ASSERT_EQ(wz->format, Format::FRACTAL_Z);
  ASSERT_EQ(wz->nbytes(), 12u * 2 * 16 * 16 * 4);

  std::vector<uint8_t> bytes = ge::core::serialize_plan(*g, h.env(), "cpu");
  auto keep = std::make_shared<std::vector<uint8_t>>(bytes);
  ge::core::PlanContents p = ge::core::parse_plan(keep->data(), keep->size(), keep, h.env(), "test");
  const ge::Value* loaded = p.graph->find_value("wz");
  ASSERT_TRUE(loaded && loaded->is_constant());
  EXPECT_EQ(loaded->format, Format::FRACTAL_Z);
  ASSERT_EQ(loaded->data->nbytes(), wz->data->nbytes());
  EXPECT_EQ(std::memcmp(loaded->data->data(), wz->data->data(), wz->data->nbytes()), 0);

  auto in = ge::test::PassHarness::random_inputs(*p.graph);
  auto out = h.execute(p.graph, in);
  const float* x = in[0].data_as<float>();
  const float* y = out[0].data_as<float>();
  for (int64_t i = 0; i < w.numel(); ++i) ASSERT_EQ(y[i], x[i] + w.data_as<float>()[i]) << i;
}

TEST(LayoutPlan, ConvWeightsInOneDnnLayoutsLoadAndRun) {
  GE_REQUIRE_BLOCKED_CONVS();
  ge::test::PassHarness h;
  // A 3-channel stem (Ohwi16o on this CPU), a 3x3 conv with padded channel counts, a depthwise
  // conv (Goihw16g) and a 1x1 conv.
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,3,16,16]
  const %w1: f32[24,3,3,3]
  const %b1: f32[24]
  const %w2: f32[40,24,3,3]
  const %w3: f32[40,1,3,3]
  const %w4: f32[20,40,1,1]
  %c1: f32[1,24,8,8] = Conv(%x, %w1, %b1) {pads=[1,1,1,1], strides=[2,2]}
  %r1: f32[1,24,8,8] = Relu(%c1)
  %c2: f32[1,40,8,8] = Conv(%r1, %w2) {pads=[1,1,1,1]}
  %c3: f32[1,40,8,8] = Conv(%c2, %w3) {group=40, pads=[1,1,1,1]}
  %c4: f32[1,20,8,8] = Conv(%c3, %w4)
  %y: f32[1,1280] = Flatten(%c4)
  output %y
})";
  auto plain = h.parse(text);
  ge::test::PassHarness::randomize_constants(*plain);
  auto g = h.parse(text);
  ge::test::PassHarness::randomize_constants(*g);
  h.run(*g, {"layout"}, ge::OptLevel::O2);
  int weights_blocked = 0;
  for (ge::Node* n : g->nodes())
    if (n->op_type() == "Conv" && ge::format_is_weight(n->input(1)->format)) {
      ++weights_blocked;
      EXPECT_TRUE(n->input(1)->is_constant()) << n->name();
    }
  std::printf("convs with oneDNN-layout weights: %d of 4\n", weights_blocked);
  EXPECT_GE(weights_blocked, 1);

  std::vector<uint8_t> bytes = ge::core::serialize_plan(*g, h.env(), "cpu");
  auto keep = std::make_shared<std::vector<uint8_t>>(bytes);
  ge::core::PlanContents p = ge::core::parse_plan(keep->data(), keep->size(), keep, h.env(), "test");
  for (ge::Node* n : g->nodes()) {
    if (n->op_type() != "Conv") continue;
    const ge::Value* w = p.graph->find_value(n->input(1)->name());
    ASSERT_TRUE(w && w->is_constant());
    EXPECT_EQ(w->format, n->input(1)->format) << w->name();
    ASSERT_EQ(w->data->nbytes(), n->input(1)->data->nbytes());
    EXPECT_EQ(std::memcmp(w->data->data(), n->input(1)->data->data(), w->data->nbytes()), 0) << w->name();
  }
  auto in = ge::test::PassHarness::random_inputs(*plain);
  auto want = h.execute(std::shared_ptr<const ge::Graph>(std::move(plain)), in);
  auto got = h.execute(p.graph, in);
  ASSERT_EQ(got.size(), 1u);
  const float* a = want[0].data_as<float>();
  const float* b = got[0].data_as<float>();
  for (int64_t i = 0; i < want[0].numel(); ++i) ASSERT_NEAR(b[i], a[i], 1e-4f * (1.f + std::abs(a[i]))) << i;
}

}  // namespace
