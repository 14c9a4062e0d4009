// tests/cpu_backend/test_tensor_indexing.cc — cases of the shape, indexing, ordering and
// reduction kernels that the ONNX node tests miss, with hand-computed values (ONNX
// docs/Operators.md semantics): negative-step Slice past both ends, ScatterND duplicates under
// each reduction, Pad borders, TopK with NaN, Einsum diagonals, run-time index checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>

#include "ge/sdk/error.h"  // kernel_harness.h uses ge::Error without including it
#include "kernel_harness.h"
#include "blocked.h"
#include "ge/sdk/layout.h"
#include "kernels.h"
#include "tensor_test_util.h"

namespace ge::test {
namespace {

using DT = DataType;
using I64s = std::vector<int64_t>;
using F32s = std::vector<float>;

KernelHarness& harness() {
  static KernelHarness h([](Registrar& r) {
    cpu::register_tensor_kernels(r);
    cpu::register_reduce_kernels(r);
  });
  return h;
}

Attributes attr(const std::string& k, int64_t v) {
  Attributes a;
  a.set(k, v);
  return a;
}

TEST(CpuTensorIndexing, SliceNegativeStepPastBothEnds) {
  // start 20 clamps to 9, end -20 (+10 = -10) clamps to -1: 9, 6, 3, 0.
  auto out = harness().run("Slice", {iota<float>({10}), make<int64_t>({1}, {20}), make<int64_t>({1}, {-20}),
                                     make<int64_t>({1}, {0}), make<int64_t>({1}, {-3})},
                           {{DT::Float32, {4}}}, {}, 13, {1, 2, 3, 4});
  EXPECT_EQ(values<float>(out[0]), (F32s{9, 6, 3, 0}));
  // Same parameters at run time.
  out = harness().run("Slice", {iota<float>({10}), make<int64_t>({1}, {20}), make<int64_t>({1}, {-20}),
                                make<int64_t>({1}, {0}), make<int64_t>({1}, {-3})},
                      {{DT::Float32, {4}}});
  EXPECT_EQ(values<float>(out[0]), (F32s{9, 6, 3, 0}));
  // 2-D: rows 2, 0 (end -5 + 3 = -2 clamps to -1), columns 3, 0 (start 10 clamps to 3).
  out = harness().run("Slice", {iota<int32_t>({3, 4}), make<int64_t>({2}, {2, 10}), make<int64_t>({2}, {-5, -10}),
                                make<int64_t>({2}, {0, 1}), make<int64_t>({2}, {-2, -3})},
                      {{DT::Int32, {2, 2}}}, {}, 13, {1, 2, 3, 4});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{11, 8, 3, 0}));
}

class ScatterNDDuplicates : public ::testing::TestWithParam<std::pair<std::string, F32s>> {};

TEST_P(ScatterNDDuplicates, FoldsEveryUpdateInOrder) {
  // data {1,2,3,4}; index 1 is updated by 10 then 20, index 3 by 5.
  Attributes a;
  a.set("reduction", GetParam().first);
  auto out = harness().run("ScatterND", {make<float>({4}, {1, 2, 3, 4}), make<int64_t>({3, 1}, {1, 1, 3}),
                                         make<float>({3}, {10, 20, 5})},
                           {{DT::Float32, {4}}}, a, 18);
  EXPECT_EQ(values<float>(out[0]), GetParam().second);
}

INSTANTIATE_TEST_SUITE_P(CpuTensorIndexing, ScatterNDDuplicates,
                         ::testing::Values(std::pair<std::string, F32s>{"none", {1, 20, 3, 5}},
                                           std::pair<std::string, F32s>{"add", {1, 32, 3, 9}},
                                           std::pair<std::string, F32s>{"mul", {1, 400, 3, 20}},
                                           std::pair<std::string, F32s>{"max", {1, 20, 3, 5}},
                                           std::pair<std::string, F32s>{"min", {1, 2, 3, 4}}));

