// tests/fusion/test_batchnorm_relu.cc — batchnorm_relu: an inference BatchNormalization followed by
// Relu becomes a depthwise 1x1 ge.FusedConv (W = γ/√(var + ε), B = β − mean·W) with the Relu.
// The graph before and after (text IR), the folded constants, outputs equal to the unfused graph
// bit for bit on the cpu backend, and the forms the rule must leave alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "pass_harness.h"

namespace ge {
namespace {

using test::PassHarness;

std::string print(const Graph& g) { return print_graph(g, {.show_node_names = false}); }

// DenseNet's pre-activation: the Concat of the block's features through norm → relu.
const char* kPreActivation = R"(graph g opset(ai.onnx=13) {
  input %a: f32[1,16,4,5]
  input %b: f32[1,8,4,5]
  const %scale: f32[24]
  const %beta: f32[24]
  const %mean: f32[24]
  const %var: f32[24]
  %c: f32[1,24,4,5] = Concat(%a, %b) {axis=1}
  %n: f32[1,24,4,5] = BatchNormalization(%c, %scale, %beta, %mean, %var) {epsilon=0.001}
  %y: f32[1,24,4,5] = Relu(%n)
  output %y
}
)";

/// Parses `text` with random constants (variances positive).
std::unique_ptr<Graph> parse_random(PassHarness& h, const std::string& text) {
  auto g = h.parse(text);
  PassHarness::randomize_constants(*g);
  if (Value* v = g->find_value("var")) {
    float* p = const_cast<float*>(v->data->data_as<float>());
    for (int64_t i = 0; i < v->numel(); ++i) p[i] = std::abs(p[i]) + 0.05f;
  }
  return g;
}

TEST(BatchNormRelu, BecomesADepthwiseOneByOneConvWithTheRelu) {
  PassHarness h;
  auto g = parse_random(h, kPreActivation);
  auto before = g->clone();
  h.run(*g, {"batchnorm_relu"});
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %a: f32[1,16,4,5]
  input %b: f32[1,8,4,5]
  const %n_scale: f32[24,1,1,1]
  const %n_shift: f32[24]
  %c: f32[1,24,4,5] = Concat(%a, %b) {axis=1}
  %y: f32[1,24,4,5] = ge.FusedConv(%c, %n_scale, %n_shift) {activation="Relu", group=24, kernel_shape=[1,1]}
  output %y
}
)");
  // W[c] = γ/√(var + ε), B[c] = β − mean·W[c] (BatchNormalization-15, inference).
  const std::vector<double> gam = before->find_value("scale")->data->to_double_vector(),
                            beta = before->find_value("beta")->data->to_double_vector(),
                            mean = before->find_value("mean")->data->to_double_vector(),
                            var = before->find_value("var")->data->to_double_vector(),
                            w = g->find_value("n_scale")->data->to_double_vector(),
                            b = g->find_value("n_shift")->data->to_double_vector();
  for (size_t c = 0; c < 24; ++c) {
    const double a = gam[c] / std::sqrt(var[c] + 0.001);
    EXPECT_NEAR(w[c], a, 1e-6 * std::abs(a)) << c;
    EXPECT_NEAR(b[c], beta[c] - mean[c] * a, 1e-6 * (1 + std::abs(b[c]))) << c;
  }
  // The cpu kernel folds as BatchNormalization's does: the same bits.
  auto in = PassHarness::random_inputs(*before);
  auto ya = h.execute(std::shared_ptr<const Graph>(before->clone()), in),
       yb = h.execute(std::shared_ptr<const Graph>(g->clone()), in);
  ASSERT_EQ(ya.size(), 1u);
  ASSERT_EQ(ya[0].nbytes(), yb[0].nbytes());
  EXPECT_EQ(std::memcmp(ya[0].data(), yb[0].data(), ya[0].nbytes()), 0);
}

// Left alone: the normalized value read by another node too, statistics that are not constants,
// a 3-D input, and no Relu after it. (Training mode never reaches the rule: shape inference
// refuses it, an inference engine has no batch statistics.)
TEST(BatchNormRelu, LeavesWhatIsNotAnInferenceNormThenRelu) {
  using Edits = std::vector<std::pair<std::string, std::string>>;
  const std::vector<Edits> cases = {
      {{"  output %y\n", "  output %y\n  output %n\n"}},
      {{"  const %mean: f32[24]\n", "  input %mean: f32[24]\n"}},
      {{"f32[1,16,4,5]", "f32[1,16,20]"},
       {"f32[1,8,4,5]", "f32[1,8,20]"},
       {"%c: f32[1,24,4,5]", "%c: f32[1,24,20]"},
       {"%n: f32[1,24,4,5]", "%n: f32[1,24,20]"},
       {"%y: f32[1,24,4,5]", "%y: f32[1,24,20]"}},
      {{"= Relu(%n)", "= Sigmoid(%n)"}},
  };
  for (const Edits& edits : cases)
    PassHarness().expect_unchanged(PassHarness::edited(kPreActivation, edits), {"batchnorm_relu"}, edits.back().second);
}

}  // namespace
}  // namespace ge
