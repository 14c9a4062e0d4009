// tests/fusion/test_transformer_fusion_norm_attention.cc — layer_norm, add_layernorm and
// attention: text IR before and after, equal outputs fused vs unfused, and the refusals (wrong
// reduce axis, intermediate graph output, second consumer, rule disabled, shared residual sum).
#include "transformer_fusion_fixture.h"

namespace ge::test {
namespace {

// ---------------------------------------------------------------- layer_norm, add_layernorm

/// PyTorch's LayerNorm export over the last axis, after a residual Add; `axes` and extra lines
/// vary per test.
std::string layer_norm_graph(const std::string& axes = "[-1]", const std::string& extra = "") {
  return R"(graph g opset(ai.onnx=13) {
  input %a: f32[2,8,32]
  input %r: f32[2,8,32]
  const %two: f32[] = [2.0]
  const %eps: f32[] = [1e-05]
  const %gamma: f32[32]
  const %beta: f32[32]
  %x: f32[2,8,32] = Add(%a, %r)
  %mean: f32[2,8,1] = ReduceMean(%x) {axes=)" + axes + R"(}
  %d: f32[2,8,32] = Sub(%x, %mean)
  %sq: f32[2,8,32] = Pow(%d, %two)
  %var: f32[2,8,1] = ReduceMean(%sq) {axes=)" + axes + R"(}
  %ve: f32[2,8,1] = Add(%var, %eps)
  %sd: f32[2,8,1] = Sqrt(%ve)
  %n: f32[2,8,32] = Div(%d, %sd)
  %g: f32[2,8,32] = Mul(%n, %gamma)
  %y: f32[2,8,32] = Add(%g, %beta)
  output %y
)" + extra + "}";
}

TEST_F(TransformerFusion, LayerNorm) { EXPECT_EQ(fuse(layer_norm_graph(), {"layer_norm"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %a: f32[2,8,32]
  input %r: f32[2,8,32]
  const %two: f32[]
  const %eps: f32[]
  const %gamma: f32[32]
  const %beta: f32[32]
  %x: f32[2,8,32] = Add(%a, %r)
  %y: f32[2,8,32] = ge.LayerNormalization(%x, %gamma, %beta) {axis=2, epsilon=1e-05}
  output %y
}
)"); }

TEST_F(TransformerFusion, AddLayerNorm) {
  EXPECT_EQ(fuse(layer_norm_graph(), {"layer_norm", "add_layernorm"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %a: f32[2,8,32]
  input %r: f32[2,8,32]
  const %two: f32[]
  const %eps: f32[]
  const %gamma: f32[32]
  const %beta: f32[32]
  %y: f32[2,8,32] = ge.LayerNormalization(%a, %gamma, %beta, %r) {axis=2, epsilon=1e-05}
  output %y
}
)");
}

TEST_F(TransformerFusion, LayerNormRefusesWrongAxis) {
  std::string t = layer_norm_graph("[1]");
  size_t pos;
  while ((pos = t.find("f32[2,8,1]")) != std::string::npos) t.replace(pos, 10, "f32[2,1,32]");
  expect_unchanged(t, {"layer_norm"});
}

TEST_F(TransformerFusion, LayerNormRefusesIntermediateGraphOutput) {
  expect_unchanged(layer_norm_graph("[-1]", "  output %d\n"), {"layer_norm"});
}

TEST_F(TransformerFusion, LayerNormRefusesSecondConsumer) {
  expect_unchanged(layer_norm_graph("[-1]", "  %z: f32[2,8,1] = Relu(%var)\n  output %z\n"), {"layer_norm"});
}

TEST_F(TransformerFusion, LayerNormDisabledByName) {
  expect_unchanged(layer_norm_graph(), {"layer_norm"}, {"layer_norm"});
}

TEST_F(TransformerFusion, AddLayerNormRefusesSharedSum) {
  auto g = h.parse(layer_norm_graph("[-1]", "  output %x\n"));
  h.run(*g, {"layer_norm", "add_layernorm"});
  // layer_norm applies; the residual sum is also a graph output, so it stays a separate Add.
  EXPECT_EQ(text(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %a: f32[2,8,32]
  input %r: f32[2,8,32]
  const %two: f32[]
  const %eps: f32[]
  const %gamma: f32[32]
  const %beta: f32[32]
  %x: f32[2,8,32] = Add(%a, %r)
  %y: f32[2,8,32] = ge.LayerNormalization(%x, %gamma, %beta) {axis=2, epsilon=1e-05}
  output %y
  output %x
}
)");
}

// ---------------------------------------------------------------- attention

/// The attention core as bert_small exports it: Q [B,H,S,d], K already transposed [B,H,d,S].
std::string attention_graph(bool mask) {
  std::string t = R"(graph g opset(ai.onnx=13) {
  input %q: f32[1,2,16,8]
  input %kt: f32[1,2,8,16]
  input %v: f32[1,2,16,8]
  input %mask: f32[1,1,1,16]
  const %c: f32[] = [2.828427]
  %s: f32[1,2,16,16] = MatMul(%q, %kt)
  %sc: f32[1,2,16,16] = Div(%s, %c)
)";
  t += mask ? "  %sm_in: f32[1,2,16,16] = Add(%sc, %mask)\n  %p: f32[1,2,16,16] = Softmax(%sm_in) {axis=-1}\n"
            : "  %p: f32[1,2,16,16] = Softmax(%sc) {axis=-1}\n";
  t += "  %y: f32[1,2,16,8] = MatMul(%p, %v)\n  output %y\n}";
  return t;
}

TEST_F(TransformerFusion, AttentionWithMask) { EXPECT_EQ(fuse(attention_graph(true), {"attention"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %q: f32[1,2,16,8]
  input %kt: f32[1,2,8,16]
  input %v: f32[1,2,16,8]
  input %mask: f32[1,1,1,16]
  const %c: f32[]
  %y: f32[1,2,16,8] = ge.Attention(%q, %kt, %v, %mask) {scale=0.35355338}
  output %y
}
)"); }

TEST_F(TransformerFusion, AttentionWithoutMask) { EXPECT_EQ(fuse(attention_graph(false), {"attention"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %q: f32[1,2,16,8]
  input %kt: f32[1,2,8,16]
  input %v: f32[1,2,16,8]
  input %mask: f32[1,1,1,16]
  const %c: f32[]
  %y: f32[1,2,16,8] = ge.Attention(%q, %kt, %v) {scale=0.35355338}
  output %y
}
)"); }

TEST_F(TransformerFusion, AttentionRefusesSoftmaxOnOtherAxis) {
  std::string t = attention_graph(true);
  t.replace(t.find("{axis=-1}"), 9, "{axis=2}");
  expect_unchanged(t, {"attention"});
}

TEST_F(TransformerFusion, AttentionRefusesSharedProbabilities) {
  std::string t = attention_graph(true);
  t.replace(t.find("  output %y"), 11, "  output %y\n  output %p");
  expect_unchanged(t, {"attention"});
}

}  // namespace
}  // namespace ge::test
