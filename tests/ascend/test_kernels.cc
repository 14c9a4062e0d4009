// Every emulator kernel against the CPU backend (fp32, oneDNN): under force_fp16 within fp16
// tolerance — relative L2 <= 1e-3 for one op (inputs and result each rounded to fp16: ~2^-12
// relative per rounding) and > 0 (it really ran in fp16) — and under must_keep_origin_dtype
// within 1e-5 (fp32 on both sides, other summation orders). Each graph ends with a Flatten (an
// AI CPU op), so the op under test is not a graph output and runs in fp16.
#include "ascend_harness.h"

namespace ge::ascend {
namespace {

struct Case {
  std::string name, body;  // body: lines between the input and `output %out`
  std::string input;       // "input %x: f32[...]"
  std::string engine;      // placement counter expected 1 under force_fp16
};

std::string text_of(const Case& c) {
  return "graph g opset(ai.onnx=13, ge=1) {\n  " + c.input + "\n" + c.body + "\n  output %out\n}";
}

class AscendKernels : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cpu_ = test::cpu_env().release();
    fp16_ = test::ascend_env("force_fp16").release();
    fp32_ = test::ascend_env("must_keep_origin_dtype").release();
  }
  static core::Environment *cpu_, *fp16_, *fp32_;

  void check(const Case& c) {
    SCOPED_TRACE(c.name);
    const std::string text = text_of(c);
    test::ModeRuns m = test::run_three_ways(text, *cpu_, *fp16_, *fp32_);
    test::Run &h = m.fp16, &f = m.fp32;
    const double e16 = m.e16, e32 = m.e32;
    std::printf("%-22s force_fp16 rel L2 %.3e  must_keep_origin_dtype %.3e\n", c.name.c_str(), e16, e32);
    EXPECT_LE(e16, 1e-3);
    EXPECT_GT(e16, 0.0);
    EXPECT_LE(e32, 1e-5);
    EXPECT_GE(h.counters["ascend.placement." + c.engine], 1) << c.engine;
    EXPECT_EQ(h.counters["ascend.placement.aicpu"], 0);  // the Flatten follows fp16: a view
    EXPECT_EQ(h.counters["ascend.placement.view"], 1);
    EXPECT_GE(h.counters["ascend.casts.to_fp16"], 1);
    EXPECT_EQ(h.counters["ascend.casts.to_fp32"], 1);
    EXPECT_EQ(f.counters["ascend.casts.to_fp16"], 0);
  }
};
core::Environment *AscendKernels::cpu_, *AscendKernels::fp16_, *AscendKernels::fp32_;

TEST_F(AscendKernels, SmallChannelConvOnTheCubeInC04Order) {
  // 3 input channels, 7×7, stride 2, pad 3 (resnet50's conv1 shape): the Cube reduces over
  // K = ⌈4·7·7/16⌉·16 = 208 in FRACTAL_Z_C04's (kh, kw, c0) order; same values as the cpu
  // backend within the fp16 tolerance.
  const Case c{"Conv 3->8 7x7 s2 C04", R"(  const %w: f32[8,3,7,7]
  const %b: f32[8]
  %y: f32[1,8,8,8] = Conv(%x, %w, %b) {pads=[3,3,3,3], strides=[2,2]}
  %out: f32[1,512] = Flatten(%y) {axis=1})", "input %x: f32[1,3,15,15]", "aicore.cube"};
  check(c);
}

TEST_F(AscendKernels, ConvOddChannelsOnTheCubeWithFractalZWeights) {
  const Case c{"Conv 5->7 3x3 s2", R"(  const %w: f32[7,5,3,3]
  const %b: f32[7]
  %y: f32[1,7,5,5] = Conv(%x, %w, %b) {pads=[1,1,1,1], strides=[2,2]}
  %out: f32[1,175] = Flatten(%y) {axis=1})", "input %x: f32[1,5,9,9]", "aicore.cube"};
  check(c);
  // The weights reached the Cube as a compile-time FRACTAL_Z fp16 constant, the activation as
  // NC1HWC0 fp16.
  const std::string text = text_of(c);
  auto g = test::parse(*fp16_, text);
  auto r = test::compile_and_run(std::move(g), *fp16_, "ascend", test::random_inputs(*test::parse(*fp16_, text)));
  bool seen = false;
  for (const Node* n : r.graph->nodes())
    if (n->op_type() == "Conv" || n->op_type() == "FusedConv") {
      seen = true;
      EXPECT_EQ(n->input(0)->format, Format::NC1HWC0);
      EXPECT_EQ(n->input(0)->dtype, DataType::Float16);
      EXPECT_EQ(n->input(1)->format, Format::FRACTAL_Z);
      EXPECT_TRUE(n->input(1)->is_constant());
      EXPECT_EQ(n->output(0)->dtype, DataType::Float16);
    }
  EXPECT_TRUE(seen);
  EXPECT_EQ(r.counters["ascend.casts.constants"], 2);  // w and b, converted at compile time
}

