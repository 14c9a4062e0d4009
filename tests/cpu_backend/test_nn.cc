// Hand-stated cases of the neural-network kernels that the ONNX node tests miss: Resize
// half_pixel vs align_corners on a 3x3 -> 5x5 image, LSTM with sequence_lens shorter than the
// sequence (both directions), ConvTranspose with groups and output_padding (inside the end
// padding and past it, where only the bias reaches), the LSTM at two threads equal to one.
#include <cstring>

#include "blocked_conv_support.h"
#include "test_util.h"
#include "kernel_harness.h"
#include "blocked.h"
#include "kernels.h"

namespace ge::test {
namespace {

// ---------------------------------------------------------------- Resize

// X[r][c] = 3r + c is linear, so bilinear interpolation returns 3 h(r) + h(c) with h the
// source coordinate clamped to [0, 2]. align_corners: h(o) = o * (3-1)/(5-1) = o/2.
// half_pixel: h(o) = (o + 0.5) * 3/5 - 0.5 = 0.6 o - 0.2, clamped: 0, 0.4, 1, 1.6, 2.
std::vector<float> resize_3x3_to_5x5(const std::string& ctm) {
  KernelHarness h(cpu::register_nn_kernels);
  Tensor x = iota({1, 1, 3, 3});
  Tensor sizes = Tensor::allocate(DataType::Int64, {4});
  const int64_t sz[] = {1, 1, 5, 5};
  for (int i = 0; i < 4; ++i) sizes.data_as<int64_t>()[i] = sz[i];
  auto out = h.run("Resize", {x, Tensor(), Tensor(), sizes}, {OutSpec{DataType::Float32, {1, 1, 5, 5}}},
                   attrs({{"mode", std::string("linear")}, {"coordinate_transformation_mode", ctm}}), 13, {3});
  return values(out[0]);
}

std::vector<float> linear_image(const std::vector<float>& h) {
  std::vector<float> y;
  for (float r : h)
    for (float c : h) y.push_back(3 * r + c);
  return y;
}

TEST(Resize, HalfPixelVsAlignCorners3x3To5x5) {
  const std::vector<float> hp = resize_3x3_to_5x5("half_pixel"), ac = resize_3x3_to_5x5("align_corners");
  const std::vector<float> want_hp = linear_image({0.f, 0.4f, 1.f, 1.6f, 2.f});
  const std::vector<float> want_ac = linear_image({0.f, 0.5f, 1.f, 1.5f, 2.f});
  ASSERT_EQ(hp.size(), 25u);
  for (size_t i = 0; i < 25; ++i) {
    EXPECT_NEAR(hp[i], want_hp[i], 1e-5f) << "half_pixel at " << i;
    EXPECT_NEAR(ac[i], want_ac[i], 1e-5f) << "align_corners at " << i;
  }
  EXPECT_NEAR(hp[6], 1.6f, 1e-5f);  // (1,1): 3*0.4 + 0.4
  EXPECT_NEAR(ac[6], 2.0f, 1e-5f);  // (1,1): 3*0.5 + 0.5
}

TEST(Resize, NearestRoundPreferFloorHalfPixel) {
  // 2 -> 4 with half_pixel: x_original = (o + 0.5)/2 - 0.5 = -0.25, 0.25, 0.75, 1.25 ->
  // nearest (round half down) 0, 0, 1, 1.
  KernelHarness h(cpu::register_nn_kernels);
  Tensor scales = f32({3}, {1.f, 1.f, 2.f});
  auto out = h.run("Resize", {f32({1, 1, 2}, {10.f, 20.f}), Tensor(), scales}, {OutSpec{DataType::Float32, {1, 1, 4}}},
                   attrs({{"mode", std::string("nearest")}}), 13, {2});
  expect_near(out[0], {10.f, 10.f, 20.f, 20.f});
}

// A scale whose float product rounds up to an integer: 10 * 0.7f is 7 in float arithmetic
// (onnx's shape inference, ONNX Runtime) and 6.99999988 widened to double; the output of 7 that
// the inference gives runs (it was refused as disagreeing with the scales).
TEST(Resize, ScaleWhoseFloatProductRoundsUp) {
  KernelHarness h(cpu::register_nn_kernels);
  Tensor scales = f32({3}, {1.f, 1.f, 0.7f});
  auto out = h.run("Resize", {f32({1, 1, 10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), Tensor(), scales},
                   {OutSpec{DataType::Float32, {1, 1, 7}}}, attrs({{"mode", std::string("nearest")}}), 13, {2});
  ASSERT_EQ(out[0].numel(), 7);
  // half_pixel: x = (o + 0.5) / 0.7 - 0.5 → 0.21, 1.64, ..., 8.79: first 0, second 2, last 9.
  EXPECT_EQ(out[0].data_as<float>()[0], 0.f);
  EXPECT_EQ(out[0].data_as<float>()[1], 2.f);
  EXPECT_EQ(out[0].data_as<float>()[6], 9.f);
}

// ---------------------------------------------------------------- LSTM

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

// Scalar ONNX LSTM (Operators.md#LSTM, default activations) of one batch entry and direction
// over steps [0, len): returns Y rows (hidden per step, in time order) and the final H.
void ref_lstm(const float* x, int64_t len, int64_t I, int64_t H, const float* W, const float* R, const float* Bw,
              bool reverse, std::vector<std::vector<float>>& ys, std::vector<float>& h) {
  std::vector<float> c(H, 0.f);
  h.assign(H, 0.f);
  ys.assign(len, std::vector<float>(H, 0.f));
  for (int64_t s = 0; s < len; ++s) {
    const int64_t t = reverse ? len - 1 - s : s;
    std::vector<float> g(4 * H);
    for (int64_t j = 0; j < 4 * H; ++j) {
      double v = Bw[j] + Bw[4 * H + j];
      for (int64_t k = 0; k < I; ++k) v += W[j * I + k] * x[t * I + k];
      for (int64_t k = 0; k < H; ++k) v += R[j * H + k] * h[k];
      g[j] = static_cast<float>(v);
    }
    std::vector<float> hn(H);
    for (int64_t k = 0; k < H; ++k) {
      const float i = sigmoid(g[k]), o = sigmoid(g[H + k]), f = sigmoid(g[2 * H + k]), cc = std::tanh(g[3 * H + k]);
      c[k] = f * c[k] + i * cc;
      hn[k] = o * std::tanh(c[k]);
    }
    h = hn;
    ys[t] = h;
  }
}

// Checks a layout-0 LSTM's Y [T, D, B, H] and Y_h [D, B, H] against ref_lstm for every direction
// and batch entry, each over its own length L[b]; Y is zero past it.
void expect_lstm_matches_reference(const Tensor& Y, const Tensor& Yh, const Tensor& x, const Tensor& w,
                                   const Tensor& r, const Tensor& b, const int32_t* L, int64_t D, int64_t H) {
  const int64_t T = x.shape()[0], B = x.shape()[1], I = x.shape()[2];
  for (int64_t d = 0; d < D; ++d)
    for (int64_t bb = 0; bb < B; ++bb) {
      // This entry's own sequence, contiguous [len, I].
      std::vector<float> xs;
      for (int64_t t = 0; t < L[bb]; ++t)
        for (int64_t k = 0; k < I; ++k) xs.push_back(x.data_as<float>()[(t * B + bb) * I + k]);
      std::vector<std::vector<float>> ys;
      std::vector<float> hf;
      ref_lstm(xs.data(), L[bb], I, H, w.data_as<float>() + d * 4 * H * I, r.data_as<float>() + d * 4 * H * H,
               b.data_as<float>() + d * 8 * H, d == 1, ys, hf);
      for (int64_t t = 0; t < T; ++t)
        for (int64_t k = 0; k < H; ++k) {
          const float want = t < L[bb] ? ys[t][k] : 0.f;  // Y is zero past the entry's length
          EXPECT_NEAR(Y.data_as<float>()[((t * D + d) * B + bb) * H + k], want, 1e-5f)
              << "Y t=" << t << " d=" << d << " b=" << bb;
        }
      for (int64_t k = 0; k < H; ++k)
        EXPECT_NEAR(Yh.data_as<float>()[(d * B + bb) * H + k], hf[k], 1e-5f) << "Y_h d=" << d << " b=" << bb;
    }
}

TEST(LSTM, SequenceLensShorterThanSequenceBidirectional) {
  const int64_t T = 4, B = 3, I = 2, H = 3, D = 2;
  Tensor x = rnd({T, B, I}, 7), w = rnd({D, 4 * H, I}, 8), r = rnd({D, 4 * H, H}, 9), b = rnd({D, 8 * H}, 10);
  Tensor lens = Tensor::allocate(DataType::Int32, {B});
  const int32_t L[] = {4, 2, 1};
  for (int i = 0; i < B; ++i) lens.data_as<int32_t>()[i] = L[i];
  KernelHarness h(cpu::register_nn_kernels);
  auto out = h.run("LSTM", {x, w, r, b, lens},
                   {OutSpec{DataType::Float32, {T, D, B, H}}, OutSpec{DataType::Float32, {D, B, H}},
                    OutSpec{DataType::Float32, {D, B, H}}},
                   attrs({{"hidden_size", int64_t{H}}, {"direction", std::string("bidirectional")}}), 14, {1, 2, 3});
  expect_lstm_matches_reference(out[0], out[1], x, w, r, b, L, D, H);
}

// The default LSTM cell at two threads splits the hidden units between them (rnn.cc): with
// H = 64 (two halves of 32) and H = 96 (halves of 48: the AVX-512 gate blocks of 64 hidden units
// plus a remainder of 32 at one thread, 48 per thread at two), both directions, sequence lengths
// 5, 3 and 0, the outputs equal the one-thread kernel's bit for bit and the scalar reference
// within 1e-5.
TEST(LSTM, TwoThreadsSplitTheHiddenUnitsWithTheSameBits) {
  for (const int64_t H : {64, 96}) {
    SCOPED_TRACE("H = " + std::to_string(H));
    const int64_t T = 5, B = 3, I = 8, D = 2;
    Tensor x = rnd({T, B, I}, 17), w = rnd({D, 4 * H, I}, 18), r = rnd({D, 4 * H, H}, 19), b = rnd({D, 8 * H}, 20);
    for (Tensor* t : {&w, &r}) {  // keep the gates away from saturation so the values say something
      for (float& v : t->span<float>()) v *= 0.25f;
    }
    Tensor lens = Tensor::allocate(DataType::Int32, {B});
    const int32_t L[] = {5, 3, 0};
    for (int i = 0; i < B; ++i) lens.data_as<int32_t>()[i] = L[i];
    KernelHarness h(cpu::register_nn_kernels);
    const std::vector<OutSpec> outs = {OutSpec{DataType::Float32, {T, D, B, H}}, OutSpec{DataType::Float32, {D, B, H}},
                                       OutSpec{DataType::Float32, {D, B, H}}};
    const Attributes a = attrs({{"hidden_size", int64_t{H}}, {"direction", std::string("bidirectional")}});
    auto one = h.run("LSTM", {x, w, r, b, lens}, outs, a, 14, {1, 2, 3}, 1);
    auto two = h.run("LSTM", {x, w, r, b, lens}, outs, a, 14, {1, 2, 3}, 2);
    for (size_t o = 0; o < 3; ++o) {
      ASSERT_EQ(one[o].nbytes(), two[o].nbytes());
      EXPECT_EQ(std::memcmp(one[o].data(), two[o].data(), one[o].nbytes()), 0) << "output " << o;
    }
    expect_lstm_matches_reference(two[0], two[1], x, w, r, b, L, D, H);
  }
}

// ---------------------------------------------------------------- ConvTranspose

// Naive ONNX ConvTranspose 2-D: scatter every x into the full output, crop at pads_begin;
// positions past the full output (output_padding) hold only the bias.
std::vector<float> ref_conv_transpose(const Tensor& x, const Tensor& w, const Tensor& b, int64_t G, Ints st, Ints pb,
                                      const Shape& ys) {
  const int64_t N = x.shape()[0], C = x.shape()[1], IH = x.shape()[2], IW = x.shape()[3];
  const int64_t MG = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3], M = MG * G;
  const int64_t OH = ys[2], OW = ys[3];
  std::vector<float> y(ys.numel());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t i = 0; i < OH * OW; ++i) y[(n * M + m) * OH * OW + i] = b.data_as<float>()[m];
  const float *xd = x.data_as<float>(), *wd = w.data_as<float>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      const int64_t g = c / (C / G);
      for (int64_t mg = 0; mg < MG; ++mg)
        for (int64_t ih = 0; ih < IH; ++ih)
          for (int64_t iw = 0; iw < IW; ++iw)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t oh = ih * st[0] + kh - pb[0], ow = iw * st[1] + kw - pb[1];
                if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                const int64_t m = g * MG + mg;
                y[((n * M + m) * OH + oh) * OW + ow] +=
                    xd[((n * C + c) * IH + ih) * IW + iw] * wd[((c * MG + mg) * KH + kh) * KW + kw];
              }
    }
  return y;
}

