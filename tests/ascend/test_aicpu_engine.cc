// The AI CPU engine (docs/ascend.md, "AI CPU engine"; aicpu_kernels.cc, ge/sdk/kernel_delegate.h):
// an op the emulator has no kernel class for runs the cpu backend's kernel on the AI CPU, found
// through the kernel registry; an AI CPU task the emulator's own class refuses (a 1-D pool) does
// too; an op no backend runs is refused naming both backends.
#include <gtest/gtest.h>

#include <cmath>

#include "ascend_harness.h"
#include "ge/sdk/kernel_delegate.h"

namespace ge::ascend {
namespace {

class AscendAicpuEngine : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cpu_ = test::cpu_env().release();
    fp16_ = test::ascend_env("force_fp16").release();
    fp32_ = test::ascend_env("must_keep_origin_dtype").release();
  }
  static core::Environment *cpu_, *fp16_, *fp32_;
};
core::Environment *AscendAicpuEngine::cpu_, *AscendAicpuEngine::fp16_, *AscendAicpuEngine::fp32_;

const Node* node_of(const Graph& g, const std::string& op) {
  for (const Node* n : g.nodes())
    if (n->op_type() == op) return n;
  return nullptr;
}

TEST_F(AscendAicpuEngine, TheRegistryDelegatesAscendToCpu) {
  EXPECT_EQ(kernel_delegate_of(fp16_->kernels, "ascend"), "cpu");
  EXPECT_EQ(kernel_delegate_of(fp16_->kernels, "cpu"), "");
  EXPECT_EQ(kernel_backends_searched(fp16_->kernels, "ascend"), "ascend, cpu");
  // Softplus: only the cpu backend has a kernel; the registry answers for ascend with the delegate.
  const KernelDef* d = fp16_->kernels.find("ascend", "", "Softplus");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->domain, kKernelDelegateDomain);
  EXPECT_EQ(d->source, "ascend_backend");
  // ge.TransData's ascend kernel is its own (the cpu backend's has another domain or none).
  const KernelDef* t = fp16_->kernels.find("ascend", "ge", "Cast");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->backend, "ascend");
}

TEST_F(AscendAicpuEngine, SoftplusRunsTheCpuKernelOnTheAiCpuWithHandValues) {
  const char* text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,6]
  %y: f32[1,6] = Softplus(%x)
  output %y
})";
  Tensor x = Tensor::allocate(DataType::Float32, Shape{1, 6});
  const float xs[6] = {0.f, 1.f, -1.f, 2.f, -3.f, 0.5f};
  std::copy(xs, xs + 6, x.data_as<float>());
  // ln(1 + e^x), by hand: ln 2, ln(1 + e), ln(1 + 1/e), ln(1 + e^2), ln(1 + e^-3), ln(1 + e^0.5).
  const double want[6] = {0.6931472, 1.3132617, 0.3132617, 2.1269280, 0.0485874, 0.9740770};
  test::Run r = test::compile_and_run(test::parse(*fp16_, text), *fp16_, "ascend", {x});
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].dtype(), DataType::Float32);  // not an AI Core op: it keeps fp32, no Cast
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(r.outputs[0].data_as<float>()[i], want[i], 1e-6) << i;
  EXPECT_EQ(r.counters["ascend.placement.aicpu"], 1);
  EXPECT_EQ(r.counters["ascend.casts.to_fp16"], 0);
  const Node* n = node_of(*r.graph, "Softplus");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->attrs.get_string("ascend_engine", ""), "aicpu");
  EXPECT_EQ(n->attrs.get_string("ascend_reason", ""), "aicpu: no AI Core kernel for Softplus");
}

TEST_F(AscendAicpuEngine, AnAiCpuOpBetweenCubeAndVectorOps) {
  // Conv (Cube, fp16) -> Cos (AI CPU, fp32: Casts around it) -> Relu (Vector, fp16). Cos is not
  // one of ge.FusedElementwise's ops, so it stays a node of its own.
  const char* text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,8,6,6]
  const %w: f32[8,8,3,3]
  %c: f32[1,8,6,6] = Conv(%x, %w) {pads=[1,1,1,1]}
  %s: f32[1,8,6,6] = Cos(%c)
  %r: f32[1,8,6,6] = Relu(%s)
  %out: f32[1,288] = Flatten(%r) {axis=1}
  output %out
})";
  test::ModeRuns m = test::run_three_ways(text, *cpu_, *fp16_, *fp32_);
  std::printf("Conv->Cos->Relu force_fp16 rel L2 %.3e  must_keep_origin_dtype %.3e\n", m.e16, m.e32);
  EXPECT_LE(m.e16, 1e-3);
  EXPECT_GT(m.e16, 0.0);
  EXPECT_LE(m.e32, 1e-5);
  EXPECT_EQ(m.fp16.counters["ascend.placement.aicore.cube"], 1);
  EXPECT_EQ(m.fp16.counters["ascend.placement.aicpu"], 1);
  EXPECT_EQ(m.fp16.counters["ascend.placement.aicpu.Cos"], 1);
  EXPECT_EQ(m.fp16.counters["ascend.casts.to_fp32"], 2);  // the Conv's fp16 result for Cos; the output
}

TEST_F(AscendAicpuEngine, AOneDimensionalPoolTheVectorKernelRefusesRunsTheCpuKernelInFp32) {
  // MaxPool is a Vector op, but its Vector kernel tiles 2-D pools only: the precision pass keeps
  // a 1-D one in fp32 (an AI CPU op), placement puts it on the AI CPU, where the emulator's pool
  // class refuses rank 3 and the cpu backend's kernel runs it — the cpu reference's own kernel,
  // so the results are equal.
  const char* text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,4,12]
  %y: f32[1,4,5] = MaxPool(%x) {kernel_shape=[3], strides=[2]}
  %out: f32[1,20] = Flatten(%y) {axis=1}
  output %out
})";
  test::ModeRuns m = test::run_three_ways(text, *cpu_, *fp16_, *fp32_);
  EXPECT_EQ(m.e16, 0.0);
  EXPECT_EQ(m.e32, 0.0);
  EXPECT_EQ(m.fp16.counters["ascend.casts.to_fp16"], 0);
  const Node* n = node_of(*m.fp16.graph, "MaxPool");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->attrs.get_string("ascend_engine", ""), "aicpu");
  EXPECT_EQ(n->attrs.get_string("ascend_reason", ""), "aicpu: the Vector kernel cannot tile it (not a 2-D pool)");
  EXPECT_EQ(n->input(0)->dtype, DataType::Float32);
}

TEST_F(AscendAicpuEngine, AnOpNoBackendRunsIsRefusedNamingBothBackends) {
  const char* text = R"(graph g opset(ai.onnx=13) {
  input %a: u8[2,3]
  input %b: u8[3,2]
  %y: i32[2,2] = MatMulInteger(%a, %b)
  output %y
})";
  Tensor a = Tensor::allocate(DataType::UInt8, Shape{2, 3}), b = Tensor::allocate(DataType::UInt8, Shape{3, 2});
  try {
    test::compile_and_run(test::parse(*fp16_, text), *fp16_, "ascend", {a, b});
    FAIL() << "MatMulInteger ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no kernel for op type MatMulInteger-10 (backends searched: ascend, cpu)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ge::ascend
