// tests/memory/test_inplace_variadic.cc — an output that shares an input's buffer (memory level
// aggressive) gives the values of the no-reuse plan for ops whose kernels read some inputs
// after writing the output: Sum's passes (out = in0 + in1, then out += in_k) read in_k late,
// so Sum(v, v, v) once gave 4v. Values are stated from the inputs (hand formulas), not taken
// from another run of the same kernels.
#include <gtest/gtest.h>

#include <cmath>

#include "arena_checker.h"
#include "ge/core/runtime.h"
#include "ge/sdk/text_ir.h"
#include "memory_env.h"
#include "pass_harness.h"

namespace ge {
namespace {

std::vector<double> run_at(const char* text, const std::string& level, OptLevel opt, const std::vector<Tensor>& in) {
  auto env = test::memory_env("auto", level);
  std::unique_ptr<Graph> g = parse_graph(text, "inplace");
  core::ImportOptions io;
  core::propagate_shapes(*g, *env, io);
  core::CompileOptions o;
  o.opt_level = opt;
  o.fail_on_pass_error = true;
  core::compile_graph(*g, *env, o);
  test::ArenaCheckOptions co;
  co.views_aliased = level != "none";
  EXPECT_TRUE(test::check_arena(*g, env->ops, co).empty());
  core::Executable x(std::shared_ptr<const Graph>(std::move(g)), *env, {"cpu", 1});
  return x.run(in)[0].to_double_vector();
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << "element " << i;
}

const char* kSumOfOneValue = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,6,8]
  %v: f32[2,6,8] = Relu(%x)
  %s: f32[2,6,8] = Sum(%v, %v, %v)
  %y: f32[2,6,8] = Sigmoid(%s)
  output %y
}
)";

TEST(InPlaceVariadic, SumOfOneValueThreeTimes) {
  auto g = parse_graph(kSumOfOneValue, "inplace");
  auto in = test::PassHarness::random_inputs(*g, 11);
  std::vector<double> want;
  for (float x : in[0].span<float>()) want.push_back(1 / (1 + std::exp(-3.0 * std::max(x, 0.f))));
  for (const char* level : {"none", "aggressive"})
    for (OptLevel opt : {OptLevel::O0, OptLevel::O2}) {
      SCOPED_TRACE(std::string(level) + " O" + std::to_string(static_cast<int>(opt)));
      expect_near_all(run_at(kSumOfOneValue, level, opt, in), want);
    }
}

// Sub(a, b) -> v; Sum(b, c, v): b is a graph input, c broadcasts, v (input 2) dies at the Sum.
const char* kSumLateInput = R"(graph g opset(ai.onnx=13) {
  input %a: f32[2,3,4,4]
  input %b: f32[2,3,4,4]
  input %c: f32[1,3,1,1]
  %v: f32[2,3,4,4] = Sub(%a, %b)
  %s: f32[2,3,4,4] = Sum(%b, %c, %v)
  %y: f32[2,3,4,4] = Sigmoid(%s)
  output %y
}
)";

TEST(InPlaceVariadic, SumWhoseThirdInputDiesThere) {
  auto g = parse_graph(kSumLateInput, "inplace");
  auto in = test::PassHarness::random_inputs(*g, 5);
  auto a = in[0].to_double_vector(), b = in[1].to_double_vector(), c = in[2].to_double_vector();
  std::vector<double> want;
  for (size_t i = 0; i < a.size(); ++i) {
    const size_t ch = (i / 16) % 3;
    want.push_back(1 / (1 + std::exp(-(b[i] + c[ch] + (a[i] - b[i])))));
  }
  for (OptLevel opt : {OptLevel::O0, OptLevel::O2}) expect_near_all(run_at(kSumLateInput, "aggressive", opt, in), want);
}

// Transpose -> Sum(t, t, t) -> Slice: the Sum is not fused at O2 (its input is a Transpose).
const char* kTransposeSum = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,6,8]
  %t: f32[6,8,2] = Transpose(%x) {perm=[1,2,0]}
  %s: f32[6,8,2] = Sum(%t, %t, %t)
  const %st: i64[1] = [0]
  const %en: i64[1] = [3]
  %y: f32[3,8,2] = Slice(%s, %st, %en)
  output %y
}
)";

TEST(InPlaceVariadic, TransposeThenSumOfOneValue) {
  auto g = parse_graph(kTransposeSum, "inplace");
  auto in = test::PassHarness::random_inputs(*g, 3);
  auto x = in[0].to_double_vector();
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 2; ++k) want.push_back(3 * x[(k * 6 + i) * 8 + j]);
  for (OptLevel opt : {OptLevel::O0, OptLevel::O2}) expect_near_all(run_at(kTransposeSum, "aggressive", opt, in), want);
}

// Which ops run in place and which are views is the registry's contract (OpDef::inplace_inputs,
// OpDef::view), not a list in the planner: a registry entry taking them away changes the plan.
const char* kChain = R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,8]
  %a: f32[4,8] = Exp(%x)
  %b: f32[4,8] = Sigmoid(%a)
  const %s: i64[1] = [32]
  %r: f32[32] = Reshape(%b, %s)
  %y: f32[32] = Exp(%r)
  output %y
}
)";

TEST(InPlaceVariadic, InPlaceAndViewsFollowRegistryContracts) {
  for (bool contracts : {true, false}) {
    SCOPED_TRACE(contracts ? "standard contracts" : "contracts removed");
    auto env = test::memory_env("auto", "aggressive");
    if (!contracts) {
      OpMeta m;
      m.op_types = {"Sigmoid"};
      m.inplace_inputs = std::vector<int>{};
      env->ops.apply_meta(m);
      OpMeta v;
      v.op_types = {"Reshape"};
      v.view = false;
      env->ops.apply_meta(v);
    }
    auto g = parse_graph(kChain, "contracts");
    core::ImportOptions io;
    core::propagate_shapes(*g, *env, io);
    test::plan_only(*g, *env);
    const int64_t a = g->find_value("a")->arena_offset, b = g->find_value("b")->arena_offset;
    const int64_t r = g->find_value("r")->arena_offset;
    ASSERT_GE(a, 0);
    ASSERT_GE(b, 0);
    EXPECT_EQ(a == b, contracts);  // Sigmoid on a's bytes
    EXPECT_EQ(r == b, contracts);  // Reshape: b's bytes under a new shape
  }
}

}  // namespace
}  // namespace ge