void check_conv_transpose(Ints pads, Ints output_padding, Shape ys, std::set<size_t> consts) {
  Tensor x = rnd({2, 4, 3, 3}, 3), w = rnd({4, 3, 3, 3}, 4), b = rnd({6}, 5);
  KernelHarness h(cpu::register_nn_kernels);
  auto out = h.run("ConvTranspose", {x, w, b}, {OutSpec{DataType::Float32, ys}},
                   attrs({{"group", int64_t{2}}, {"strides", Ints{2, 2}}, {"pads", pads}, {"output_padding", output_padding}}),
                   11, consts);
  expect_near(out[0], ref_conv_transpose(x, w, b, 2, {2, 2}, {pads[0], pads[1]}, ys), 1e-4f);
}

TEST(ConvTranspose, GroupsWithOutputPaddingInsideEndPadding) {
  // out = 2*(3-1) + 3 + 1 - 1 - 1 = 6
  check_conv_transpose({1, 1, 1, 1}, {1, 1}, {2, 6, 6, 6}, {1, 2});
  check_conv_transpose({1, 1, 1, 1}, {1, 1}, {2, 6, 6, 6}, {});
}

TEST(ConvTranspose, GroupsWithOutputPaddingPastTheFullOutput) {
  // out = 2*(3-1) + 3 + 1 = 8: the last row and column get only the bias.
  check_conv_transpose({0, 0, 0, 0}, {1, 1}, {2, 6, 8, 8}, {1, 2});
  check_conv_transpose({0, 1, 0, 0}, {1, 1}, {2, 6, 8, 7}, {});
}

