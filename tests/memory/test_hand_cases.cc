// tests/memory/test_hand_cases.cc — small cases with the exact expected offsets, drawn as
// space-time pictures (rows = steps, columns = 64-byte address slots), as XLA's heap-simulator
// tests do; and in-place elementwise kernels checked against the no-reuse plan.
#include <gtest/gtest.h>

#include <map>

#include "arena_checker.h"
#include "ge/core/runtime.h"
#include "ge/sdk/text_ir.h"
#include "memory_env.h"
#include "pass_harness.h"

namespace ge {
namespace {

MemoryProblem four_buffers() {
  MemoryProblem p;
  p.num_steps = 5;
  p.buffers = {{"a", 256, 0, 1}, {"b", 128, 1, 2}, {"c", 128, 2, 3}, {"d", 256, 3, 4}};
  return p;
}

// greedy_by_size: a, d (256 B) first, both at 0 (lifetimes disjoint); b finds no gap below a
// and goes above it; c intersects b and d and goes above both. 512 bytes, where 384 would do
// (c at 0, d at 128): the greedy order is not optimal, which is why `auto` tries several.
//
//   step | 0   64  128 192 256 320 384 448
//   0    | a   a   a   a   .   .   .   .
//   1    | a   a   a   a   b   b   .   .
//   2    | .   .   .   .   b   b   c   c
//   3    | d   d   d   d   .   .   c   c
//   4    | d   d   d   d   .   .   .   .
TEST(MemoryPlanners, GreedyBySizeFourBuffers) {
  auto env = test::memory_env("auto", "aggressive");
  ArenaPlan plan = env->memory_planners.at("greedy_by_size")->plan(four_buffers());
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 256, 384, 0}));
  EXPECT_EQ(plan.arena_bytes, 512u);
  // greedy_by_breadth starts at the widest steps (1 and 3, 384 bytes each) and lands the same.
  plan = env->memory_planners.at("greedy_by_breadth")->plan(four_buffers());
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 256, 384, 0}));
  plan = env->memory_planners.at("naive")->plan(four_buffers());
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 256, 384, 512}));
  EXPECT_EQ(plan.arena_bytes, 768u);
}

const char* kConcatChain = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,1,1]
  %a: f32[1,16,1,1] = Relu(%x)
  %b: f32[1,16,1,1] = Sigmoid(%x)
  %c: f32[1,32,1,1] = Concat(%a, %b) {axis=1}
  %d: f32[1,32,1,1] = Erf(%c)
  %r: f32[1,32] = Flatten(%d) {axis=1}
  %y: f32[1,32] = Erf(%r)
  output %y
}
)";

std::map<std::string, int64_t> offsets(const Graph& g) {
  std::map<std::string, int64_t> m;
  for (const Value* v : g.values())
    if (v->arena_offset >= 0) m[v->name()] = v->arena_offset;
  return m;
}

std::unique_ptr<Graph> planned(const char* text, core::Environment& env) {
  std::unique_ptr<Graph> g = parse_graph(text, "hand");
  core::ImportOptions io;
  core::propagate_shapes(*g, env, io);
  test::plan_only(*g, env);
  test::ArenaCheckOptions o;
  o.views_aliased = true;
  std::string err = test::check_arena(*g, env.ops, o);
  EXPECT_TRUE(err.empty()) << err;
  return g;
}

// aggressive: a and b are written straight into their slices of c, Erf runs in place, the
// Flatten is a view: one 128-byte buffer for everything.
//
//   step       | 0   64
//   0 Relu     | a   .
//   1 Sigmoid  | a   b
//   2 Concat   | c   c      (a, b already in place: no copy)
//   3 Erf      | d   d
//   4 Flatten  | r   r
//   5 Erf      | .   .      (y is a graph output, outside the arena)
TEST(PlanMemory, AggressiveConcatInPlaceAndInPlaceErf) {
  auto env = test::memory_env("greedy_by_size", "aggressive");
  auto g = planned(kConcatChain, *env);
  EXPECT_EQ(offsets(*g), (std::map<std::string, int64_t>{{"a", 0}, {"b", 64}, {"c", 0}, {"d", 0}, {"r", 0}}));
  EXPECT_EQ(g->arena_bytes, 128u);
}

