// Graph export (core/graph_export.h) of a graph whose conv weights are in oneDNN's layouts: the
// ONNX initializers are the plain OIHW weights again, and the exported model computes the
// original graph's result.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "blocked_conv_support.h"
#include "ge/core/graph_export.h"
#include "ge/core/importer.h"
#include "ge/sdk/layout.h"
#include "pass_harness.h"

namespace {

using ge::Format;

TEST(WeightExport, BlockedWeightsAreWrittenAsPlainOihw) {
  GE_REQUIRE_BLOCKED_CONVS();
  ge::test::PassHarness h;
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,3,16,16]
  const %w1: f32[24,3,3,3]
  const %w2: f32[40,24,3,3]
  const %w3: f32[40,1,3,3]
  %c1: f32[1,24,8,8] = Conv(%x, %w1) {pads=[1,1,1,1], strides=[2,2]}
  %c2: f32[1,40,8,8] = Conv(%c1, %w2) {pads=[1,1,1,1]}
  %c3: f32[1,40,8,8] = Conv(%c2, %w3) {group=40, pads=[1,1,1,1]}
  %y: f32[1,2560] = Flatten(%c3)
  output %y
})";
  auto plain = h.parse(text);
  ge::test::PassHarness::randomize_constants(*plain);
  auto g = h.parse(text);
  ge::test::PassHarness::randomize_constants(*g);
  h.run(*g, {"layout"}, ge::OptLevel::O2);
  const std::string path = testing::TempDir() + "/ge_weight_export.onnx";
  { std::ofstream(path, std::ios::binary) << ge::core::to_onnx(*g); }
  ge::core::ImportOptions io;
  std::unique_ptr<ge::Graph> back = ge::core::import_model(h.env(), path, io);
  int checked = 0;
  for (const char* conv : {"c1", "c2", "c3"}) {
    const ge::Value* blocked = g->find_value(conv)->producer()->input(1);
    ASSERT_TRUE(ge::format_is_weight(blocked->format)) << conv;
    const ge::Value* exported = back->find_value(blocked->name());
    const ge::Value* original = plain->find_value(conv)->producer()->input(1);
    ASSERT_TRUE(exported && exported->is_constant()) << blocked->name();
    EXPECT_FALSE(ge::format_is_blocked(exported->format)) << ge::format_name(exported->format);  // ND from ONNX
    ASSERT_EQ(exported->data->nbytes(), original->data->nbytes()) << blocked->name();
    EXPECT_EQ(std::memcmp(exported->data->data(), original->data->data(), original->data->nbytes()), 0) << blocked->name();
    ++checked;
  }
  EXPECT_EQ(checked, 3);
  auto in = ge::test::PassHarness::random_inputs(*plain);
  auto want = h.execute(std::shared_ptr<const ge::Graph>(std::move(plain)), in);
  auto got = h.execute(std::shared_ptr<const ge::Graph>(std::move(back)), in);
  const float* a = want[0].data_as<float>();
  const float* b = got[0].data_as<float>();
  for (int64_t i = 0; i < want[0].numel(); ++i) ASSERT_NEAR(b[i], a[i], 1e-4f * (1.f + std::abs(a[i]))) << i;
}

}  // namespace
