// tests/fusion/test_conv_fusion.cc — conv_bn, conv_bias_act, conv_add_act: the graph before and
// after each rule (text IR), equal outputs of the unfused and fused graphs on random inputs,
// and the cases each rule must refuse.
#include <gtest/gtest.h>

#include "pass_harness.h"

namespace ge {
namespace {

using test::PassHarness;

std::string print(const Graph& g) { return print_graph(g, {.show_node_names = false}); }

/// Positive variances (random constants are in [-1, 1)): var ∈ [0.25, 1.25).
void positive(Graph& g, const std::string& name) {
  Value* v = g.find_value(name);
  Tensor t = v->data->clone();
  for (float& x : t.span<float>()) x = std::abs(x) + 0.25f;
  v->data = std::make_shared<const Tensor>(std::move(t));
}

void set_scalar(Graph& g, const std::string& name, float x) {
  Tensor t = Tensor::allocate(DataType::Float32, Shape{});
  t.data_as<float>()[0] = x;
  g.find_value(name)->data = std::make_shared<const Tensor>(std::move(t));
}

/// Parses, randomizes constants, runs `rules` and checks the outputs against the unfused graph.
std::unique_ptr<Graph> fuse(PassHarness& h, const std::string& text, std::vector<std::string> rules,
                            double tol = 1e-5) {
  auto g = h.parse(text);
  PassHarness::randomize_constants(*g);
  if (g->find_value("var")) positive(*g, "var");
  if (g->find_value("lo")) set_scalar(*g, "lo", 0.f);  // Clip to [0, 0.5]: both bounds bite
  if (g->find_value("hi")) set_scalar(*g, "hi", 0.5f);
  auto before = g->clone();
  h.run(*g, std::move(rules));
  h.expect_same_outputs(*before, *g, tol);
  return g;
}

// ---------------------------------------------------------------- conv_bn

std::string conv_bn_graph(int group, bool bias, int C = 4, int M = 8) {
  const std::string c = std::to_string(C), m = std::to_string(M), cg = std::to_string(C / group);
  return "graph g opset(ai.onnx=13) {\n"
         "  input %x: f32[2," + c + ",6,6]\n"
         "  const %w: f32[" + m + "," + cg + ",3,3]\n" +
         (bias ? "  const %b: f32[" + m + "]\n" : "") +
         "  const %scale: f32[" + m + "]\n  const %beta: f32[" + m + "]\n  const %mean: f32[" + m + "]\n"
         "  const %var: f32[" + m + "]\n"
         "  %c: f32[2," + m + ",6,6] = Conv(%x, %w" + (bias ? ", %b" : "") + ") {group=" + std::to_string(group) + ", pads=[1,1,1,1]}\n"
         "  %y: f32[2," + m + ",6,6] = BatchNormalization(%c, %scale, %beta, %mean, %var) {epsilon=0.001}\n"
         "  output %y\n}\n";
}

TEST(ConvBn, FoldsIntoConvWeightsAndBias) {
  PassHarness h;
  auto g = fuse(h, conv_bn_graph(1, false), {"conv_bn"});
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,4,6,6]
  const %w_bn: f32[8,4,3,3]
  const %Conv_1_bias: f32[8]
  %y: f32[2,8,6,6] = Conv(%x, %w_bn, %Conv_1_bias) {group=1, pads=[1,1,1,1]}
  output %y
}
)");
}

TEST(ConvBn, ExistingBiasGroupedAndDepthwise) {
  PassHarness h;
  fuse(h, conv_bn_graph(1, true), {"conv_bn"});
  fuse(h, conv_bn_graph(2, true), {"conv_bn"});
  auto g = fuse(h, conv_bn_graph(4, false, 4, 4), {"conv_bn"});  // depthwise: group = C = M
  EXPECT_EQ(g->num_nodes(), 1u);
  EXPECT_EQ(g->nodes()[0]->op_type(), "Conv");
}

TEST(ConvBn, RefusesSharedOrOutputIntermediateAndWhenDisabled) {
  PassHarness h;
  std::string shared = conv_bn_graph(1, false);
  shared.replace(shared.find("  output %y"), 0, "  %r: f32[2,8,6,6] = Relu(%c)\n  output %r\n");
  auto g = h.parse(shared);
  h.run(*g, {"conv_bn"});
  EXPECT_EQ(g->num_nodes(), 3u) << print(*g);  // the Conv output has a second consumer

  std::string out = conv_bn_graph(1, false);
  out.replace(out.find("  output %y"), 0, "  output %c\n");
  g = h.parse(out);
  h.run(*g, {"conv_bn"});
  EXPECT_EQ(g->num_nodes(), 2u) << print(*g);  // the Conv output is a graph output

  g = h.parse(conv_bn_graph(1, false));
  h.run(*g, {"conv_bias_act", "conv_add_act"});  // conv_bn not selected
  EXPECT_EQ(g->num_nodes(), 2u);
  core::CompileOptions o;
  o.disabled = {"conv_bn", "layout"};  // layout would add a TransData after the (blocked) Conv
  core::compile_graph(*g, h.env(), o);
  EXPECT_EQ(g->nodes().size(), 2u) << print(*g);  // disabled by name in a full O2 compile
}

