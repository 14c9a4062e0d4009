// The CPU backend's NC1HWC0 kernels, run through graphs that state formats explicitly:
// TransData places elements exactly (against ge::convert_format) and zeroes the padding; blocked
// kernels keep the padding zero and compute what their NCHW versions compute.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "ge/sdk/layout.h"
#include "layout_steps.h"
#include "pass_harness.h"

namespace {

using ge::Format;

class BlockedKernels : public ::testing::Test {
 protected:
  ge::test::PassHarness h;

  std::vector<ge::Tensor> run(const std::string& text, const std::vector<ge::Tensor>& in, bool randomize = true) {
    std::unique_ptr<ge::Graph> g = h.parse(text);
    if (randomize) ge::test::PassHarness::randomize_constants(*g);
    return h.execute(std::shared_ptr<const ge::Graph>(std::move(g)), in);
  }

  /// impl_name() of the cpu kernel of TransData node n.
  std::string transdata_impl(const ge::Node& n) {
    const ge::KernelDef* def = h.env().kernels.find("cpu", "ge", "TransData");
    if (!def) return "no TransData kernel";
    return def->factory(ge::KernelBuildContext{n, 13, 1})->impl_name();
  }

  /// got holds exactly want's bytes.
  static void expect_same_bytes(const ge::Tensor& got, const ge::Tensor& want) {
    ASSERT_EQ(got.nbytes(), want.nbytes());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.nbytes()), 0);
  }

  /// Every padding channel (c >= C) of an NC1HWC0 tensor is zero.
  static void expect_zero_padding(const ge::Tensor& t) {
    ASSERT_EQ(t.format(), Format::NC1HWC0);
    const auto& s = t.shape();
    const int64_t C1 = (s[1] + 15) / 16, HW = s[2] * s[3];
    const float* p = t.data_as<float>();
    for (int64_t n = 0; n < s[0]; ++n)
      for (int64_t hw = 0; hw < HW; ++hw)
        for (int64_t c = s[1]; c < C1 * 16; ++c)
          ASSERT_EQ(p[((n * C1 + c / 16) * HW + hw) * 16 + c % 16], 0.f) << "channel " << c;
  }
};

TEST_F(BlockedKernels, TransDataMatchesTheReferenceBothWays) {
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,20,3,5]
  %b: f32[2,20,3,5]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %y: f32[2,20,3,5] = ge.TransData(%b) {dst_format="NCHW", src_format="NC1HWC0"}
  output %b
  output %y
})";
  auto g = h.parse(text);
  auto in = ge::test::PassHarness::random_inputs(*g);
  auto out = run(text, in);
  ASSERT_EQ(out.size(), 2u);
  ge::Tensor want = ge::convert_format(in[0], Format::NC1HWC0);
  ASSERT_EQ(out[0].nbytes(), want.nbytes());
  EXPECT_EQ(std::memcmp(out[0].data(), want.data(), want.nbytes()), 0);
  expect_zero_padding(out[0]);
  EXPECT_EQ(std::memcmp(out[1].data(), in[0].data(), in[0].nbytes()), 0);
}

// C not a multiple of 16 with full blocks (40 = 2 blocks + 8): oneDNN's blocked reorder on the
// first 32 channels of each image plus the direct loop for the last block (transdata.cc,
// "onednn:reorder+tail", at 3 images as at 1: over all images at once oneDNN would take its
// reference reorder); C = 8 (no full block) and C = 48 (no partial block) take the single
// oneDNN reorder. Exact both ways, zero padding, several images.
TEST_F(BlockedKernels, TransDataPartialLastBlockBothWays) {
  for (const char* shape : {"3,40,2,7", "2,8,3,3", "2,48,2,3", "1,136,5,5"}) {
    const std::string text = std::string(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[)") + shape + R"(]
  %b: f32[)" + shape + R"(]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %y: f32[)" + shape + R"(] = ge.TransData(%b) {dst_format="NCHW", src_format="NC1HWC0"}
  output %b
  output %y
})";
    SCOPED_TRACE(shape);
    auto g = h.parse(text);
    const int64_t C = g->inputs()[0]->shape[1];
    for (const ge::Node* n : g->nodes())
      EXPECT_EQ(transdata_impl(*n), C > 16 && C % 16 ? "onednn:reorder+tail" : "onednn:reorder");
    auto in = ge::test::PassHarness::random_inputs(*g);
    auto out = run(text, in);
    ASSERT_EQ(out.size(), 2u);
    expect_same_bytes(out[0], ge::convert_format(in[0], Format::NC1HWC0));
    expect_zero_padding(out[0]);
    expect_same_bytes(out[1], in[0]);
  }
}