TEST(ConvTranspose, OutputShapeDisagreeingWithAttributesIsRefused) {
  KernelHarness h(cpu::register_nn_kernels);
  EXPECT_THROW(h.run("ConvTranspose", {rnd({1, 2, 3, 3}), rnd({2, 1, 3, 3})}, {OutSpec{DataType::Float32, {1, 1, 9, 9}}},
                     attrs({}), 11, {1}),
               InvalidGraphError);
}

}  // namespace
}  // namespace ge::test

namespace ge::test {
namespace {

// ---------------------------------------------------------------- pools and LpNormalization

std::vector<Tensor> run_nn(const std::string& op, const std::vector<Tensor>& in, Shape out, Attributes a, int64_t opset = 11) {
  KernelHarness h(cpu::register_nn_kernels);
  return h.run(op, in, {OutSpec{DataType::Float32, out}}, a, opset);
}

TEST(LpPool, L2WindowsWithPadding) {
  // sqrt(0² + 3²) (pad), sqrt(3² + 4²), sqrt(4² + 0²)
  auto y = run_nn("LpPool", {f32({1, 1, 3}, {3.f, 4.f, 0.f})}, {1, 1, 3},
                  attrs({{"kernel_shape", Ints{2}}, {"pads", Ints{1, 0}}, {"p", int64_t{2}}}));
  expect_near(y[0], {3.f, 5.f, 4.f});
}

TEST(GlobalLpPool, L1OverThePlane) {
  auto y = run_nn("GlobalLpPool", {f32({1, 2, 2, 2}, {1, -2, 3, -4, 0.5f, 0.5f, 0, -1})}, {1, 2, 1, 1}, attrs({{"p", int64_t{1}}}));
  expect_near(y[0], {10.f, 2.f});
}

TEST(LpNormalization, P1AndP2AlongAxes) {
  expect_near(run_nn("LpNormalization", {f32({1, 2}, {1.f, -3.f})}, {1, 2}, attrs({{"p", int64_t{1}}}))[0], {0.25f, -0.75f});
  // axis 0 of [[3, 1], [4, 0]]: columns (3, 4) and (1, 0).
  expect_near(run_nn("LpNormalization", {f32({2, 2}, {3.f, 1.f, 4.f, 0.f})}, {2, 2}, attrs({{"axis", int64_t{0}}}))[0],
              {0.6f, 1.f, 0.8f, 0.f});
}

TEST(MaxRoiPool, WholeMapInFourBins) {
  // X = 0..15 on a 4x4 map; the box (0,0)-(3,3) is 4x4, bins of 2x2: maxima 5, 7, 13, 15.
  // The second box (2,2)-(3,3) at spatial_scale 1 is 2x2: each 1x1 bin is one pixel.
  auto y = run_nn("MaxRoiPool", {iota({1, 1, 4, 4}), f32({2, 5}, {0, 0, 0, 3, 3, 0, 2, 2, 3, 3})}, {2, 1, 2, 2},
                  attrs({{"pooled_shape", Ints{2, 2}}}));
  expect_near(y[0], {5.f, 7.f, 13.f, 15.f, 10.f, 11.f, 14.f, 15.f});
}

TEST(LayerNormalization, FusedAndGeneralKernelsAgree) {
  // Row (1, 2, 3, 6): mean 3, var 3.5; Scale 2, B 1 on every element -> 2 (x - 3) / sqrt(3.5 + eps) + 1.
  Tensor x = f32({1, 4}, {1.f, 2.f, 3.f, 6.f}), s = f32({4}, {2, 2, 2, 2}), b = f32({4}, {1, 1, 1, 1});
  std::vector<float> want;
  for (float v : {1.f, 2.f, 3.f, 6.f}) want.push_back(2.f * (v - 3.f) / std::sqrt(3.5f + 1e-5f) + 1.f);
  KernelHarness h(cpu::register_nn_kernels);
  // Y only: the ge.LayerNormalization kernel.
  expect_near(h.run("LayerNormalization", {x, s, b}, {OutSpec{DataType::Float32, {1, 4}}}, attrs({}), 17, {1, 2})[0], want);
  // With Mean and InvStdDev: the general kernel.
  auto all = h.run("LayerNormalization", {x, s, b},
                   {OutSpec{DataType::Float32, {1, 4}}, OutSpec{DataType::Float32, {1, 1}}, OutSpec{DataType::Float32, {1, 1}}},
                   attrs({}), 17, {1, 2});
  expect_near(all[0], want);
  expect_near(all[1], {3.f});
  expect_near(all[2], {1.f / std::sqrt(3.5f + 1e-5f)});
  // Scale of shape [1] broadcast over the row (general kernel).
  expect_near(h.run("LayerNormalization", {x, f32({1}, {2.f}), b}, {OutSpec{DataType::Float32, {1, 4}}}, attrs({}), 17, {1, 2})[0], want);
}

}  // namespace
}  // namespace ge::test

