// MatMul and Gemm tests: hand-computed products, numpy broadcasting and 1-D promotion
// (onnx/docs/Operators.md#MatMul), Gemm's transA/transB/alpha/beta and C broadcasting
// (Operators.md#Gemm), with B constant (pre-reordered weights) and not.
// test_util.h first: it brings ge/sdk/error.h, which kernel_harness.h uses without including.
#include "test_util.h"
#include "kernel_harness.h"
#include "kernels.h"
#include "vecmath.h"

namespace ge::test {
namespace {

Tensor run1(const std::string& op, const std::vector<Tensor>& in, Shape out, Attributes a = {},
            std::set<size_t> consts = {}) {
  KernelHarness h(cpu::register_matmul_kernels);
  return h.run(op, in, {OutSpec{DataType::Float32, out}}, a, 13, consts)[0];
}

// Reference batched matmul of [B..., M, K] x [B..., K, N] with numpy broadcasting over batch.
std::vector<float> ref_matmul(const Tensor& a, const Tensor& b, const Shape& ys) {
  const size_t R = ys.rank();
  Ints as = a.shape().dims(), bs = b.shape().dims();
  as.insert(as.begin(), R - as.size(), 1);
  bs.insert(bs.begin(), R - bs.size(), 1);
  const int64_t M = ys[R - 2], N = ys[R - 1], K = as[R - 1];
  std::vector<float> y(ys.numel());
  const int64_t batches = ys.numel() / (M * N);
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t rem = bi, ao = 0, bo = 0, astr = M * K, bstr = K * N;
    for (size_t d = R - 2; d-- > 0;) {
      int64_t i = rem % ys[d];
      rem /= ys[d];
      ao += (as[d] == 1 ? 0 : i) * astr;
      bo += (bs[d] == 1 ? 0 : i) * bstr;
      astr *= as[d];
      bstr *= bs[d];
    }
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += a.data_as<float>()[ao + m * K + k] * b.data_as<float>()[bo + k * N + n];
        y[(bi * M + m) * N + n] = static_cast<float>(s);
      }
  }
  return y;
}

TEST(MatMul, TwoD) {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6}), b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  expect_near(run1("MatMul", {a, b}, {2, 2}), {58, 64, 139, 154});
  expect_near(run1("MatMul", {a, b}, {2, 2}, {}, {1}), {58, 64, 139, 154});
}

TEST(MatMul, BatchedBroadcast) {
  Tensor a = rnd({2, 1, 4, 3}, 11), b = rnd({3, 3, 5}, 12);
  Shape ys{2, 3, 4, 5};
  expect_near(run1("MatMul", {a, b}, ys), ref_matmul(a, b, ys));
  expect_near(run1("MatMul", {a, b}, ys, {}, {1}), ref_matmul(a, b, ys));
}

TEST(MatMul, BatchedTimesMatrixConstant) {  // the transformer FC form: [B, S, K] x [K, N]
  Tensor a = rnd({2, 3, 8}, 13), b = rnd({8, 6}, 14);
  Shape ys{2, 3, 6};
  expect_near(run1("MatMul", {a, b}, ys, {}, {1}), ref_matmul(a, b, ys));
}

TEST(MatMul, OneDOperands) {
  Tensor v = f32({3}, {1, 2, 3}), m = f32({3, 2}, {1, 0, 0, 1, 1, 1}), mt = f32({2, 3}, {1, 0, 0, 0, 1, 1});
  expect_near(run1("MatMul", {v, v}, Shape{}), {14});       // dot product → scalar
  expect_near(run1("MatMul", {v, m}, {2}), {4, 5});         // [3]·[3,2] → [2]
  expect_near(run1("MatMul", {mt, v}, {2}), {1, 5});        // [2,3]·[3] → [2]
  Tensor batch = f32({2, 2, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});
  expect_near(run1("MatMul", {batch, v}, {2, 2}), {1, 2, 3, 6});  // [2,2,3]·[3] → [2,2]
}

TEST(MatMul, EmptyInnerDimensionGivesZeros) {  // numpy.matmul: a sum over nothing is 0
  Tensor a = Tensor::allocate(DataType::Float32, Shape{2, 0}), b = Tensor::allocate(DataType::Float32, Shape{0, 3});
  expect_near(run1("MatMul", {a, b}, {2, 3}), {0, 0, 0, 0, 0, 0});  // oneDNN's matmul divided by K = 0: SIGFPE
}

TEST(Gemm, EmptyInnerDimensionGivesBetaTimesC) {
  Tensor a = Tensor::allocate(DataType::Float32, Shape{2, 0}), b = Tensor::allocate(DataType::Float32, Shape{0, 3});
  auto beta2 = attrs({{"beta", 2.0f}});
  expect_near(run1("Gemm", {a, b, f32({3}, {1, 2, 3})}, {2, 3}, beta2), {2, 4, 6, 2, 4, 6});
  expect_near(run1("Gemm", {a, b, f32({2, 1}, {1, 2})}, {2, 3}, beta2), {2, 2, 2, 4, 4, 4});
  expect_near(run1("Gemm", {a, b}, {2, 3}), {0, 0, 0, 0, 0, 0});
}

TEST(MatMul, RejectsInt32) {
  Tensor a = Tensor::allocate(DataType::Int32, {2, 2});
  KernelHarness h(cpu::register_matmul_kernels);
  EXPECT_THROW(h.run("MatMul", {a, a}, {OutSpec{DataType::Int32, {2, 2}}}), UnsupportedError);
}

