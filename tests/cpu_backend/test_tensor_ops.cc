// tests/cpu_backend/test_tensor_ops.cc — the CPU backend's data-movement kernels, with
// hand-computed expected values (ONNX docs/Operators.md semantics).
#include <gtest/gtest.h>

#include <cstdint>

#include "ge/sdk/error.h"  // kernel_harness.h uses ge::Error without including it
#include "kernel_harness.h"
#include "kernels.h"
#include "tensor_test_util.h"

namespace ge::test {
namespace {

using DT = DataType;
using I64s = std::vector<int64_t>;

KernelHarness& harness() {
  static KernelHarness h(cpu::register_tensor_kernels);
  return h;
}

TEST(CpuTensor, ReshapeZeroCopiesAndMinusOneInfers) {
  auto out = harness().run("Reshape", {iota<float>({2, 3, 4}), make<int64_t>({2}, {0, -1})}, {{DT::Float32, {2, 12}}},
                           {}, 14, {1});
  EXPECT_EQ(values<float>(out[0]), values<float>(iota<float>({24})));
  EXPECT_THROW(harness().run("Reshape", {iota<float>({2, 3, 4}), make<int64_t>({2}, {5, -1})},
                             {{DT::Float32, {5, 5}}}, {}, 14, {1}),
               InvalidGraphError);
  // Non-constant shape: only the static output shape matters.
  out = harness().run("Reshape", {iota<int8_t>({6}), make<int64_t>({2}, {3, 2})}, {{DT::Int8, {3, 2}}});
  EXPECT_EQ(values<int8_t>(out[0]), values<int8_t>(iota<int8_t>({6})));
}

TEST(CpuTensor, FlattenNegativeAxis) {
  Attributes a;
  a.set("axis", int64_t{-1});
  auto out = harness().run("Flatten", {iota<uint16_t>({2, 3, 4})}, {{DT::UInt16, {6, 4}}}, a);
  EXPECT_EQ(values<uint16_t>(out[0]), values<uint16_t>(iota<uint16_t>({24})));
}

TEST(CpuTensor, SqueezeNegativeAxesAndUnsqueeze) {
  auto out = harness().run("Squeeze", {iota<float>({1, 3, 1, 5}), make<int64_t>({1}, {-2})}, {{DT::Float32, {1, 3, 5}}},
                           {}, 13, {1});
  EXPECT_EQ(values<float>(out[0]), values<float>(iota<float>({15})));
  Attributes a;
  a.set("axes", I64s{0, -2});
  out = harness().run("Squeeze", {iota<float>({1, 3, 1, 5})}, {{DT::Float32, {3, 5}}}, a, 11);
  EXPECT_EQ(out[0].numel(), 15);
  EXPECT_THROW(harness().run("Squeeze", {iota<float>({1, 3}), make<int64_t>({1}, {-1})}, {{DT::Float32, {1}}}, {}, 13, {1}),
               InvalidGraphError);
  out = harness().run("Unsqueeze", {iota<int64_t>({3}), make<int64_t>({2}, {0, -1})}, {{DT::Int64, {1, 3, 1}}}, {}, 13, {1});
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{0, 1, 2}));
}

TEST(CpuTensor, Transpose5dChannelShuffle) {
  // [N=1, g=2, c=3, H=2, W=1] -> perm [0,2,1,3,4]: out[0,c,g,h,0] = x[0,g,c,h,0] = 6g + 2c + h.
  Attributes a;
  a.set("perm", I64s{0, 2, 1, 3, 4});
  auto out = harness().run("Transpose", {iota<float>({1, 2, 3, 2, 1})}, {{DT::Float32, {1, 3, 2, 2, 1}}}, a);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));
}