namespace ge::test {
namespace {

// ---------------------------------------------------------------- Resize on NC1HWC0

// NCHW [N, C, H, W] -> NC1HWC0 storage [N, C1, H, W, 16], padding channels zero.
std::vector<float> to_blocked(const Tensor& t) {
  const int64_t N = t.shape()[0], C = t.shape()[1], H = t.shape()[2], W = t.shape()[3], C1 = (C + 15) / 16;
  std::vector<float> b(N * C1 * H * W * 16, 0.f);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < H * W; ++i) b[((n * C1 + c / 16) * H * W + i) * 16 + c % 16] = t.data_as<float>()[(n * C + c) * H * W + i];
  return b;
}

TEST(Resize, BlockedMatchesPlainAndKeepsPaddingZero) {
  Tensor x = rnd({2, 20, 3, 4}, 11);
  Tensor scales = f32({4}, {1.f, 1.f, 2.f, 1.5f});
  const Shape ys{2, 20, 6, 6};
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    KernelHarness h(cpu::register_nn_kernels);
    const Attributes a = attrs({{"mode", std::string(mode)}});
    std::vector<float> want = to_blocked(h.run("Resize", {x, Tensor(), scales}, {OutSpec{DataType::Float32, ys}}, a, 13, {2})[0]);
    // The same node with NC1HWC0 operands, run on the blocked storage.
    Graph g("blocked");
    g.opsets[""] = 13;
    Value* xv = g.add_input("x", DataType::Float32, x.shape());
    xv->format = Format::NC1HWC0;
    Value* yv = g.add_value("y", DataType::Float32, ys);
    yv->format = Format::NC1HWC0;
    Node* n = g.add_node("Resize", "resize", {xv, nullptr, g.add_constant("scales", scales)}, {yv}, a);
    KernelBuildContext ctx{*n, 13, 1};
    auto k = h.registrar().kernels.find("cpu", "", "Resize")->factory(ctx);
    Tensor xb = f32({static_cast<int64_t>(to_blocked(x).size())}, to_blocked(x));
    Tensor yb = Tensor::allocate(DataType::Float32, {static_cast<int64_t>(want.size())});
    std::vector<Tensor> in{xb, Tensor(), scales}, out{yb};
    KernelIO io{in, out};
    k->run(io);
    expect_near(yb, want, 1e-5f);
  }
}