TEST(CpuTensorIndexing, PadModes) {
  Attributes reflect;
  reflect.set("mode", std::string("reflect"));
  auto out = harness().run("Pad", {iota<float>({3}), make<int64_t>({2}, {2, 2})}, {{DT::Float32, {7}}}, reflect, 13, {1});
  EXPECT_EQ(values<float>(out[0]), (F32s{2, 1, 0, 1, 2, 1, 0}));
  // 2-D reflect by 1 on every side: rows map to 1,0,1,0 and columns to 1,0,1,2,1.
  out = harness().run("Pad", {iota<float>({2, 3}), make<int64_t>({4}, {1, 1, 1, 1})}, {{DT::Float32, {4, 5}}}, reflect,
                      13, {1});
  EXPECT_EQ(values<float>(out[0]), (F32s{4, 3, 4, 5, 4, 1, 0, 1, 2, 1, 4, 3, 4, 5, 4, 1, 0, 1, 2, 1}));
  Attributes edge;
  edge.set("mode", std::string("edge"));
  out = harness().run("Pad", {iota<float>({3}), make<int64_t>({2}, {2, 1})}, {{DT::Float32, {6}}}, edge);
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 0, 0, 1, 2, 2}));
  // Constant value as a run-time input; a negative pad crops.
  out = harness().run("Pad", {iota<int8_t>({2, 3}), make<int64_t>({4}, {0, -1, 1, 1}), make<int8_t>({}, {7})},
                      {{DT::Int8, {3, 3}}});
  EXPECT_EQ(values<int8_t>(out[0]), (std::vector<int8_t>{1, 2, 7, 4, 5, 7, 7, 7, 7}));
}

TEST(CpuTensorIndexing, PadReflectWiderThanInputIsRefused) {
  Attributes reflect;
  reflect.set("mode", std::string("reflect"));
  EXPECT_THROW(harness().run("Pad", {iota<float>({3}), make<int64_t>({2}, {3, 0})}, {{DT::Float32, {6}}}, reflect, 13, {1}),
               UnsupportedError);
  Attributes wrap;
  wrap.set("mode", std::string("wrap"));
  EXPECT_THROW(harness().run("Pad", {iota<float>({3}), make<int64_t>({2}, {1, 0})}, {{DT::Float32, {4}}}, wrap, 13, {1}),
               UnsupportedError);
}

TEST(CpuTensorIndexing, TopKPutsNaNAboveNumbersAndKeepsTiesInIndexOrder) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = harness().run("TopK", {make<float>({5}, {1, nan, 3, 3, 2}), make<int64_t>({1}, {3})},
                           {{DT::Float32, {3}}, {DT::Int64, {3}}}, {}, 11, {1});
  EXPECT_TRUE(std::isnan(values<float>(out[0])[0]));
  EXPECT_EQ(values<float>(out[0])[1], 3);
  EXPECT_EQ(values<float>(out[0])[2], 3);
  EXPECT_EQ(values<int64_t>(out[1]), (I64s{1, 2, 3}));
  out = harness().run("TopK", {make<float>({5}, {1, nan, 3, 3, 2}), make<int64_t>({1}, {3})},
                      {{DT::Float32, {3}}, {DT::Int64, {3}}}, attr("largest", 0), 11, {1});
  EXPECT_EQ(values<float>(out[0]), (F32s{1, 2, 3}));
  EXPECT_EQ(values<int64_t>(out[1]), (I64s{0, 4, 2}));
}

