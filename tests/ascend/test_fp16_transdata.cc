// fp16 rounding (the SDK's conversion is round-to-nearest-even and the emulator's write path
// refuses overflow) and TransData round trips NCHW <-> NC1HWC0 (fp16, odd channel counts) and
// OIHW <-> FRACTAL_Z (fp16, Cout and Cin not multiples of 16).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ge/sdk/error.h"
#include "ge/sdk/layout.h"
#include "tensor_io.h"

namespace ge::ascend {
namespace {

TEST(AscendFp16, RoundToNearestEven) {
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3C00);      // tie: to even (down)
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3C02);  // tie: to even (up)
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f + 0x1p-20f), 0x3C01);
  EXPECT_EQ(float_to_half(65504.f), 0x7BFF);
  EXPECT_EQ(float_to_half(65520.f), 0x7C00);  // rounds to inf
  EXPECT_EQ(round_fp16(0.1f), 0.0999755859375f);
}

TEST(AscendFp16, WriteRefusesOverflow) {
  Tensor t = Tensor::allocate(DataType::Float16, Shape{2});
  write_plain(t, {1.f, 65504.f}, "node 'n'");
  EXPECT_EQ(t.data_as<uint16_t>()[1], 0x7BFF);
  try {
    write_plain(t, {1.f, 70000.f}, "node 'big' (Mul)");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fp16 overflow in node 'big' (Mul)"), std::string::npos) << e.what();
  }
}

Tensor random_fp16(const Shape& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  Tensor t = Tensor::allocate(DataType::Float16, s);
  for (auto& h : t.span<uint16_t>()) h = float_to_half(u(rng));
  return t;
}

TEST(AscendTransData, Nc1hwc0RoundTripsFp16OddChannels) {
  for (int64_t c : {1, 3, 15, 17, 33}) {
    SCOPED_TRACE("C=" + std::to_string(c));
    const Shape s{2, c, 3, 5};
    Tensor x = random_fp16(s, static_cast<uint32_t>(c));
    Tensor b = convert_format(x, Format::NC1HWC0);
    const int64_t c1 = (c + 15) / 16;
    ASSERT_EQ(b.storage_numel(), 2 * c1 * 3 * 5 * 16);
    // element (n=1, c=c-1, h=2, w=4) at (((n*C1 + c/16)*H + h)*W + w)*16 + c%16
    const int64_t at = (((1 * c1 + (c - 1) / 16) * 3 + 2) * 5 + 4) * 16 + (c - 1) % 16;
    EXPECT_EQ(b.data_as<uint16_t>()[at], x.data_as<uint16_t>()[((1 * c + c - 1) * 3 + 2) * 5 + 4]);
    int64_t nonzero_pad = 0;  // padding channels c..C1*16-1 are zero
    const uint16_t* p = b.data_as<uint16_t>();
    for (int64_t i = 0; i < b.storage_numel(); ++i)
      if (i % 16 >= c - ((c - 1) / 16) * 16 && (i / (3 * 5 * 16)) % c1 == c1 - 1 && p[i] != 0) ++nonzero_pad;
    EXPECT_EQ(nonzero_pad, 0);
    Tensor back = convert_format(b, Format::NCHW);
    ASSERT_EQ(back.nbytes(), x.nbytes());
    EXPECT_EQ(std::memcmp(back.data(), x.data(), x.nbytes()), 0);
    // The emulator's read path unpacks the same values.
    const std::vector<float> v = read_plain(b);
    for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(v[i], half_to_float(x.data_as<uint16_t>()[i]));
  }
}

TEST(AscendTransData, FractalZRoundTripsFp16) {
  for (auto [o, i] : std::vector<std::pair<int64_t, int64_t>>{{17, 5}, {16, 16}, {3, 33}}) {
    SCOPED_TRACE(std::to_string(o) + "x" + std::to_string(i));
    const Shape s{o, i, 3, 3};
    Tensor w = random_fp16(s, static_cast<uint32_t>(o * 100 + i));
    Tensor f = convert_format(w, Format::FRACTAL_Z);
    const int64_t c1 = (i + 15) / 16, n1 = (o + 15) / 16;
    ASSERT_EQ(f.storage_numel(), c1 * 9 * n1 * 16 * 16);
    // element (n=o-1, c=i-1, kh=2, kw=1) at (((c/16*Kh + kh)*Kw + kw)*N1 + n/16)*256 + (n%16)*16 + c%16
    const int64_t at = ((((i - 1) / 16 * 3 + 2) * 3 + 1) * n1 + (o - 1) / 16) * 256 + ((o - 1) % 16) * 16 + (i - 1) % 16;
    EXPECT_EQ(f.data_as<uint16_t>()[at], w.data_as<uint16_t>()[(((o - 1) * i + i - 1) * 3 + 2) * 3 + 1]);
    int64_t nonzero = 0;
    for (uint16_t h : std::span<const uint16_t>(f.data_as<uint16_t>(), static_cast<size_t>(f.storage_numel())))
      nonzero += h != 0;
    int64_t want = 0;
    for (uint16_t h : w.span<uint16_t>()) want += h != 0;
    EXPECT_EQ(nonzero, want);  // every padding element is zero
    Tensor back = convert_format(f, Format::NCHW);
    EXPECT_EQ(std::memcmp(back.data(), w.data(), w.nbytes()), 0);
  }
}

}  // namespace
}  // namespace ge::ascend