// NC1HWC0 <-> NHWC (around a convolution the cpu backend runs on NHWC, compose_transdata): one
// oneDNN reorder each way when C is a multiple of 16; with a partial block (C = 20) the reference
// routine. Exact against ge::convert_format both ways, several images.
TEST_F(BlockedKernels, TransDataBetweenNc1hwc0AndNhwc) {
  for (const char* shape : {"2,32,3,5", "1,64,4,4", "2,20,3,3"}) {
    const std::string text = std::string(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[)") + shape + R"(]
  %b: f32[)" + shape + R"(]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %h: f32[)" + shape + R"(]@NHWC = ge.TransData(%b) {dst_format="NHWC", src_format="NC1HWC0"}
  %c: f32[)" + shape + R"(]@NC1HWC0 = ge.TransData(%h) {dst_format="NC1HWC0", src_format="NHWC"}
  output %h
  output %c
})";
    SCOPED_TRACE(shape);
    auto g = h.parse(text);
    const int64_t C = g->inputs()[0]->shape[1];
    for (const ge::Node* n : g->nodes())
      if (n->input(0)->format != Format::NCHW && n->input(0)->format != Format::ND) {
        EXPECT_EQ(transdata_impl(*n), C % 16 == 0 ? "onednn:reorder" : "cpu:convert_format");
      }
    auto in = ge::test::PassHarness::random_inputs(*g);
    auto out = run(text, in);
    ASSERT_EQ(out.size(), 2u);
    expect_same_bytes(out[0], ge::convert_format(in[0], Format::NHWC));
    expect_same_bytes(out[1], ge::convert_format(in[0], Format::NC1HWC0));
    expect_zero_padding(out[1]);
  }
}

TEST_F(BlockedKernels, UnaryMapsAndFusedElementwiseKeepThePaddingZeroAndMatchNchw) {
  // 20 channels: 12 padding channels, where Sigmoid(0) = 0.5, Cos(0) = 1 and Erf(0) + 1 = 1 would
  // leak; each blocked result equals its NCHW computation after converting back.
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,20,3,5]
  const %one: f32[] = [1.0]
  %b: f32[2,20,3,5]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %s: f32[2,20,3,5]@NC1HWC0 = Sigmoid(%b)
  %c: f32[2,20,3,5]@NC1HWC0 = Cos(%s)
  %f: f32[2,20,3,5]@NC1HWC0 = ge.FusedElementwise(%c, %one) {args=[0,2,1], ops=["Erf","Add"]}
  %y: f32[2,20,3,5] = ge.TransData(%f) {dst_format="NCHW", src_format="NC1HWC0"}
  output %s
  output %c
  output %f
  output %y
})";
  auto g = h.parse(text);
  auto in = ge::test::PassHarness::random_inputs(*g);
  auto out = run(text, in, false);
  ASSERT_EQ(out.size(), 4u);
  for (int i = 0; i < 3; ++i) expect_zero_padding(out[static_cast<size_t>(i)]);
  const float* x = in[0].data_as<float>();
  const float* y = out[3].data_as<float>();
  for (int64_t i = 0; i < in[0].numel(); ++i) {
    const float want = std::erf(std::cos(1.f / (1.f + std::exp(-x[i])))) + 1.f;
    ASSERT_NEAR(y[i], want, 2e-6f) << "element " << i;
  }
}

