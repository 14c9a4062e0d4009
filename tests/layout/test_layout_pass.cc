// The layout pass (plugins/layout) on text IR: the graph before and after, and equal outputs on
// random inputs (relative L2 <= 1e-5: a blocked convolution may sum in another order). Constant
// conv weights become the layout oneDNN picks on an AVX-512 CPU (OIhw16i16o, Ohwi16o).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "blocked_conv_support.h"
#include "ge/sdk/error.h"
#include "ge/core/environment.h"
#include "ge/core/manifest.h"
#include "layout_steps.h"
#include "pass_harness.h"

namespace {

using ge::Format;
using ge::NodeFormats;

class LayoutPass : public ::testing::Test {
 protected:
  ge::test::PassHarness h;

  std::string print(const ge::Graph& g) { return ge::print_graph(g, {.show_node_names = false, .max_const_elements = 0}); }

  /// Runs the layout pass on `before`; checks the printed result and the numerics.
  std::unique_ptr<ge::Graph> check(const std::string& before, const std::string& after) {
    std::unique_ptr<ge::Graph> g = h.parse(before);
    ge::test::PassHarness::randomize_constants(*g);
    std::unique_ptr<ge::Graph> original = g->clone();
    h.run(*g, {"layout"}, ge::OptLevel::O2);
    EXPECT_EQ(print(*g), after);
    h.expect_same_outputs(*original, *g, 1e-5);
    return g;
  }
};

TEST_F(LayoutPass, ConvChainRunsBlockedWithConversionsOnlyAtTheEdges) {
  GE_REQUIRE_BLOCKED_CONVS();
  // Insertion around both convs, the Relu between them sunk, the inverse pairs cancelled, and
  // Flatten (not layout-aware) reading NCHW.
  check(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,8,8]
  const %w1: f32[32,16,3,3]
  const %w2: f32[32,32,1,1]
  %c: f32[1,32,8,8] = Conv(%x, %w1) {pads=[1,1,1,1]}
  %r: f32[1,32,8,8] = Relu(%c)
  %d: f32[1,32,8,8] = Conv(%r, %w2)
  %y: f32[1,2048] = Flatten(%d)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,8,8]
  const %w1_OIhw16i16o: f32[32,16,3,3]@OIhw16i16o
  const %w2_OIhw16i16o: f32[32,32,1,1]@OIhw16i16o
  %x_NC1HWC0: f32[1,16,8,8]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="ND"}
  %c: f32[1,32,8,8]@NC1HWC0 = Conv(%x_NC1HWC0, %w1_OIhw16i16o) {pads=[1,1,1,1]}
  %r: f32[1,32,8,8]@NC1HWC0 = Relu(%c)
  %d: f32[1,32,8,8]@NC1HWC0 = Conv(%r, %w2_OIhw16i16o)
  %d_ND: f32[1,32,8,8] = ge.TransData(%d) {dst_format="ND", src_format="NC1HWC0"}
  %y: f32[1,2048] = Flatten(%d_ND)
  output %y
}
)");
}

TEST_F(LayoutPass, StemConvReadsNchwAndPoolsFollowTheBlockedLayout) {
  GE_REQUIRE_BLOCKED_CONVS();
  check(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,3,16,16]
  const %w: f32[24,3,3,3]
  const %g: f32[10,24]
  %c: f32[1,24,8,8] = Conv(%x, %w) {pads=[1,1,1,1], strides=[2,2]}
  %m: f32[1,24,4,4] = MaxPool(%c) {kernel_shape=[3,3], pads=[1,1,1,1], strides=[2,2]}
  %p: f32[1,24,1,1] = GlobalAveragePool(%m)
  %f: f32[1,24] = Flatten(%p)
  %y: f32[1,10] = Gemm(%f, %g) {transB=1}
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,3,16,16]
  const %g: f32[10,24]
  const %w_Ohwi16o: f32[24,3,3,3]@Ohwi16o
  %c: f32[1,24,8,8]@NC1HWC0 = Conv(%x, %w_Ohwi16o) {pads=[1,1,1,1], strides=[2,2]}
  %m: f32[1,24,4,4]@NC1HWC0 = MaxPool(%c) {kernel_shape=[3,3], pads=[1,1,1,1], strides=[2,2]}
  %p: f32[1,24,1,1]@NC1HWC0 = GlobalAveragePool(%m)
  %p_ND: f32[1,24,1,1] = ge.TransData(%p) {dst_format="ND", src_format="NC1HWC0"}
  %f: f32[1,24] = Flatten(%p_ND)
  %y: f32[1,10] = Gemm(%f, %g) {transB=1}
  output %y
}
)");
}