TEST(CpuTensor, TransposeMovingTheInnerAxisAndDefault) {
  Attributes a;
  a.set("perm", I64s{2, 0, 1});
  auto out = harness().run("Transpose", {iota<int32_t>({2, 3, 4})}, {{DT::Int32, {4, 2, 3}}}, a);
  auto v = values<int32_t>(out[0]);
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(v[k * 6 + i * 3 + j], i * 12 + j * 4 + k);
  out = harness().run("Transpose", {iota<double>({2, 3})}, {{DT::Float64, {3, 2}}});
  EXPECT_EQ(values<double>(out[0]), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(CpuTensor, LargeTransposeWithThreads) {
  Attributes a;
  a.set("perm", I64s{0, 2, 3, 1});  // NCHW -> NHWC
  const Shape s{2, 24, 40, 40};
  auto out = harness().run("Transpose", {iota<float>(s)}, {{DT::Float32, {2, 40, 40, 24}}}, a, 13, {}, 2);
  auto v = values<float>(out[0]);
  int64_t o = 0;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t h = 0; h < 40; ++h)
      for (int64_t w = 0; w < 40; ++w)
        for (int64_t c = 0; c < 24; ++c) ASSERT_EQ(v[o++], static_cast<float>(((n * 24 + c) * 40 + h) * 40 + w));
}

TEST(CpuTensor, TransposeOfADetectionHeadInTiles) {
  // YOLO's head: [1, 3, 85, H, W] perm [0,1,3,4,2]; 85 and H*W = 35 are not multiples of the
  // tile side, and there are 3 anchors around each 2-D transpose. out[0,a,h,w,k] = x[0,a,k,h,w].
  // At 32x32 the input rows are 4 KiB apart (one L1 set) and the tiles walk them instead; 9x11
  // walks the output rows. Both are long enough along H*W for the prefetch ahead of the tiles.
  Attributes a;
  a.set("perm", I64s{0, 1, 3, 4, 2});
  for (auto [H, W] : {std::pair<int64_t, int64_t>{5, 7}, {9, 11}, {32, 32}})
    for (int threads : {1, 2}) {
      auto out = harness().run("Transpose", {iota<float>({1, 3, 85, H, W})}, {{DT::Float32, {1, 3, H, W, 85}}}, a, 13,
                               {}, threads);
      auto v = values<float>(out[0]);
      int64_t o = 0;
      for (int64_t an = 0; an < 3; ++an)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t w = 0; w < W; ++w)
            for (int64_t k = 0; k < 85; ++k)
              ASSERT_EQ(v[o++], static_cast<float>(((an * 85 + k) * H + h) * W + w)) << H << "x" << W;
    }
  // An empty tensor moves nothing (a zero dim on either side of the tiles).
  EXPECT_EQ(harness().run("Transpose", {iota<float>({0, 5})}, {{DT::Float32, {5, 0}}})[0].numel(), 0);
  EXPECT_EQ(harness().run("Transpose", {iota<float>({2, 0, 3})}, {{DT::Float32, {3, 0, 2}}})[0].numel(), 0);
  auto bytes = harness().run("Transpose", {iota<uint8_t>({3, 17})}, {{DT::UInt8, {17, 3}}});
  auto b = values<uint8_t>(bytes[0]);
  for (int64_t j = 0; j < 17; ++j)
    for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(b[j * 3 + i], static_cast<uint8_t>(i * 17 + j));
}

TEST(CpuTensor, ConcatNegativeAxis) {
  Attributes a;
  a.set("axis", int64_t{-1});
  auto out = harness().run("Concat", {make<int64_t>({2, 1}, {1, 2}), make<int64_t>({2, 2}, {3, 4, 5, 6})},
                           {{DT::Int64, {2, 3}}}, a);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{1, 3, 4, 2, 5, 6}));
}

// Range-11 yields max(ceil((limit - start) / delta), 0) elements: a count far below int64's range
// (start 1e30 towards 64 by 64: -1.6e28) is an empty output, the max taken before any conversion
// to int64 (which would be undefined: UBSan, fuzz finding); 0..7 by 2 is 0, 2, 4, 6.
TEST(CpuTensor, RangeCountsBelowInt64AreEmpty) {
  auto out = harness().run("Range", {make<float>({}, {1e30f}), make<float>({}, {64.f}), make<float>({}, {64.f})},
                           {{DT::Float32, {0}}}, {}, 17);
  EXPECT_EQ(out[0].numel(), 0);
  out = harness().run("Range", {make<int64_t>({}, {0}), make<int64_t>({}, {7}), make<int64_t>({}, {2})},
                      {{DT::Int64, {4}}}, {}, 17);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{0, 2, 4, 6}));
}

TEST(CpuTensor, SliceNegativeStepsAndClamping) {
  // start -1 -> 9; end -11 -> -1 (clamped to [-1, 9]); step -2 -> 9,7,5,3,1.
  auto out = harness().run("Slice", {iota<float>({10}), make<int64_t>({1}, {-1}), make<int64_t>({1}, {-11}), omitted(),
                                     make<int64_t>({1}, {-2})},
                           {{DT::Float32, {5}}}, {}, 13, {1, 2, 4});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{9, 7, 5, 3, 1}));
  // 2-D, both axes reversed, parameters as graph inputs (read at run time).
  out = harness().run("Slice", {iota<int32_t>({3, 4}), make<int32_t>({2}, {2, 3}), make<int32_t>({2}, {0, 0}),
                                make<int32_t>({2}, {0, 1}), make<int32_t>({2}, {-1, -2})},
                      {{DT::Int32, {2, 2}}});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{11, 9, 7, 5}));
  out = harness().run("Slice", {iota<uint8_t>({5}), make<int64_t>({1}, {1}), make<int64_t>({1}, {1000})},
                      {{DT::UInt8, {4}}}, {}, 13, {1, 2});
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<uint8_t>{1, 2, 3, 4}));
  out = harness().run("Slice", {iota<uint8_t>({5}), make<int64_t>({1}, {1000}), make<int64_t>({1}, {1000})},
                      {{DT::UInt8, {0}}}, {}, 13, {1, 2});
  EXPECT_EQ(out[0].numel(), 0);
  Attributes a;
  a.set("starts", I64s{0, 1});
  a.set("ends", I64s{1, 1000});
  out = harness().run("Slice", {iota<float>({2, 3})}, {{DT::Float32, {1, 2}}}, a, 9);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 2}));
}

