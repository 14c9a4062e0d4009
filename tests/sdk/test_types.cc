#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ge/sdk/error.h"
#include "ge/sdk/op_registry.h"
#include "ge/sdk/tensor.h"

using namespace ge;

TEST(Types, DtypeSizesAndNames) {
  EXPECT_EQ(dtype_size(DataType::Float32), 4u);
  EXPECT_EQ(dtype_size(DataType::Float16), 2u);
  EXPECT_EQ(dtype_size(DataType::Int64), 8u);
  EXPECT_EQ(dtype_size(DataType::Bool), 1u);
  EXPECT_EQ(dtype_from_name("f32"), DataType::Float32);
  EXPECT_EQ(dtype_from_name("uint8"), DataType::UInt8);
  EXPECT_EQ(format_from_name("NC1HWC0"), Format::NC1HWC0);
  EXPECT_THROW(format_from_name("NCWH"), Error);
}

TEST(Types, Broadcasting) {
  EXPECT_EQ(broadcast_shapes({2, 3, 4}, {3, 1}, "t"), Shape({2, 3, 4}));
  EXPECT_EQ(broadcast_shapes({}, {5}, "t"), Shape({5}));
  EXPECT_EQ(broadcast_shapes({1, 4}, {3, 1}, "t"), Shape({3, 4}));
  EXPECT_THROW(broadcast_shapes({2, 3}, {4}, "t"), InvalidGraphError);
}

TEST(Types, HalfConversionRoundsToNearestEven) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(1e6f), 0x7c00);             // overflow → inf
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048), 0x3c00);  // halfway, even stays
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
}

// Tensor::allocate hands out zeroed, 64-byte aligned memory at every size — small blocks from
// the heap, large ones (64 MiB here) fresh from the OS, whose pages are only touched when written
// (a compile-only Executable's arena costs no memory); a second tensor is not the first's memory.
TEST(Types, AllocateIsZeroedAndAlignedAtEverySize) {
  for (int64_t n : {1, 3, 17, 4096, 1000003, 16 << 20}) {
    Tensor t = Tensor::allocate(DataType::Float32, {n});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u) << n;
    const float* f = t.data_as<float>();
    EXPECT_EQ(f[0], 0.f) << n;
    EXPECT_EQ(f[n / 2], 0.f) << n;
    EXPECT_EQ(f[n - 1], 0.f) << n;
    t.data_as<float>()[n - 1] = 1.f;  // the whole block is writable
    Tensor u = Tensor::allocate(DataType::Float32, {n});
    EXPECT_EQ(u.data_as<float>()[n - 1], 0.f) << n;
  }
}

// Tensor::clone copies every stored byte (a blocked format's padding too) into its own 64-byte
// aligned block; it skips allocate()'s zeroing, so a block the allocator reuses (the previous
// clone's, freed) must still come back holding exactly the source's bytes.
TEST(Types, CloneCopiesEveryStoredByteIntoItsOwnAlignedBlock) {
  for (int64_t n : {1, 17, 1000003}) {
    Tensor src = Tensor::allocate(DataType::Float32, {n});
    for (int64_t k = 0; k < n; ++k) src.data_as<float>()[k] = static_cast<float>(k % 251) - 7.f;
    for (int round = 0; round < 3; ++round) {
      {
        Tensor junk = Tensor::allocate(DataType::Float32, {n});  // freed: the next clone may get it
        std::fill_n(junk.data_as<float>(), n, 99.f);
      }
      Tensor c = src.clone();
      EXPECT_NE(c.data(), src.data()) << n;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data()) % 64, 0u) << n;
      ASSERT_EQ(c.nbytes(), src.nbytes()) << n;
      EXPECT_EQ(std::memcmp(c.data(), src.data(), src.nbytes()), 0) << n << " round " << round;
      c.data_as<float>()[0] = 1e9f;  // the copy is independent
      EXPECT_EQ(src.data_as<float>()[0], -7.f) << n;
    }
  }
  // NC1HWC0 of 3 channels stores 16 lanes per position: the 13 padding lanes are copied as held.
  Tensor b = Tensor::allocate(DataType::Float32, {1, 3, 2, 2}, Format::NC1HWC0);
  ASSERT_EQ(b.storage_numel(), 64);
  for (int64_t k = 0; k < 64; ++k) b.data_as<float>()[k] = static_cast<float>(k);
  Tensor bc = b.clone();
  EXPECT_EQ(bc.format(), Format::NC1HWC0);
  EXPECT_EQ(bc.data_as<float>()[63], 63.f);
  EXPECT_EQ(std::memcmp(bc.data(), b.data(), 64 * sizeof(float)), 0);
  // A tensor with no buffer clones to zeros (as allocate() gives).
  Tensor none = Tensor::view(DataType::Float32, {4}, nullptr);
  Tensor nc = none.clone();
  ASSERT_NE(nc.data(), nullptr);
  EXPECT_EQ(nc.data_as<float>()[3], 0.f);
}

TEST(Types, TensorConversions) {
  Tensor t = Tensor::allocate(DataType::Int32, {3});
  t.data_as<int32_t>()[0] = 7;
  t.data_as<int32_t>()[2] = -2;
  EXPECT_EQ(t.to_int64_vector(), (std::vector<int64_t>{7, 0, -2}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  EXPECT_THROW(t.reshaped({2}), Error);
  EXPECT_EQ(t.reshaped({3, 1}).shape(), Shape({3, 1}));
}