TEST(CpuTensorIndexing, EinsumDiagonalAndTrace) {
  Attributes a;
  a.set("equation", std::string("ii->i"));
  auto out = harness().run("Einsum", {iota<float>({3, 3})}, {{DT::Float32, {3}}}, a, 12);
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 4, 8}));
  a.set("equation", std::string("ii"));  // implicit output: i is repeated, so the trace
  out = harness().run("Einsum", {iota<float>({3, 3})}, {{DT::Float32, {}}}, a, 12);
  EXPECT_EQ(values<float>(out[0]), (F32s{12}));
  // Batched matmul with an ellipsis: [2,1,2] x [2,2,1] -> [[0*0+1*1]], [[2*2+3*3]].
  a.set("equation", std::string("...ij,...jk->...ik"));
  out = harness().run("Einsum", {iota<float>({2, 1, 2}), iota<float>({2, 2, 1})}, {{DT::Float32, {2, 1, 1}}}, a, 12);
  EXPECT_EQ(values<float>(out[0]), (F32s{1, 13}));
}

TEST(CpuTensorIndexing, EinsumContractionsOnTheGemmPath) {
  // float32 two-operand contractions run as a batched matmul with packed operands.
  Attributes a;
  a.set("equation", std::string("ij,kj->ik"));  // A·Bᵀ: B is packed to [K, N]
  auto out = harness().run("Einsum", {iota<float>({2, 3}), iota<float>({2, 3})}, {{DT::Float32, {2, 2}}}, a, 12);
  EXPECT_EQ(values<float>(out[0]), (F32s{5, 14, 14, 50}));
  a.set("equation", std::string("ij,jk->ki"));  // (A·B)ᵀ: the result is unpacked
  out = harness().run("Einsum", {iota<float>({2, 3}), iota<float>({3, 2})}, {{DT::Float32, {2, 2}}}, a, 12);
  EXPECT_EQ(values<float>(out[0]), (F32s{10, 28, 13, 40}));
  a.set("equation", std::string("i,j"));  // implicit outer product, K = 1
  out = harness().run("Einsum", {make<float>({2}, {1, 2}), make<float>({3}, {1, 10, 100})}, {{DT::Float32, {2, 3}}}, a, 12);
  EXPECT_EQ(values<float>(out[0]), (F32s{1, 10, 100, 2, 20, 200}));
  // The same contraction in float64 takes the direct kernel and agrees.
  a.set("equation", std::string("ij,kj->ik"));
  out = harness().run("Einsum", {iota<double>({2, 3}), iota<double>({2, 3})}, {{DT::Float64, {2, 2}}}, a, 12);
  EXPECT_EQ(values<double>(out[0]), (std::vector<double>{5, 14, 14, 50}));
}

TEST(CpuTensorIndexing, OutOfRangeIndicesStopTheRunNamingIndexAndBound) {
  try {
    harness().run("Gather", {iota<float>({3}), make<int64_t>({2}, {0, 5})}, {{DT::Float32, {2}}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(harness().run("GatherElements", {iota<float>({2, 2}), make<int64_t>({2, 1}, {0, -3})},
                             {{DT::Float32, {2, 1}}}),
               Error);
  EXPECT_THROW(harness().run("GatherND", {iota<float>({2, 2}), make<int64_t>({1, 2}, {1, 2})}, {{DT::Float32, {1}}}),
               Error);
  try {
    harness().run("ScatterElements", {iota<float>({3}), make<int64_t>({1}, {3}), make<float>({1}, {9})},
                  {{DT::Float32, {3}}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node"), std::string::npos) << e.what();  // the harness names it "node"
    EXPECT_NE(std::string(e.what()).find("[-3, 3)"), std::string::npos) << e.what();
  }
  // OneHot is different: an index outside [-depth, depth) gives a row of off_value.
  auto out = harness().run("OneHot", {make<int64_t>({3}, {1, 7, -1}), make<int64_t>({}, {3}), make<float>({2}, {0, 5})},
                           {{DT::Float32, {3, 3}}}, {}, 11, {1, 2});
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 5, 0, 0, 0, 0, 0, 0, 5}));
}

TEST(CpuTensorIndexing, ArgMaxSelectLastIndexAndCumSumReverseExclusive) {
  auto out = harness().run("ArgMax", {make<float>({4}, {1, 3, 3, 2})}, {{DT::Int64, {1}}}, {}, 13);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{1}));
  out = harness().run("ArgMax", {make<float>({4}, {1, 3, 3, 2})}, {{DT::Int64, {1}}}, attr("select_last_index", 1), 13);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{2}));
  Attributes a;
  a.set("exclusive", int64_t{1});
  a.set("reverse", int64_t{1});
  out = harness().run("CumSum", {make<int32_t>({3}, {1, 2, 3}), make<int64_t>({}, {0})}, {{DT::Int32, {3}}}, a, 14);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{5, 3, 0}));
}

