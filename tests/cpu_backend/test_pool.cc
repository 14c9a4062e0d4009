// Pooling tests against ONNX's documented examples (onnx/docs/Operators.md#MaxPool,
// #AveragePool; test names in comments) and hand-computed padding/ceil/Indices cases.
// test_util.h first: it brings ge/sdk/error.h, which kernel_harness.h uses without including.
#include "test_util.h"
#include "kernel_harness.h"
#include "kernels.h"

namespace ge::test {
namespace {

std::vector<Tensor> pool(const std::string& op, const Tensor& x, Shape out, Attributes a, bool indices = false) {
  KernelHarness h(cpu::register_pool_kernels);
  std::vector<OutSpec> outs{OutSpec{x.dtype(), out}};
  if (indices) outs.push_back(OutSpec{DataType::Int64, out});
  return h.run(op, {x}, outs, a, 12);
}

TEST(MaxPool, CeilMode) {  // test_maxpool_2d_ceil
  auto y = pool("MaxPool", iota({1, 1, 4, 4}, 1), {1, 1, 2, 2},
                attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}}));
  expect_near(y[0], {11, 12, 15, 16});
}

TEST(MaxPool, CeilModeLastWindowMustStartInside) {
  // in 4, k 2, s 2, pad_end 1: floor → 2 outputs, ceil → (4+1-2)/2 = 1.5 → 3 windows, but the
  // third would start at 4 (inside the end padding only), so ceil_mode still gives 2.
  auto y = pool("MaxPool", iota({1, 1, 4}), {1, 1, 2},
                attrs({{"kernel_shape", Ints{2}}, {"strides", Ints{2}}, {"pads", Ints{0, 1}}, {"ceil_mode", int64_t{1}}}));
  expect_near(y[0], {1, 3});
}

TEST(MaxPool, PadsAndSameUpper) {
  // test_maxpool_2d_precomputed_same_upper: 5x5 arange+1, k3 s2 SAME_UPPER → 3x3
  auto y = pool("MaxPool", iota({1, 1, 5, 5}, 1), {1, 1, 3, 3},
                attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}));
  expect_near(y[0], {7, 9, 10, 17, 19, 20, 22, 24, 25});
  // test_maxpool_2d_precomputed_pads: k5, pads 2 → 5x5 output
  auto z = pool("MaxPool", iota({1, 1, 5, 5}, 1), {1, 1, 5, 5}, attrs({{"kernel_shape", Ints{5, 5}}, {"pads", Ints{2, 2, 2, 2}}}));
  expect_near(z[0], {13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25});
}

TEST(MaxPool, Dilations) {  // test_maxpool_2d_dilations
  auto y = pool("MaxPool", iota({1, 1, 4, 4}, 1), {1, 1, 2, 2}, attrs({{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}}));
  expect_near(y[0], {11, 12, 15, 16});
}

TEST(MaxPool, IndicesRowAndColumnMajor) {
  // 2 planes of 2x3; k [1,3] → max of each row. Plane 0 rows [0 5 1],[7 2 3]; plane 1 = plane 0 + 10.
  Tensor x = f32({1, 2, 2, 3}, {0, 5, 1, 7, 2, 3, 10, 15, 11, 17, 12, 13});
  auto y = pool("MaxPool", x, {1, 2, 2, 1}, attrs({{"kernel_shape", Ints{1, 3}}}), true);
  expect_near(y[0], {5, 7, 15, 17});
  std::vector<int64_t> idx(y[1].data_as<int64_t>(), y[1].data_as<int64_t>() + 4);
  EXPECT_EQ(idx, (std::vector<int64_t>{1, 3, 7, 9}));
  auto c = pool("MaxPool", x, {1, 2, 2, 1}, attrs({{"kernel_shape", Ints{1, 3}}, {"storage_order", int64_t{1}}}), true);
  // column-major inside a plane: offset h + w * H → (0,1) → 2, (1,0) → 1; plane 1 adds 6.
  std::vector<int64_t> cidx(c[1].data_as<int64_t>(), c[1].data_as<int64_t>() + 4);
  EXPECT_EQ(cidx, (std::vector<int64_t>{2, 1, 8, 7}));
}

