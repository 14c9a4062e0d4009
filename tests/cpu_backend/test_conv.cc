// Conv kernel tests: ONNX's documented examples (onnx/docs/Operators.md#Conv) with their stated
// outputs, hand-computed grouped/depthwise cases, and a naive direct convolution as reference
// for dilated, 1-D and 3-D cases.
// test_util.h first: it brings ge/sdk/error.h, which kernel_harness.h uses without including.
#include "test_util.h"
#include "kernel_harness.h"
#include "conv.h"
#include "kernels.h"
#include "vecmath.h"

namespace ge::test {
namespace {

std::vector<Tensor> conv(const std::vector<Tensor>& in, Shape out, Attributes a, std::set<size_t> consts = {1, 2}) {
  KernelHarness h(cpu::register_conv_kernels);
  return h.run("Conv", in, {OutSpec{DataType::Float32, out}}, a, 13, consts);
}

// Naive ONNX Conv for 2-D: y[n,m,oh,ow] = b[m] + sum over the group's channels and kernel.
std::vector<float> ref_conv2d(const Tensor& x, const Tensor& w, const float* b, int64_t G, Ints st, Ints pads, Ints dil,
                              const Shape& ys) {
  const int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  const int64_t M = w.shape()[0], CG = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
  const int64_t OH = ys[2], OW = ys[3];
  std::vector<float> y(ys.numel());
  const float *xd = x.data_as<float>(), *wd = w.data_as<float>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double s = b ? b[m] : 0.0;
          const int64_t g = m / (M / G);
          for (int64_t c = 0; c < CG; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t ih = oh * st[0] - pads[0] + kh * dil[0], iw = ow * st[1] - pads[1] + kw * dil[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                s += xd[((n * C + g * CG + c) * H + ih) * W + iw] * wd[((m * CG + c) * KH + kh) * KW + kw];
              }
          y[((n * M + m) * OH + oh) * OW + ow] = static_cast<float>(s);
        }
  return y;
}

Tensor ones(Shape s) { return f32(s, std::vector<float>(s.numel(), 1.0f)); }

TEST(Conv, BasicWithPadding) {  // test_basic_conv_with_padding
  auto y = conv({iota({1, 1, 5, 5}), ones({1, 1, 3, 3})}, {1, 1, 5, 5}, attrs({{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}}));
  expect_near(y[0], {12, 21, 27, 33, 24, 33, 54, 63, 72, 51, 63, 99, 108, 117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84});
}

TEST(Conv, BasicWithoutPaddingNonConstantWeights) {  // test_basic_conv_without_padding
  auto y = conv({iota({1, 1, 5, 5}), ones({1, 1, 3, 3})}, {1, 1, 3, 3}, attrs({}), {});
  expect_near(y[0], {54, 63, 72, 99, 108, 117, 144, 153, 162});
}

TEST(Conv, StridesPadding) {  // test_conv_with_strides_padding
  auto y = conv({iota({1, 1, 7, 5}), ones({1, 1, 3, 3})}, {1, 1, 4, 3},
                attrs({{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}));
  expect_near(y[0], {12, 27, 24, 63, 108, 81, 123, 198, 141, 112, 177, 124});
}

TEST(Conv, StridesAsymmetricPadding) {  // test_conv_with_strides_and_asymmetric_padding
  auto y = conv({iota({1, 1, 7, 5}), ones({1, 1, 3, 3})}, {1, 1, 4, 2},
                attrs({{"pads", Ints{1, 0, 1, 0}}, {"strides", Ints{2, 2}}}));
  expect_near(y[0], {21, 33, 99, 117, 189, 207, 171, 183});
}

TEST(Conv, AutoPadSameLower) {  // test_conv_with_autopad_same: 5x5, k3, s2 → 3x3, extra pad at the start
  auto y = conv({iota({1, 1, 5, 5}), ones({1, 1, 3, 3})}, {1, 1, 3, 3},
                attrs({{"auto_pad", std::string("SAME_LOWER")}, {"strides", Ints{2, 2}}}));
  expect_near(y[0], {12, 27, 24, 63, 108, 81, 72, 117, 84});
}

TEST(Conv, DepthwiseWithBias) {
  // x: channel 0 = 1..4, channel 1 = 10,20,30,40 (2x2); w: ch0 [[1,0],[0,1]], ch1 [[0,1],[1,0]].
  Tensor x = f32({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40});
  Tensor w = f32({2, 1, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0});
  Tensor b = f32({2}, {0.5f, -1});
  auto y = conv({x, w, b}, {1, 2, 1, 1}, attrs({{"group", int64_t{2}}}));
  expect_near(y[0], {1 + 4 + 0.5f, 20 + 30 - 1});
}

TEST(Conv, GroupedNonDepthwise) {
  // 4 input channels, 2 groups, 2 outputs per group, 1x1 kernel: y[m] = sum_c w[m,c] x[group(m)*2 + c].
  Tensor x = f32({1, 4, 1, 1}, {1, 2, 3, 4});
  Tensor w = f32({4, 2, 1, 1}, {1, 1, 1, -1, 1, 1, 2, 0});
  auto y = conv({x, w}, {1, 4, 1, 1}, attrs({{"group", int64_t{2}}}));
  expect_near(y[0], {3, -1, 7, 6});
}

TEST(Conv, RandomGroupedDilatedMatchesReference) {
  Tensor x = rnd({2, 6, 9, 8}, 3), w = rnd({9, 2, 3, 2}, 5), b = rnd({9}, 7);
  Ints st{2, 1}, pads{1, 2, 0, 1}, dil{2, 3};
  // H: 9 + 1 + 0 padded, dilated kernel (3-1)*2+1 = 5, stride 2 → (10-5)/2+1 = 3.
  // W: 8 + 2 + 1 padded, dilated kernel (2-1)*3+1 = 4, stride 1 → (11-4)/1+1 = 8.
  Shape ys{2, 9, 3, 8};
  auto y = conv({x, w, b}, ys, attrs({{"group", int64_t{3}}, {"strides", st}, {"pads", pads}, {"dilations", dil}}));
  expect_near(y[0], ref_conv2d(x, w, b.data_as<float>(), 3, st, {1, 2}, dil, ys), 1e-4f);
}

// Grouped 1x1 convs (ShuffleNet v1's group-4 pointwise layers) run oneDNN's GEMM convolution on
// plain NCHW, one W_g·X_g product per group: y[n,m] = b[m] + sum_c w[m,c] x[n, g(m)*C/G + c].
TEST(Conv, GroupedPointwiseHandComputed) {
  // C = M = 6, G = 3 (2 input and 2 output channels per group), 1x2 image. Group g reads
  // channels 2g, 2g+1; x[c] = (c+1, -(c+1)) over the two pixels.
  Tensor x = f32({1, 6, 1, 2}, {1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6});
  Tensor w = f32({6, 2, 1, 1}, {1, 0, 0, 1, 1, 1, 1, -1, 2, 0, 0, 3});
  Tensor b = f32({6}, {0, 0, 0, 0, 0.5f, -0.5f});
  auto y = conv({x, w, b}, {1, 6, 1, 2}, attrs({{"group", int64_t{3}}}));
  // g0: m0 = x0 = (1,-1), m1 = x1 = (2,-2); g1: m2 = x2+x3 = (7,-7), m3 = x2-x3 = (-1,1);
  // g2: m4 = 2*x4 + 0.5 = (10.5,-9.5), m5 = 3*x5 - 0.5 = (17.5,-18.5).
  expect_near(y[0], {1, -1, 2, -2, 7, -7, -1, 1, 10.5f, -9.5f, 17.5f, -18.5f});
}

TEST(Conv, GroupedPointwiseMatchesReference) {
  // Two images, 4 groups of 6 input / 5 output channels, 7x9: constant and runtime weights.
  Tensor x = rnd({2, 24, 7, 9}, 11), w = rnd({20, 6, 1, 1}, 13), b = rnd({20}, 17);
  const Shape ys{2, 20, 7, 9};
  const auto ref = ref_conv2d(x, w, b.data_as<float>(), 4, {1, 1}, {0, 0}, {1, 1}, ys);
  expect_near(conv({x, w, b}, ys, attrs({{"group", int64_t{4}}}))[0], ref, 1e-4f);
  expect_near(conv({x, w, b}, ys, attrs({{"group", int64_t{4}}}), {})[0], ref, 1e-4f);
}

// Depthwise (group == C == M) runs on the direct NCHW kernel (conv_depthwise.cc): unit stride
// (padded-pitch path) and strided/dilated (row path), constant and runtime weights.
TEST(Conv, DepthwiseMatchesReference) {
  struct Case { Ints st, pads, dil; int64_t H, W; };
  for (const Case& c : {Case{{1, 1}, {1, 1, 1, 1}, {1, 1}, 7, 7}, Case{{2, 2}, {1, 1, 1, 1}, {1, 1}, 9, 8},
                        Case{{1, 2}, {0, 2, 1, 0}, {2, 1}, 10, 11}, Case{{3, 1}, {2, 0, 0, 2}, {1, 3}, 8, 12}}) {
    const int64_t C = 5, K = 3;
    Tensor x = rnd({2, C, c.H, c.W}, 21), w = rnd({C, 1, K, K}, 22), b = rnd({C}, 23);
    const int64_t OH = (c.H + c.pads[0] + c.pads[2] - ((K - 1) * c.dil[0] + 1)) / c.st[0] + 1;
    const int64_t OW = (c.W + c.pads[1] + c.pads[3] - ((K - 1) * c.dil[1] + 1)) / c.st[1] + 1;
    Shape ys{2, C, OH, OW};
    auto a = attrs({{"group", C}, {"strides", c.st}, {"pads", c.pads}, {"dilations", c.dil}});
    auto want = ref_conv2d(x, w, b.data_as<float>(), C, c.st, {c.pads[0], c.pads[1]}, c.dil, ys);
    expect_near(conv({x, w, b}, ys, a)[0], want, 1e-4f);
    expect_near(conv({x, w, b}, ys, a, {})[0], want, 1e-4f);
    expect_near(conv({x, w}, ys, a)[0], ref_conv2d(x, w, nullptr, C, c.st, {c.pads[0], c.pads[1]}, c.dil, ys), 1e-4f);
  }
}

// cpu_conv_algorithm = "winograd" (winograd_pass.cc): 32 → 48 channels, 14×14, pads 1
// (F(2×2,3×3) tiles), within 1e-4 relative of the direct sum in double. Conv runs oneDNN's
// Winograd kernel; ge.FusedConv with Swish too, the activation as a pass after it ("+act": oneDNN
// 2.6's Winograd takes relu only); with Sigmoid (0 ↦ 0.5, so not after an NC1HWC0 kernel) the
// direct kernel with its post-op.
TEST(Conv, WinogradWhereOneDnnHasIt) {
  KernelHarness h([](Registrar& r) {
    cpu::register_conv_kernels(r);
    cpu::register_fused_conv_kernels(r);
  });
  Tensor x = rnd({1, 32, 14, 14}, 31), w = rnd({48, 32, 3, 3}, 32), b = rnd({48}, 33);
  const Shape ys{1, 48, 14, 14};
  const std::vector<float> ref = ref_conv2d(x, w, b.data_as<float>(), 1, {1, 1}, {1, 1}, {1, 1}, ys);
  struct Case { const char* op; const char* act; bool winograd; float (*f)(float); };
  const Case cases[] = {
      {"Conv", "", true, [](float v) { return v; }},
      {"ge.FusedConv", "Swish", true, [](float v) { return v / (1.f + std::exp(-v)); }},
      {"ge.FusedConv", "Sigmoid", false, [](float v) { return 1.f / (1.f + std::exp(-v)); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.op) + " " + c.act);
    Attributes a = attrs({{"pads", Ints{1, 1, 1, 1}}, {cpu::kConvAlgorithmAttr, std::string("winograd")}});
    if (*c.act) a.set("activation", std::string(c.act));
    auto y = h.run(c.op, {x, w, b}, {OutSpec{DataType::Float32, ys}}, a, 13, {1, 2});
    EXPECT_EQ(h.last_impl().find("wino") != std::string::npos, c.winograd) << h.last_impl();
    EXPECT_EQ(h.last_impl().find("+act") != std::string::npos, std::string(c.act) == "Swish") << h.last_impl();
    std::vector<float> want(ref.size());
    for (size_t i = 0; i < ref.size(); ++i) want[i] = c.f(ref[i]);
    expect_near(y[0], want, 1e-4f);
  }
  // A value the backend does not know (the attribute comes back from an exported graph): refused.
  try {
    h.run("Conv", {x, w, b}, {OutSpec{DataType::Float32, ys}}, attrs({{"pads", Ints{1, 1, 1, 1}}, {cpu::kConvAlgorithmAttr, std::string("fft")}}),
          13, {1, 2});
    ADD_FAILURE() << "no error";
  } catch (const InvalidGraphError& e) {
    EXPECT_NE(std::string(e.what()).find("attribute cpu_conv_algorithm = 'fft' is not a convolution algorithm of the cpu "
                                         "backend (known: winograd, direct)"),
              std::string::npos)
        << e.what();
  }
}

// Grouped 1x1 convolutions whose channels per group are not multiples of 16 (ShuffleNet v1's 34
// per group) run the register-tiled kernel on AVX-512 machines (conv_grouped_pointwise.cc): 34
// output channels per group are 5 tiles of 6 and one of 4, and 7x5 / 9x9 pixels give one partial
// 64-pixel tile / one full and one partial, with a 3- and a 2-vector tail. Values against a
// double-precision reference for Conv, FusedConv with Z and Relu / LeakyRelu (on the registers),
// and FusedConv with Sigmoid (a pass after the kernel: "+postops"); a stride-2 node is not one.
TEST(Conv, GroupedPointwiseKernel) {
  KernelHarness h([](Registrar& r) {
    cpu::register_conv_kernels(r);
    cpu::register_fused_conv_kernels(r);
  });
  for (int64_t hw : {7, 9}) {
    const int64_t wd = hw == 7 ? 5 : 9;
    Tensor x = rnd({2, 136, hw, wd}, 41), w = rnd({136, 34, 1, 1}, 42), b = rnd({136}, 43), z = rnd({2, 136, hw, wd}, 44);
    const Shape ys{2, 136, hw, wd};
    const std::vector<float> ref = ref_conv2d(x, w, b.data_as<float>(), 4, {1, 1}, {0, 0}, {1, 1}, ys);
    const float* zd = z.data_as<float>();
    struct Case { const char* op; const char* act; bool sum; const char* impl; float (*f)(float); };
    const Case cases[] = {
        {"Conv", "", false, "cpu:conv_grouped_1x1_avx512", [](float v) { return v; }},
        {"ge.FusedConv", "Relu", true, "cpu:conv_grouped_1x1_avx512", [](float v) { return v < 0.f ? 0.f : v; }},
        {"ge.FusedConv", "LeakyRelu", true, "cpu:conv_grouped_1x1_avx512", [](float v) { return v < 0.f ? 0.1f * v : v; }},
        {"ge.FusedConv", "Sigmoid", false, "cpu:conv_grouped_1x1_avx512+postops",
         [](float v) { return 1.f / (1.f + std::exp(-v)); }},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.op) + " " + c.act + " " + std::to_string(hw));
      Attributes a = attrs({{"group", int64_t{4}}});
      if (*c.act) a.set("activation", std::string(c.act));
      if (std::string(c.act) == "LeakyRelu") a.set("activation_params", std::vector<float>{0.1f});
      std::vector<Tensor> in = {x, w, b};
      if (c.sum) in.push_back(z);
      auto y = h.run(c.op, in, {OutSpec{DataType::Float32, ys}}, a, 13, {1, 2});
      if (cpu::vec::has_avx512()) {
        EXPECT_EQ(h.last_impl(), c.impl);
      }
      std::vector<float> want(ref.size());
      for (size_t i = 0; i < ref.size(); ++i) want[i] = c.f(ref[i] + (c.sum ? zd[i] : 0.f));
      expect_near(y[0], want, 1e-4f);
    }
  }
  Tensor x = rnd({1, 136, 8, 8}, 45), w = rnd({136, 34, 1, 1}, 46);
  h.run("Conv", {x, w}, {OutSpec{DataType::Float32, {1, 136, 4, 4}}}, attrs({{"group", int64_t{4}}, {"strides", Ints{2, 2}}}),
        13, {1});
  EXPECT_EQ(h.last_impl().find("grouped"), std::string::npos) << h.last_impl();
}

// ge.FusedConv may run in place on its residual Z (plugins/fusion/ops/conv.toml `inplace = [3]`):
// with Y on Z's bytes every kernel path gives the values it gives with Y apart — oneDNN's sum
// post-op (a 1x1 and a 3x3 conv, blocked or not), the grouped 1x1 kernel (Z on the registers),
// the depthwise kernel and the Sigmoid pass after it (PostOpsKernel, which sets Z aside first).
TEST(Conv, FusedConvInPlaceOnTheResidual) {
  KernelHarness h([](Registrar& r) {
    cpu::register_conv_kernels(r);
    cpu::register_fused_conv_kernels(r);
  });
  struct Case { const char* name; int64_t c, m, k, group; const char* act; };
  const Case cases[] = {{"1x1", 32, 48, 1, 1, "Relu"},       {"3x3", 16, 32, 3, 1, "Relu"},
                        {"grouped 1x1", 136, 136, 1, 4, "Relu"}, {"depthwise", 32, 32, 3, 32, "Relu"},
                        {"depthwise sigmoid", 32, 32, 3, 32, "Sigmoid"}, {"3x3 sigmoid", 16, 32, 3, 1, "Sigmoid"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor x = rnd({2, c.c, 9, 7}, 51), w = rnd({c.m, c.c / c.group, c.k, c.k}, 52), b = rnd({c.m}, 53),
           z = rnd({2, c.m, 9, 7}, 54);
    const Shape ys{2, c.m, 9, 7};
    Attributes a = attrs({{"group", c.group}, {"activation", std::string(c.act)}});
    if (c.k == 3) a.set("pads", Ints{1, 1, 1, 1});
    const auto apart = h.run("ge.FusedConv", {x, w, b, z}, {OutSpec{DataType::Float32, ys}}, a, 13, {1, 2});
    const std::string impl = h.last_impl();
    const auto in_place = h.run("ge.FusedConv", {x, w, b, z}, {OutSpec{DataType::Float32, ys}}, a, 13, {1, 2}, 1, 3);
    EXPECT_EQ(h.last_impl(), impl);
    const float* p = apart[0].data_as<float>();
    expect_near(in_place[0], std::vector<float>(p, p + apart[0].numel()), 0.f);
  }
}

TEST(Conv, OneD) {
  // y[o] = x[o] - x[o+2] (kernel [1,0,-1]), stride 1, no pads.
  auto y = conv({f32({1, 1, 5}, {1, 4, 9, 16, 25}), f32({1, 1, 3}, {1, 0, -1})}, {1, 1, 3}, attrs({}));
  expect_near(y[0], {-8, -12, -16});
}

TEST(Conv, ThreeD) {
  // 2x2x2 kernel of ones on a 3x3x3 arange: y = sum of each 2x2x2 block.
  auto y = conv({iota({1, 1, 3, 3, 3}), ones({1, 1, 2, 2, 2})}, {1, 1, 2, 2, 2}, attrs({}));
  // block at (d,h,w) sums x = 9d+3h+w over 8 corners: 8*(9d+3h+w) + 8*(9+3+1)/2 = 8*(9d+3h+w) + 52
  std::vector<float> want;
  for (int d = 0; d < 2; ++d)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w) want.push_back(8.0f * (9 * d + 3 * h + w) + 52);
  expect_near(y[0], want);
}

TEST(Conv, RejectsInt8) {
  Tensor x = Tensor::allocate(DataType::Int8, {1, 1, 3, 3}), w = Tensor::allocate(DataType::Int8, {1, 1, 1, 1});
  KernelHarness h(cpu::register_conv_kernels);
  EXPECT_THROW(h.run("Conv", {x, w}, {OutSpec{DataType::Int8, {1, 1, 3, 3}}}), UnsupportedError);
}

TEST(Conv, RejectsBadGroup) {
  EXPECT_THROW(conv({rnd({1, 3, 4, 4}), rnd({2, 1, 1, 1})}, {1, 2, 4, 4}, attrs({{"group", int64_t{2}}})), InvalidGraphError);
}

}  // namespace
}  // namespace ge::test