TEST_F(LayoutPass, ResidualFusedConvTakesItsZBlockedAndReshapeStaysNchw) {
  GE_REQUIRE_BLOCKED_CONVS();
  check(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,6,6]
  const %w1: f32[16,16,3,3]
  const %w2: f32[16,16,3,3]
  const %b: f32[16]
  const %shape: i64[2] = [1,576]
  %a: f32[1,16,6,6] = ge.FusedConv(%x, %w1, %b, _) {activation="Relu", pads=[1,1,1,1]}
  %o: f32[1,16,6,6] = ge.FusedConv(%a, %w2, %b, %a) {activation="Relu", pads=[1,1,1,1]}
  %s: f32[1,16,6,6] = Sigmoid(%o)
  %y: f32[1,576] = Reshape(%s, %shape)
  output %y
})",
        R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,6,6]
  const %b: f32[16]
  const %shape: i64[2]
  const %w1_OIhw16i16o: f32[16,16,3,3]@OIhw16i16o
  const %w2_OIhw16i16o: f32[16,16,3,3]@OIhw16i16o
  %x_NC1HWC0: f32[1,16,6,6]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="ND"}
  %a: f32[1,16,6,6]@NC1HWC0 = ge.FusedConv(%x_NC1HWC0, %w1_OIhw16i16o, %b, _) {activation="Relu", pads=[1,1,1,1]}
  %o: f32[1,16,6,6]@NC1HWC0 = ge.FusedConv(%a, %w2_OIhw16i16o, %b, %a) {activation="Relu", pads=[1,1,1,1]}
  %s: f32[1,16,6,6]@NC1HWC0 = Sigmoid(%o)
  %s_ND: f32[1,16,6,6] = ge.TransData(%s) {dst_format="ND", src_format="NC1HWC0"}
  %y: f32[1,576] = Reshape(%s_ND, %shape)
  output %y
}
)");
}

TEST_F(LayoutPass, UnaryMapsAndFusedElementwiseBetweenBlockedConvsStayBlocked) {
  GE_REQUIRE_BLOCKED_CONVS();
  // Both run between blocked convs on NC1HWC0 (no TransData pair around them); the 1x1 conv with
  // 20 input channels has no optimized blocked kernel here and reads NCHW. 20 channels: the
  // padding Sigmoid(0) = 0.5 and Erf(0) + 1 would fill is set back to zero (BlockedKernels tests).
  check(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,8,8]
  const %w1: f32[20,16,3,3]
  const %w2: f32[20,20,3,3]
  const %w3: f32[16,20,1,1]
  const %one: f32[] = [1.0]
  %c: f32[1,20,8,8] = Conv(%x, %w1) {pads=[1,1,1,1]}
  %s: f32[1,20,8,8] = Sigmoid(%c)
  %d: f32[1,20,8,8] = Conv(%s, %w2) {pads=[1,1,1,1]}
  %f: f32[1,20,8,8] = ge.FusedElementwise(%d, %one) {args=[0,2,1], ops=["Erf","Add"]}
  %e: f32[1,16,8,8] = Conv(%f, %w3)
  output %e
})",
        R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,8,8]
  const %w3: f32[16,20,1,1]
  const %one: f32[]
  const %w1_OIhw16i16o: f32[20,16,3,3]@OIhw16i16o
  const %w2_OIhw16i16o: f32[20,20,3,3]@OIhw16i16o
  %x_NC1HWC0: f32[1,16,8,8]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="ND"}
  %c: f32[1,20,8,8]@NC1HWC0 = Conv(%x_NC1HWC0, %w1_OIhw16i16o) {pads=[1,1,1,1]}
  %s: f32[1,20,8,8]@NC1HWC0 = Sigmoid(%c)
  %d: f32[1,20,8,8]@NC1HWC0 = Conv(%s, %w2_OIhw16i16o) {pads=[1,1,1,1]}
  %f: f32[1,20,8,8]@NC1HWC0 = ge.FusedElementwise(%d, %one) {args=[0,2,1], ops=["Erf","Add"]}
  %f_ND: f32[1,20,8,8] = ge.TransData(%f) {dst_format="ND", src_format="NC1HWC0"}
  %e: f32[1,16,8,8] = Conv(%f_ND, %w3)
  output %e
}
)");
}