TEST(CpuTensor, GatherNegativeIndices) {
  auto out = harness().run("Gather", {iota<float>({3, 2}), make<int64_t>({2}, {-1, 0})}, {{DT::Float32, {2, 2}}});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{4, 5, 0, 1}));
  Attributes a;
  a.set("axis", int64_t{1});
  out = harness().run("Gather", {iota<float>({3, 2}), make<int32_t>({2, 1}, {1, -2})}, {{DT::Float32, {3, 2, 1}}}, a);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 0, 3, 2, 5, 4}));
  EXPECT_THROW(harness().run("Gather", {iota<float>({3, 2}), make<int64_t>({1}, {3})}, {{DT::Float32, {1, 2}}}), Error);
  EXPECT_THROW(harness().run("Gather", {iota<float>({3, 2}), make<float>({1}, {0})}, {{DT::Float32, {1, 2}}}),
               UnsupportedError);
}

TEST(CpuTensor, ShapeStartEnd) {
  Attributes a;
  a.set("start", int64_t{1});
  a.set("end", int64_t{-1});
  auto out = harness().run("Shape", {iota<float>({2, 3, 4, 5})}, {{DT::Int64, {2}}}, a, 15);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{3, 4}));
  Attributes b;
  b.set("start", int64_t{-10});  // clamped to 0
  out = harness().run("Shape", {iota<float>({2, 3, 4, 5})}, {{DT::Int64, {4}}}, b, 15);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{2, 3, 4, 5}));
}

TEST(CpuTensor, ConstantAttributes) {
  Attributes a;
  a.set("value_ints", I64s{4, 5});
  auto out = harness().run("Constant", {}, {{DT::Int64, {2}}}, a);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{4, 5}));
  Attributes b;
  b.set("value", make<float>({2}, {1.5f, -2}));
  out = harness().run("Constant", {}, {{DT::Float32, {2}}}, b);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1.5f, -2}));
}

TEST(CpuTensor, DropoutInferenceAndTrainingRefused) {
  auto out = harness().run("Dropout", {iota<float>({4}), make<float>({}, {0.5f})},
                           {{DT::Float32, {4}}, {DT::Bool, {4}}}, {}, 13, {1});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(values<uint8_t>(out[1]), (std::vector<uint8_t>{1, 1, 1, 1}));
  Tensor yes = Tensor::allocate(DT::Bool, {});
  yes.data_as<uint8_t>()[0] = 1;
  try {
    harness().run("Dropout", {iota<float>({4}), omitted(), yes}, {{DT::Float32, {4}}}, {}, 13, {2});
    FAIL() << "expected UnsupportedError";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(std::string(e.what()), "Dropout: training_mode=true not supported");
  }
  out = harness().run("Identity", {make<uint16_t>({2}, {7, 9})}, {{DT::UInt16, {2}}});
  EXPECT_EQ(values<uint16_t>(out[0]), (std::vector<uint16_t>{7, 9}));
}

}  // namespace
}  // namespace ge::test

namespace ge::test {
namespace {

// A Split output whose shape is not a part of the input (a model declaring it rank 0) is refused
// at kernel build, not indexed out of range.
TEST(CpuTensorOps, SplitOutputOfAnotherRankIsRefused) {
  KernelHarness h(cpu::register_split_kernels);
  Attributes a;
  a.set("axis", int64_t{0});
  auto out = h.run("Split", {iota<float>({4, 2})}, {{DataType::Float32, {1, 2}}, {DataType::Float32, {3, 2}}}, a);
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{2, 3, 4, 5, 6, 7}));
  EXPECT_THROW(h.run("Split", {iota<float>({4, 2})}, {{DataType::Float32, {}}, {DataType::Float32, {3, 2}}}, a),
               InvalidGraphError);
  EXPECT_THROW(h.run("Split", {iota<float>({4, 2})}, {{DataType::Float32, {1, 3}}, {DataType::Float32, {3, 1}}}, a),
               InvalidGraphError);
}

}  // namespace
}  // namespace ge::test
