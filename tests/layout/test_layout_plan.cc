// Blocked tensors survive a plan file: a FRACTAL_Z constant keeps its format and its padded
// bytes, and the reloaded plan's TransData (FRACTAL_Z -> NCHW, the reference routine) restores
// the OIHW weights exactly.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

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

}  // namespace