TEST(MaxPool, SeparableRowsMatchTheDirectWindows) {
  // Without Indices a 2-D MaxPool runs column max then row max; with Indices the direct window
  // loop. Both must agree on a 3x3/2 pool with pads and ceil_mode (edge windows clipped on every
  // side) over values that are not monotone in position.
  Tensor x = Tensor::allocate(DataType::Float32, {1, 3, 9, 11});
  float* xv = x.data_as<float>();
  for (int i = 0; i < 3 * 9 * 11; ++i) xv[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  const Attributes a = attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", int64_t{1}}});
  auto fast = pool("MaxPool", x, {1, 3, 5, 6}, a);
  auto direct = pool("MaxPool", x, {1, 3, 5, 6}, a, true);
  std::vector<float> want(direct[0].data_as<float>(), direct[0].data_as<float>() + 90);
  expect_near(fast[0], want);
  // Output (0, 0, 0, 0): window rows 0..1, cols 0..1 → x = -50, -13, -47, -10 (i·37 mod 101 − 50).
  EXPECT_EQ(want[0], -10.0f);
}

TEST(MaxPool, NaNNeverWinsWithoutIndices) {  // as ONNX Runtime's MaxPool: x > y ? x : y from lowest()
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto y = pool("MaxPool", f32({1, 1, 1, 4}, {nan, 1, 2, nan}), {1, 1, 1, 3}, attrs({{"kernel_shape", Ints{1, 3}}, {"pads", Ints{0, 0, 0, 1}}}));
  expect_near(y[0], {2, 2, 2});  // windows [NaN 1 2], [1 2 NaN], [2 NaN pad]
}

TEST(MaxPool, UInt8) {
  Tensor x = Tensor::allocate(DataType::UInt8, {1, 1, 1, 4});
  uint8_t v[4] = {3, 250, 7, 1};
  std::memcpy(x.data(), v, 4);
  auto y = pool("MaxPool", x, {1, 1, 1, 2}, attrs({{"kernel_shape", Ints{1, 2}}, {"strides", Ints{1, 2}}}));
  EXPECT_EQ(y[0].data_as<uint8_t>()[0], 250);
  EXPECT_EQ(y[0].data_as<uint8_t>()[1], 7);
}

TEST(AveragePool, CeilMode) {  // test_averagepool_2d_ceil
  auto y = pool("AveragePool", iota({1, 1, 4, 4}, 1), {1, 1, 2, 2},
                attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}}));
  expect_near(y[0], {6, 7.5f, 12, 13.5f});
}

TEST(AveragePool, PadsExcludeAndInclude) {
  // 1-D: x = [1 2 3], k 3, pads 1/1 → windows [p 1 2], [1 2 3], [2 3 p].
  auto ex = pool("AveragePool", iota({1, 1, 3}, 1), {1, 1, 3}, attrs({{"kernel_shape", Ints{3}}, {"pads", Ints{1, 1}}}));
  expect_near(ex[0], {1.5f, 2, 2.5f});
  auto in = pool("AveragePool", iota({1, 1, 3}, 1), {1, 1, 3},
                 attrs({{"kernel_shape", Ints{3}}, {"pads", Ints{1, 1}}, {"count_include_pad", int64_t{1}}}));
  expect_near(in[0], {1, 2, 5.0f / 3});
}

// 2-D float32 AveragePool without a ceil_mode overhang runs on oneDNN's pooling on NCHW
// (pool_blocked.cc). Two 4x4 planes, 1..16 and 17..32, k3 s2 pads 1 → 2x2: the windows hold
// {1,2,5,6}, {2,3,4,6,7,8}, {5,6,9,10,13,14}, {6,7,8,10,11,12,14,15,16} (sums 14, 30, 57, 99)
// of plane 0; plane 1 adds 16 to each element.
TEST(AveragePool, TwoDStridedPadsExcludeAndInclude) {
  const Attributes a = attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}});
  auto ex = pool("AveragePool", iota({1, 2, 4, 4}, 1), {1, 2, 2, 2}, a);
  expect_near(ex[0], {3.5f, 5, 9.5f, 11, 19.5f, 21, 25.5f, 27});
  Attributes ai = a;
  ai.set("count_include_pad", int64_t{1});
  auto in = pool("AveragePool", iota({1, 2, 4, 4}, 1), {1, 2, 2, 2}, ai);
  expect_near(in[0], {14.f / 9, 30.f / 9, 57.f / 9, 11, 78.f / 9, 126.f / 9, 153.f / 9, 27});
}

TEST(AveragePool, TwoDWholePlaneWindow) {  // ShuffleNet's last pool: 7x7 window on 7x7 → the plane mean
  auto y = pool("AveragePool", iota({1, 3, 7, 7}), {1, 3, 1, 1}, attrs({{"kernel_shape", Ints{7, 7}}}));
  expect_near(y[0], {24, 73, 122});  // mean of 49p .. 49p+48
}

TEST(AveragePool, ThreeD) {
  auto y = pool("AveragePool", iota({1, 1, 2, 2, 2}), {1, 1, 1, 1, 1}, attrs({{"kernel_shape", Ints{2, 2, 2}}}));
  expect_near(y[0], {3.5f});
}

TEST(GlobalAveragePool, Planes) {
  Tensor x = iota({2, 3, 3, 3});
  KernelHarness h(cpu::register_pool_kernels);
  auto y = h.run("GlobalAveragePool", {x}, {OutSpec{DataType::Float32, {2, 3, 1, 1}}});
  std::vector<float> want;
  for (int p = 0; p < 6; ++p) want.push_back(9.0f * p + 4);  // mean of 9p .. 9p+8
  expect_near(y[0], want);
}

TEST(MaxPool, RejectsMissingKernelShape) {
  EXPECT_THROW(pool("MaxPool", iota({1, 1, 4, 4}), {1, 1, 4, 4}, attrs({})), InvalidGraphError);
}

}  // namespace
}  // namespace ge::test