TEST(CpuTensorIndexing, ReductionsOverEmptySetsGiveTheIdentity) {
  const Tensor empty = Tensor::allocate(DT::Float32, Shape{2, 0});
  auto out = harness().run("ReduceSum", {empty, make<int64_t>({1}, {1})}, {{DT::Float32, {2}}}, attr("keepdims", 0), 13, {1});
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 0}));
  Attributes a = attr("keepdims", 0);
  a.set("axes", I64s{1});
  out = harness().run("ReduceProd", {empty}, {{DT::Float32, {2}}}, a, 13);
  EXPECT_EQ(values<float>(out[0]), (F32s{1, 1}));
  out = harness().run("ReduceMax", {empty}, {{DT::Float32, {2}}}, a, 13);
  EXPECT_EQ(values<float>(out[0])[0], -std::numeric_limits<float>::infinity());
  // noop_with_empty_axes: empty axes leave the input as it is.
  out = harness().run("ReduceSum", {iota<float>({2, 2}), make<int64_t>({0}, {})}, {{DT::Float32, {2, 2}}},
                      attr("noop_with_empty_axes", 1), 13, {1});
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 1, 2, 3}));
  // LogSumExp and LogSum of an empty integer set are -inf, which no int64 holds: INT64_MIN, the
  // value x86-64's conversion gives (C++ leaves it undefined; UBSan fuzz finding).
  const Tensor empty_i64 = Tensor::allocate(DT::Int64, Shape{2, 0});
  out = harness().run("ReduceLogSumExp", {empty_i64}, {{DT::Int64, {2}}}, a, 13);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{INT64_MIN, INT64_MIN}));
  out = harness().run("ReduceLogSum", {empty_i64}, {{DT::Int64, {2}}}, a, 13);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{INT64_MIN, INT64_MIN}));
  // Integer reductions wrap around in two's complement (C++'s signed overflow is undefined;
  // UBSan fuzz finding): INT64_MAX + 1 = INT64_MIN, (2^40)^2 = 2^80 = 0 mod 2^64.
  out = harness().run("ReduceSum", {make<int64_t>({2}, {INT64_MAX, 1}), make<int64_t>({1}, {0})}, {{DT::Int64, {}}},
                      attr("keepdims", 0), 13, {1});
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{INT64_MIN}));
  out = harness().run("ReduceSumSquare", {make<int64_t>({1}, {int64_t{1} << 40})}, {{DT::Int64, {}}}, attr("keepdims", 0), 13);
  EXPECT_EQ(values<int64_t>(out[0]), (I64s{0}));
  // Integer mean divides like the type: (1 + 2) / 2 = 1.
  out = harness().run("ReduceMean", {make<int32_t>({2}, {1, 2})}, {{DT::Int32, {1}}}, {}, 13);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{1}));
}

