// NC1HWC0_C04 and FRACTAL_Z_C04 (types.h): Ascend's small-channel formats. Storage dims, exact
// element placement worked out by hand from the index formulas, zero padding, round trips
// NCHW <-> C04 for odd sizes and every element width, and the refusals.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ge/sdk/error.h"
#include "ge/sdk/layout.h"
#include "ge/sdk/text_ir.h"

namespace ge {
namespace {

/// float32 tensor whose logical element i holds i + 1 (so a padding zero is never a real value).
Tensor ramp(const Shape& s) {
  Tensor t = Tensor::allocate(DataType::Float32, s);
  float* p = t.data_as<float>();
  for (int64_t i = 0; i < s.numel(); ++i) p[i] = static_cast<float>(i + 1);
  return t;
}

TEST(C04Formats, StorageDims) {
  // NC1HWC0_C04: [N, ceil(C/4), H, W, 4].
  EXPECT_EQ(format_storage_dims({2, 3, 5, 7}, Format::NC1HWC0_C04), (std::vector<int64_t>{2, 1, 5, 7, 4}));
  EXPECT_EQ(format_storage_dims({1, 6, 3, 3}, Format::NC1HWC0_C04), (std::vector<int64_t>{1, 2, 3, 3, 4}));
  EXPECT_EQ(format_storage_numel({32, 3, 224, 224}, Format::NC1HWC0_C04), 32 * 224 * 224 * 4);  // resnet50's input: 4 per pixel
  EXPECT_EQ(format_storage_numel({32, 3, 224, 224}, Format::NC1HWC0), 32 * 224 * 224 * 16);
  // FRACTAL_Z_C04: [ceil(4*C1*Kh*Kw/16), ceil(N/16), 16, 16]. resnet50 conv1 [64,3,7,7]:
  // 4*49 = 196 -> 13 fractals of 16 (FRACTAL_Z: 49 of them).
  EXPECT_EQ(format_storage_dims({64, 3, 7, 7}, Format::FRACTAL_Z_C04), (std::vector<int64_t>{13, 4, 16, 16}));
  EXPECT_EQ(format_storage_dims({64, 3, 7, 7}, Format::FRACTAL_Z), (std::vector<int64_t>{49, 4, 16, 16}));
  EXPECT_EQ(format_storage_dims({20, 3, 3, 3}, Format::FRACTAL_Z_C04), (std::vector<int64_t>{3, 2, 16, 16}));  // 36 -> 48
  EXPECT_EQ(format_storage_dims({5, 6, 3, 2}, Format::FRACTAL_Z_C04), (std::vector<int64_t>{3, 1, 16, 16}));   // C1 2: 48
  EXPECT_EQ(format_storage_dims({8, 1, 1, 1}, Format::FRACTAL_Z_C04), (std::vector<int64_t>{1, 1, 16, 16}));   // 4 -> 16
  EXPECT_EQ(format_storage_numel({64, 3, 7, 7}, Format::FRACTAL_Z_C04), 13 * 4 * 256);
  EXPECT_EQ(Tensor::allocate(DataType::Float16, Shape{2, 3, 5, 7}, Format::NC1HWC0_C04).nbytes(), 2u * 5 * 7 * 4 * 2);
  // Another rank is stored unpadded (as for the other rank-4 formats).
  EXPECT_EQ(format_storage_dims({3, 5, 7}, Format::NC1HWC0_C04), (std::vector<int64_t>{3, 5, 7}));
  for (Format f : {Format::NC1HWC0_C04, Format::FRACTAL_Z_C04}) {
    EXPECT_TRUE(format_is_blocked(f));
    EXPECT_EQ(format_from_name(format_name(f)), f);
    EXPECT_TRUE(can_convert_format(Format::NCHW, f, 4));
    EXPECT_TRUE(can_convert_format(f, Format::ND, 4));
    EXPECT_FALSE(can_convert_format(Format::NCHW, f, 3));
    EXPECT_FALSE(can_convert_format(Format::NC1HWC0, f, 4));  // blocked <-> blocked goes through NCHW
  }
  EXPECT_TRUE(format_is_weight(Format::FRACTAL_Z_C04));
  EXPECT_FALSE(format_is_weight(Format::NC1HWC0_C04));
  EXPECT_EQ(format_name(Format::NC1HWC0_C04), "NC1HWC0_C04");
  EXPECT_EQ(format_name(Format::FRACTAL_Z_C04), "FRACTAL_Z_C04");
  // Appended after the older values: plans written before keep their numbers.
  EXPECT_EQ(static_cast<int>(Format::Goihw16g), 8);
  EXPECT_EQ(static_cast<int>(Format::NC1HWC0_C04), 9);
  EXPECT_EQ(static_cast<int>(Format::FRACTAL_Z_C04), 10);
  EXPECT_EQ(kFormatLast, Format::FRACTAL_Z_C04);
}

TEST(C04Formats, Nc1hwc0C04PlacesEveryElementAndZeroesThePadding) {
  // [N=2, C=6, H=3, W=5]: C1 = 2, channels 6 and 7 of the second block are padding.
  const Shape s{2, 6, 3, 5};
  const Tensor b = convert_format(ramp(s), Format::NC1HWC0_C04);
  ASSERT_EQ(b.storage_numel(), 2 * 2 * 3 * 5 * 4);
  const float* p = b.data_as<float>();
  // (n, c, h, w) = (1, 5, 2, 4): logical index ((1*6+5)*3+2)*5+4 = 179, value 180; stored at
  // (((1*2 + 5/4)*3 + 2)*5 + 4)*4 + 5%4 = 237.
  EXPECT_EQ(p[237], 180.f);
  // (0, 0, 0, 1) at 4 (the next pixel), (0, 1, 0, 0) at 1 (the next channel of the same pixel).
  EXPECT_EQ(p[4], 2.f);
  EXPECT_EQ(p[1], 16.f);
  int zeros = 0;
  for (int64_t i = 0; i < b.storage_numel(); ++i) zeros += p[i] == 0.f;
  EXPECT_EQ(zeros, 2 * 3 * 5 * 2);  // channels 6, 7 of every pixel
  EXPECT_EQ(p[(((1 * 2 + 1) * 3 + 2) * 5 + 4) * 4 + 2], 0.f);
}

TEST(C04Formats, FractalZC04PlacesEveryElementInTheCubesKOrder) {
  // [N=20, C=3, Kh=7, Kw=7]: k = (kh*7 + kw)*4 + c < 196, K1 = 13, N1 = 2.
  const Shape s{20, 3, 7, 7};
  const Tensor b = convert_format(ramp(s), Format::FRACTAL_Z_C04);
  ASSERT_EQ(b.storage_numel(), 13 * 2 * 256);
  const float* p = b.data_as<float>();
  // (n, c, kh, kw) = (17, 2, 6, 5): logical ((17*3+2)*7+6)*7+5 = 2644, value 2645;
  // k = (6*7+5)*4 + 2 = 190 -> fractal 11, k0 14; stored at ((11*2 + 1)*16 + 1)*16 + 14 = 5918.
  EXPECT_EQ(p[5918], 2645.f);
  // (0, 0, 0, 0) at 0; (0, 1, 0, 0) at 1 (k 1); (1, 0, 0, 0) at 16 (next output row of the fractal);
  // (0, 0, 0, 4): k 16 -> the second K fractal, at (1*2 + 0)*256 = 512.
  EXPECT_EQ(p[0], 1.f);
  EXPECT_EQ(p[1], 1.f + 49);
  EXPECT_EQ(p[16], 1.f + 147);
  EXPECT_EQ(p[512], 5.f);
  int zeros = 0;
  for (int64_t i = 0; i < b.storage_numel(); ++i) zeros += p[i] == 0.f;
  // Everything but the 20*3*49 weights: the 4th channel of every tap, k 196..207, outputs 20..31.
  EXPECT_EQ(zeros, 13 * 2 * 256 - 20 * 3 * 49);
  EXPECT_EQ(p[3], 0.f);  // c = 3 of tap (0, 0)
}

TEST(C04Formats, FractalZC04WithMoreThanFourChannelsBlocksThemByFour) {
  // C = 6: k = ((c/4*Kh + kh)*Kw + kw)*4 + c%4 (MindSpore's NchwToFracZc04 order, C1 = 2).
  const Shape s{5, 6, 3, 2};
  const Tensor b = convert_format(ramp(s), Format::FRACTAL_Z_C04);
  const float* p = b.data_as<float>();
  // (n, c, kh, kw) = (4, 5, 2, 1): logical ((4*6+5)*3+2)*2+1 = 179, value 180;
  // k = ((1*3 + 2)*2 + 1)*4 + 1 = 45 -> fractal 2, k0 13; N1 = 1: at (2*16 + 4)*16 + 13 = 589.
  EXPECT_EQ(p[589], 180.f);
}

template <class T>
void round_trip(DataType dt, const Shape& s, Format f, std::mt19937& rng) {
  Tensor t = Tensor::allocate(dt, s);
  auto* v = t.data_as<T>();
  std::uniform_int_distribution<int> d(1, 120);
  for (int64_t i = 0; i < s.numel(); ++i) v[i] = static_cast<T>(d(rng));
  const Tensor blocked = convert_format(t, f);
  EXPECT_EQ(blocked.storage_numel(), format_storage_numel(s.dims(), f));
  const Tensor back = convert_format(blocked, Format::NCHW);
  ASSERT_EQ(back.nbytes(), t.nbytes());
  EXPECT_EQ(std::memcmp(back.data(), t.data(), t.nbytes()), 0) << format_name(f) << " " << s.str() << " " << dtype_name(dt);
  const Tensor nd = convert_format(blocked, Format::ND);  // ND is plain too
  EXPECT_EQ(std::memcmp(nd.data(), t.data(), t.nbytes()), 0);
}

TEST(C04Formats, RoundTripsOddSizesAndEveryElementWidth) {
  std::mt19937 rng(7);
  const std::vector<Shape> shapes{{1, 1, 1, 1}, {3, 5, 7, 9}, {17, 3, 7, 7}, {2, 4, 5, 3}, {33, 2, 3, 3}, {7, 6, 2, 3}, {1, 9, 1, 5}};
  for (Format f : {Format::NC1HWC0_C04, Format::FRACTAL_Z_C04})
    for (const Shape& s : shapes) {
      round_trip<uint8_t>(DataType::UInt8, s, f, rng);
      round_trip<uint16_t>(DataType::Float16, s, f, rng);
      round_trip<float>(DataType::Float32, s, f, rng);
      round_trip<int64_t>(DataType::Int64, s, f, rng);
    }
}

TEST(C04Formats, RefusesRank3AndBlockedToBlocked) {
  const Tensor t = ramp(Shape{2, 3, 5});
  EXPECT_THROW(convert_format(t, Format::NC1HWC0_C04), UnsupportedError);
  const Tensor b = convert_format(ramp(Shape{1, 3, 2, 2}), Format::NC1HWC0_C04);
  try {
    convert_format(b, Format::NC1HWC0);
    FAIL() << "NC1HWC0_C04 -> NC1HWC0 converted";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("NC1HWC0_C04 -> NC1HWC0"), std::string::npos) << e.what();
  }
}

TEST(C04Formats, TextIrPrintsAndParsesThem) {
  const std::string text = "graph g opset(ai.onnx=13, ge=1) {\n  input %x: f16[1,3,5,5]\n"
                           "  %b: f16[1,3,5,5]@NC1HWC0_C04 = ge.TransData(%x) {dst_format=\"NC1HWC0_C04\", src_format=\"ND\"}\n"
                           "  output %b\n}";
  const std::unique_ptr<Graph> g = parse_graph(text);
  ASSERT_NE(g->find_value("b"), nullptr);
  EXPECT_EQ(g->find_value("b")->format, Format::NC1HWC0_C04);
  EXPECT_NE(print_graph(*g).find("f16[1,3,5,5]@NC1HWC0_C04 = ge.TransData"), std::string::npos) << print_graph(*g);
}

}  // namespace
}  // namespace ge
