// tests/fusion/test_transformer_fusion.cc — the transformer fusion rules (matmul_add, gemm_act,
// gelu, bias_gelu, layer_norm, add_layernorm, attention): text IR before and after, equal
// outputs of the unfused and fused graph on random inputs, and the refusals.
#include <gtest/gtest.h>

#include "pass_harness.h"

namespace ge::test {
namespace {

std::string text(const Graph& g) { return print_graph(g, {.show_node_names = false}); }

class TransformerFusion : public ::testing::Test {
 protected:
  /// Parses `before` with random constants (scalars given in the text keep their values), runs
  /// `rules`, checks outputs against the unfused graph, and returns the fused text.
  std::string fuse(const std::string& before, std::vector<std::string> rules, double tol = 1e-5) {
    auto g = h.parse(before);
    randomize_keep_scalars(*g);
    auto original = g->clone();
    h.run(*g, std::move(rules));
    h.expect_same_outputs(*original, *g, tol);
    return text(*g);
  }
  /// Like fuse() but expects no change.
  void expect_unchanged(const std::string& before, std::vector<std::string> rules, std::vector<std::string> disabled = {}) {
    auto g = h.parse(before);
    const std::string t = text(*g);
    core::CompileOptions o;
    o.opt_level = OptLevel::O3;
    o.only = std::move(rules);
    o.disabled = std::move(disabled);
    o.verify_each = true;
    o.fail_on_pass_error = true;
    core::compile_graph(*g, h.env(), o);
    EXPECT_EQ(text(*g), t);
  }
  static void randomize_keep_scalars(Graph& g) {
    std::map<Value*, std::shared_ptr<const Tensor>> keep;
    for (Value* v : g.values())
      if (v->is_constant() && v->numel() == 1) keep[v] = v->data;
    PassHarness::randomize_constants(g);
    for (auto& [v, d] : keep) v->data = d;
  }
  PassHarness h;
};

// ---------------------------------------------------------------- matmul_add, gemm_act

const char* kLinear = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,8,16]
  const %w: f32[16,32]
  const %b: f32[32]
  %m: f32[2,8,32] = MatMul(%x, %w)
  %y: f32[2,8,32] = Add(%b, %m)
  output %y
})";

TEST_F(TransformerFusion, MatMulAdd) {
  EXPECT_EQ(fuse(kLinear, {"matmul_add"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,8,16]
  const %w: f32[16,32]
  const %b: f32[32]
  %y: f32[2,8,32] = ge.FusedMatMul(%x, %w, %b) {activation=""}
  output %y
}
)");
}

TEST_F(TransformerFusion, MatMulAddRefusesBroadcastingBias) {
  expect_unchanged(R"(graph g opset(ai.onnx=13) {
  input %x: f32[8,16]
  const %w: f32[16,32]
  const %b: f32[8,1]
  %m: f32[8,32] = MatMul(%x, %w)
  %y: f32[8,32] = Add(%m, %b)
  output %y
})", {"matmul_add"});
}

TEST_F(TransformerFusion, MatMulAddRefusesWhenProductIsGraphOutput) {
  expect_unchanged(R"(graph g opset(ai.onnx=13) {
  input %x: f32[8,16]
  const %w: f32[16,32]
  const %b: f32[32]
  %m: f32[8,32] = MatMul(%x, %w)
  %y: f32[8,32] = Add(%m, %b)
  output %y
  output %m
})", {"matmul_add"});
}

TEST_F(TransformerFusion, GemmActRelu) {
  const std::string before = std::string(kLinear).replace(std::string(kLinear).find("  output %y"), 11,
                                                          "  %r: f32[2,8,32] = Relu(%y)\n  output %r");
  EXPECT_EQ(fuse(before, {"matmul_add", "gemm_act"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,8,16]
  const %w: f32[16,32]
  const %b: f32[32]
  %r: f32[2,8,32] = ge.FusedMatMul(%x, %w, %b) {activation="Relu", transB=0}
  output %r
}
)");
}

TEST_F(TransformerFusion, GemmTransBSigmoid) {
  EXPECT_EQ(fuse(R"(graph g opset(ai.onnx=13) {
  input %x: f32[8,16]
  const %w: f32[32,16]
  const %b: f32[32]
  %m: f32[8,32] = Gemm(%x, %w, %b) {transB=1}
  %y: f32[8,32] = Sigmoid(%m)
  output %y
})", {"gemm_act"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[8,16]
  const %w: f32[32,16]
  const %b: f32[32]
  %y: f32[8,32] = ge.FusedMatMul(%x, %w, %b) {activation="Sigmoid", transB=1}
  output %y
}
)");
}

TEST_F(TransformerFusion, GemmActKeepsSigmoidUnderStrictNumerics) {
  // oneDNN's logistic post-op may round differently from the Sigmoid kernel.
  auto g = h.parse(R"(graph g opset(ai.onnx=13) {
  input %x: f32[8,16]
  const %w: f32[16,32]
  %m: f32[8,32] = MatMul(%x, %w)
  %y: f32[8,32] = Sigmoid(%m)
  output %y
})");
  const std::string before = text(*g);
  h.run(*g, {"gemm_act"}, OptLevel::O2, /*strict=*/true);
  EXPECT_EQ(text(*g), before);
}