TEST_F(LayoutPass, SqueezeExcitationScaleStaysBlocked) {
  GE_REQUIRE_BLOCKED_CONVS();
  // MobileNetV3's SE block: the per-channel scale [1,C,1,1] multiplies the [1,C,H,W] activation
  // on NC1HWC0 ([1,C1,1,1,16] against [1,C1,H,W,16]): no TransData pair around the multiply
  // (before, it read two NCHW copies and wrote one to convert back). The last conv writes the
  // graph output and stays NCHW.
  check(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,8,8]
  const %w1: f32[32,16,1,1]
  const %wa: f32[16,32,1,1]
  const %wb: f32[32,16,1,1]
  const %w2: f32[16,32,1,1]
  %a: f32[1,32,8,8] = Conv(%x, %w1)
  %p: f32[1,32,1,1] = GlobalAveragePool(%a)
  %q: f32[1,16,1,1] = Conv(%p, %wa)
  %r: f32[1,16,1,1] = Relu(%q)
  %s: f32[1,32,1,1] = Conv(%r, %wb)
  %m: f32[1,32,8,8] = ge.FusedElementwise(%s, %a) {args=[0,2,1], imms=[0.16666667,0.5], ops=["HardSigmoid","Mul"]}
  %y: f32[1,16,8,8] = Conv(%m, %w2)
  output %y
})",
        R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,8,8]
  const %w2: f32[16,32,1,1]
  const %w1_OIhw16i16o: f32[32,16,1,1]@OIhw16i16o
  const %wa_OIhw16i16o: f32[16,32,1,1]@OIhw16i16o
  const %wb_OIhw16i16o: f32[32,16,1,1]@OIhw16i16o
  %x_NC1HWC0: f32[1,16,8,8]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="ND"}
  %a: f32[1,32,8,8]@NC1HWC0 = Conv(%x_NC1HWC0, %w1_OIhw16i16o)
  %p: f32[1,32,1,1]@NC1HWC0 = GlobalAveragePool(%a)
  %q: f32[1,16,1,1]@NC1HWC0 = Conv(%p, %wa_OIhw16i16o)
  %r: f32[1,16,1,1]@NC1HWC0 = Relu(%q)
  %s: f32[1,32,1,1]@NC1HWC0 = Conv(%r, %wb_OIhw16i16o)
  %m: f32[1,32,8,8]@NC1HWC0 = ge.FusedElementwise(%s, %a) {args=[0,2,1], imms=[0.16666667,0.5], ops=["HardSigmoid","Mul"]}
  %m_ND: f32[1,32,8,8] = ge.TransData(%m) {dst_format="ND", src_format="NC1HWC0"}
  %y: f32[1,16,8,8] = Conv(%m_ND, %w2)
  output %y
}
)");
}