TEST(CpuTensorIndexing, SoftmaxCoercesTo2DBeforeOpset13) {
  // opset 11, axis 0: all four elements form one row.
  auto out = harness().run("Softmax", {iota<float>({2, 2})}, {{DT::Float32, {2, 2}}}, attr("axis", 0), 11);
  const F32s want11{0.0320586f, 0.0871443f, 0.2368828f, 0.6439142f};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(values<float>(out[0])[i], want11[i], 1e-6);
  // opset 13, axis 0: each column on its own, softmax(0, 2) = (0.1192, 0.8808).
  out = harness().run("Softmax", {iota<double>({2, 2})}, {{DT::Float64, {2, 2}}}, attr("axis", 0), 13);
  const std::vector<double> want13{0.1192029, 0.1192029, 0.8807971, 0.8807971};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(values<double>(out[0])[i], want13[i], 1e-6);
  out = harness().run("Hardmax", {make<float>({2, 3}, {1, 5, 5, 0, -1, -2})}, {{DT::Float32, {2, 3}}}, {}, 13);
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 1, 0, 1, 0, 0}));
}

TEST(CpuTensorIndexing, TriluAndTile) {
  auto out = harness().run("Trilu", {iota<float>({3, 3}), make<int64_t>({}, {1})}, {{DT::Float32, {3, 3}}}, {}, 14, {1});
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 1, 2, 0, 0, 5, 0, 0, 0}));
  out = harness().run("Trilu", {iota<float>({3, 3}), make<int64_t>({}, {-1})}, {{DT::Float32, {3, 3}}},
                      attr("upper", 0), 14);
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 0, 0, 3, 0, 0, 6, 7, 0}));
  out = harness().run("Tile", {iota<float>({2, 1}), make<int64_t>({2}, {2, 3})}, {{DT::Float32, {4, 3}}}, {}, 13, {1});
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1}));
}

/// float16 / bfloat16 tensors from floats (bfloat16: the top half of the float's bits, exact
/// for the small integers used here).
Tensor half_tensor(DT t, Shape s, const F32s& v) {
  Tensor x = Tensor::allocate(t, std::move(s));
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &v[i], 4);
    x.data_as<uint16_t>()[i] = t == DT::Float16 ? float_to_half(v[i]) : static_cast<uint16_t>(u >> 16);
  }
  return x;
}
F32s half_values(const Tensor& x) {
  F32s v;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const uint16_t b = x.data_as<uint16_t>()[i];
    if (x.dtype() == DT::Float16) {
      v.push_back(half_to_float(b));
    } else {
      const uint32_t u = uint32_t{b} << 16;
      float f;
      std::memcpy(&f, &u, 4);
      v.push_back(f);
    }
  }
  return v;
}

TEST(CpuTensorIndexing, HalfPrecisionDtypesComputeInFloat) {
  for (DT t : {DT::Float16, DT::BFloat16}) {
    auto out = harness().run("ReduceSum", {half_tensor(t, {3}, {1, 2, 3})}, {{t, {1}}}, {}, 13);
    EXPECT_EQ(half_values(out[0]), (F32s{6}));
    out = harness().run("CumSum", {half_tensor(t, {3}, {1, 2, 3}), make<int64_t>({}, {0})}, {{t, {3}}}, {}, 14, {1});
    EXPECT_EQ(half_values(out[0]), (F32s{1, 3, 6}));
    out = harness().run("TopK", {half_tensor(t, {4}, {2, 8, -1, 4}), make<int64_t>({1}, {2})}, {{t, {2}}, {DT::Int64, {2}}},
                        {}, 11, {1});
    EXPECT_EQ(half_values(out[0]), (F32s{8, 4}));
    EXPECT_EQ(values<int64_t>(out[1]), (I64s{1, 3}));
    out = harness().run("Hardmax", {half_tensor(t, {3}, {2, 8, -1})}, {{t, {3}}}, {}, 13);
    EXPECT_EQ(half_values(out[0]), (F32s{0, 1, 0}));
  }
}