TEST(ConvBn, RefusesRuntimeWeights) {
  PassHarness h;
  std::string t = conv_bn_graph(1, false);
  t.replace(t.find("const %w"), 5, "input");
  auto g = h.parse(t);
  h.run(*g, {"conv_bn"});
  EXPECT_EQ(g->num_nodes(), 2u);
}

// ---------------------------------------------------------------- conv_bias_act

/// Conv [+ Add bias] [+ act] on [1,3,8,8] → [1,6,8,8]; the last node writes %y.
std::string conv_act_graph(const std::string& bias_shape, const std::string& act) {
  const std::string T = ": f32[1,6,8,8] = ";
  std::string s = "graph g opset(ai.onnx=13) {\n  input %x: f32[1,3,8,8]\n  const %w: f32[6,3,3,3]\n";
  if (!bias_shape.empty()) s += "  const %b: f32" + bias_shape + "\n";
  if (act == "Clip") s += "  const %lo: f32[]\n  const %hi: f32[]\n";
  s += "  %" + std::string(bias_shape.empty() && act.empty() ? "y" : "c") + T + "Conv(%x, %w) {pads=[1,1,1,1]}\n";
  if (!bias_shape.empty()) s += "  %" + std::string(act.empty() ? "y" : "a") + T + "Add(%c, %b)\n";
  const std::string in = bias_shape.empty() ? "%c" : "%a";
  if (act == "Clip") s += "  %y" + T + "Clip(" + in + ", %lo, %hi)\n";
  else if (!act.empty()) s += "  %y" + T + act + "(" + in + ")\n";
  return s + "  output %y\n}\n";
}

TEST(ConvBiasAct, BiasAndActivationBecomeFusedConv) {
  PassHarness h;
  auto g = fuse(h, conv_act_graph("[6,1,1]", "Relu"), {"conv_bias_act"});
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,3,8,8]
  const %w: f32[6,3,3,3]
  const %Conv_1_bias: f32[6]
  %y: f32[1,6,8,8] = ge.FusedConv(%x, %w, %Conv_1_bias, _) {activation="Relu", pads=[1,1,1,1]}
  output %y
}
)");
  g = fuse(h, conv_act_graph("[1,6,1,1]", "Clip"), {"conv_bias_act"});
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,3,8,8]
  const %w: f32[6,3,3,3]
  const %Conv_1_bias: f32[6]
  %y: f32[1,6,8,8] = ge.FusedConv(%x, %w, %Conv_1_bias, _) {activation="Clip", activation_params=[0.0,0.5], pads=[1,1,1,1]}
  output %y
}
)");
  g = fuse(h, conv_act_graph("", "Sigmoid"), {"conv_bias_act"}, 1e-5);
  EXPECT_EQ(g->num_nodes(), 1u) << print(*g);
}

TEST(ConvBiasAct, SwishAndTheNewActivationsBecomeFusedConv) {
  PassHarness h;
  // SiLU as PyTorch exports it: y * Sigmoid(y), both reading the Conv's output.
  auto g = fuse(h, R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,3,8,8]
  const %w: f32[6,3,3,3]
  const %b: f32[6]
  %c: f32[1,6,8,8] = Conv(%x, %w, %b) {pads=[1,1,1,1]}
  %s: f32[1,6,8,8] = Sigmoid(%c)
  %y: f32[1,6,8,8] = Mul(%c, %s)
  output %y
}
)", {"conv_bias_act"}, 1e-5);
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,3,8,8]
  const %w: f32[6,3,3,3]
  const %b: f32[6]
  %y: f32[1,6,8,8] = ge.FusedConv(%x, %w, %b, _) {activation="Swish", pads=[1,1,1,1]}
  output %y
}
)");
  // Each activation, checked against the unfused graph on random inputs (fuse compares them).
  for (const std::string act : {"Tanh", "HardSwish", "LeakyRelu", "Elu"}) {
    std::string text = conv_act_graph("", act);
    if (act == "HardSwish") text.replace(text.find("ai.onnx=13"), 10, "ai.onnx=14");  // HardSwish-14
    g = fuse(h, text, {"conv_bias_act"}, 1e-5);
    EXPECT_EQ(g->num_nodes(), 1u) << act << "\n" << print(*g);
  }
  // LeakyRelu's alpha travels as activation_params (ONNX default 0.01 when absent).
  g = fuse(h, conv_act_graph("", "LeakyRelu"), {"conv_bias_act"}, 1e-5);
  EXPECT_NE(print(*g).find("activation=\"LeakyRelu\", activation_params=[0.01]"), std::string::npos) << print(*g);
  // y * Sigmoid(y) where y is also a graph output: the Conv's output must stay, no fusion.
  g = h.parse(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,3,8,8]
  const %w: f32[6,3,3,3]
  %c: f32[1,6,8,8] = Conv(%x, %w) {pads=[1,1,1,1]}
  %s: f32[1,6,8,8] = Sigmoid(%c)
  %y: f32[1,6,8,8] = Mul(%c, %s)
  output %y
  output %c
}
)");
  h.run(*g, {"conv_bias_act"});
  EXPECT_EQ(print(*g).find("Swish"), std::string::npos) << print(*g);
}