TEST(Gemm, TransBWithVectorBias) {  // the fully-connected layer: X · Wᵀ + b
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor w = f32({2, 3}, {1, 0, 1, 0, 1, 0});  // [N, K]
  Tensor b = f32({2}, {10, 20});
  auto a = attrs({{"transB", int64_t{1}}});
  expect_near(run1("Gemm", {x, w, b}, {2, 2}, a, {1, 2}), {14, 22, 20, 25});
  expect_near(run1("Gemm", {x, w, b}, {2, 2}, a), {14, 22, 20, 25});
}

TEST(Gemm, AllAttributes) {
  // Y = 0.5 * Aᵀ·Bᵀ + 2 * C, A [K=2, M=2], B [N=2, K=2], C [M, 1].
  Tensor A = f32({2, 2}, {1, 2, 3, 4});  // Aᵀ = [[1,3],[2,4]]
  Tensor B = f32({2, 2}, {1, 1, 0, 1});  // Bᵀ = [[1,0],[1,1]]
  Tensor C = f32({2, 1}, {1, -1});
  // Aᵀ·Bᵀ = [[4,3],[6,4]]
  auto a = attrs({{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 0.5f}, {"beta", 2.0f}});
  expect_near(run1("Gemm", {A, B, C}, {2, 2}, a), {4, 3.5f, 1, 0});
  expect_near(run1("Gemm", {A, B, C}, {2, 2}, a, {1, 2}), {4, 3.5f, 1, 0});
}

TEST(Gemm, ScalarAndMatrixBiasAndNone) {
  Tensor A = f32({1, 2}, {1, 2}), B = f32({2, 3}, {1, 2, 3, 4, 5, 6});  // A·B = [9, 12, 15]
  expect_near(run1("Gemm", {A, B, f32(Shape{}, {1})}, {1, 3}), {10, 13, 16});
  expect_near(run1("Gemm", {A, B, f32({1, 3}, {1, 2, 3})}, {1, 3}, attrs({{"beta", 0.0f}})), {9, 12, 15});
  expect_near(run1("Gemm", {A, B, Tensor()}, {1, 3}), {9, 12, 15});
  expect_near(run1("Gemm", {A, B}, {1, 3}, attrs({{"alpha", 2.0f}})), {18, 24, 30});
}

// One row (a classifier at batch 1) runs the column-split GEMV of gemv.h on AVX-512: K = 37 and
// N = 150 leave tails in the 16-wide dot products and the 64-column blocks; 1 and 2 threads.
TEST(Gemm, OneRowProduct) {
  const int64_t K = 37, N = 150;
  Tensor A = rnd({1, K}, 3), Bt = rnd({N, K}, 4), C = rnd({N}, 5);
  Tensor B = Tensor::allocate(DataType::Float32, {K, N});  // Btᵀ
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) B.data_as<float>()[k * N + n] = Bt.data_as<float>()[n * K + k];
  // Y = 0.5 · A·B + 2 · C (C of shape [N], [1, N], or a scalar 1.5)
  auto expected = [&](const std::string& c) {
    std::vector<float> y(N);
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += double(A.data_as<float>()[k]) * B.data_as<float>()[k * N + n];
      y[n] = static_cast<float>(0.5 * s + (c == "scalar" ? 2 * 1.5 : 2.0 * C.data_as<float>()[n]));
    }
    return y;
  };
  KernelHarness h(cpu::register_matmul_kernels);
  for (int threads : {1, 2})
    for (bool trans : {false, true})
      for (const std::string c : {"vector", "row", "scalar"}) {
        Attributes a = attrs({{"transB", int64_t{trans}}, {"alpha", 0.5f}, {"beta", 2.0f}});
        Tensor cin = c == "scalar" ? f32(Shape{}, {1.5f}) : c == "row" ? C.reshaped({1, N}) : C;
        for (std::set<size_t> consts : {std::set<size_t>{}, std::set<size_t>{1, 2}}) {
          Tensor y = h.run("Gemm", {A, trans ? Bt : B, cin}, {OutSpec{DataType::Float32, {1, N}}}, a, 13, consts,
                           threads)[0];
          expect_near(y, expected(c), 1e-5f);
          if (cpu::vec::has_avx512()) {
            EXPECT_EQ(h.last_impl(), "cpu:gemv_avx512");
          }
        }
      }
}

TEST(Gemm, RejectsBadBias) {
  Tensor A = rnd({2, 2}), B = rnd({2, 3});
  EXPECT_THROW(run1("Gemm", {A, B, rnd({2})}, {2, 3}), InvalidGraphError);
}

}  // namespace
}  // namespace ge::test

namespace ge::test {
namespace {

// A Gemm dimension of 2^40 (K here) once reached oneDNN's primitive creation and faulted with
// SIGFPE; every oneDNN-based CPU kernel now refuses dimensions above 2^31-1 at build time. The
// operands are views of a dummy buffer: the kernel is refused before it reads them.
TEST(Gemm, DimensionAbove2To31IsRefusedAtBuild) {
  KernelHarness h(cpu::register_matmul_kernels);
  float dummy[4] = {};
  const int64_t K = int64_t{1} << 40;
  Tensor a = Tensor::view(DataType::Float32, {1, K}, dummy), b = Tensor::view(DataType::Float32, {K, 1}, dummy);
  try {
    h.run("Gemm", {a, b}, {OutSpec{DataType::Float32, {1, 1}}});
    ADD_FAILURE() << "a Gemm with K = 2^40 was built";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("above 2^31-1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ge::test