// basic: views only. greedy_by_size places c (128 B, first) at 0, d (+ its view r) above it,
// a below d's lifetime at 128, b above a.
//
//   step       | 0   64  128 192
//   0 Relu     | .   .   a   .
//   1 Sigmoid  | .   .   a   b
//   2 Concat   | c   c   a   b
//   3 Erf      | c   c   d   d
//   4 Flatten  | .   .   d=r d=r
//   5 Erf      | .   .   r   r
TEST(PlanMemory, BasicViewsOnly) {
  auto env = test::memory_env("greedy_by_size", "basic");
  auto g = planned(kConcatChain, *env);
  EXPECT_EQ(offsets(*g), (std::map<std::string, int64_t>{{"a", 128}, {"b", 192}, {"c", 0}, {"d", 128}, {"r", 128}}));
  EXPECT_EQ(g->arena_bytes, 256u);
}

TEST(PlanMemory, NoneIsAPrefixSum) {
  auto env = test::memory_env("auto", "none");
  std::unique_ptr<Graph> g = parse_graph(kConcatChain, "hand");
  core::ImportOptions io;
  core::propagate_shapes(*g, *env, io);
  core::CompileResult r = test::plan_only(*g, *env);
  EXPECT_EQ(g->arena_bytes, 64u + 64 + 128 + 128 + 128);
  EXPECT_EQ(r.counters["memory.no_reuse_bytes"], 512);
  EXPECT_EQ(r.counters["memory.lower_bound_bytes"], 128);  // with every legal alias, whatever the level
  EXPECT_TRUE(test::check_arena(*g, env->ops).empty());
}

// The checker itself: moving b onto a while both are live is reported, with the picture.
TEST(ArenaChecker, ReportsAnOverlapAndDrawsIt) {
  auto env = test::memory_env("greedy_by_size", "aggressive");
  auto g = planned(kConcatChain, *env);
  for (Value* v : g->values())
    if (v->name() == "b") v->arena_offset = 0;
  std::string err = test::check_arena(*g, env->ops);
  EXPECT_NE(err.find("'a' [0, 64) steps 0..2 overlaps 'b' [0, 64) steps 1..2"), std::string::npos) << err;
  EXPECT_NE(err.find(" 1 |#"), std::string::npos) << err;  // both in the first bucket at step 1
}

// In-place elementwise kernels: same-shaped outputs over inputs that die there, including a
// broadcast operand on either side and Mul(b, b). Outputs equal the no-reuse plan's exactly.
const char* kInPlace = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,8,4,4]
  input %bias: f32[1,8,1,1]
  %a: f32[1,8,4,4] = Relu(%x)
  %b: f32[1,8,4,4] = Add(%a, %bias)
  %c: f32[1,8,4,4] = Mul(%b, %b)
  %d: f32[1,8,4,4] = Sigmoid(%c)
  %e: f32[1,8,4,4] = Sub(%bias, %d)
  %f: f32[1,8,4,4] = Erf(%e)
  output %f
}
)";

TEST(PlanMemory, InPlaceElementwiseKernelsMatchNoReuse) {
  auto aggressive = test::memory_env("auto", "aggressive"), none = test::memory_env("auto", "none");
  auto ga = planned(kInPlace, *aggressive), gn = planned(kInPlace, *none);
  EXPECT_EQ(offsets(*ga), (std::map<std::string, int64_t>{{"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}, {"e", 0}}));
  auto in = test::PassHarness::random_inputs(*ga, 3);
  core::Executable xa(std::shared_ptr<const Graph>(std::move(ga)), *aggressive, {"cpu", 1});
  core::Executable xn(std::shared_ptr<const Graph>(std::move(gn)), *none, {"cpu", 1});
  auto ya = xa.run(in), yn = xn.run(in);
  EXPECT_EQ(ya[0].to_double_vector(), yn[0].to_double_vector());
}

}  // namespace
}  // namespace ge