TEST(Resize, BlockedRefusesAChannelScale) {
  KernelHarness h(cpu::register_nn_kernels);
  Graph g("blocked");
  g.opsets[""] = 13;
  Value* xv = g.add_input("x", DataType::Float32, Shape{1, 16, 2, 2});
  xv->format = Format::NC1HWC0;
  Value* yv = g.add_value("y", DataType::Float32, Shape{1, 32, 2, 2});
  yv->format = Format::NC1HWC0;
  Node* n = g.add_node("Resize", "resize", {xv, nullptr, g.add_constant("scales", f32({4}, {1.f, 2.f, 1.f, 1.f}))}, {yv},
                       attrs({{"mode", std::string("nearest")}}));
  KernelBuildContext ctx{*n, 13, 1};
  EXPECT_THROW(h.registrar().kernels.find("cpu", "", "Resize")->factory(ctx), UnsupportedError);
}

}  // namespace
}  // namespace ge::test

namespace ge::test {
namespace {

// Runs ConvTranspose on NC1HWC0 operands and compares with the plain kernel's result blocked;
// returns whether the layout preference would pick NC1HWC0 for the node.
bool check_blocked_conv_transpose(int64_t C, int64_t M, int64_t G) {
  Tensor x = rnd({1, C, 3, 3}, 21), w = rnd({C, M / G, 3, 3}, 22), b = rnd({M}, 23);
  const Shape ys{1, M, 6, 6};  // 2*(3-1) + 3 + 1 - 1 - 1
  const Attributes a = attrs({{"group", G}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"output_padding", Ints{1, 1}}});
  KernelHarness h(cpu::register_nn_kernels);
  const std::vector<float> want = to_blocked(h.run("ConvTranspose", {x, w, b}, {OutSpec{DataType::Float32, ys}}, a, 11, {1, 2})[0]);
  Graph g("blocked");
  g.opsets[""] = 11;
  Value* xv = g.add_input("x", DataType::Float32, x.shape());
  xv->format = Format::NC1HWC0;
  Value* yv = g.add_value("y", DataType::Float32, ys);
  yv->format = Format::NC1HWC0;
  Node* n = g.add_node("ConvTranspose", "ct", {xv, g.add_constant("w", w), g.add_constant("b", b)}, {yv}, a);
  KernelBuildContext ctx{*n, 11, 1};
  auto k = h.registrar().kernels.find("cpu", "", "ConvTranspose")->factory(ctx);
  Tensor xb = f32({static_cast<int64_t>(to_blocked(x).size())}, to_blocked(x));
  Tensor yb = Tensor::allocate(DataType::Float32, {static_cast<int64_t>(want.size())});
  std::vector<Tensor> in{xb, w, b}, out{yb};
  KernelIO io{in, out};
  k->run(io);
  expect_near(yb, want, 1e-4f);  // the padding channels included: zero
  return cpu::conv_transpose_supports_blocked(*n, 11);
}

TEST(ConvTranspose, BlockedMatchesPlain) {
  GE_REQUIRE_BLOCKED_CONVS();
  EXPECT_TRUE(check_blocked_conv_transpose(32, 16, 1));
  // 10 input and 4 output channels per group: oneDNN has only its reference loop for that on
  // nChw16c, so the layout pass keeps the node plain (the kernel still computes it right).
  EXPECT_FALSE(check_blocked_conv_transpose(20, 8, 2));
}

}  // namespace
}  // namespace ge::test

namespace ge::test {
namespace {

TEST(Resize, Opset10NearestExample) {
  // onnx/docs/Changelog.md Resize-10 "resize_downsample_nearest": [[1,2,3,4],[5,6,7,8]] at
  // scales (1, 1, 0.6, 0.6) is [[1, 3]]; upsampling by 2 repeats (floor(x / 2)).
  KernelHarness h(cpu::register_nn_kernels);
  Tensor x = f32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto down = h.run("Resize", {x, f32({4}, {1.f, 1.f, 0.6f, 0.6f})}, {OutSpec{DataType::Float32, {1, 1, 1, 2}}},
                    attrs({{"mode", std::string("nearest")}}), 10, {1});
  expect_near(down[0], {1.f, 3.f});
  auto up = h.run("Resize", {f32({1, 1, 1, 2}, {1, 2}), f32({4}, {1.f, 1.f, 1.f, 2.f})}, {OutSpec{DataType::Float32, {1, 1, 1, 4}}},
                  attrs({{"mode", std::string("nearest")}}), 10, {1});
  expect_near(up[0], {1.f, 1.f, 2.f, 2.f});
}

}  // namespace
}  // namespace ge::test