// A squeeze-excitation scale: HardSigmoid(s) * x with s [N, C, 1, 1] per image and t [1, C, 1, W]
// shared by both images, read on NC1HWC0 through their storage shapes [N, C1, 1, 1, 16] and
// [1, C1, 1, W, 16]; HardSigmoid(s) runs once per channel (hoisted) yet each element equals the
// formula. 20 channels: HardSigmoid(0) = 0.5 on the padding lanes is set back to zero.
TEST_F(BlockedKernels, FusedElementwiseBroadcastsAChannelVectorOnNc1hwc0) {
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,20,3,5]
  input %s: f32[2,20,1,1]
  input %t: f32[1,20,1,5]
  %xb: f32[2,20,3,5]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %sb: f32[2,20,1,1]@NC1HWC0 = ge.TransData(%s) {dst_format="NC1HWC0", src_format="NCHW"}
  %tb: f32[1,20,1,5]@NC1HWC0 = ge.TransData(%t) {dst_format="NC1HWC0", src_format="NCHW"}
  %f: f32[2,20,3,5]@NC1HWC0 = ge.FusedElementwise(%sb, %xb, %tb) {args=[0,3,1,4,2], imms=[0.2,0.5], ops=["HardSigmoid","Mul","Add"]}
  %y: f32[2,20,3,5] = ge.TransData(%f) {dst_format="NCHW", src_format="NC1HWC0"}
  output %f
  output %y
})";
  auto g = h.parse(text);
  auto in = ge::test::PassHarness::random_inputs(*g);
  auto out = run(text, in, false);
  ASSERT_EQ(out.size(), 2u);
  expect_zero_padding(out[0]);
  const float* x = in[0].data_as<float>();
  const float* s = in[1].data_as<float>();
  const float* t = in[2].data_as<float>();
  const float* y = out[1].data_as<float>();
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 20; ++c)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t w = 0; w < 5; ++w) {
          const int64_t i = ((n * 20 + c) * 3 + h) * 5 + w;
          const float hs = std::max(0.f, std::min(1.f, 0.2f * s[n * 20 + c] + 0.5f));
          ASSERT_EQ(y[i], hs * x[i] + t[c * 5 + w]) << "n " << n << " c " << c << " h " << h << " w " << w;
        }
}

// Add/Sub/Mul with one channel-vector operand [N', 20, 1, 1] on NC1HWC0: per image (N' = 2) or
// shared (N' = 1), on either side of Sub; values equal the NCHW formula exactly, padding zero.
TEST_F(BlockedKernels, BinaryOpsWithAChannelVectorMatchNchw) {
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,20,3,5]
  input %s: f32[2,20,1,1]
  input %t: f32[1,20,1,1]
  %xb: f32[2,20,3,5]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %sb: f32[2,20,1,1]@NC1HWC0 = ge.TransData(%s) {dst_format="NC1HWC0", src_format="NCHW"}
  %tb: f32[1,20,1,1]@NC1HWC0 = ge.TransData(%t) {dst_format="NC1HWC0", src_format="NCHW"}
  %m: f32[2,20,3,5]@NC1HWC0 = Mul(%xb, %sb)
  %a: f32[2,20,3,5]@NC1HWC0 = Add(%tb, %m)
  %d: f32[2,20,3,5]@NC1HWC0 = Sub(%sb, %a)
  %e: f32[2,20,3,5]@NC1HWC0 = Sub(%d, %tb)
  %y: f32[2,20,3,5] = ge.TransData(%e) {dst_format="NCHW", src_format="NC1HWC0"}
  output %m
  output %a
  output %d
  output %e
  output %y
})";
  auto g = h.parse(text);
  auto in = ge::test::PassHarness::random_inputs(*g);
  auto out = run(text, in, false);
  ASSERT_EQ(out.size(), 5u);
  for (int i = 0; i < 4; ++i) expect_zero_padding(out[static_cast<size_t>(i)]);
  const float* x = in[0].data_as<float>();
  const float* sv = in[1].data_as<float>();
  const float* t = in[2].data_as<float>();
  const float* y = out[4].data_as<float>();
  for (int64_t i = 0; i < in[0].numel(); ++i) {
    const int64_t n = i / (20 * 15), c = i / 15 % 20;
    const float s = sv[n * 20 + c], tc = t[c];
    const float m = x[i] * s, a = tc + m, d = s - a, e = d - tc;
    ASSERT_EQ(y[i], e) << "element " << i;
  }
}

