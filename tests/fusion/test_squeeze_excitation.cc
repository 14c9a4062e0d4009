// tests/fusion/test_squeeze_excitation.cc — squeeze_excitation: a squeeze-and-excitation block's
// GlobalAveragePool and two 1×1 convolutions (after conv_bias_act gave them their activations)
// become one ge.SqueezeExcitation; the graph before and after (text IR), equal outputs of the
// unfused and fused graphs on random inputs, and the forms the rule must refuse.
#include <gtest/gtest.h>

#include "pass_harness.h"

namespace ge {
namespace {

using test::PassHarness;

std::string print(const Graph& g) { return print_graph(g, {.show_node_names = false}); }

/// MobileNetV3's block as conv_bias_act leaves it: fc1 with its Relu, fc2 plain, the HardSigmoid
/// gate and the channel scaling after.
const char* kBlock = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,24,7,7]
  const %w1: f32[8,24,1,1]
  const %b1: f32[8]
  const %w2: f32[24,8,1,1]
  const %b2: f32[24]
  %p: f32[1,24,1,1] = GlobalAveragePool(%x)
  %h: f32[1,8,1,1] = ge.FusedConv(%p, %w1, %b1) {activation="Relu", kernel_shape=[1,1]}
  %s: f32[1,24,1,1] = Conv(%h, %w2, %b2) {kernel_shape=[1,1]}
  %g: f32[1,24,1,1] = HardSigmoid(%s) {alpha=0.16666667, beta=0.5}
  %y: f32[1,24,7,7] = Mul(%x, %g)
  output %y
})";

std::unique_ptr<Graph> fuse(PassHarness& h, const std::string& text) {
  auto g = h.parse(text);
  PassHarness::randomize_constants(*g);
  auto before = g->clone();
  h.run(*g, {"squeeze_excitation"});
  h.expect_same_outputs(*before, *g, 1e-5);
  return g;
}

TEST(SqueezeExcitation, PoolAndTwoOneByOneConvsBecomeOneNode) {
  PassHarness h;
  EXPECT_EQ(print(*fuse(h, kBlock)), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,24,7,7]
  const %w1: f32[8,24,1,1]
  const %b1: f32[8]
  const %w2: f32[24,8,1,1]
  const %b2: f32[24]
  %s: f32[1,24,1,1] = ge.SqueezeExcitation(%x, %w1, %b1, %w2, %b2) {activation="Relu"}
  %g: f32[1,24,1,1] = HardSigmoid(%s) {alpha=0.16666667, beta=0.5}
  %y: f32[1,24,7,7] = Mul(%x, %g)
  output %y
}
)");
}

TEST(SqueezeExcitation, CarriesTheSecondConvsActivationAsTheGate) {
  // EfficientNet's form after conv_bias_act: SiLU on fc1, Sigmoid on fc2 (no biases here).
  PassHarness h;
  const std::string t =
      PassHarness::edited(kBlock, {{"(%p, %w1, %b1) {activation=\"Relu\",", "(%p, %w1) {activation=\"Swish\","},
                                   {"Conv(%h, %w2, %b2) {kernel_shape=[1,1]}",
                                    "ge.FusedConv(%h, %w2) {activation=\"Sigmoid\", kernel_shape=[1,1]}"}});
  EXPECT_EQ(print(*fuse(h, t)), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,24,7,7]
  const %w1: f32[8,24,1,1]
  const %b1: f32[8]
  const %w2: f32[24,8,1,1]
  const %b2: f32[24]
  %s: f32[1,24,1,1] = ge.SqueezeExcitation(%x, %w1, _, %w2, _) {activation="Swish", gate="Sigmoid"}
  %g: f32[1,24,1,1] = HardSigmoid(%s) {alpha=0.16666667, beta=0.5}
  %y: f32[1,24,7,7] = Mul(%x, %g)
  output %y
}
)");
}

TEST(SqueezeExcitation, RefusesWhatIsNotASqueezeAndExcitation) {
  PassHarness h;
  const std::vector<std::string> rule = {"squeeze_excitation"};
  h.expect_unchanged(PassHarness::edited(kBlock, {{"output %y", "output %y\n  output %p"}}), rule,
                     "the pooled means are read elsewhere");
  h.expect_unchanged(
      PassHarness::edited(kBlock, {{"const %w1: f32[8,24,1,1]", "const %w1: f32[8,3,1,1]"},
                                   {"%b1) {activation=\"Relu\",", "%b1) {activation=\"Relu\", group=8,"}}),
      rule, "a grouped fc1");
  h.expect_unchanged(
      PassHarness::edited(kBlock, {{"input %x: f32[1,24,7,7]", "input %x: f32[1,24,7,7]\n  input %wr: f32[24,8,1,1]"},
                                   {"Conv(%h, %w2, %b2)", "Conv(%h, %wr, %b2)"}}),
      rule, "fc2's weights computed at run time");
  h.expect_unchanged(
      PassHarness::edited(kBlock, {{"const %b2: f32[24]", "const %b2: f32[24]\n  const %zz: f32[1,24,1,1]"},
                                   {"Conv(%h, %w2, %b2) {kernel_shape=[1,1]}",
                                    "ge.FusedConv(%h, %w2, %b2, %zz) {kernel_shape=[1,1]}"}}),
      rule, "a residual on fc2");
}

}  // namespace
}  // namespace ge
