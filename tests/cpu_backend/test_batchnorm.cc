// BatchNormalization tests: y = scale * (x - mean) / sqrt(var + eps) + B per channel
// (onnx/docs/Operators.md#BatchNormalization), constant and runtime parameters, opset-7
// spatial=0, and the training-mode rejection.
// test_util.h first: it brings ge/sdk/error.h, which kernel_harness.h uses without including.
#include "test_util.h"
#include "kernel_harness.h"
#include "kernels.h"

namespace ge::test {
namespace {

Tensor bn(const std::vector<Tensor>& in, Attributes a, int64_t opset, std::set<size_t> consts) {
  KernelHarness h(cpu::register_norm_kernels);
  return h.run("BatchNormalization", in, {OutSpec{DataType::Float32, in[0].shape()}}, a, opset, consts)[0];
}

TEST(BatchNorm, PerChannel) {
  // channel 0: scale 1, B 0, mean 0, var 1 → y = x; channel 1: scale 2, B 1, mean 1, var 4 → y = (x-1)+1 = x.
  // Use distinct values to make it visible: channel 1 scale 4 → y = 2(x-1)+1.
  Tensor x = f32({1, 2, 1, 3}, {1, 2, 3, 1, 2, 3});
  Tensor s = f32({2}, {1, 4}), b = f32({2}, {0, 1}), m = f32({2}, {0, 1}), v = f32({2}, {1, 4});
  auto a = attrs({{"epsilon", 0.0f}});
  std::vector<float> want{1, 2, 3, 1, 3, 5};
  expect_near(bn({x, s, b, m, v}, a, 15, {1, 2, 3, 4}), want);
  expect_near(bn({x, s, b, m, v}, a, 15, {}), want);
}

TEST(BatchNorm, EpsilonAndRank2) {
  Tensor x = f32({2, 1}, {3, 5});
  Tensor s = f32({1}, {1}), b = f32({1}, {0}), m = f32({1}, {1}), v = f32({1}, {3});
  // (x - 1) / sqrt(3 + 1) = (x - 1) / 2
  expect_near(bn({x, s, b, m, v}, attrs({{"epsilon", 1.0f}}), 9, {1, 2, 3, 4}), {1, 2});
}

TEST(BatchNorm, Opset7NonSpatial) {
  // spatial = 0: one parameter per (C, H, W) position, here [1, 2] → 2 parameters.
  Tensor x = f32({2, 1, 2}, {1, 2, 3, 4});
  Tensor s = f32({1, 2}, {1, 2}), b = f32({1, 2}, {0, 0}), m = f32({1, 2}, {0, 1}), v = f32({1, 2}, {1, 1});
  expect_near(bn({x, s, b, m, v}, attrs({{"epsilon", 0.0f}, {"spatial", int64_t{0}}}), 7, {1, 2, 3, 4}), {1, 2, 3, 6});
}

TEST(BatchNorm, TrainingModeUnsupported) {
  Tensor x = rnd({1, 2, 2, 2}), p = f32({2}, {1, 1});
  try {
    bn({x, p, p, p, p}, attrs({{"training_mode", int64_t{1}}}), 15, {});
    FAIL() << "expected UnsupportedError";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("training_mode=1 not supported"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ge::test
