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

// Split and Slice parts that are one contiguous run of their input are placed inside it (level
// basic and up), so their kernels copy nothing. Split on axis 1 of a [1, 32] tensor: s0 is
// a's first 64 bytes, s1 its second; a's buffer lives until s1's last reader (step 3).
//
//   step       | 0   64  128 192
//   0 Relu     | a   a   .   .
//   1 Split    | s0  s1  .   .      (no copy)
//   2 Erf(s0)  | s0  s1  e0  .
//   3 Erf(s1)  | .   s1  e0  e1
//   4 Add      | .   .   e0  e1     (y is a graph output)
const char* kSplitParts = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,32]
  %a: f32[1,32] = Relu(%x)
  %s0: f32[1,16], %s1: f32[1,16] = Split(%a) {axis=1}
  %e0: f32[1,16] = Erf(%s0)
  %e1: f32[1,16] = Erf(%s1)
  %y: f32[1,16] = Add(%e0, %e1)
  output %y
}
)";

/// Runs g planned under `env` and under level none (no sharing) on the same inputs; the outputs
/// must be equal bit for bit, since sharing bytes changes no arithmetic.
void expect_same_as_no_reuse(const char* text, core::Environment& env) {
  auto none = test::memory_env("auto", "none");
  auto ga = planned(text, env), gn = planned(text, *none);
  auto in = test::PassHarness::random_inputs(*ga, 5);
  core::Executable xa(std::shared_ptr<const Graph>(std::move(ga)), env, {"cpu", 2});
  core::Executable xn(std::shared_ptr<const Graph>(std::move(gn)), *none, {"cpu", 1});
  auto ya = xa.run(in), yn = xn.run(in);
  ASSERT_EQ(ya.size(), yn.size());
  for (size_t i = 0; i < ya.size(); ++i) EXPECT_EQ(ya[i].to_double_vector(), yn[i].to_double_vector()) << i;
}

TEST(PlanMemory, SplitPartsAreViewsOfTheirInput) {
  auto env = test::memory_env("greedy_by_size", "basic");
  std::unique_ptr<Graph> g = parse_graph(kSplitParts, "hand");
  core::ImportOptions io;
  core::propagate_shapes(*g, *env, io);
  core::CompileResult r = test::plan_only(*g, *env);
  EXPECT_EQ(offsets(*g), (std::map<std::string, int64_t>{{"a", 0}, {"s0", 0}, {"s1", 64}, {"e0", 128}, {"e1", 192}}));
  EXPECT_EQ(g->arena_bytes, 256u);
  EXPECT_EQ(r.counters["memory.part_views"], 2);
  EXPECT_TRUE(test::check_arena(*g, env->ops).empty());
  expect_same_as_no_reuse(kSplitParts, *env);
}

// Slice: rows 1..2 of a [1, 4, 16] tensor are bytes [64, 192) of it (a view); columns 0..7 of
// every row (v) and every other row (w) are not one run and get buffers of their own.
const char* kSlices = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,4,16]
  const %s1: i64[1] = [1]
  const %e3: i64[1] = [3]
  const %s0: i64[1] = [0]
  const %e8: i64[1] = [8]
  const %e4: i64[1] = [4]
  const %ax1: i64[1] = [1]
  const %ax2: i64[1] = [2]
  const %st2: i64[1] = [2]
  %a: f32[1,4,16] = Relu(%x)
  %u: f32[1,2,16] = Slice(%a, %s1, %e3, %ax1)
  %v: f32[1,4,8] = Slice(%a, %s0, %e8, %ax2)
  %w: f32[1,2,16] = Slice(%a, %s0, %e4, %ax1, %st2)
  %eu: f32[1,2,16] = Erf(%u)
  %ev: f32[1,4,8] = Erf(%v)
  %ew: f32[1,2,16] = Erf(%w)
  %y: f32[1,2,16] = Add(%eu, %ew)
  output %y
  output %ev
}
)";

TEST(PlanMemory, ContiguousSliceIsAViewOthersCopy) {
  auto env = test::memory_env("greedy_by_size", "aggressive");
  std::unique_ptr<Graph> g = parse_graph(kSlices, "hand");
  core::ImportOptions io;
  core::propagate_shapes(*g, *env, io);
  core::CompileResult r = test::plan_only(*g, *env);
  auto at = offsets(*g);
  EXPECT_EQ(at.at("u"), at.at("a") + 64);
  EXPECT_EQ(r.counters["memory.part_views"], 1);
  for (const char* own : {"v", "w"}) {  // outside a's 256 bytes
    EXPECT_TRUE(at.at(own) >= at.at("a") + 256 || at.at(own) + 128 <= at.at("a")) << own;
  }
  EXPECT_TRUE(test::check_arena(*g, env->ops).empty());
  expect_same_as_no_reuse(kSlices, *env);
}

// Pad in place (level aggressive): a [1, 1, 2, 16] image padded by one row above and below is
// one contiguous run of the [1, 1, 4, 16] output, starting at its second row (byte 64), so
// Relu writes there and Pad fills only the two border rows. Padding the last axis (q) would
// not be one run; that Pad copies.
const char* kPads = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,1,2,16]
  const %rows: i64[8] = [0,0,1,0,0,0,1,0]
  const %cols: i64[8] = [0,0,0,1,0,0,0,1]
  const %value: f32[] = [0.5]
  %a: f32[1,1,2,16] = Relu(%x)
  %p: f32[1,1,4,16] = Pad(%a, %rows, %value)
  %b: f32[1,1,2,16] = Sigmoid(%x)
  %q: f32[1,1,2,18] = Pad(%b, %cols, %value) {mode="edge"}
  %y: f32[1,1,4,16] = Erf(%p)
  %z: f32[1,1,2,18] = Erf(%q)
  output %y
  output %z
}
)";

