// ge.Attention kernel tests: Y = softmax(scale · Q · Kt + mask, filled where cond == fill_if) · V
// (plugins/fusion/ops/transformer.toml; Vaswani et al. 2017, eq. 1) against the definition in
// double, on both of the kernel's paths — one matmul per head inside a loop over heads, and
// batched matmuls over all heads — at 1, 2 and 4 threads, with score rows that are not a multiple
// of 16 long (the softmax's masked tails).
// test_util.h first: it brings ge/sdk/error.h, which kernel_harness.h uses without including.
#include "test_util.h"
#include "kernel_harness.h"
#include "kernels.h"

#include <limits>

namespace ge::test {
namespace {

Tensor causal_cond(int64_t S, bool future_is_true) {  // [1, 1, S, S], GPT-2's mask: key j > query i
  Tensor c = Tensor::allocate(DataType::Bool, Shape{1, 1, S, S});
  for (int64_t i = 0; i < S; ++i)
    for (int64_t j = 0; j < S; ++j) c.data_as<bool>()[i * S + j] = (j > i) == future_is_true;
  return c;
}

/// The definition, in double: per batch·head b, L = scale · Q_b · Kt_b + mask (broadcast), then L =
/// fill where cond (broadcast) == fill_if, Y_b = softmax(L) · V_b.
std::vector<float> reference(const Tensor& q, const Tensor& kt, const Tensor& v, const Tensor* mask, const Tensor* cond,
                             float scale, float fill, bool fill_if) {
  const Shape& qs = q.shape();
  const size_t r = qs.rank();
  const int64_t S = qs[r - 2], d = qs[r - 1], S2 = kt.shape()[r - 1], dv = v.shape()[r - 1];
  const int64_t BH = q.numel() / (S * d);
  auto at = [&](const Tensor& t, int64_t b, int64_t i, int64_t j) {  // t broadcast to [.., S, S2]
    std::vector<int64_t> md = t.shape().dims();
    md.insert(md.begin(), r - md.size(), 1);
    std::vector<int64_t> idx(r);
    idx[r - 2] = i, idx[r - 1] = j;
    for (size_t k = r - 2, rem = b; k-- > 0;) idx[k] = static_cast<int64_t>(rem % qs[k]), rem /= qs[k];
    int64_t off = 0;
    for (size_t k = 0; k < r; ++k) off = off * md[k] + (md[k] == 1 ? 0 : idx[k]);
    return off;
  };
  std::vector<float> y(BH * S * dv);
  for (int64_t b = 0; b < BH; ++b)
    for (int64_t i = 0; i < S; ++i) {
      std::vector<double> l(S2);
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < S2; ++j) {
        double s = 0;
        for (int64_t k = 0; k < d; ++k)
          s += double(q.data_as<float>()[(b * S + i) * d + k]) * kt.data_as<float>()[(b * d + k) * S2 + j];
        l[j] = scale * s + (mask ? mask->data_as<float>()[at(*mask, b, i, j)] : 0.0);
        if (cond && cond->data_as<bool>()[at(*cond, b, i, j)] == fill_if) l[j] = fill;
        mx = std::max(mx, l[j]);
      }
      double sum = 0;
      for (double& e : l) sum += (e = std::exp(e - mx));
      for (int64_t c = 0; c < dv; ++c) {
        double acc = 0;
        for (int64_t j = 0; j < S2; ++j) acc += l[j] / sum * v.data_as<float>()[(b * S2 + j) * dv + c];
        y[(b * S + i) * dv + c] = static_cast<float>(acc);
      }
    }
  return y;
}

struct Case {
  Shape q, kt, v;
  int threads;
  bool per_head;  // the path the kernel must take
};

class AttentionKernel : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionKernel, EqualsTheDefinitionWithABroadcastMask) {
  const Case& c = GetParam();
  const Tensor q = rnd(c.q, 1), kt = rnd(c.kt, 2), v = rnd(c.v, 3);
  const int64_t r = c.q.rank(), S = c.q[r - 2], S2 = c.kt[r - 1];
  const Tensor mask = rnd(Shape{1, 1, S, S2}, 4);  // broadcast over batch and heads
  KernelHarness h(cpu::register_fused_attention_kernels);
  Shape ys = c.q;
  ys[r - 1] = c.v[r - 1];
  const Tensor y = h.run("ge.Attention", {q, kt, v, mask}, {OutSpec{DataType::Float32, ys}},
                         attrs({{"scale", AttrValue(0.3f)}}), 13, {}, c.threads)[0];
  EXPECT_EQ(h.last_impl().find(":per_head:") != std::string::npos, c.per_head) << h.last_impl();
  expect_near(y, reference(q, kt, v, &mask, nullptr, 0.3f, 0.f, true), 1e-5f);
}