TEST_F(BlockedKernels, BatchNormalizationKeepsThePaddingZeroAndMatchesNchw) {
  // 20 channels; B - mean * a is nonzero on every real channel, zero on the padding ones.
  const std::string text = R"(graph g opset(ai.onnx=15, ge=1) {
  input %x: f32[2,20,3,5]
  const %scale: f32[20]
  const %bias: f32[20]
  const %mean: f32[20]
  const %var: f32[20]
  %b: f32[2,20,3,5]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %n: f32[2,20,3,5]@NC1HWC0 = BatchNormalization(%b, %scale, %bias, %mean, %var) {epsilon=0.001}
  %y: f32[2,20,3,5] = ge.TransData(%n) {dst_format="NCHW", src_format="NC1HWC0"}
  %z: f32[2,20,3,5] = BatchNormalization(%x, %scale, %bias, %mean, %var) {epsilon=0.001}
  output %n
  output %y
  output %z
})";
  auto g = h.parse(text);
  ge::test::PassHarness::randomize_constants(*g);
  ge::Value* var = g->find_value("var");  // a variance is positive
  float* vp = const_cast<float*>(var->data->data_as<float>());
  for (int64_t i = 0; i < var->numel(); ++i) vp[i] = std::abs(vp[i]) + 0.1f;
  auto in = ge::test::PassHarness::random_inputs(*g);
  auto out = h.execute(std::shared_ptr<const ge::Graph>(std::move(g)), in);
  ASSERT_EQ(out.size(), 3u);
  expect_zero_padding(out[0]);
  ASSERT_EQ(out[1].nbytes(), out[2].nbytes());
  EXPECT_EQ(std::memcmp(out[1].data(), out[2].data(), out[2].nbytes()), 0);  // same a·x + b per element
}

TEST_F(BlockedKernels, DepthwiseOneByOneConvIsAChannelAffineMapOnBothLayouts) {
  // batchnorm_relu's form: group = C = 20, 1x1 kernel, Relu; the padding channels stay zero and
  // NC1HWC0 gives NCHW's bits; both equal max(w[c] * x + b[c], 0) to float rounding.
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,20,3,5]
  const %w: f32[20,1,1,1]
  const %bias: f32[20]
  %b: f32[2,20,3,5]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %n: f32[2,20,3,5]@NC1HWC0 = ge.FusedConv(%b, %w, %bias) {activation="Relu", group=20, kernel_shape=[1,1]}
  %y: f32[2,20,3,5] = ge.TransData(%n) {dst_format="NCHW", src_format="NC1HWC0"}
  %z: f32[2,20,3,5] = ge.FusedConv(%x, %w, %bias) {activation="Relu", group=20, kernel_shape=[1,1]}
  output %n
  output %y
  output %z
})";
  auto g = h.parse(text);
  ge::test::PassHarness::randomize_constants(*g);
  const std::vector<double> w = g->find_value("w")->data->to_double_vector(),
                            b = g->find_value("bias")->data->to_double_vector();
  auto in = ge::test::PassHarness::random_inputs(*g);
  const std::vector<double> x = in.at(0).to_double_vector();
  auto out = h.execute(std::shared_ptr<const ge::Graph>(std::move(g)), in);
  ASSERT_EQ(out.size(), 3u);
  expect_zero_padding(out[0]);
  ASSERT_EQ(out[1].nbytes(), out[2].nbytes());
  EXPECT_EQ(std::memcmp(out[1].data(), out[2].data(), out[2].nbytes()), 0);
  const std::vector<double> z = out[2].to_double_vector();
  int negative = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    const size_t c = i / 15 % 20;
    const double want = std::max(w[c] * x[i] + b[c], 0.0);
    negative += w[c] * x[i] + b[c] < 0;
    EXPECT_NEAR(z[i], want, 1e-6 * (1 + std::abs(want))) << "element " << i;
  }
  EXPECT_GT(negative, 0);  // the Relu clipped something
}