// Convolutions whose activation the cpu backend applies after the convolution (the direct
// depthwise kernel, and oneDNN's GEMM convolution that grouped 1x1 convs take, whose post-ops
// are slow): every activation against the unfused graph on random inputs.
TEST(ConvBiasAct, ActivationsAfterDepthwiseAndGroupedPointwiseConvs) {
  PassHarness h;
  for (const std::string conv : {"const %w: f32[8,1,3,3]\n  %c: f32[1,8,16,16] = Conv(%x, %w) {group=8, pads=[1,1,1,1]}",
                                 "const %w: f32[8,4,1,1]\n  %c: f32[1,8,16,16] = Conv(%x, %w) {group=2}"}) {
    for (const std::string act : {"Relu", "LeakyRelu", "Tanh", "Sigmoid", "HardSwish", "Elu", "Swish"}) {
      std::string text = "graph g opset(ai.onnx=" + std::string(act == "HardSwish" ? "14" : "13") +
                         ") {\n  input %x: f32[1,8,16,16]\n  " + conv + "\n";
      if (act == "Swish")
        text += "  %s: f32[1,8,16,16] = Sigmoid(%c)\n  %y: f32[1,8,16,16] = Mul(%c, %s)\n";
      else
        text += "  %y: f32[1,8,16,16] = " + act + "(%c)\n";
      text += "  output %y\n}\n";
      auto g = fuse(h, text, {"conv_bias_act"}, 1e-5);
      ASSERT_EQ(g->num_nodes(), 1u) << act << "\n" << print(*g);
      EXPECT_EQ(g->nodes()[0]->op_type(), "FusedConv") << act;
    }
  }
}

TEST(ConvBiasAct, LoneBiasAddFoldsIntoConv) {
  PassHarness h;
  auto g = fuse(h, conv_act_graph("[6,1,1]", ""), {"conv_bias_act"});
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,3,8,8]
  const %w: f32[6,3,3,3]
  const %Conv_1_bias: f32[6]
  %y: f32[1,6,8,8] = Conv(%x, %w, %Conv_1_bias) {pads=[1,1,1,1]}
  output %y
}
)");
}

TEST(ConvBiasAct, RefusesNonChannelBiasSharedValueAndNeverFlag) {
  PassHarness h;
  auto g = h.parse(conv_act_graph("[1,1,8,8]", "Relu"));  // not per channel: only the Relu may fuse
  h.run(*g, {"conv_bias_act"});
  EXPECT_EQ(g->num_nodes(), 3u) << print(*g);

  std::string shared = conv_act_graph("[6,1,1]", "Relu");
  shared.replace(shared.find("  output %y"), 0, "  output %c\n");
  g = h.parse(shared);
  h.run(*g, {"conv_bias_act"});
  EXPECT_EQ(g->num_nodes(), 3u) << print(*g);  // %c is a graph output

  // fuse_flag never on Relu (a registry file could say so): the Relu stays.
  OpDef relu = *h.env().ops.find("", "Relu", 13);
  relu.fuse_flag = FuseFlag::Never;
  h.env().ops.add_or_replace(relu);
  g = h.parse(conv_act_graph("[6,1,1]", "Relu"));
  h.run(*g, {"conv_bias_act"});
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,3,8,8]
  const %w: f32[6,3,3,3]
  const %Conv_1_bias: f32[6]
  %a: f32[1,6,8,8] = Conv(%x, %w, %Conv_1_bias) {pads=[1,1,1,1]}
  %y: f32[1,6,8,8] = Relu(%a)
  output %y
}
)");
}

// ---------------------------------------------------------------- conv_add_act