TEST_F(AscendKernels, FusedConvReluWithResidual) {
  check({"Conv+Add+Relu 16->16", R"(  const %w: f32[16,16,3,3]
  const %w2: f32[16,16,1,1]
  %y: f32[1,16,6,6] = Conv(%x, %w) {pads=[1,1,1,1]}
  %z: f32[1,16,6,6] = Conv(%x, %w2)
  %s: f32[1,16,6,6] = Add(%y, %z)
  %r: f32[1,16,6,6] = Relu(%s)
  %out: f32[1,576] = Flatten(%r) {axis=1})", "input %x: f32[1,16,6,6]", "aicore.cube"});
}

TEST_F(AscendKernels, MatMulOnTheCube) {
  check({"MatMul 7x37x19", R"(  const %w: f32[37,19]
  %y: f32[7,19] = MatMul(%x, %w)
  %out: f32[1,133] = Flatten(%y) {axis=0})", "input %x: f32[7,37]", "aicore.cube"});
}

TEST_F(AscendKernels, GemmTransBAlphaBetaOnTheCube) {
  check({"Gemm 5x40x11", R"(  const %w: f32[11,40]
  const %c: f32[11]
  %y: f32[5,11] = Gemm(%x, %w, %c) {alpha=0.5, beta=2.0, transB=1}
  %out: f32[1,55] = Flatten(%y) {axis=0})", "input %x: f32[5,40]", "aicore.cube"});
}

TEST_F(AscendKernels, VectorBinaryBroadcast) {
  check({"Add+Mul broadcast", R"(  const %b: f32[3,1,1]
  %y: f32[2,3,4,5] = Add(%x, %b)
  %m: f32[2,3,4,5] = Mul(%y, %x)
  %out: f32[1,120] = Flatten(%m) {axis=0})", "input %x: f32[2,3,4,5]", "aicore.vector"});
}

TEST_F(AscendKernels, VectorUnary) {
  for (const char* op : {"Relu", "Sigmoid"})
    check({std::string(op), std::string("  %y: f32[2,3,4,5] = ") + op + "(%x)\n  %out: f32[1,120] = Flatten(%y) {axis=0}",
           "input %x: f32[2,3,4,5]", "aicore.vector"});
  check({"Clip", R"(  const %lo: f32[] = [-0.5]
  const %hi: f32[] = [0.25]
  %y: f32[2,3,4,5] = Clip(%x, %lo, %hi)
  %out: f32[1,120] = Flatten(%y) {axis=0})", "input %x: f32[2,3,4,5]", "aicore.vector"});
}

TEST_F(AscendKernels, VectorActivations) {
  for (const char* op : {"Tanh", "Exp", "Abs", "Neg"})
    check({std::string(op), std::string("  %y: f32[2,3,4,5] = ") + op + "(%x)\n  %out: f32[1,120] = Flatten(%y) {axis=0}",
           "input %x: f32[2,3,4,5]", "aicore.vector"});
  check({"HardSigmoid a=0.3 b=0.4", R"(  %y: f32[2,3,4,5] = HardSigmoid(%x) {alpha=0.3, beta=0.4}
  %out: f32[1,120] = Flatten(%y) {axis=0})", "input %x: f32[2,3,4,5]", "aicore.vector"});
  // HardSwish is opset 14: x · max(0, min(1, x/6 + 1/2)), on inputs in [-4, 4) (both kinks).
  const std::string hs = R"(graph g opset(ai.onnx=14) {
  input %x: f32[2,3,4,5]
  const %four: f32[] = [4.0]
  %x4: f32[2,3,4,5] = Mul(%x, %four)
  %y: f32[2,3,4,5] = HardSwish(%x4)
  %out: f32[1,120] = Flatten(%y) {axis=0}
  output %out
})";
  test::ModeRuns m = test::run_three_ways(hs, *cpu_, *fp16_, *fp32_);
  EXPECT_LE(m.e16, 1e-3);
  EXPECT_GT(m.e16, 0.0);
  EXPECT_LE(m.e32, 1e-6);
  EXPECT_GE(m.fp16.counters["ascend.placement.aicore.vector"], 1);
  EXPECT_EQ(m.fp16.counters["ascend.placement.aicpu"], 0);
}

TEST_F(AscendKernels, BatchNormalizationOnTheVectorUnit) {
  // The variance must be positive: v·v + 0.1 (folded to a constant at compile time).
  const char* params = R"(  const %s: f32[6]
  const %b: f32[6]
  const %m: f32[6]
  const %v0: f32[6]
  const %tenth: f32[] = [0.1]
  %v2: f32[6] = Mul(%v0, %v0)
  %v: f32[6] = Add(%v2, %tenth)
)";
  check({"BatchNorm plain", std::string(params) + R"(  %y: f32[2,6,3,5] = BatchNormalization(%x, %s, %b, %m, %v) {epsilon=0.001}
  %out: f32[1,180] = Flatten(%y) {axis=0})", "input %x: f32[2,6,3,5]", "aicore.vector"});
  // Between two convolutions (DenseNet's ReLU → BN → ReLU → Conv; a BN right after a Conv would
  // be folded into it): on NC1HWC0 like the Relus.
  check({"Conv Relu BatchNorm Relu Conv", std::string(params) + R"(  const %w1: f32[6,6,3,3]
  const %w2: f32[4,6,1,1]
  %c0: f32[1,6,5,5] = Conv(%x, %w1) {pads=[1,1,1,1]}
  %c: f32[1,6,5,5] = Relu(%c0)
  %y: f32[1,6,5,5] = BatchNormalization(%c, %s, %b, %m, %v)
  %r: f32[1,6,5,5] = Relu(%y)
  %z: f32[1,4,5,5] = Conv(%r, %w2)
  %out: f32[1,100] = Flatten(%z) {axis=1})", "input %x: f32[1,6,5,5]", "aicore.vector"});
}

TEST_F(AscendKernels, Conv1dOnTheCubeAsTwoDWithHeightOne) {
  // [1,5,20] * [7,5,3], stride 2, pads 1/1 -> [1,7,10]: on the Cube as the 2-D convolution of
  // [1,5,1,20] with [7,5,1,3] (M = 10, N = 7, K = ⌈5/16⌉·16·3 = 48 in FRACTAL_Z order).
  check({"Conv1d 5->7 k3 s2", R"(  const %w: f32[7,5,3]
  const %b: f32[7]
  %y: f32[1,7,10] = Conv(%x, %w, %b) {pads=[1,1], strides=[2]}
  %out: f32[1,70] = Flatten(%y) {axis=1})", "input %x: f32[1,5,20]", "aicore.cube"});
  check({"Conv1d depthwise 6 k5 d2", R"(  const %w: f32[6,1,5]
  %y: f32[2,6,12] = Conv(%x, %w) {dilations=[2], group=6, pads=[4,4]}
  %out: f32[2,72] = Flatten(%y) {axis=1})", "input %x: f32[2,6,12]", "aicore.cube"});
}

TEST_F(AscendKernels, ConvTransposeOnTheCubeAsGemmAndCol2im) {
  // (5 − 1)·2 − 2 + 3 + 1 = 10: stride 2, pads 1/1, output_padding 1.
  check({"ConvTranspose 6->4 3x3 s2", R"(  const %w: f32[6,4,3,3]
  const %b: f32[4]
  %y: f32[1,4,10,10] = ConvTranspose(%x, %w, %b) {output_padding=[1,1], pads=[1,1,1,1], strides=[2,2]}
  %out: f32[1,400] = Flatten(%y) {axis=1})", "input %x: f32[1,6,5,5]", "aicore.cube"});
  // U-Net's up-sampling: kernel 2, stride 2 (no overlap), batch 2.
  check({"ConvTranspose 16->8 2x2 s2", R"(  const %w: f32[16,8,2,2]
  %y: f32[2,8,8,6] = ConvTranspose(%x, %w) {strides=[2,2]}
  %out: f32[2,384] = Flatten(%y) {axis=1})", "input %x: f32[2,16,4,3]", "aicore.cube"});
  // 1-D, group 2, dilation 2, output_shape (pads derived as the ONNX spec says).
  check({"ConvTranspose1d g2 d2", R"(  const %w: f32[4,3,3]
  %y: f32[1,6,16] = ConvTranspose(%x, %w) {dilations=[2], group=2, output_shape=[16], strides=[2]}
  %out: f32[1,96] = Flatten(%y) {axis=1})", "input %x: f32[1,4,7]", "aicore.cube"});
}

TEST_F(AscendKernels, VectorPools) {
  check({"MaxPool 3x3 s2 ceil", R"(  %y: f32[1,17,4,4] = MaxPool(%x) {ceil_mode=1, kernel_shape=[3,3], strides=[2,2]}
  %out: f32[1,272] = Flatten(%y) {axis=1})", "input %x: f32[1,17,8,8]", "aicore.vector"});
  check({"AveragePool 3x3 s2 p1", R"(  %y: f32[1,17,4,4] = AveragePool(%x) {kernel_shape=[3,3], pads=[1,1,1,1], strides=[2,2]}
  %out: f32[1,272] = Flatten(%y) {axis=1})", "input %x: f32[1,17,8,8]", "aicore.vector"});
  // auto_pad SAME_*: count_include_pad counts both ends' padding (the end pad once was lost).
  check({"AveragePool SAME_UPPER incl", R"(  %y: f32[1,5,1,1] = AveragePool(%x) {auto_pad="SAME_UPPER", count_include_pad=1, kernel_shape=[3,2], strides=[2,2]}
  %out: f32[1,5] = Flatten(%y) {axis=1})", "input %x: f32[1,5,1,1]", "aicore.vector"});
  check({"AveragePool SAME_LOWER incl", R"(  %y: f32[1,17,3,3] = AveragePool(%x) {auto_pad="SAME_LOWER", count_include_pad=1, kernel_shape=[3,2], strides=[2,2]}
  %out: f32[1,153] = Flatten(%y) {axis=1})", "input %x: f32[1,17,5,6]", "aicore.vector"});
  check({"GlobalAveragePool", R"(  %y: f32[1,17,1,1] = GlobalAveragePool(%x)
  %out: f32[1,17] = Flatten(%y) {axis=1})", "input %x: f32[1,17,8,8]", "aicore.vector"});
}

// Batch dims broadcast on both sides (numpy.matmul): A[1,8,..] @ B[8,1,..] has 64 batches, A's
// batch j and B's batch i for output batch (i, j); the kernel once computed 8 and was refused.
TEST_F(AscendKernels, MatMulBatchDimsBroadcastOnBothSides) {
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %a: f32[1,8,4,9]
  input %b: f32[8,1,9,4]
  %y: f32[8,8,4,4] = MatMul(%a, %b)
  %out: f32[1,1024] = Flatten(%y) {axis=0}
  output %out
})";
  test::ModeRuns m = test::run_three_ways(text, *cpu_, *fp16_, *fp32_);
  EXPECT_LE(m.e32, 1e-5);
  EXPECT_LE(m.e16, 1e-3);
  // The reference itself, by hand: y[i,j] = a[0,j] @ b[i,0].
  auto in = test::random_inputs(*test::parse(*cpu_, text));
  auto a = in[0].to_double_vector(), b = in[1].to_double_vector();
  auto y = m.fp32.outputs[0].to_double_vector();
  ASSERT_EQ(y.size(), 1024u);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
          double s = 0;
          for (int k = 0; k < 9; ++k) s += a[(j * 4 + r) * 9 + k] * b[(i * 9 + k) * 4 + c];
          EXPECT_NEAR(y[((i * 8 + j) * 4 + r) * 4 + c], s, 1e-4) << i << " " << j << " " << r << " " << c;
        }
}

// Conv pads of 2^40 make an output of 2^43 elements: once the tiling search and the cycle model
// walked its tiles for hours; a tensor larger than the device's global memory is refused first.
TEST_F(AscendKernels, TensorLargerThanGlobalMemoryIsRefused) {
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,1,4,4]
  const %w: f32[1,1,1,1] = [1]
  %y: f32[1,1,2199023255556,4] = Conv(%x, %w) {pads=[1099511627776,0,1099511627776,0]}
  output %y
})";
  core::CompileOptions o = core::CompileOptions::from_manifest(fp32_->manifest);
  o.backend = "ascend";
  o.fail_on_pass_error = true;
  auto g = test::parse(*fp32_, text);
  try {
    core::compile_graph(*g, *fp32_, o);
    ADD_FAILURE() << "compiled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than Ascend910A's global memory of 34359738368 bytes"), std::string::npos)
        << e.what();
  }
}

TEST_F(AscendKernels, ConcatOfOddChannels) {
  check({"Concat 5+5 (Relu)", R"(  %r: f32[1,5,3,3] = Relu(%x)
  %y: f32[1,10,3,3] = Concat(%x, %r) {axis=1}
  %out: f32[1,90] = Flatten(%y) {axis=1})", "input %x: f32[1,5,3,3]", "aicore.vector"});
}

TEST_F(AscendKernels, StrictNumericsRefusesForceFp16) {
  const std::string text = text_of({"", "  %y: f32[2,3] = Relu(%x)\n  %out: f32[1,6] = Flatten(%y) {axis=0}", "input %x: f32[2,3]", ""});
  auto in = test::random_inputs(*test::parse(*fp16_, text));
  try {
    test::compile_and_run(test::parse(*fp16_, text), *fp16_, "ascend", in, /*strict=*/true);
    FAIL() << "force_fp16 accepted under strict numerics";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'force_fp16' reduces precision"), std::string::npos) << e.what();
  }
  // must_keep_origin_dtype is exact: allowed, and bitwise equal to the fp32 reference here.
  auto ref = test::compile_and_run(test::parse(*cpu_, text), *cpu_, "cpu", in, true);
  auto f = test::compile_and_run(test::parse(*fp32_, text), *fp32_, "ascend", in, true);
  EXPECT_EQ(test::rel_l2(f.outputs[0], ref.outputs[0]), 0.0);
}

}  // namespace
}  // namespace ge::ascend

namespace ge::ascend {
namespace {

TEST(AscendPrecision, GraphOutputProducerRunsInFp16AndTheOutputKeepsNameAndDtype) {
  // The Gemm writes the graph output: it still runs on the Cube in fp16, and a Cast from a new
  // fp16 value produces `out` (float32, same name).
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[4,40]
  const %w: f32[40,9]
  %out: f32[4,9] = Gemm(%x, %w)
  output %out
})";
  auto cpu = test::cpu_env();
  auto fp16 = test::ascend_env("force_fp16");
  auto in = test::random_inputs(*test::parse(*cpu, text));
  auto ref = test::compile_and_run(test::parse(*cpu, text), *cpu, "cpu", in);
  auto h = test::compile_and_run(test::parse(*fp16, text), *fp16, "ascend", in);
  ASSERT_EQ(h.graph->outputs().size(), 1u);
  EXPECT_EQ(h.graph->outputs()[0]->name(), "out");
  EXPECT_EQ(h.graph->outputs()[0]->dtype, DataType::Float32);
  EXPECT_EQ(h.outputs[0].dtype(), DataType::Float32);
  const double e = test::rel_l2(h.outputs[0], ref.outputs[0]);
  EXPECT_LE(e, 1e-3);
  EXPECT_GT(e, 0.0);
  EXPECT_EQ(h.counters["ascend.placement.aicore.cube"], 1);
  EXPECT_EQ(h.counters["ascend.placement.aicpu"], 0);
  EXPECT_EQ(h.counters["ascend.casts.to_fp16"], 1);
  EXPECT_EQ(h.counters["ascend.casts.to_fp32"], 1);
  EXPECT_EQ(h.counters["ascend.cast.out_fp16:fp16->fp32"], 1);
}

}  // namespace
}  // namespace ge::ascend
