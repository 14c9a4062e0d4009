// tests/fusion/test_transformer_fusion.cc — the transformer GEMM and GELU rules (matmul_add,
// gemm_act, gelu, bias_gelu): text IR before and after, equal outputs of the unfused and fused
// graph on random inputs, and the refusals. layer_norm, add_layernorm and attention:
// test_transformer_fusion_norm_attention.cc.
#include "transformer_fusion_fixture.h"

namespace ge::test {
namespace {

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

TEST_F(TransformerFusion, GemmActSwish) {
  // PyTorch's SiLU after a Linear layer: y · Sigmoid(y), y = x · W + b.
  const std::string before = std::string(kLinear).replace(std::string(kLinear).find("  output %y"), 11,
                                                          "  %s: f32[2,8,32] = Sigmoid(%y)\n"
                                                          "  %r: f32[2,8,32] = Mul(%s, %y)\n  output %r");
  EXPECT_EQ(fuse(before, {"matmul_add", "gemm_act"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,8,16]
  const %w: f32[16,32]
  const %b: f32[32]
  %r: f32[2,8,32] = ge.FusedMatMul(%x, %w, %b) {activation="Swish", transB=0}
  output %r
}
)");
}

TEST_F(TransformerFusion, GemmActLeakyReluTanhHardSwishElu) {
  EXPECT_EQ(fuse(R"(graph g opset(ai.onnx=13) {
  input %x: f32[8,16]
  const %w: f32[16,32]
  %m: f32[8,32] = MatMul(%x, %w)
  %y: f32[8,32] = LeakyRelu(%m) {alpha=0.2}
  output %y
})", {"gemm_act"}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[8,16]
  const %w: f32[16,32]
  %y: f32[8,32] = ge.FusedMatMul(%x, %w) {activation="LeakyRelu", activation_params=[0.2], transB=0}
  output %y
}
)");
  for (const char* act : {"Tanh", "HardSwish", "Elu"}) {
    const std::string out = fuse(std::string(R"(graph g opset(ai.onnx=14) {
  input %x: f32[8,16]
  const %w: f32[16,32]
  %m: f32[8,32] = MatMul(%x, %w)
  %y: f32[8,32] = )") + act + R"((%m)
  output %y
})", {"gemm_act"});
    EXPECT_NE(out.find(std::string("ge.FusedMatMul(%x, %w) {activation=\"") + act + "\""), std::string::npos) << out;
  }
}

TEST_F(TransformerFusion, GemmActUnderStrictNumericsFusesOnlyExactActivations) {
  for (const char* act : {"Tanh", "LeakyRelu"}) {
    auto g = h.parse(std::string(R"(graph g opset(ai.onnx=13) {
  input %x: f32[8,16]
  const %w: f32[16,32]
  %m: f32[8,32] = MatMul(%x, %w)
  %y: f32[8,32] = )") + act + R"((%m)
  output %y
})");
    const std::string before = text(*g);
    h.run(*g, {"gemm_act"}, OptLevel::O2, /*strict=*/true);
    if (std::string(act) == "Tanh") EXPECT_EQ(text(*g), before);
    else EXPECT_NE(text(*g).find("activation=\"LeakyRelu\""), std::string::npos) << text(*g);
  }
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

}  // namespace
}  // namespace ge::test