TEST_F(TransformerFusion, GemmActRefusesScaledGemm) {
  expect_unchanged(R"(graph g opset(ai.onnx=13) {
  input %x: f32[8,16]
  const %w: f32[16,32]
  %m: f32[8,32] = Gemm(%x, %w) {alpha=0.5}
  %y: f32[8,32] = Relu(%m)
  output %y
})", {"gemm_act"});
}

// ---------------------------------------------------------------- gelu, bias_gelu

// PyTorch's export: ((x · (1 + erf(x / √2))) · 0.5, after a Linear layer.
const char* kFfnGelu = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,8,16]
  const %w: f32[16,32]
  const %b: f32[32]
  const %sqrt2: f32[] = [1.4142135]
  const %one: f32[] = [1.0]
  const %half: f32[] = [0.5]
  %m: f32[2,8,32] = MatMul(%x, %w)
  %h: f32[2,8,32] = Add(%b, %m)
  %d: f32[2,8,32] = Div(%h, %sqrt2)
  %e: f32[2,8,32] = Erf(%d)
  %p: f32[2,8,32] = Add(%e, %one)
  %q: f32[2,8,32] = Mul(%h, %p)
  %y: f32[2,8,32] = Mul(%q, %half)
  output %y
})";

TEST_F(TransformerFusion, GeluAlone) { EXPECT_EQ(fuse(kFfnGelu, {"gelu"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,8,16]
  const %w: f32[16,32]
  const %b: f32[32]
  const %sqrt2: f32[]
  const %one: f32[]
  const %half: f32[]
  %m: f32[2,8,32] = MatMul(%x, %w)
  %h: f32[2,8,32] = Add(%b, %m)
  %y: f32[2,8,32] = ge.Gelu(%h)
  output %y
}
)"); }

TEST_F(TransformerFusion, GeluIntoMatMulEpilogue) {
  EXPECT_EQ(fuse(kFfnGelu, {"gelu", "matmul_add", "gemm_act", "bias_gelu"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,8,16]
  const %w: f32[16,32]
  const %b: f32[32]
  const %sqrt2: f32[]
  const %one: f32[]
  const %half: f32[]
  %y: f32[2,8,32] = ge.FusedMatMul(%x, %w, %b) {activation="Gelu", transB=0}
  output %y
}
)");
}

TEST_F(TransformerFusion, BiasGeluWithoutMatMul) {
  // The biased tensor comes from a Relu, so no GEMM can take the bias and the Gelu.
  EXPECT_EQ(fuse(R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,8,16]
  const %b: f32[16]
  const %sqrt2: f32[] = [1.4142135]
  const %one: f32[] = [1.0]
  const %half: f32[] = [0.5]
  %r: f32[2,8,16] = Relu(%x)
  %h: f32[2,8,16] = Add(%r, %b)
  %d: f32[2,8,16] = Div(%h, %sqrt2)
  %e: f32[2,8,16] = Erf(%d)
  %p: f32[2,8,16] = Add(%e, %one)
  %q: f32[2,8,16] = Mul(%h, %p)
  %y: f32[2,8,16] = Mul(%q, %half)
  output %y
})", {"gelu", "matmul_add", "gemm_act", "bias_gelu"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,8,16]
  const %b: f32[16]
  const %sqrt2: f32[]
  const %one: f32[]
  const %half: f32[]
  %r: f32[2,8,16] = Relu(%x)
  %y: f32[2,8,16] = ge.Gelu(%r, %b)
  output %y
}
)");
}

TEST_F(TransformerFusion, GeluOtherShapes) {
  // 0.5 first and Mul by 1/√2, operands swapped.
  EXPECT_EQ(fuse(R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,32]
  const %rs2: f32[] = [0.70710677]
  const %one: f32[] = [1.0]
  const %half: f32[] = [0.5]
  %d: f32[4,32] = Mul(%rs2, %x)
  %e: f32[4,32] = Erf(%d)
  %p: f32[4,32] = Add(%one, %e)
  %hx: f32[4,32] = Mul(%half, %x)
  %y: f32[4,32] = Mul(%p, %hx)
  output %y
})", {"gelu"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[4,32]
  const %rs2: f32[]
  const %one: f32[]
  const %half: f32[]
  %y: f32[4,32] = ge.Gelu(%x)
  output %y
}
)");
  // 0.5 applied to the erf term.
  EXPECT_EQ(fuse(R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,32]
  const %sqrt2: f32[] = [1.4142135]
  const %one: f32[] = [1.0]
  const %half: f32[] = [0.5]
  %d: f32[4,32] = Div(%x, %sqrt2)
  %e: f32[4,32] = Erf(%d)
  %p: f32[4,32] = Add(%e, %one)
  %ph: f32[4,32] = Mul(%p, %half)
  %y: f32[4,32] = Mul(%x, %ph)
  output %y
})", {"gelu"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[4,32]
  const %sqrt2: f32[]
  const %one: f32[]
  const %half: f32[]
  %y: f32[4,32] = ge.Gelu(%x)
  output %y
}
)");
}

TEST_F(TransformerFusion, GeluRefusesWrongConstant) {
  expect_unchanged(R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,32]
  const %sqrt2: f32[] = [1.5]
  const %one: f32[] = [1.0]
  const %half: f32[] = [0.5]
  %d: f32[4,32] = Div(%x, %sqrt2)
  %e: f32[4,32] = Erf(%d)
  %p: f32[4,32] = Add(%e, %one)
  %q: f32[4,32] = Mul(%x, %p)
  %y: f32[4,32] = Mul(%q, %half)
  output %y
})", {"gelu"});
}

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