TEST(PlanMemory, PadWritesItsInputIntoAContiguousInterior) {
  auto env = test::memory_env("greedy_by_size", "aggressive");
  std::unique_ptr<Graph> g = parse_graph(kPads, "hand");
  core::ImportOptions io;
  core::propagate_shapes(*g, *env, io);
  core::CompileResult r = test::plan_only(*g, *env);
  auto at = offsets(*g);
  EXPECT_EQ(at.at("a"), at.at("p") + 64);
  EXPECT_EQ(r.counters["memory.pad_in_place"], 1);
  EXPECT_TRUE(at.at("b") >= at.at("q") + 192 || at.at("b") + 128 <= at.at("q"));  // q copies b
  EXPECT_TRUE(test::check_arena(*g, env->ops).empty());
  expect_same_as_no_reuse(kPads, *env);
  // At level basic the Pad copies.
  auto basic = test::memory_env("greedy_by_size", "basic");
  std::unique_ptr<Graph> gb = parse_graph(kPads, "hand");
  core::propagate_shapes(*gb, *basic, io);
  EXPECT_EQ(test::plan_only(*gb, *basic).counters.count("memory.pad_in_place"), 0u);
}

// A dense block (Huang et al., DenseNet, 2017): each layer reads the Concat of the block input
// and every earlier layer's output, so x0, x1 and x2 are each read by several Concats. At level
// aggressive every Concat output is a prefix of one buffer and every x sits at its slice: no
// Concat copies. c1 dies (its reader e1 runs) before c2 is defined, c2 before c3.
//
//   step       | 0   64  128 192
//   0 Relu     | x0  .   .   .
//   1 Sigmoid  | x0  x1  .   .
//   2 Concat   | c1  c1  .   .      (x0, x1 in place)
//   3 Erf      | x0  x1  .   .      e1 elsewhere
//   4 ReduceMax| x0  x1  x2  .      x2 written at its slice of c2 and c3
//   5 Concat   | c2  c2  c2  .
//   ...          c3 = x0 x1 x2 x3 over [0, 256)
const char* kDenseBlock = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,1,1]
  const %axes: i64[1] = [1]
  %x0: f32[1,16,1,1] = Relu(%x)
  %x1: f32[1,16,1,1] = Sigmoid(%x0)
  %c1: f32[1,32,1,1] = Concat(%x0, %x1) {axis=1}
  %e1: f32[1,32,1,1] = Erf(%c1)
  %r1: f32[1,1,1,1] = ReduceMax(%e1) {axes=[1]}
  %x2: f32[1,16,1,1] = Add(%x1, %r1)
  %c2: f32[1,48,1,1] = Concat(%x0, %x1, %x2) {axis=1}
  %e2: f32[1,48,1,1] = Erf(%c2)
  %r2: f32[1,1,1,1] = ReduceMax(%e2) {axes=[1]}
  %x3: f32[1,16,1,1] = Mul(%x2, %r2)
  %c3: f32[1,64,1,1] = Concat(%x0, %x1, %x2, %x3) {axis=1}
  %y: f32[1,64,1,1] = Neg(%c3)
  output %y
}
)";

TEST(PlanMemory, DenseConcatChainIsOneBufferWithoutCopies) {
  auto env = test::memory_env("greedy_by_size", "aggressive");
  std::unique_ptr<Graph> g = parse_graph(kDenseBlock, "hand");
  core::ImportOptions io;
  core::propagate_shapes(*g, *env, io);
  core::CompileResult r = test::plan_only(*g, *env);
  auto at = offsets(*g);
  const int64_t base = at.at("c3");
  for (const char* c : {"c1", "c2", "x0"}) EXPECT_EQ(at.at(c), base) << c;
  EXPECT_EQ(at.at("x1"), base + 64);
  EXPECT_EQ(at.at("x2"), base + 128);
  EXPECT_EQ(at.at("x3"), base + 192);
  EXPECT_EQ(r.counters["memory.concat_in_place"], 2 + 3 + 4);  // every input of every Concat
  EXPECT_TRUE(test::check_arena(*g, env->ops).empty()) << test::check_arena(*g, env->ops);
  expect_same_as_no_reuse(kDenseBlock, *env);
  // The checker accepts an input sharing bytes with a Concat output only at its own slice: x2
  // moved onto x1's slice overlaps x1, c2 and c3 where they hold other data.
  for (Value* v : g->values())
    if (v->name() == "x2") v->arena_offset = base + 64;
  const std::string err = test::check_arena(*g, env->ops);
  EXPECT_NE(err.find("overlaps 'x2'"), std::string::npos) << err;
  EXPECT_NE(err.find("'x2' [" + std::to_string(base + 64)), std::string::npos) << err;
}

// The checker refuses a part placed anywhere but where its run of the input lies.
TEST(ArenaChecker, ReportsASplitPartOutOfPlace) {
  auto env = test::memory_env("greedy_by_size", "basic");
  auto g = planned(kSplitParts, *env);
  for (Value* v : g->values())
    if (v->name() == "s1") v->arena_offset = 0;  // on s0's bytes
  std::string err = test::check_arena(*g, env->ops);
  EXPECT_NE(err.find("overlaps 's1'"), std::string::npos) << err;
}

}  // namespace
}  // namespace ge