TEST_F(LayoutPass, SqueezeExcitationWithSigmoidConvStaysBlocked) {
  GE_REQUIRE_BLOCKED_CONVS();
  // EfficientNet's SE block after conv fusion: the scale is a FusedConv with Sigmoid, and a lone
  // Mul applies it: the Mul runs on NC1HWC0 with a channel-vector operand.
  check(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,8,8]
  const %w1: f32[32,16,1,1]
  const %wa: f32[16,32,1,1]
  const %wb: f32[32,16,1,1]
  const %w2: f32[16,32,1,1]
  %a: f32[1,32,8,8] = Conv(%x, %w1)
  %p: f32[1,32,1,1] = GlobalAveragePool(%a)
  %q: f32[1,16,1,1] = Conv(%p, %wa)
  %s: f32[1,32,1,1] = ge.FusedConv(%q, %wb, _, _) {activation="Sigmoid"}
  %m: f32[1,32,8,8] = Mul(%a, %s)
  %y: f32[1,16,8,8] = Conv(%m, %w2)
  %z: f32[1,16,8,8] = Relu(%y)
  output %z
})",
        R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,8,8]
  const %w1_OIhw16i16o: f32[32,16,1,1]@OIhw16i16o
  const %wa_OIhw16i16o: f32[16,32,1,1]@OIhw16i16o
  const %wb_OIhw16i16o: f32[32,16,1,1]@OIhw16i16o
  const %w2_OIhw16i16o: f32[16,32,1,1]@OIhw16i16o
  %x_NC1HWC0: f32[1,16,8,8]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="ND"}
  %a: f32[1,32,8,8]@NC1HWC0 = Conv(%x_NC1HWC0, %w1_OIhw16i16o)
  %p: f32[1,32,1,1]@NC1HWC0 = GlobalAveragePool(%a)
  %q: f32[1,16,1,1]@NC1HWC0 = Conv(%p, %wa_OIhw16i16o)
  %s: f32[1,32,1,1]@NC1HWC0 = ge.FusedConv(%q, %wb_OIhw16i16o, _, _) {activation="Sigmoid"}
  %m: f32[1,32,8,8]@NC1HWC0 = Mul(%a, %s)
  %y: f32[1,16,8,8]@NC1HWC0 = Conv(%m, %w2_OIhw16i16o)
  %y_ND: f32[1,16,8,8] = ge.TransData(%y) {dst_format="ND", src_format="NC1HWC0"}
  %z: f32[1,16,8,8] = Relu(%y_ND)
  output %z
}
)");
}

// A one-group 3x3 stride-2 conv with 64 channels runs on NHWC (oneDNN's brgemm convolution; the
// cpu backend's preference), its weights plain; between it and its blocked neighbours one
// TransData each way, NC1HWC0 <-> NHWC directly (compose_transdata) instead of two through NCHW.
TEST_F(LayoutPass, StrideTwo3x3ConvRunsNhwcWithOneConversionEachWay) {
  GE_REQUIRE_BLOCKED_CONVS();
  check(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,64,8,8]
  const %w1: f32[64,64,1,1]
  const %w2: f32[64,64,3,3]
  const %w3: f32[64,64,1,1]
  %a: f32[1,64,8,8] = Conv(%x, %w1)
  %b: f32[1,64,4,4] = Conv(%a, %w2) {pads=[1,1,1,1], strides=[2,2]}
  %c: f32[1,64,4,4] = Conv(%b, %w3)
  %y: f32[1,1024] = Flatten(%c)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,64,8,8]
  const %w2: f32[64,64,3,3]
  const %w1_OIhw16i16o: f32[64,64,1,1]@OIhw16i16o
  const %w3_OIhw16i16o: f32[64,64,1,1]@OIhw16i16o
  %x_NC1HWC0: f32[1,64,8,8]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="ND"}
  %a: f32[1,64,8,8]@NC1HWC0 = Conv(%x_NC1HWC0, %w1_OIhw16i16o)
  %a_ND_NHWC: f32[1,64,8,8]@NHWC = ge.TransData(%a) {dst_format="NHWC", src_format="NC1HWC0"}
  %b: f32[1,64,4,4]@NHWC = Conv(%a_ND_NHWC, %w2) {pads=[1,1,1,1], strides=[2,2]}
  %b_ND_NC1HWC0: f32[1,64,4,4]@NC1HWC0 = ge.TransData(%b) {dst_format="NC1HWC0", src_format="NHWC"}
  %c: f32[1,64,4,4]@NC1HWC0 = Conv(%b_ND_NC1HWC0, %w3_OIhw16i16o)
  %c_ND: f32[1,64,4,4] = ge.TransData(%c) {dst_format="ND", src_format="NC1HWC0"}
  %y: f32[1,1024] = Flatten(%c_ND)
  output %y
}
)");
}