INSTANTIATE_TEST_SUITE_P(
    Paths, AttentionKernel,
    ::testing::Values(
        // 6 small heads: batched at 1 thread (their scores stay in L2) and at 4 (6 heads do not
        // split evenly over 4 threads), one per thread-iteration at 2.
        Case{{2, 3, 37, 16}, {2, 3, 16, 41}, {2, 3, 41, 24}, 1, false},
        Case{{2, 3, 37, 16}, {2, 3, 16, 41}, {2, 3, 41, 24}, 2, true},
        Case{{2, 3, 37, 16}, {2, 3, 16, 41}, {2, 3, 41, 24}, 4, false},
        // bert_small's heads (S 128, d 64; the per-head matmuls use their scratchpad, each thread
        // its own), and a ViT-size score block that does not fit half an L2 at one thread.
        Case{{1, 4, 128, 64}, {1, 4, 64, 128}, {1, 4, 128, 64}, 2, true},
        Case{{1, 12, 197, 16}, {1, 12, 16, 197}, {1, 12, 197, 8}, 1, true}),
    [](const ::testing::TestParamInfo<Case>& i) {
      const Case& c = i.param;
      return "BH" + std::to_string(c.q.numel() / (c.q[c.q.rank() - 2] * c.q[c.q.rank() - 1])) + "_S" +
             std::to_string(c.q[c.q.rank() - 2]) + "_" + std::to_string(c.threads) + "threads_" +
             (c.per_head ? "per_head" : "batched");
    });

TEST(AttentionKernel, FillsWhereTheConditionHolds) {
  // GPT-2's causal mask: Where(key after query, -inf, scores). Query 0 sees only key 0, so its
  // output row is V's row 0; either polarity of the condition gives the same result.
  const int64_t S = 21, d = 8;
  const Tensor q = rnd(Shape{1, 2, S, d}, 5), kt = rnd(Shape{1, 2, d, S}, 6), v = rnd(Shape{1, 2, S, d}, 7);
  const float ninf = -std::numeric_limits<float>::infinity();
  for (int threads : {1, 2})
    for (bool fill_if : {true, false}) {
      const Tensor cond = causal_cond(S, fill_if);
      KernelHarness h(cpu::register_fused_attention_kernels);
      const Tensor y = h.run("ge.Attention", {q, kt, v, Tensor(), cond}, {OutSpec{DataType::Float32, {1, 2, S, d}}},
                             attrs({{"scale", AttrValue(0.125f)}, {"fill", AttrValue(ninf)},
                                    {"fill_if", AttrValue(int64_t{fill_if})}}),
                             13, {}, threads)[0];
      expect_near(y, reference(q, kt, v, nullptr, &cond, 0.125f, ninf, fill_if), 1e-5f);
      for (int64_t hd = 0; hd < 2; ++hd)
        for (int64_t c = 0; c < d; ++c)
          EXPECT_FLOAT_EQ(y.data_as<float>()[hd * S * d + c], v.data_as<float>()[hd * S * d + c]) << "head " << hd;
    }
}

TEST(AttentionKernel, RefusesANonBoolCondition) {
  KernelHarness h(cpu::register_fused_attention_kernels);
  const Tensor q = rnd(Shape{1, 1, 4, 2}), kt = rnd(Shape{1, 1, 2, 4}), v = rnd(Shape{1, 1, 4, 2});
  EXPECT_THROW(h.run("ge.Attention", {q, kt, v, Tensor(), rnd(Shape{4, 4})}, {OutSpec{DataType::Float32, {1, 1, 4, 2}}}),
               UnsupportedError);
}

}  // namespace
}  // namespace ge::test
