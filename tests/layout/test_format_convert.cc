// Format conversion (ge/sdk/layout.h): every element lands where types.h's formulas say, the
// padding is zero, conversions round-trip, and byte sizes count the padding.
#include <gtest/gtest.h>

#include <cstring>

#include "ge/sdk/error.h"
#include "ge/sdk/ir.h"
#include "ge/sdk/layout.h"

namespace ge {
namespace {

Tensor iota(Shape s) {
  Tensor t = Tensor::allocate(DataType::Float32, std::move(s), Format::NCHW);
  float* p = t.data_as<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(i + 1);  // no zeros
  return t;
}

TEST(FormatConvert, StorageSizesArePadded) {
  EXPECT_EQ(format_storage_dims({2, 20, 3, 5}, Format::NC1HWC0), (std::vector<int64_t>{2, 2, 3, 5, 16}));
  EXPECT_EQ(format_storage_numel({2, 20, 3, 5}, Format::NC1HWC0), 2 * 32 * 3 * 5);
  EXPECT_EQ(format_storage_numel({2, 20, 3, 5}, Format::NCHW), 2 * 20 * 3 * 5);
  // FRACTAL_Z of OIHW [20, 20, 3, 3]: [C1*Kh*Kw = 2*9, N1 = 2, 16, 16].
  EXPECT_EQ(format_storage_dims({20, 20, 3, 3}, Format::FRACTAL_Z), (std::vector<int64_t>{18, 2, 16, 16}));
  Value v;
  v.dtype = DataType::Float32;
  v.shape = Shape{1, 24, 7, 7};
  v.format = Format::NC1HWC0;
  EXPECT_EQ(v.nbytes(), 32u * 49 * 4);
  EXPECT_EQ(Tensor::allocate(DataType::Float32, Shape{1, 24, 7, 7}, Format::NC1HWC0).nbytes(), 32u * 49 * 4);
}

TEST(FormatConvert, Nc1hwc0PlacesEveryElementAndZeroesThePadding) {
  const int64_t N = 2, C = 20, H = 3, W = 5;
  Tensor x = iota(Shape{N, C, H, W});
  Tensor b = convert_format(x, Format::NC1HWC0);
  ASSERT_EQ(b.format(), Format::NC1HWC0);
  ASSERT_EQ(b.storage_numel(), N * 2 * H * W * 16);
  const float* p = b.data_as<float>();
  const float* q = x.data_as<float>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c1 = 0; c1 < 2; ++c1)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          for (int64_t c0 = 0; c0 < 16; ++c0) {
            const int64_t c = c1 * 16 + c0;
            const float got = p[(((n * 2 + c1) * H + h) * W + w) * 16 + c0];
            const float want = c < C ? q[((n * C + c) * H + h) * W + w] : 0.f;
            ASSERT_EQ(got, want) << n << "," << c << "," << h << "," << w;
          }
  Tensor back = convert_format(b, Format::NCHW);
  ASSERT_EQ(back.nbytes(), x.nbytes());
  EXPECT_EQ(std::memcmp(back.data(), x.data(), x.nbytes()), 0);
}

TEST(FormatConvert, FractalZFollowsCannsLayout) {
  const int64_t N = 20, C = 18, KH = 3, KW = 2;  // Cout not a multiple of 16 either
  Tensor w = iota(Shape{N, C, KH, KW});
  Tensor f = convert_format(w, Format::FRACTAL_Z);
  const int64_t C1 = 2, N1 = 2;
  ASSERT_EQ(f.storage_numel(), C1 * KH * KW * N1 * 16 * 16);
  const float* p = f.data_as<float>();
  const float* q = w.data_as<float>();
  int64_t nonzero = 0;
  for (int64_t i = 0; i < f.storage_numel(); ++i) nonzero += p[i] != 0.f;
  EXPECT_EQ(nonzero, w.numel());  // everything else is padding
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw) {
          // [C1*Kh*Kw, N1, N0, C0]: row (c1, kh, kw), then Cout block, Cout in block, Cin in block.
          const int64_t row = ((c / 16) * KH + kh) * KW + kw;
          const int64_t at = ((row * N1 + n / 16) * 16 + n % 16) * 16 + c % 16;
          ASSERT_EQ(p[at], q[((n * C + c) * KH + kh) * KW + kw]);
        }
  Tensor back = convert_format(f, Format::NCHW);
  EXPECT_EQ(std::memcmp(back.data(), w.data(), w.nbytes()), 0);
}

TEST(FormatConvert, RefusesUnsupportedPairsNamingThem) {
  Tensor x = iota(Shape{2, 3});
  try {
    convert_format(x, Format::NC1HWC0);
    FAIL() << "expected UnsupportedError";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("NCHW -> NC1HWC0"), std::string::npos) << e.what();
  }
  Tensor b = convert_format(iota(Shape{1, 16, 2, 2}), Format::NC1HWC0);
  EXPECT_THROW(convert_format(b, Format::FRACTAL_Z), UnsupportedError);
}

// A blocked tensor and NHWC convert directly (through NCHW inside the call): the layout pass
// leaves such a TransData when a graph already in NHWC is optimized again with blocked convs.
TEST(FormatConvert, BlockedAndNhwcConvertThroughNchw) {
  const Tensor x = iota(Shape{1, 20, 3, 2});
  const Tensor nhwc = convert_format(x, Format::NHWC);
  const Tensor blocked = convert_format(x, Format::NC1HWC0);
  ASSERT_TRUE(can_convert_format(Format::NC1HWC0, Format::NHWC, 4));
  const Tensor from_blocked = convert_format(blocked, Format::NHWC);
  ASSERT_EQ(from_blocked.format(), Format::NHWC);
  ASSERT_EQ(from_blocked.nbytes(), nhwc.nbytes());
  EXPECT_EQ(std::memcmp(from_blocked.data(), nhwc.data(), nhwc.nbytes()), 0);
  // Element (c = 17, h = 1, w = 0) of NHWC sits at (h·W + w)·C + c = 57: the value 17·6 + 2 + 1.
  EXPECT_EQ(from_blocked.data_as<float>()[57], 105.f);
  const Tensor back = convert_format(nhwc, Format::NC1HWC0);
  ASSERT_EQ(back.nbytes(), blocked.nbytes());
  EXPECT_EQ(std::memcmp(back.data(), blocked.data(), blocked.nbytes()), 0);  // padding zero too
}

}  // namespace
}  // namespace ge