// 1×k and k×1 convs (stride 1, 64 channels) run on NHWC too. Their branch and a blocked one meet
// in a Concat: it concatenates NC1HWC0 (sink_transdata takes the blocked branch as it is and the
// NHWC one through one direct conversion), so its blocked reader needs no conversion at all.
TEST_F(LayoutPass, OneByKConvsRunNhwcAndTheirConcatWithABlockedBranchStaysBlocked) {
  GE_REQUIRE_BLOCKED_CONVS();
  check(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,64,8,8]
  const %w1: f32[64,64,1,1]
  const %w17: f32[64,64,1,7]
  const %w71: f32[64,64,7,1]
  const %w2: f32[64,128,1,1]
  %a: f32[1,64,8,8] = Conv(%x, %w1)
  %b: f32[1,64,8,8] = Conv(%a, %w17) {pads=[0,3,0,3]}
  %c: f32[1,64,8,8] = Conv(%b, %w71) {pads=[3,0,3,0]}
  %d: f32[1,64,8,8] = Conv(%a, %w1)
  %e: f32[1,128,8,8] = Concat(%c, %d) {axis=1}
  %f: f32[1,64,8,8] = Conv(%e, %w2)
  %y: f32[1,4096] = Flatten(%f)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,64,8,8]
  const %w17: f32[64,64,1,7]
  const %w71: f32[64,64,7,1]
  const %w1_OIhw16i16o: f32[64,64,1,1]@OIhw16i16o
  const %w2_OIhw16i16o: f32[64,128,1,1]@OIhw16i16o
  %x_NC1HWC0: f32[1,64,8,8]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="ND"}
  %a: f32[1,64,8,8]@NC1HWC0 = Conv(%x_NC1HWC0, %w1_OIhw16i16o)
  %a_ND_NHWC: f32[1,64,8,8]@NHWC = ge.TransData(%a) {dst_format="NHWC", src_format="NC1HWC0"}
  %b: f32[1,64,8,8]@NHWC = Conv(%a_ND_NHWC, %w17) {pads=[0,3,0,3]}
  %c: f32[1,64,8,8]@NHWC = Conv(%b, %w71) {pads=[3,0,3,0]}
  %c_ND_NC1HWC0: f32[1,64,8,8]@NC1HWC0 = ge.TransData(%c) {dst_format="NC1HWC0", src_format="NHWC"}
  %d: f32[1,64,8,8]@NC1HWC0 = Conv(%a, %w1_OIhw16i16o)
  %e: f32[1,128,8,8]@NC1HWC0 = Concat(%c_ND_NC1HWC0, %d) {axis=1}
  %f: f32[1,64,8,8]@NC1HWC0 = Conv(%e, %w2_OIhw16i16o)
  %f_ND: f32[1,64,8,8] = ge.TransData(%f) {dst_format="ND", src_format="NC1HWC0"}
  %y: f32[1,4096] = Flatten(%f_ND)
  output %y
}
)");
}

TEST_F(LayoutPass, ConvWhoseOutputIsAGraphOutputStaysNchw) {
  check(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,4,4]
  const %w: f32[16,16,1,1]
  %y: f32[1,16,4,4] = Conv(%x, %w)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,4,4]
  const %w: f32[16,16,1,1]
  %y: f32[1,16,4,4] = Conv(%x, %w)
  output %y
}
)");
}

