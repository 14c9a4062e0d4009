// MatMul / Gemm on the Cube read both matrix operands in FRACTAL_NZ (the ascend format
// preference): a constant B converted at compile time, an activation A through a TransData; the
// result is plain. Values against the CPU backend within fp16 tolerance, odd sizes and a batch.
#include "ascend_harness.h"

namespace ge::ascend {
namespace {

struct Seen {
  int nz_const = 0, nz_transdata = 0, cube = 0;
};

Seen inspect(const Graph& g) {
  Seen s;
  for (const Node* n : g.nodes()) {
    if (n->op_type() != "MatMul" && n->op_type() != "Gemm") continue;
    ++s.cube;
    EXPECT_EQ(n->input(0)->format, Format::FRACTAL_NZ) << n->describe();
    EXPECT_EQ(n->input(1)->format, Format::FRACTAL_NZ) << n->describe();
    EXPECT_EQ(n->input(0)->dtype, DataType::Float16) << n->describe();
    EXPECT_EQ(n->output(0)->format, Format::ND) << n->describe();
    for (size_t i : {size_t{0}, size_t{1}}) {
      const Value* v = n->input(i);
      if (v->is_constant()) ++s.nz_const;
      else if (v->producer() && v->producer()->op_type() == "TransData") ++s.nz_transdata;
    }
  }
  return s;
}

void check(const std::string& text, int want_const, int want_transdata) {
  SCOPED_TRACE(text);
  auto cpu = test::cpu_env();
  auto fp16 = test::ascend_env("force_fp16");
  auto in = test::random_inputs(*test::parse(*cpu, text));
  auto ref = test::compile_and_run(test::parse(*cpu, text), *cpu, "cpu", in);
  auto h = test::compile_and_run(test::parse(*fp16, text), *fp16, "ascend", in);
  const Seen s = inspect(*h.graph);
  EXPECT_EQ(s.cube, 1);
  EXPECT_EQ(s.nz_const, want_const);
  EXPECT_EQ(s.nz_transdata, want_transdata);
  const double e = test::rel_l2(h.outputs[0], ref.outputs[0]);
  EXPECT_LE(e, 1e-3);
  EXPECT_GT(e, 0.0);
  std::printf("rel L2 %.3e\n", e);
}

TEST(AscendMatMulNz, ConstantBConvertedAtCompileTimeActivationThroughTransData) {
  check(R"(graph g opset(ai.onnx=13) {
  input %x: f32[7,37]
  const %w: f32[37,19]
  %y: f32[7,19] = MatMul(%x, %w)
  %out: f32[1,133] = Flatten(%y) {axis=0}
  output %out
})", 1, 1);
}

TEST(AscendMatMulNz, GemmTransposedBAndBias) {
  check(R"(graph g opset(ai.onnx=13) {
  input %x: f32[5,40]
  const %w: f32[11,40]
  const %c: f32[11]
  %y: f32[5,11] = Gemm(%x, %w, %c) {alpha=0.5, beta=2.0, transB=1}
  %out: f32[1,55] = Flatten(%y) {axis=0}
  output %out
})", 1, 1);
}

TEST(AscendMatMulNz, BatchedActivationsBothThroughTransData) {
  // Attention-like: both operands are activations (two TransData), batch of 3, odd M, K, N.
  check(R"(graph g opset(ai.onnx=13) {
  input %a: f32[3,17,33]
  input %b: f32[3,33,18]
  %y: f32[3,17,18] = MatMul(%a, %b)
  %out: f32[1,918] = Flatten(%y) {axis=0}
  output %out
})", 0, 2);
}

}  // namespace
}  // namespace ge::ascend
