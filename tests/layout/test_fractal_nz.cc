// FRACTAL_NZ (types.h): the Cube's matrix-operand format. Exact element placement on a small
// matrix (the index formula and CANN's own example shape), zero padding, round trips ND <-> NZ
// for odd sizes, batches and every element width, and the refusals.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>

#include "ge/sdk/error.h"
#include "ge/sdk/layout.h"

namespace ge {
namespace {

TEST(FractalNz, StorageDimsFollowN1M1M0N0) {
  // CANN's TransData reference: ND {8, 100, 30} is NZ {8, 2, 112, 16} = [8, N1=2, M1*M0=7*16, 16].
  EXPECT_EQ(format_storage_dims({8, 100, 30}, Format::FRACTAL_NZ), (std::vector<int64_t>{8, 2, 7, 16, 16}));
  EXPECT_EQ(format_storage_numel({8, 100, 30}, Format::FRACTAL_NZ), 8 * 2 * 112 * 16);
  EXPECT_EQ(format_storage_dims({17, 33}, Format::FRACTAL_NZ), (std::vector<int64_t>{3, 2, 16, 16}));
  EXPECT_EQ(format_storage_dims({16, 16}, Format::FRACTAL_NZ), (std::vector<int64_t>{1, 1, 16, 16}));
  EXPECT_EQ(format_storage_numel({5}, Format::FRACTAL_NZ), 5);  // no matrix: not blocked
  EXPECT_TRUE(format_is_blocked(Format::FRACTAL_NZ));
  EXPECT_FALSE(format_is_weight(Format::FRACTAL_NZ));
  EXPECT_EQ(format_from_name("FRACTAL_NZ"), Format::FRACTAL_NZ);
}

TEST(FractalNz, ElementsLandWhereTheFormulaSays) {
  // [M=18, N=20] float32 with element (m, n) = 100*m + n: in NZ (N1=2, M1=2), (m, n) sits at
  // ((n/16*2 + m/16)*16 + m%16)*16 + n%16; padding (m >= 18 or n >= 20) is zero.
  Tensor t = Tensor::allocate(DataType::Float32, Shape{18, 20});
  for (int m = 0; m < 18; ++m)
    for (int n = 0; n < 20; ++n) t.span<float>()[m * 20 + n] = 100.f * m + n;
  const Tensor z = convert_format(t, Format::FRACTAL_NZ);
  ASSERT_EQ(z.storage_numel(), 2 * 2 * 16 * 16);
  const float* p = z.data_as<float>();
  EXPECT_EQ(p[0], 0.f);                                   // (0, 0)
  EXPECT_EQ(p[1], 1.f);                                   // (0, 1): same row, next column
  EXPECT_EQ(p[16], 100.f);                                // (1, 0): next row of the fractal
  EXPECT_EQ(p[15 * 16 + 15], 1515.f);                     // (15, 15)
  EXPECT_EQ(p[256], 1600.f);                              // (16, 0): fractal (n1=0, m1=1)
  EXPECT_EQ(p[256 + 16 + 3], 1703.f);                     // (17, 3)
  EXPECT_EQ(p[256 + 2 * 16], 0.f);                        // (18, 0): padding row
  EXPECT_EQ(p[512], 16.f);                                // (0, 16): fractal (n1=1, m1=0)
  EXPECT_EQ(p[512 + 3], 19.f);                            // (0, 19)
  EXPECT_EQ(p[512 + 4], 0.f);                             // (0, 20): padding column
  EXPECT_EQ(p[768 + 16 + 2], 1718.f);                     // (17, 18)
  int nonzero = 0;
  for (int64_t i = 0; i < z.storage_numel(); ++i) nonzero += p[i] != 0.f;
  EXPECT_EQ(nonzero, 18 * 20 - 1);  // every element but (0, 0); every padding element zero
}

TEST(FractalNz, RoundTripsOddSizesBatchesAndElementWidths) {
  std::mt19937 rng(5);
  const std::vector<std::vector<int64_t>> shapes{{1, 1}, {1, 17}, {17, 1}, {15, 15}, {16, 16}, {33, 47},
                                                 {3, 5, 7}, {2, 3, 31, 18}, {128, 256}, {0, 5}};
  for (DataType dt : {DataType::Float32, DataType::Float16, DataType::Int8, DataType::Int64}) {
    for (const auto& d : shapes) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + Shape(d).str());
      Tensor t = Tensor::allocate(dt, Shape(d));
      auto* b = static_cast<unsigned char*>(t.data());
      for (size_t i = 0; i < t.nbytes(); ++i) b[i] = static_cast<unsigned char>(rng() | 1);  // no zero bytes
      const Tensor z = convert_format(t, Format::FRACTAL_NZ);
      EXPECT_EQ(z.format(), Format::FRACTAL_NZ);
      EXPECT_EQ(z.nbytes(), static_cast<size_t>(format_storage_numel(d, Format::FRACTAL_NZ)) * dtype_size(dt));
      // Every logical byte is somewhere; the rest is zero padding.
      size_t zero = 0;
      for (size_t i = 0; i < z.nbytes(); ++i) zero += static_cast<const unsigned char*>(z.data())[i] == 0;
      EXPECT_EQ(zero, z.nbytes() - t.nbytes());
      const Tensor back = convert_format(z, Format::ND);
      ASSERT_EQ(back.nbytes(), t.nbytes());
      EXPECT_EQ(std::memcmp(back.data(), t.data(), t.nbytes()), 0);
    }
  }
}

TEST(FractalNz, ConversionsOnlyBetweenPlainAndNzForMatrices) {
  EXPECT_TRUE(can_convert_format(Format::ND, Format::FRACTAL_NZ, 2));
  EXPECT_TRUE(can_convert_format(Format::FRACTAL_NZ, Format::NCHW, 4));
  EXPECT_TRUE(can_convert_format(Format::FRACTAL_NZ, Format::FRACTAL_NZ, 3));
  EXPECT_FALSE(can_convert_format(Format::ND, Format::FRACTAL_NZ, 1));
  EXPECT_FALSE(can_convert_format(Format::NC1HWC0, Format::FRACTAL_NZ, 4));
  Tensor v = Tensor::allocate(DataType::Float32, Shape{7});
  try {
    convert_format(v, Format::FRACTAL_NZ);
    FAIL() << "a vector converted to FRACTAL_NZ";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("ND -> FRACTAL_NZ not supported for shape [7]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ge