TEST_F(LayoutPass, StrictNumericsAndFormatNchwLeaveTheGraphAlone) {
  GE_REQUIRE_BLOCKED_CONVS();
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,8,8]
  const %w: f32[16,16,3,3]
  %c: f32[1,16,8,8] = Conv(%x, %w) {pads=[1,1,1,1]}
  %y: f32[1,16,8,8] = Relu(%c)
  output %y
}
)";
  auto g = h.parse(text);
  h.run(*g, {"layout"}, ge::OptLevel::O2, /*strict=*/true);
  EXPECT_EQ(ge::layout::count_transdata(*g), 0);

  ge::core::Manifest m = ge::core::load_manifest(ge::core::default_manifest_path());
  ge::core::apply_override(m, "layout.format=\"NCHW\"");
  auto env = ge::core::load_environment(m);
  g = h.parse(text);
  ge::core::CompileOptions o;
  o.opt_level = ge::OptLevel::O2;
  o.only = std::vector<std::string>{"layout"};
  o.fail_on_pass_error = true;
  ge::core::compile_graph(*g, *env, o);
  EXPECT_EQ(ge::layout::count_transdata(*g), 0);
  for (const ge::Value* v : g->values()) EXPECT_NE(v->format, Format::NC1HWC0) << v->name();

  // A value outside the declared choices is refused when the environment loads (typed options,
  // ge/sdk/options.h), naming the key and the allowed values.
  ge::core::apply_override(m, "layout.format=\"NWHC\"");
  try {
    ge::core::load_environment(m);
    FAIL() << "expected an error naming layout.format";
  } catch (const ge::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--set: 'layout.format' must be one of \"auto\", \"NCHW\", \"NHWC\", \"NC1HWC0\", not \"NWHC\"");
  }
}

// The steps alone, with a preference function written here: "Conv" is an anchor that wants
// NC1HWC0 activations and FRACTAL_Z weights (an Ascend-like backend), Relu and Add follow.
std::optional<NodeFormats> ascend_like(const ge::Node& n) {
  NodeFormats f;
  f.inputs.assign(n.num_inputs(), Format::NCHW);
  f.outputs.assign(n.num_outputs(), Format::NC1HWC0);
  if (n.op_type() == "Conv") {
    f.inputs[0] = Format::NC1HWC0;
    f.inputs[1] = Format::FRACTAL_Z;
    return f;
  }
  if (n.op_type() == "Relu" || n.op_type() == "Add") {
    f.follows = true;
    for (auto& i : f.inputs) i = Format::NC1HWC0;
    return f;
  }
  return std::nullopt;
}

TEST_F(LayoutPass, ConstantWeightsAreConvertedAtCompileTime) {
  auto g = h.parse(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,4,4]
  const %w: f32[20,16,3,3]
  %c: f32[1,20,4,4] = Conv(%x, %w) {pads=[1,1,1,1]}
  %y: f32[1,20,4,4] = Relu(%c)
  output %y
})");
  ge::test::PassHarness::randomize_constants(*g);
  const ge::Tensor w = *g->find_value("w")->data;
  ge::layout::assign_layout(*g, ascend_like);
  // The OIHW original is gone (no reader left); Relu's output is a graph output, so it stays NCHW.
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,4,4]
  const %w_FRACTAL_Z: f32[20,16,3,3]@FRACTAL_Z
  %x_NC1HWC0: f32[1,16,4,4]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="ND"}
  %c: f32[1,20,4,4]@NC1HWC0 = Conv(%x_NC1HWC0, %w_FRACTAL_Z) {pads=[1,1,1,1]}
  %c_ND: f32[1,20,4,4] = ge.TransData(%c) {dst_format="ND", src_format="NC1HWC0"}
  %y: f32[1,20,4,4] = Relu(%c_ND)
  output %y
}
)");
  const ge::Value* wz = g->find_value("c")->producer()->input(1);
  ASSERT_TRUE(wz->is_constant());
  EXPECT_EQ(wz->format, Format::FRACTAL_Z);
  ge::Tensor back = ge::convert_format(*wz->data, Format::NCHW);
  EXPECT_EQ(std::memcmp(back.data(), w.data(), w.nbytes()), 0);
}