TEST_F(BlockedKernels, SqueezeExcitationOnBothLayoutsEqualsTheDefinition) {
  // MobileNetV3's squeeze and excitation on 20 channels (a padded second block), R = 8, to C2 = 20:
  // S = Sigmoid(W2 · Relu(W1 · mean(X) + B1) + B2). NC1HWC0 and NCHW give the same bits (the mean
  // sums the positions in the same order), S's padding channels are zero, and both equal the
  // definition computed here in double.
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,20,3,5]
  const %w1: f32[8,20,1,1]
  const %b1: f32[8]
  const %w2: f32[20,8,1,1]
  const %b2: f32[20]
  %xb: f32[2,20,3,5]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %sb: f32[2,20,1,1]@NC1HWC0 = ge.SqueezeExcitation(%xb, %w1, %b1, %w2, %b2) {activation="Relu", gate="Sigmoid"}
  %y: f32[2,20,1,1] = ge.TransData(%sb) {dst_format="NCHW", src_format="NC1HWC0"}
  %z: f32[2,20,1,1] = ge.SqueezeExcitation(%x, %w1, %b1, %w2, %b2) {activation="Relu", gate="Sigmoid"}
  output %sb
  output %y
  output %z
})";
  auto g = h.parse(text);
  ge::test::PassHarness::randomize_constants(*g);
  auto vals = [&](const char* n) { return g->find_value(n)->data->to_double_vector(); };
  const std::vector<double> w1 = vals("w1"), b1 = vals("b1"), w2 = vals("w2"), b2 = vals("b2");
  auto in = ge::test::PassHarness::random_inputs(*g);
  const std::vector<double> x = in.at(0).to_double_vector();
  auto out = h.execute(std::shared_ptr<const ge::Graph>(std::move(g)), in);
  ASSERT_EQ(out.size(), 3u);
  expect_zero_padding(out[0]);
  ASSERT_EQ(out[1].nbytes(), out[2].nbytes());
  EXPECT_EQ(std::memcmp(out[1].data(), out[2].data(), out[2].nbytes()), 0);
  const std::vector<double> z = out[2].to_double_vector();
  for (int n = 0; n < 2; ++n) {
    std::vector<double> m(20, 0.0), hid(8);
    for (int c = 0; c < 20; ++c) {
      for (int p = 0; p < 15; ++p) m[c] += x[(n * 20 + c) * 15 + p];
      m[c] /= 15;
    }
    for (int r = 0; r < 8; ++r) {
      double a = b1[r];
      for (int c = 0; c < 20; ++c) a += w1[r * 20 + c] * m[c];
      hid[r] = std::max(a, 0.0);
    }
    for (int c = 0; c < 20; ++c) {
      double a = b2[c];
      for (int r = 0; r < 8; ++r) a += w2[c * 8 + r] * hid[r];
      EXPECT_NEAR(z[n * 20 + c], 1 / (1 + std::exp(-a)), 1e-6) << "image " << n << " channel " << c;
    }
  }
}

TEST_F(BlockedKernels, ResizeOnNc1hwc0MatchesNchwBitwise) {
  // UNet's and DeepLab's upsampling: linear with align_corners and half_pixel, and nearest; on
  // NC1HWC0 each tap moves a vector of C0 channels, in the same order of sums as NCHW.
  for (const char* mode : {R"(coordinate_transformation_mode="align_corners", mode="linear")",
                           R"(coordinate_transformation_mode="half_pixel", mode="linear")",
                           R"(mode="nearest")", R"(mode="cubic")"}) {
    const std::string text = std::string(R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,20,5,6]
  const %scales: f32[4] = [1, 1, 2, 1.5]
  %b: f32[2,20,5,6]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %r: f32[2,20,10,9]@NC1HWC0 = Resize(%b, _, %scales) {)") + mode + R"(}
  %y: f32[2,20,10,9] = ge.TransData(%r) {dst_format="NCHW", src_format="NC1HWC0"}
  %z: f32[2,20,10,9] = Resize(%x, _, %scales) {)" + mode + R"(}
  output %r
  output %y
  output %z
})";
    SCOPED_TRACE(mode);
    auto g = h.parse(text);
    auto out = run(text, ge::test::PassHarness::random_inputs(*g), false);
    ASSERT_EQ(out.size(), 3u);
    expect_zero_padding(out[0]);
    ASSERT_EQ(out[1].nbytes(), out[2].nbytes());
    EXPECT_EQ(std::memcmp(out[1].data(), out[2].data(), out[2].nbytes()), 0);
  }
}

TEST_F(BlockedKernels, FusedConvKeepsThePaddingZeroEvenWithSigmoid) {
  // 20 output channels: 12 padding channels, where sigmoid(0) = 0.5 would leak.
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,6,6]
  const %w: f32[20,16,3,3]
  const %bias: f32[20]
  %xb: f32[1,16,6,6]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %y: f32[1,20,6,6]@NC1HWC0 = ge.FusedConv(%xb, %w, %bias, _) {activation="Sigmoid", pads=[1,1,1,1]}
  output %y
})";
  auto g = h.parse(text);
  auto out = run(text, ge::test::PassHarness::random_inputs(*g));
  expect_zero_padding(out[0]);
}

