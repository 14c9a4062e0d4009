// tests/cpu_backend/test_tensor_select.cc — cases of the value-dependent-shape kernels
// (NonZero, Compress, Unique, NonMaxSuppression) and of TfIdfVectorizer that the ONNX node tests miss, with
// hand-computed values (onnx/docs/Operators.md semantics, ORT's order for NonMaxSuppression),
// and the run-time stop when the computed size differs from the planned output shape.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "ge/sdk/error.h"  // kernel_harness.h uses ge::Error without including it
#include "kernel_harness.h"
#include "kernels.h"
#include "tensor_test_util.h"

namespace ge::test {
namespace {

using DT = DataType;
using I64s = std::vector<int64_t>;
using F32s = std::vector<float>;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

KernelHarness& harness() {
  static KernelHarness h([](Registrar& r) { cpu::register_tensor_kernels(r); });
  return h;
}

Attributes attrs(std::initializer_list<std::pair<const char*, int64_t>> kv) {
  Attributes a;
  for (auto& [k, v] : kv) a.set(k, v);
  return a;
}

Tensor f16(Shape s, const F32s& v) {
  Tensor x = Tensor::allocate(DT::Float16, std::move(s));
  for (size_t i = 0; i < v.size(); ++i) x.data_as<uint16_t>()[i] = float_to_half(v[i]);
  return x;
}

/// Runs and expects a ge::Error whose message names the node and both shapes.
void expect_size_error(const std::string& op, const std::vector<Tensor>& in, const std::vector<OutSpec>& outs,
                       const Attributes& a, int64_t opset, const Shape& got, const Shape& planned) {
  try {
    harness().run(op, in, outs, a, opset);
    FAIL() << op << " ran with a planned shape that does not fit";
  } catch (const UnsupportedError& e) {
    FAIL() << "UnsupportedError instead of a run-time size error: " << e.what();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("node"), std::string::npos) << m;
    EXPECT_NE(m.find(got.str()), std::string::npos) << m;
    EXPECT_NE(m.find(planned.str()), std::string::npos) << m;
  }
}

TEST(CpuTensorSelect, NonZeroCountsNaNAndSkipsNegativeZero) {
  // [[0, NaN], [-0, 3]]: nonzero at (0, 1) and (1, 1).
  auto out = harness().run("NonZero", {f16({2, 2}, {0.f, kNaN, -0.f, 3.f})}, {{DT::Int64, {2, 2}}}, {}, 13);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{0, 1, 1, 1}));
  // uint8 [2, 1, 3]: nonzero at flat 2 = (0,0,2) and 3 = (1,0,0); rows are dims, columns hits.
  out = harness().run("NonZero", {make<uint8_t>({2, 1, 3}, {0, 0, 7, 1, 0, 0})}, {{DT::Int64, {3, 2}}}, {}, 13);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{0, 1, 0, 0, 2, 0}));
  // A scalar counts as one element of a 1-D tensor (ORT): [1, 1] holding 0.
  out = harness().run("NonZero", {make<int32_t>({}, {5})}, {{DT::Int64, {1, 1}}}, {}, 13);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{0}));
  out = harness().run("NonZero", {make<bool>({3}, {false, false, false})}, {{DT::Int64, {1, 0}}}, {}, 13);
  EXPECT_EQ(out[0].numel(), 0);
}

TEST(CpuTensorSelect, CompressConditionShorterOrLongerThanTheAxis) {
  const Tensor x = make<int64_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = harness().run("Compress", {x, make<bool>({2}, {false, true})}, {{DT::Int64, {1, 2}}}, attrs({{"axis", 0}}), 11);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{3, 4}));
  out = harness().run("Compress", {x, make<bool>({3}, {true, false, true})}, {{DT::Int64, {3, 1}}},
                      attrs({{"axis", -1}}), 11);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{1, 3, 5}));  // the third condition is past the axis
  out = harness().run("Compress", {x, make<bool>({5}, {true, false, false, true, true})}, {{DT::Int64, {3}}}, {}, 11);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{1, 4, 5}));  // flattened
  out = harness().run("Compress", {make<bool>({2, 2}, {true, false, false, true}), make<bool>({2}, {false, true})},
                      {{DT::Bool, {2, 1}}}, attrs({{"axis", 1}}), 11);
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<uint8_t>{0, 1}));  // bools as bytes
}

TEST(CpuTensorSelect, UniqueFlattenedWithNaNAndOmittedIndices) {
  // sorted: -1, 1, NaN (NaNs equal, after every number); indices output omitted.
  auto out = harness().run("Unique", {make<float>({5}, {kNaN, 1.f, kNaN, -1.f, 1.f})},
                           {{DT::Float32, {3}}, {DT::Undefined, {}}, {DT::Int64, {5}}, {DT::Int64, {3}}}, {}, 11);
  const F32s y = values<float>(out[0]);
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(y[0], -1.f);
  EXPECT_EQ(y[1], 1.f);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(values<int64_t>(out[2]), (I64s{2, 1, 2, 0, 1}));
  EXPECT_EQ(values<int64_t>(out[3]), (I64s{1, 2, 2}));
}

