// tests/fusion/test_transformer_fusion_norm_attention.cc — layer_norm, add_layernorm and
// attention: text IR before and after, equal outputs fused vs unfused, and the refusals (wrong
// reduce axis, intermediate graph output, second consumer, rule disabled, shared residual sum).
// attention in each exporter's form: BERT (scores divided, additive mask), torch's
// nn.MultiheadAttention as ViT exports it (Q divided before Q·Kᵀ), GPT-2 (scores multiplied, the
// causal mask as Where(cond, finfo.min, ·)), T5 (unscaled scores plus a position bias).
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

/// ViT's form (torch nn.MultiheadAttention): Q divided by √d before Q·Kᵀ, no mask.
const char* kPrescaledQ = R"(graph g opset(ai.onnx=13) {
  input %q: f32[2,16,8]
  input %kt: f32[2,8,16]
  input %v: f32[2,16,8]
  const %c: f32[] = [2.828427]
  %qs: f32[2,16,8] = Div(%q, %c)
  %s: f32[2,16,16] = MatMul(%qs, %kt)
  %p: f32[2,16,16] = Softmax(%s) {axis=-1}
  %y: f32[2,16,8] = MatMul(%p, %v)
  output %y
})";

TEST_F(TransformerFusion, AttentionWithQDividedBeforeTheProduct) { EXPECT_EQ(fuse(kPrescaledQ, {"attention"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %q: f32[2,16,8]
  input %kt: f32[2,8,16]
  input %v: f32[2,16,8]
  const %c: f32[]
  %y: f32[2,16,8] = ge.Attention(%q, %kt, %v) {scale=0.35355338}
  output %y
}
)"); }

/// GPT-2's form: scores multiplied, then Where(cond, finfo.min, scores) — or the fill on the
/// other side — before the Softmax.
std::string where_graph(bool fill_first) {
  return std::string(R"(graph g opset(ai.onnx=13) {
  input %q: f32[1,2,16,8]
  input %kt: f32[1,2,8,16]
  input %v: f32[1,2,16,8]
  input %cond: bool[1,1,16,16]
  const %c: f32[] = [0.35355338]
  const %fill: f32[] = [-3.4028235e38]
  %s: f32[1,2,16,16] = MatMul(%q, %kt)
  %sc: f32[1,2,16,16] = Mul(%s, %c)
)") + (fill_first ? "  %w: f32[1,2,16,16] = Where(%cond, %fill, %sc)\n" : "  %w: f32[1,2,16,16] = Where(%cond, %sc, %fill)\n") +
         R"(  %p: f32[1,2,16,16] = Softmax(%w) {axis=-1}
  %y: f32[1,2,16,8] = MatMul(%p, %v)
  output %y
})";
}

std::string where_fused(int fill_if) {
  return R"(graph g opset(ai.onnx=13, ge=1) {
  input %q: f32[1,2,16,8]
  input %kt: f32[1,2,8,16]
  input %v: f32[1,2,16,8]
  input %cond: bool[1,1,16,16]
  const %c: f32[]
  const %fill: f32[]
  %y: f32[1,2,16,8] = ge.Attention(%q, %kt, %v, _, %cond) {fill=-3.4028235e+38, fill_if=)" +
         std::to_string(fill_if) + R"(, scale=0.35355338}
  output %y
}
)";
}

TEST_F(TransformerFusion, AttentionWithWhereFillOnEitherSide) {
  EXPECT_EQ(fuse(where_graph(true), {"attention"}), where_fused(1));
  EXPECT_EQ(fuse(where_graph(false), {"attention"}), where_fused(0));
}

/// T5's form: no scale, a position bias added to the scores.
TEST_F(TransformerFusion, AttentionWithUnscaledScoresAndABias) {
  const char* t5 = R"(graph g opset(ai.onnx=13) {
  input %q: f32[1,2,16,8]
  input %kt: f32[1,2,8,16]
  input %v: f32[1,2,16,8]
  const %bias: f32[1,2,16,16]
  %s: f32[1,2,16,16] = MatMul(%q, %kt)
  %b: f32[1,2,16,16] = Add(%s, %bias)
  %p: f32[1,2,16,16] = Softmax(%b) {axis=-1}
  %y: f32[1,2,16,8] = MatMul(%p, %v)
  output %y
})";
  EXPECT_EQ(fuse(t5, {"attention"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %q: f32[1,2,16,8]
  input %kt: f32[1,2,8,16]
  input %v: f32[1,2,16,8]
  const %bias: f32[1,2,16,16]
  %y: f32[1,2,16,8] = ge.Attention(%q, %kt, %v, %bias) {scale=1.0}
  output %y
}
)");
}

TEST_F(TransformerFusion, AttentionRefusesWhatIsNotAScalarScaleOrFill) {
  std::string t = attention_graph(true);  // c / scores is not a scale
  t.replace(t.find("Div(%s, %c)"), 11, "Div(%c, %s)");
  expect_unchanged(t, {"attention"});
  t = where_graph(true);  // a fill per key is not one fill value
  t.replace(t.find("const %fill: f32[] = [-3.4028235e38]"), 36, "const %fill: f32[16]");
  expect_unchanged(t, {"attention"});
}

TEST_F(TransformerFusion, AttentionKeepsAPerFeatureFactorOnQOutside) {
  // A factor per feature of Q is not one scale of the scores: the Div stays, its output is Q.
  std::string t = kPrescaledQ;
  t.replace(t.find("const %c: f32[] = [2.828427]"), 28, "const %c: f32[8]");
  EXPECT_EQ(fuse(t, {"attention"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %q: f32[2,16,8]
  input %kt: f32[2,8,16]
  input %v: f32[2,16,8]
  const %c: f32[8]
  %qs: f32[2,16,8] = Div(%q, %c)
  %y: f32[2,16,8] = ge.Attention(%qs, %kt, %v) {scale=1.0}
  output %y
}
)");
}

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
