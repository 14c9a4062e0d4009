// Small-channel convolutions in C04 storage (docs/ascend.md "Formats"): the formats are the Cube's
// operands in its C04 K order; the ascend preference asks for NC1HWC0_C04 / FRACTAL_Z_C04 for a
// fp16 group-1 convolution with C <= 4 and not otherwise; the input's TransData runs on the
// Vector unit; reading the C04 storage gives the bits the logical path gives.
#include <cstring>

#include "ascend_harness.h"
#include "conv_c04.h"
#include "ge/sdk/layout.h"
#include "platform.h"
#include "tensor_io.h"
#include "tiling.h"
#include "tiling_choose.h"

namespace ge::ascend {
namespace {

Tensor fp16_tensor(const Shape& s, uint32_t seed, float lo = -8.f, float hi = 8.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  Tensor t = Tensor::allocate(DataType::Float16, s);
  for (auto& h : std::span<uint16_t>(t.data_as<uint16_t>(), static_cast<size_t>(s.numel()))) h = float_to_half(u(rng));
  return t;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(AscendSmallChannel, FractalZC04IsTheCubesBInItsKOrder) {
  // The SDK's FRACTAL_Z_C04 storage holds B[k][o] of the Cube's GEMM (conv_gemm_b in ConvKOrder)
  // at ((k/16·N1 + o/16)·16 + o%16)·16 + k%16, padding included (k 196..207, o 20..31 zero).
  const ConvGeometry g{1, 3, 7, 7, 20, 7, 7, 1, 1, 1, 1, 1, 1, 1, 0, 0};
  const Tensor w = fp16_tensor(Shape{20, 3, 7, 7}, 1);
  const ConvKOrder kidx(3, 1, 7, 7);
  std::vector<float> B(static_cast<size_t>(kidx.K * 20), 0.f);
  conv_gemm_b(read_plain(w), g, 0, kidx, B);
  const Tensor f = convert_format(w, Format::FRACTAL_Z_C04);
  ASSERT_EQ(f.storage_numel(), kidx.K * 32);  // N1 = 2
  const uint16_t* s = f.data_as<uint16_t>();
  for (int64_t k = 0; k < kidx.K; ++k)
    for (int64_t o = 0; o < 32; ++o) {
      const float stored = half_to_float(s[((k / 16 * 2 + o / 16) * 16 + o % 16) * 16 + k % 16]);
      ASSERT_EQ(stored, o < 20 ? B[k * 20 + o] : 0.f) << "k " << k << " o " << o;
    }
  // NC1HWC0_C04: pixel (n, h, w)'s channels are 4 consecutive values — the im2col's (kh, kw, c0).
  const Tensor x = fp16_tensor(Shape{2, 3, 5, 6}, 2);
  const Tensor xc = convert_format(x, Format::NC1HWC0_C04);
  const uint16_t* xs = x.data_as<uint16_t>();
  const uint16_t* cs = xc.data_as<uint16_t>();
  EXPECT_EQ(cs[((1 * 5 + 4) * 6 + 5) * 4 + 2], xs[((1 * 3 + 2) * 5 + 4) * 6 + 5]);
  EXPECT_EQ(cs[((1 * 5 + 4) * 6 + 5) * 4 + 3], 0);
}

TEST(AscendSmallChannel, ReadingC04StorageIsBitIdenticalToTheLogicalCube) {
  const Platform p = load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend910A");
  // resnet50's conv1 shape on a small image; 1 channel 3×3 with dilation 2 and 17 outputs; 4
  // channels 5×5 stride 1 with a bias.
  const std::vector<ConvGeometry> geos{{2, 3, 13, 11, 20, 7, 7, 7, 6, 1, 2, 2, 1, 1, 3, 3},
                                       {1, 1, 9, 9, 17, 3, 3, 7, 7, 1, 1, 1, 2, 2, 1, 1},
                                       {3, 4, 8, 10, 5, 5, 5, 8, 10, 1, 1, 1, 1, 1, 2, 2}};
  uint32_t seed = 10;
  for (const ConvGeometry& g : geos) {
    SCOPED_TRACE("C " + std::to_string(g.C) + " " + std::to_string(g.Kh) + "x" + std::to_string(g.Kw));
    const Tensor x = fp16_tensor(Shape{g.N, g.C, g.H, g.W}, ++seed), w = fp16_tensor(Shape{g.O, g.C, g.Kh, g.Kw}, ++seed);
    const std::vector<float> b = read_plain(fp16_tensor(Shape{g.O}, ++seed));
    const std::vector<float> want = conv2d(read_plain(x), read_plain(w), b, g, true);
    const Tensor xc = convert_format(x, Format::NC1HWC0_C04), wc = convert_format(w, Format::FRACTAL_Z_C04);
    ASSERT_TRUE(reads_c04(xc.format(), wc.format(), g));
    CubeTiling t;
    t.batch = 1, t.M = g.N * g.OH * g.OW, t.N = g.O, t.K = ConvKOrder(g.C, 1, g.Kh, g.Kw).K;
    std::vector<CubeTiling> tilings{choose_cube_tiling(t, p, "test")};
    CubeTiling small = t;
    small.m_tile = 16, small.n_tile = 16, small.k_tile = 16, small.k_l1 = 32, small.block_dim = 1;
    tilings.push_back(small);
    for (const CubeTiling& c : tilings) {
      EXPECT_TRUE(same_bits(conv2d_tiled_c04(xc, wc, b, g, c, "test"), want));
      EXPECT_TRUE(same_bits(conv2d_tiled(read_plain(x), read_plain(w), b, g, c), want));
    }
    // A FRACTAL_Z K (16·Kh·Kw) is not this convolution's problem.
    CubeTiling fz = tilings.front();
    fz.K = 16 * g.Kh * g.Kw;
    EXPECT_THROW(conv2d_tiled_c04(xc, wc, b, g, fz, "test"), Error);
  }
  // Not the C04 path: 5 channels, a grouped convolution, or another format pair.
  EXPECT_FALSE(reads_c04(Format::NC1HWC0_C04, Format::FRACTAL_Z_C04, ConvGeometry{1, 5, 8, 8, 8, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_FALSE(reads_c04(Format::NC1HWC0_C04, Format::FRACTAL_Z_C04, ConvGeometry{1, 4, 8, 8, 8, 3, 3, 8, 8, 2, 1, 1, 1, 1, 1, 1}));
  EXPECT_FALSE(reads_c04(Format::NC1HWC0, Format::FRACTAL_Z, ConvGeometry{1, 3, 8, 8, 8, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 1}));
}

// Four convolutions: 3, 4, 5 and 16 input channels. Only the first two are small-channel.
const char* kFourConvs = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x3: f32[2,3,15,15]
  input %x4: f32[1,4,9,10]
  input %x5: f32[1,5,9,9]
  input %x16: f32[1,16,9,9]
  const %w3: f32[20,3,7,7]
  const %b3: f32[20]
  const %w4: f32[8,4,3,3]
  const %w5: f32[8,5,3,3]
  const %w16: f32[8,16,3,3]
  %y3: f32[2,20,8,8] = Conv(%x3, %w3, %b3) {pads=[3,3,3,3], strides=[2,2]}
  %r3: f32[2,20,8,8] = Relu(%y3)
  %y4: f32[1,8,9,10] = Conv(%x4, %w4) {pads=[1,1,1,1]}
  %y5: f32[1,8,9,9] = Conv(%x5, %w5) {pads=[1,1,1,1]}
  %y16: f32[1,8,9,9] = Conv(%x16, %w16) {pads=[1,1,1,1]}
  %o3: f32[2,1280] = Flatten(%r3) {axis=1}
  %o4: f32[1,720] = Flatten(%y4) {axis=1}
  %o5: f32[1,648] = Flatten(%y5) {axis=1}
  %o16: f32[1,648] = Flatten(%y16) {axis=1}
  output %o3
  output %o4
  output %o5
  output %o16
})";

TEST(AscendSmallChannel, PreferenceTakesC04ForAtMostFourChannels) {
  auto env = test::ascend_env("force_fp16");
  auto g = test::parse(*env, kFourConvs);
  const test::Run r = test::compile_and_run(std::move(g), *env, "ascend", test::random_inputs(*test::parse(*env, kFourConvs)));
  int convs = 0;
  for (const Node* n : r.graph->nodes()) {
    if (n->op_type() != "Conv" && n->op_type() != "FusedConv") continue;
    ++convs;
    SCOPED_TRACE(n->name());
    const Value* x = n->input(0);
    const Value* w = n->input(1);
    ASSERT_EQ(x->dtype, DataType::Float16);
    EXPECT_TRUE(w->is_constant());
    EXPECT_EQ(n->attrs.get_string(kAttrEngine, ""), "cube");
    const int64_t c = x->shape[1];
    if (c <= 4) {
      EXPECT_EQ(x->format, Format::NC1HWC0_C04);
      EXPECT_EQ(w->format, Format::FRACTAL_Z_C04);
      EXPECT_EQ(w->data->format(), Format::FRACTAL_Z_C04);  // converted at compile time
      // The input arrives through a TransData ND -> NC1HWC0_C04 on the Vector unit.
      const Node* td = x->producer();
      ASSERT_NE(td, nullptr);
      EXPECT_EQ(td->op_type(), "TransData");
      EXPECT_EQ(td->attrs.get_string("dst_format", ""), "NC1HWC0_C04");
      EXPECT_EQ(td->attrs.get_string(kAttrEngine, ""), "vector");
      // Its Vector problem counts the stored output: 16-element units of N·H·W·4 (x3: 2·15·15·4 =
      // 1800 → 113 units; x4: 1·9·10·4 = 360 → 23).
      const VectorTiling vt = decode_vector(td->attrs.get_ints(kAttrTiling), td->name());
      EXPECT_EQ(vt.units, c == 3 ? 113 : 23);
      EXPECT_EQ(vt.unit_elements, 16);
      // 4 channels per pixel: the TransData's output is a quarter of NC1HWC0's bytes.
      EXPECT_EQ(x->nbytes(), static_cast<size_t>(x->shape[0] * x->shape[2] * x->shape[3] * 4 * 2));
    } else {
      EXPECT_EQ(x->format, Format::NC1HWC0);
      EXPECT_EQ(w->format, Format::FRACTAL_Z);
    }
    EXPECT_EQ(n->output(0)->format, Format::NC1HWC0);
  }
  EXPECT_EQ(convs, 4);
  const std::vector<int64_t> w3 = format_storage_dims({20, 3, 7, 7}, Format::FRACTAL_Z_C04);
  EXPECT_EQ(w3, (std::vector<int64_t>{13, 2, 16, 16}));

  // fp32 convolutions (must_keep_origin_dtype) keep plain layouts: no C04 either.
  auto env32 = test::ascend_env("must_keep_origin_dtype");
  const test::Run r32 = test::compile_and_run(test::parse(*env32, kFourConvs), *env32, "ascend",
                                              test::random_inputs(*test::parse(*env32, kFourConvs)));
  for (const Node* n : r32.graph->nodes()) {
    if (n->op_type() == "Conv" || n->op_type() == "FusedConv") {
      EXPECT_FALSE(format_is_blocked(n->input(0)->format)) << n->name() << " " << format_name(n->input(0)->format);
    }
  }
}

TEST(AscendSmallChannel, C04LayoutGivesTheSameBitsAsThePlainLayout) {
  // The same graph with the layout pass (C04 storage, read directly) and without it
  // ([layout] format = "NCHW": the kernel unpacks plain operands and builds the same im2col):
  // bit-identical outputs — the accumulation order is the Cube's C04 K order either way.
  auto c04 = test::ascend_env("force_fp16");
  auto plain = test::ascend_env("force_fp16", {"layout.format=\"NCHW\""});
  const auto in = test::random_inputs(*test::parse(*c04, kFourConvs), 5);
  const test::Run a = test::compile_and_run(test::parse(*c04, kFourConvs), *c04, "ascend", in);
  const test::Run b = test::compile_and_run(test::parse(*plain, kFourConvs), *plain, "ascend", in);
  int c04_inputs = 0;
  for (const Node* n : a.graph->nodes()) c04_inputs += n->num_inputs() && n->input(0) && n->input(0)->format == Format::NC1HWC0_C04;
  EXPECT_EQ(c04_inputs, 2);
  for (const Node* n : b.graph->nodes()) {
    if (n->op_type() == "Conv" || n->op_type() == "FusedConv") {
      EXPECT_FALSE(format_is_blocked(n->input(0)->format)) << n->name() << " " << format_name(n->input(0)->format);
    }
  }
  ASSERT_EQ(a.outputs.size(), 4u);
  ASSERT_EQ(b.outputs.size(), 4u);
  for (size_t k = 0; k < a.outputs.size(); ++k) {
    ASSERT_EQ(a.outputs[k].nbytes(), b.outputs[k].nbytes());
    EXPECT_EQ(std::memcmp(a.outputs[k].data(), b.outputs[k].data(), a.outputs[k].nbytes()), 0) << "output " << k;
  }
}

}  // namespace
}  // namespace ge::ascend