TEST_F(BlockedKernels, PoolsConcatAndElementwiseMatchNchw) {
  // Each op once in NCHW and once between TransData nodes; the outputs must agree exactly
  // (pooling, Concat and these elementwise ops do not reassociate).
  const std::string plain = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,32,10,10]
  input %z: f32[1,32,10,10]
  const %lo: f32[] = [-0.5]
  const %hi: f32[] = [0.25]
  %m: f32[1,32,5,5] = MaxPool(%x) {kernel_shape=[3,3], strides=[2,2], ceil_mode=1}
  %a: f32[1,32,5,5] = AveragePool(%x) {kernel_shape=[3,3], strides=[2,2], pads=[1,1,0,0]}
  %g: f32[1,32,1,1] = GlobalAveragePool(%x)
  %s: f32[1,32,10,10] = Sub(%x, %z)
  %c: f32[1,32,10,10] = Clip(%s, %lo, %hi)
  %k: f32[1,64,10,10] = Concat(%c, %z) {axis=1}
  output %m
  output %a
  output %g
  output %k
})";
  const std::string blocked = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,32,10,10]
  input %z: f32[1,32,10,10]
  const %lo: f32[] = [-0.5]
  const %hi: f32[] = [0.25]
  %xb: f32[1,32,10,10]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %zb: f32[1,32,10,10]@NC1HWC0 = ge.TransData(%z) {dst_format="NC1HWC0", src_format="NCHW"}
  %mb: f32[1,32,5,5]@NC1HWC0 = MaxPool(%xb) {kernel_shape=[3,3], strides=[2,2], ceil_mode=1}
  %ab: f32[1,32,5,5]@NC1HWC0 = AveragePool(%xb) {kernel_shape=[3,3], strides=[2,2], pads=[1,1,0,0]}
  %gb: f32[1,32,1,1]@NC1HWC0 = GlobalAveragePool(%xb)
  %sb: f32[1,32,10,10]@NC1HWC0 = Sub(%xb, %zb)
  %cb: f32[1,32,10,10]@NC1HWC0 = Clip(%sb, %lo, %hi)
  %kb: f32[1,64,10,10]@NC1HWC0 = Concat(%cb, %zb) {axis=1}
  %m: f32[1,32,5,5] = ge.TransData(%mb) {dst_format="NCHW", src_format="NC1HWC0"}
  %a: f32[1,32,5,5] = ge.TransData(%ab) {dst_format="NCHW", src_format="NC1HWC0"}
  %g: f32[1,32,1,1] = ge.TransData(%gb) {dst_format="NCHW", src_format="NC1HWC0"}
  %k: f32[1,64,10,10] = ge.TransData(%kb) {dst_format="NCHW", src_format="NC1HWC0"}
  output %m
  output %a
  output %g
  output %k
})";
  auto g = h.parse(plain);
  auto in = ge::test::PassHarness::random_inputs(*g);
  auto want = run(plain, in, false), got = run(blocked, in, false);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(want[i].nbytes(), got[i].nbytes()) << "output " << i;
    auto x = want[i].to_double_vector(), y = got[i].to_double_vector();
    for (size_t k = 0; k < x.size(); ++k) ASSERT_NEAR(x[k], y[k], 1e-6 * (1 + std::abs(x[k]))) << "output " << i << " at " << k;
  }
}

TEST_F(BlockedKernels, KernelsRefuseFormatsTheyCannotRead) {
  // A TransData whose attributes disagree with its values fails at plan build, naming it.
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,2,2]
  %b: f32[1,16,2,2]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %y: f32[1,16,2,2]@NC1HWC0 = MaxPool(%b) {kernel_shape=[1,1], storage_order=0}
  %t: f32[1,16,2,2] = ge.TransData(%y) {dst_format="FRACTAL_Z", src_format="NC1HWC0"}
  output %t
})";
  auto g = h.parse(text);
  try {
    run(text, ge::test::PassHarness::random_inputs(*g));
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("TransData"), std::string::npos) << e.what();
  }
}

TEST_F(BlockedKernels, PlainOnlyKernelsRefuseBlockedOperandsNamingTheNode) {
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,2,2]
  %b: f32[1,16,2,2]@NC1HWC0 = ge.TransData(%x) {dst_format="NC1HWC0", src_format="NCHW"}
  %y: f32[1,16,2,2] = Softmax(%b) {axis=1}  # sm
  output %y
})";
  auto g = h.parse(text);
  try {
    run(text, ge::test::PassHarness::random_inputs(*g));
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("Softmax: value 'b' is NC1HWC0; this CPU kernel reads plain layouts only"), std::string::npos) << m;
    EXPECT_NE(m.find("node 'sm'"), std::string::npos) << m;
  }
}

}  // namespace