// compose_transdata: NC1HWC0 -> NCHW -> NHWC becomes NC1HWC0 -> NHWC; the NCHW value stays while
// Relu reads it. NC1HWC0 -> NCHW -> NC1HWC0_C04 (two blocked formats: no direct conversion) stays.
TEST_F(LayoutPass, TwoConversionsThroughNchwComposeWhereTheSdkConvertsDirectly) {
  auto g = h.parse(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,4,4]@NC1HWC0
  %p: f32[1,16,4,4] = ge.TransData(%x) {dst_format="NCHW", src_format="NC1HWC0"}
  %n: f32[1,16,4,4]@NHWC = ge.TransData(%p) {dst_format="NHWC", src_format="NCHW"}
  %q: f32[1,16,4,4]@NC1HWC0_C04 = ge.TransData(%p) {dst_format="NC1HWC0_C04", src_format="NCHW"}
  %r: f32[1,16,4,4] = Relu(%p)
  output %n
  output %q
  output %r
})");
  EXPECT_EQ(ge::layout::compose_transdata(*g), 1);
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,4,4]@NC1HWC0
  %p: f32[1,16,4,4] = ge.TransData(%x) {dst_format="NCHW", src_format="NC1HWC0"}
  %n: f32[1,16,4,4]@NHWC = ge.TransData(%x) {dst_format="NHWC", src_format="NC1HWC0"}
  %q: f32[1,16,4,4]@NC1HWC0_C04 = ge.TransData(%p) {dst_format="NC1HWC0_C04", src_format="NCHW"}
  %r: f32[1,16,4,4] = Relu(%p)
  output %n
  output %q
  output %r
}
)");
  EXPECT_EQ(ge::layout::compose_transdata(*g), 0);
}

TEST_F(LayoutPass, InversePairsCancelAndDuplicatesMerge) {
  auto g = h.parse(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,4,4]
  %a: f32[1,16,4,4]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %b: f32[1,16,4,4] = ge.TransData(%a) {dst_format="NCHW", src_format="NC1HWC0"}
  %c: f32[1,16,4,4]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %d: f32[1,16,4,4] = ge.TransData(%c) {dst_format="NCHW", src_format="NC1HWC0"}
  %y: f32[1,16,4,4] = Add(%b, %d)
  output %y
})");
  EXPECT_EQ(ge::layout::cancel_transdata(*g), 4);
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,4,4]
  %y: f32[1,16,4,4] = Add(%x, %x)
  output %y
}
)");
}

TEST_F(LayoutPass, SinkingMovesAConversionPastElementwiseOpsToItsInverse) {
  auto g = h.parse(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,4,4]@NC1HWC0
  input %z: f32[1,16,4,4]@NC1HWC0
  %a: f32[1,16,4,4] = ge.TransData(%x) {dst_format="NCHW", src_format="NC1HWC0"}
  %b: f32[1,16,4,4] = ge.TransData(%z) {dst_format="NCHW", src_format="NC1HWC0"}
  %r: f32[1,16,4,4] = Relu(%a)
  %s: f32[1,16,4,4] = Add(%r, %b)
  %t: f32[1,16,4,4]@NC1HWC0 = ge.TransData(%s) {dst_format="NC1HWC0", src_format="NCHW"}
  %y: f32[1,16,4,4]@NC1HWC0 = Relu(%t)
  output %y
})");
  EXPECT_EQ(ge::layout::sink_transdata(*g, ascend_like), 2);
  ge::layout::cancel_transdata(*g);
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,4,4]@NC1HWC0
  input %z: f32[1,16,4,4]@NC1HWC0
  %r: f32[1,16,4,4]@NC1HWC0 = Relu(%x)
  %s: f32[1,16,4,4]@NC1HWC0 = Add(%r, %z)
  %y: f32[1,16,4,4]@NC1HWC0 = Relu(%s)
  output %y
}
)");
}

}  // namespace