TEST(CpuTensorIndexing, RunTimeShapeParametersMustAgreeWithTheStaticOutput) {
  // Tile repeats, TopK K and Expand shape fed at run time: right values run, wrong ones stop.
  auto out = harness().run("Tile", {iota<float>({2}), make<int64_t>({1}, {2})}, {{DT::Float32, {4}}});
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 1, 0, 1}));
  EXPECT_THROW(harness().run("Tile", {iota<float>({2}), make<int64_t>({1}, {3})}, {{DT::Float32, {4}}}), Error);
  EXPECT_THROW(harness().run("TopK", {iota<float>({4}), make<int64_t>({1}, {3})}, {{DT::Float32, {2}}, {DT::Int64, {2}}},
                             {}, 11),
               Error);
  out = harness().run("Expand", {iota<float>({2, 1}), make<int64_t>({3}, {2, 1, 3})}, {{DT::Float32, {2, 2, 3}}});
  EXPECT_EQ(values<float>(out[0]), (F32s{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1}));
  EXPECT_THROW(harness().run("Expand", {iota<float>({2, 1}), make<int64_t>({2}, {2, 4})}, {{DT::Float32, {2, 3}}}),
               Error);
  EXPECT_THROW(harness().run("ConstantOfShape", {make<int64_t>({1}, {5})}, {{DT::Float32, {4}}}), Error);
}

/// Pad on NC1HWC0 (C = 20: the second channel block is padded) agrees with the plain kernel
/// and keeps the padding lanes zero.
TEST(CpuTensorIndexing, BlockedPadMatchesPlainPad) {
  for (const char* mode : {"constant", "reflect", "edge"}) {
    Attributes a;
    a.set("mode", std::string(mode));
    const Tensor x = iota<float>({1, 20, 3, 4});
    const Tensor pads = make<int64_t>({8}, {0, 0, 1, 2, 0, 0, 2, 1});
    const Shape ys{1, 20, 6, 7};
    const std::vector<Tensor> plain = harness().run("Pad", {x, pads}, {{DT::Float32, ys}}, a, 13, {1});

    Graph g("blocked");
    g.opsets[""] = 13;
    Value* xv = g.add_input("x", DT::Float32, x.shape());
    xv->format = Format::NC1HWC0;
    Value* pv = g.add_constant("pads", pads);
    Value* yv = g.add_value("y", DT::Float32, ys);
    yv->format = Format::NC1HWC0;
    Node* n = g.add_node("Pad", "pad", {xv, pv}, {yv}, a);
    KernelBuildContext ctx{*n, 13, 2};
    ASSERT_TRUE(cpu::pad_supports_blocked(*n, 13));
    std::unique_ptr<Kernel> k = cpu::make_blocked_pad(ctx);
    std::vector<Tensor> in{convert_format(x, Format::NC1HWC0), pads};
    std::vector<Tensor> out{Tensor::allocate(DT::Float32, ys, Format::NC1HWC0)};
    KernelIO io{in, out};
    k->run(io);
    EXPECT_EQ(values<float>(convert_format(out[0], Format::NCHW)), values<float>(plain[0])) << mode;
    // Storage [1, 2, 6, 7, 16]: lanes 4..15 of the second block are channel padding.
    const float* st = out[0].data_as<float>();
    for (int64_t i = 6 * 7 * 16; i < out[0].storage_numel(); ++i)
      if (i % 16 >= 4) {
        ASSERT_EQ(st[i], 0.0f) << mode << " storage element " << i;
      }
  }
  // A nonzero constant would fill the padding lanes: not blocked.
  Graph g("blocked");
  Value* xv = g.add_input("x", DT::Float32, Shape{1, 20, 3, 4});
  Node* n = g.add_node("Pad", "pad", {xv, g.add_constant("pads", make<int64_t>({8}, {0, 0, 1, 1, 0, 0, 1, 1})),
                                     g.add_constant("v", make<float>({}, {1}))},
                       {g.add_value("y", DT::Float32, Shape{1, 20, 5, 6})}, {});
  EXPECT_FALSE(cpu::pad_supports_blocked(*n, 13));
}

}  // namespace
}  // namespace ge::test