std::string residual_graph(const std::string& act, bool z_first = false) {
  return "graph g opset(ai.onnx=13) {\n"
         "  input %x: f32[1,4,8,8]\n  input %z: f32[1,8,8,8]\n  const %w: f32[8,4,1,1]\n  const %b: f32[8]\n"
         "  %c: f32[1,8,8,8] = Conv(%x, %w, %b)\n" +
         std::string("  %") + (act.empty() ? "y" : "a") + ": f32[1,8,8,8] = " + (z_first ? "Add(%z, %c)\n" : "Add(%c, %z)\n") +
         (act.empty() ? "" : "  %y: f32[1,8,8,8] = " + act + "(%a)\n") + "  output %y\n}\n";
}

TEST(ConvAddAct, ResidualAndActivationBecomeFusedConvWithZ) {
  PassHarness h;
  auto g = fuse(h, residual_graph("Relu"), {"conv_add_act"});
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,4,8,8]
  input %z: f32[1,8,8,8]
  const %w: f32[8,4,1,1]
  const %b: f32[8]
  %y: f32[1,8,8,8] = ge.FusedConv(%x, %w, %b, %z) {activation="Relu"}
  output %y
}
)");
  g = fuse(h, residual_graph("", true), {"conv_add_act"});
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,4,8,8]
  input %z: f32[1,8,8,8]
  const %w: f32[8,4,1,1]
  const %b: f32[8]
  %y: f32[1,8,8,8] = ge.FusedConv(%x, %w, %b, %z)
  output %y
}
)");
  g = fuse(h, residual_graph("Sigmoid"), {"conv_bias_act", "conv_add_act"});
  EXPECT_EQ(g->num_nodes(), 1u) << print(*g);
}

TEST(ConvAddAct, ThreeRulesOnAResidualBlock) {
  PassHarness h;
  auto g = fuse(h, R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,8,6,6]
  const %w1: f32[8,8,3,3]
  const %w2: f32[8,8,3,3]
  const %scale: f32[8]
  const %beta: f32[8]
  const %mean: f32[8]
  const %var: f32[8]
  %c1: f32[1,8,6,6] = Conv(%x, %w1) {pads=[1,1,1,1]}
  %r1: f32[1,8,6,6] = Relu(%c1)
  %c2: f32[1,8,6,6] = Conv(%r1, %w2) {pads=[1,1,1,1]}
  %n2: f32[1,8,6,6] = BatchNormalization(%c2, %scale, %beta, %mean, %var)
  %s: f32[1,8,6,6] = Add(%n2, %x)
  %y: f32[1,8,6,6] = Relu(%s)
  output %y
})", {"conv_bn", "conv_bias_act", "conv_add_act"}, 1e-5);
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,8,6,6]
  const %w1: f32[8,8,3,3]
  const %w2_bn: f32[8,8,3,3]
  const %Conv_3_bias: f32[8]
  %r1: f32[1,8,6,6] = ge.FusedConv(%x, %w1, _, _) {activation="Relu", pads=[1,1,1,1]}
  %y: f32[1,8,6,6] = ge.FusedConv(%r1, %w2_bn, %Conv_3_bias, %x) {activation="Relu", pads=[1,1,1,1]}
  output %y
}
)");
}

// ShuffleNet v1 (onnx-light/shufflenet) writes its residuals as a two-input Sum: the same fusion.
// A three-input Sum is not a residual add and stays.
TEST(ConvAddAct, TwoInputSumIsAResidualAdd) {
  PassHarness h;
  std::string t = residual_graph("Relu");
  t.replace(t.find("Add(%c, %z)"), 11, "Sum(%z, %c)");
  auto g = fuse(h, t, {"conv_add_act"});
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,4,8,8]
  input %z: f32[1,8,8,8]
  const %w: f32[8,4,1,1]
  const %b: f32[8]
  %y: f32[1,8,8,8] = ge.FusedConv(%x, %w, %b, %z) {activation="Relu"}
  output %y
}
)");
  t = residual_graph("Relu");
  t.replace(t.find("Add(%c, %z)"), 11, "Sum(%c, %z, %z)");
  g = h.parse(t);
  h.run(*g, {"conv_add_act"});
  EXPECT_EQ(g->num_nodes(), 3u) << print(*g);
}

TEST(ConvAddAct, RefusesBroadcastAddAndSharedConv) {
  PassHarness h;
  std::string t = residual_graph("Relu");
  t.replace(t.find("%z: f32[1,8,8,8]"), 16, "%z: f32[1,8,1,8]");  // broadcast, not a residual
  auto g = h.parse(t);
  h.run(*g, {"conv_add_act"});
  EXPECT_EQ(g->num_nodes(), 3u) << print(*g);

  t = residual_graph("Relu");
  t.replace(t.find("  output %y"), 0, "  %d: f32[1,8,8,8] = Sigmoid(%c)\n  output %d\n");
  g = h.parse(t);
  h.run(*g, {"conv_add_act"});
  EXPECT_EQ(g->num_nodes(), 4u) << print(*g);
}

}  // namespace
}  // namespace ge