TEST(CpuTensorSelect, UniqueColumnsSortedAndInFirstOccurrenceOrder) {
  // Columns of [[1, 0, 1], [2, 5, 2]]: (1,2) (0,5) (1,2).
  const Tensor x = make<int32_t>({2, 3}, {1, 0, 1, 2, 5, 2});
  const std::vector<OutSpec> outs{{DT::Int32, {2, 2}}, {DT::Int64, {2}}, {DT::Int64, {3}}, {DT::Int64, {2}}};
  auto out = harness().run("Unique", {x}, outs, attrs({{"axis", 1}, {"sorted", 0}}), 11);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{1, 0, 2, 5}));
  EXPECT_EQ(values<int64_t>(out[1]), (I64s{0, 1}));
  EXPECT_EQ(values<int64_t>(out[2]), (I64s{0, 1, 0}));
  EXPECT_EQ(values<int64_t>(out[3]), (I64s{2, 1}));
  out = harness().run("Unique", {x}, outs, attrs({{"axis", 1}, {"sorted", 1}}), 11);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{0, 1, 5, 2}));  // (0,5) < (1,2)
  EXPECT_EQ(values<int64_t>(out[1]), (I64s{1, 0}));
  EXPECT_EQ(values<int64_t>(out[2]), (I64s{1, 0, 1}));
  EXPECT_EQ(values<int64_t>(out[3]), (I64s{1, 2}));
}

// Center-format boxes: box0 [-1,1]x[-1,1], box1 [-0.5,1.5]x[-1,1] (IoU 3/5 with box0), box2 far.
Tensor nms_boxes() { return make<float>({1, 3, 4}, {0, 0, 2, 2, 0.5f, 0, 2, 2, 5, 5, 1, 1}); }
Tensor nms_scores() { return make<float>({1, 2, 3}, {0.9f, 0.9f, 0.4f, 0.2f, 0.8f, 0.3f}); }

TEST(CpuTensorSelect, NonMaxSuppressionTiesThresholdsAndCenterBoxes) {
  // Class 0: tie 0.9/0.9 goes to the lower index, box1 falls to IoU 0.6 > 0.5, box2 stays.
  // Class 1: score_threshold 0.25 drops box0; box1 then box2 by score.
  auto out = harness().run("NonMaxSuppression",
                           {nms_boxes(), nms_scores(), make<int64_t>({1}, {3}), make<float>({1}, {0.5f}),
                            make<float>({1}, {0.25f})},
                           {{DT::Int64, {4, 3}}}, attrs({{"center_point_box", 1}}), 11);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{0, 0, 0, 0, 0, 2, 0, 1, 1, 0, 1, 2}));
  // max_output_boxes_per_class 1 keeps the best of each class.
  out = harness().run("NonMaxSuppression",
                      {nms_boxes(), nms_scores(), make<int64_t>({1}, {1}), make<float>({1}, {0.5f}), omitted()},
                      {{DT::Int64, {2, 3}}}, attrs({{"center_point_box", 1}}), 11);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{0, 0, 0, 0, 1, 1}));
  // max_output_boxes_per_class omitted: 0, nothing selected.
  out = harness().run("NonMaxSuppression", {nms_boxes(), nms_scores()}, {{DT::Int64, {0, 3}}}, {}, 11);
  EXPECT_EQ(out[0].numel(), 0);
}

// TfIdfVectorizer: pool unigrams 7, 9 and bigram (7 9), mapped to Y[2], Y[0], Y[1] with weights
// 0.5, 2, 4 (weights follow pool order). X = 7 9 7 3 9 9 with skips up to 1: '7' twice, '9'
// three times (unigrams once, not per skip), '7 9' at distance 1 (7,9) and 2 (7,_,9).
TEST(CpuTensorSelect, TfIdfVectorizerModesSkipsAndIndexMapping) {
  const Tensor x = make<int64_t>({1, 6}, {7, 9, 7, 3, 9, 9});
  auto run = [&](const std::string& mode) {
    Attributes a;
    a.set("min_gram_length", int64_t{1});
    a.set("max_gram_length", int64_t{2});
    a.set("max_skip_count", int64_t{1});
    a.set("mode", mode);
    a.set("pool_int64s", I64s{7, 9, 7, 9});
    a.set("ngram_counts", I64s{0, 2});
    a.set("ngram_indexes", I64s{2, 0, 1});
    a.set("weights", F32s{0.5f, 2.f, 4.f});
    return values<float>(harness().run("TfIdfVectorizer", {x}, {{DT::Float32, {1, 3}}}, a, 9)[0]);
  };
  EXPECT_EQ(run("TF"), (F32s{3, 2, 2}));
  EXPECT_EQ(run("IDF"), (F32s{2, 4, 0.5f}));
  EXPECT_EQ(run("TFIDF"), (F32s{6, 8, 1}));
}

TEST(CpuTensorSelect, ComputedSizeOtherThanThePlannedShapeStopsTheRun) {
  expect_size_error("NonZero", {make<float>({4}, {1, 0, 2, 0})}, {{DT::Int64, {1, 3}}}, {}, 13, Shape{1, 2},
                    Shape{1, 3});
  expect_size_error("Compress", {make<float>({3}, {1, 2, 3}), make<bool>({3}, {true, false, true})},
                    {{DT::Float32, {3}}}, {}, 11, Shape{2}, Shape{3});
  expect_size_error("Unique", {make<int64_t>({4}, {3, 1, 3, 1})}, {{DT::Int64, {4}}}, {}, 11, Shape{2}, Shape{4});
  expect_size_error("Unique", {make<int64_t>({4}, {3, 1, 3, 2})},
                    {{DT::Undefined, {}}, {DT::Undefined, {}}, {DT::Undefined, {}}, {DT::Int64, {2}}}, {}, 11,
                    Shape{3}, Shape{2});
  expect_size_error("NonMaxSuppression",
                    {nms_boxes(), nms_scores(), make<int64_t>({1}, {3}), make<float>({1}, {0.5f}),
                     make<float>({1}, {0.25f})},
                    {{DT::Int64, {3, 3}}}, attrs({{"center_point_box", 1}}), 11, Shape{4, 3}, Shape{3, 3});
}

}  // namespace
}  // namespace ge::test
