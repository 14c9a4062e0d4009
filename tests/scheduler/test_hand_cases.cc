// tests/scheduler/test_hand_cases.cc — each scheduler on a small hand-made DAG with fixed node
// costs: the graph before (text IR) and the expected schedule after, stated exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "ge/sdk/error.h"
#include "schedule_test_util.h"

namespace ge {
namespace {

using test::context;
using test::describe_schedule;
using test::FixedCostModel;
using test::run_scheduler;

// a feeds a long branch (b: 50 µs) and a short one (c, d: 10 µs each); e joins them.
const char* kDiamond = R"(graph g opset(ai.onnx=13) {
  input %x: f32[4]
  %a: f32[4] = Relu(%x)  # a
  %c: f32[4] = Relu(%a)  # c
  %d: f32[4] = Relu(%c)  # d
  %b: f32[4] = Relu(%a)  # b
  %e: f32[4] = Add(%b, %d)  # e
  output %e
}
)";

TEST(CriticalPath, UpwardRankOrderAndEarliestFinishStreams) {
  // Upward ranks (event cost 1): e 10, d 21, c 32, b 61, a 72. b outranks c although c comes
  // first in the graph, so the issue order is a b c d e. Earliest finish: a s0 [0,10], b s0
  // [10,60], c s1 [11,21] (s0 would end at 70), d s1 [21,31], e s0 [60,70] (s1 would end at 71).
  auto g = parse_graph(kDiamond);
  FixedCostModel cm({{"a", 10}, {"b", 50}, {"c", 10}, {"d", 10}, {"e", 10}}, 1);
  run_scheduler("parallel", *g, context(cm, 2));
  EXPECT_EQ(describe_schedule(*g), "stream 0: a b e\nstream 1: c d\nevents: a->c d->e\n");
  EXPECT_EQ(g->schedule.streams, 2);
  EXPECT_TRUE(check_schedule(*g).empty());
  // Simulated: e ends at 70 on s0 (waits for d's event at 31 + 1).
  EXPECT_DOUBLE_EQ(simulate_schedule(*g, cm, 2), 0.070);
}

TEST(CriticalPath, StreamsNeverExceedTheThreadBudget) {
  auto g = parse_graph(kDiamond);
  FixedCostModel cm({{"a", 10}, {"b", 50}, {"c", 10}, {"d", 10}, {"e", 10}}, 1);
  run_scheduler("parallel", *g, context(cm, 1, {{"streams", "4"}}));
  EXPECT_EQ(g->schedule.streams, 1);
  EXPECT_TRUE(g->schedule.events.empty());
}

// Streams set by hand: s0 runs a b c, s1 runs d e f.
const char* kEvents = R"(graph g opset(ai.onnx=13) {
  input %x: f32[4]
  %a: f32[4] = Relu(%x)  # a
  %b: f32[4] = Relu(%a)  # b
  %d: f32[4] = Add(%a, %b)  # d
  %e: f32[4] = Relu(%d)  # e
  %c: f32[4] = Add(%b, %e)  # c
  %f: f32[4] = Sum(%a, %c, %e)  # f
  output %f
}
)";

TEST(MinimalEvents, ExactlyTheEdgesNotImpliedByStreamOrderAndOtherEvents) {
  auto g = parse_graph(kEvents);
  for (Node* n : g->nodes()) n->stream = (n->name() == "d" || n->name() == "e" || n->name() == "f") ? 1 : 0;
  g->schedule.streams = 2;
  // Cross-stream edges: a->d, b->d, b->c... b->c is on one stream; e->c, a->f, c->f.
  //   a->d is implied by b->d (a precedes b on s0); a->f by b->d too (f follows d on s1);
  //   e->c and c->f are needed. Expected: b->d e->c c->f.
  g->schedule.events = minimal_events(*g);
  EXPECT_EQ(describe_schedule(*g), "stream 0: a b c\nstream 1: d e f\nevents: b->d e->c c->f\n");
  EXPECT_TRUE(check_schedule(*g).empty());
  // Each event is needed: dropping any one leaves an unordered cross-stream edge.
  const std::vector<StreamEvent> all = g->schedule.events;
  for (size_t i = 0; i < all.size(); ++i) {
    g->schedule.events = all;
    g->schedule.events.erase(g->schedule.events.begin() + static_cast<std::ptrdiff_t>(i));
    EXPECT_FALSE(check_schedule(*g).empty()) << "event " << all[i].record_after << "->" << all[i].wait_before << " was redundant";
  }
}

TEST(MinimalEvents, CheckerNamesTheUnorderedEdge) {
  auto g = parse_graph(kEvents);
  for (Node* n : g->nodes()) n->stream = n->name() == "e" ? 1 : 0;
  g->schedule.streams = 2;
  std::vector<std::string> p = check_schedule(*g);
  ASSERT_EQ(p.size(), 3u);  // d->e, e->c, e->f
  EXPECT_NE(p[0].find("cross-stream edge node 'd' (Add) (stream 0) -> node 'e' (Relu) (stream 1) is not ordered"), std::string::npos) << p[0];
}

// A heavy chain (h1, h2: 100 µs) and a 1 µs side branch t.
const char* kTinyBranch = R"(graph g opset(ai.onnx=13) {
  input %x: f32[4]
  %h1: f32[4] = Relu(%x)  # h1
  %h2: f32[4] = Relu(%h1)  # h2
  %t: f32[4] = Sigmoid(%x)  # t
  %j: f32[4] = Add(%h2, %t)  # j
  output %j
}
)";

TEST(StreamFusion, MergesAStreamWithTooLittleWork) {
  FixedCostModel cm({{"h1", 100}, {"h2", 100}, {"t", 1}, {"j", 1}}, 1);
  auto unfused = parse_graph(kTinyBranch);
  run_scheduler("parallel", *unfused, context(cm, 2, {{"stream_fusion", "false"}}));
  EXPECT_EQ(describe_schedule(*unfused), "stream 0: h1 h2 j\nstream 1: t\nevents: t->j\n");
  // t's stream is busy 1 µs, under 0.2 × 201 µs: merged into stream 0, no event left.
  auto fused = parse_graph(kTinyBranch);
  run_scheduler("parallel", *fused, context(cm, 2));
  EXPECT_EQ(describe_schedule(*fused), "stream 0: h1 h2 t j\nevents:\n");
  EXPECT_EQ(fused->schedule.streams, 1);
  // A threshold of 0 keeps it.
  auto kept = parse_graph(kTinyBranch);
  run_scheduler("parallel", *kept, context(cm, 2, {{"fusion_threshold", "0.0"}}));
  EXPECT_EQ(kept->schedule.streams, 2);
}

const char* kChain6 = R"(graph g opset(ai.onnx=13) {
  input %x: f32[4]
  %n0: f32[4] = Relu(%x)  # n0
  %n1: f32[4] = Relu(%n0)  # n1
  %n2: f32[4] = Relu(%n1)  # n2
  %n3: f32[4] = Relu(%n2)  # n3
  %n4: f32[4] = Relu(%n3)  # n4
  %n5: f32[4] = Relu(%n4)  # n5
  output %n5
}
)";

TEST(Pipeline, BalancedContiguousStages) {
  {
    auto g = parse_graph(kChain6);
    FixedCostModel cm({}, 1, 1, 10);
    run_scheduler("pipeline", *g, context(cm, 2));
    EXPECT_EQ(describe_schedule(*g),
              "stream 0: n0 n1 n2\nstream 1: n3 n4 n5\nevents: n2->n3\nstages: n0:0 n1:0 n2:0 n3:1 n4:1 n5:1\n");
    EXPECT_EQ(g->schedule.pipeline_stages, 2);
  }
  {
    // Costs 30 10 10 10 10 30 in 3 stages: the best bound is 40 (30+10 | 10+10 | 10+30 and
    // equivalents); the greedy fill under it gives 40 | 30 | 30.
    auto g = parse_graph(kChain6);
    FixedCostModel cm({{"n0", 30}, {"n1", 10}, {"n2", 10}, {"n3", 10}, {"n4", 10}, {"n5", 30}}, 1);
    run_scheduler("pipeline", *g, context(cm, 3, {{"pipeline_stages", "3"}}));
    EXPECT_EQ(describe_schedule(*g),
              "stream 0: n0 n1\nstream 1: n2 n3 n4\nstream 2: n5\nevents: n1->n2 n4->n5\n"
              "stages: n0:0 n1:0 n2:1 n3:1 n4:1 n5:2\n");
    EXPECT_TRUE(check_schedule(*g).empty());
  }
  {
    // More stages than fit the bound: every stage still gets a node.
    auto g = parse_graph(kChain6);
    FixedCostModel cm({{"n0", 100}}, 1, 1, 1);
    run_scheduler("pipeline", *g, context(cm, 4, {{"pipeline_stages", "4"}}));
    EXPECT_EQ(g->schedule.pipeline_stages, 4);
    std::vector<int> seen(4, 0);
    for (Node* n : g->nodes()) seen.at(n->pipeline_stage) = 1;
    EXPECT_EQ(std::accumulate(seen.begin(), seen.end(), 0), 4);
    EXPECT_TRUE(check_schedule(*g).empty());
  }
}

TEST(Pipeline, StagesNeverExceedTheThreadBudget) {
  auto g = parse_graph(kChain6);
  FixedCostModel cm({}, 1, 1, 10);
  run_scheduler("pipeline", *g, context(cm, 1, {{"pipeline_stages", "3"}}));
  EXPECT_EQ(g->schedule.pipeline_stages, 1);
  EXPECT_EQ(g->schedule.streams, 1);
}

TEST(ScheduleChecker, RefusesAnEdgeFromALaterStage) {
  auto g = parse_graph(kChain6);
  g->schedule.pipeline_stages = 2;
  g->find_node("n1")->pipeline_stage = 1;  // n2 (stage 0) then reads stage 1
  std::vector<std::string> p = check_schedule(*g);
  ASSERT_FALSE(p.empty());
  EXPECT_NE(p[0].find("reads node 'n1' (Relu) of the later stage 1"), std::string::npos) << p[0];
}

// Two 4 KB producers, each reduced to 4 bytes. Graph order keeps both big tensors alive at once.
const char* kTwoReductions = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1024]
  %a: f32[1024] = Relu(%x)  # a
  %b: f32[1024] = Sigmoid(%x)  # b
  %ra: f32[1] = ReduceMean(%a)  # ra
  %rb: f32[1] = ReduceMean(%b)  # rb
  %y: f32[1] = Add(%ra, %rb)  # y
  output %y
}
)";

TEST(Sequential, MemoryAwareOrderLowersThePeak) {
  auto g = parse_graph(kTwoReductions);
  const uint64_t before = test::test_peak_live_bytes(g->nodes());
  EXPECT_EQ(before, 8192u + 4);  // while ra runs: a, b and ra's output
  FixedCostModel cm({});
  run_scheduler("sequential", *g, context(cm, 1));
  EXPECT_EQ(describe_schedule(*g), "stream 0: a ra b rb y\nevents:\n");
  EXPECT_EQ(test::test_peak_live_bytes(g->nodes()), 4096u + 4 + 4);  // b and rb's output, ra's result
  EXPECT_TRUE(check_schedule(*g).empty());
}

// Two independent 100 µs branches joined at the end.
const char* kTwoBranches = R"(graph g opset(ai.onnx=13) {
  input %x: f32[4]
  %a: f32[4] = Relu(%x)  # a
  %b: f32[4] = Sigmoid(%x)  # b
  %y: f32[4] = Add(%a, %b)  # y
  output %y
}
)";

double estimate_of(const std::string& sched, const CostModel& cm, int threads) {
  auto g = parse_graph(kTwoBranches);
  run_scheduler(sched, *g, context(cm, threads));
  return simulate_schedule(*g, cm, threads);
}

TEST(Auto, PicksTheLowestEstimate) {
  {
    // Threads do not speed nodes up: two streams overlap the branches (0.201 ms < 0.201 + 0.1).
    FixedCostModel cm({{"a", 100}, {"b", 100}, {"y", 1}}, 1, 1);
    auto g = parse_graph(kTwoBranches);
    run_scheduler("auto", *g, context(cm, 2));
    EXPECT_LT(estimate_of("parallel", cm, 2), estimate_of("sequential", cm, 2));
    EXPECT_EQ(g->schedule.scheduler, "parallel");
    EXPECT_EQ(g->schedule.streams, 2);
    EXPECT_NE(g->schedule.reason.find("chose parallel"), std::string::npos) << g->schedule.reason;
    EXPECT_NE(g->schedule.reason.find("sequential 0.201 ms"), std::string::npos) << g->schedule.reason;
    // Each scheduler is tried with its options: two streams, stream fusion on and off.
    EXPECT_NE(g->schedule.reason.find("parallel(streams=2, stream_fusion=true) 0.102 ms"), std::string::npos)
        << g->schedule.reason;
    EXPECT_NE(g->schedule.reason.find("parallel(streams=2, stream_fusion=false) 0.102 ms"), std::string::npos)
        << g->schedule.reason;
  }
  {
    // Two threads halve every node: one stream with both threads beats two streams with one each.
    FixedCostModel cm({{"a", 100}, {"b", 100}, {"y", 1}}, 10, 2);
    auto g = parse_graph(kTwoBranches);
    run_scheduler("auto", *g, context(cm, 2));
    EXPECT_LT(estimate_of("sequential", cm, 2), estimate_of("parallel", cm, 2));
    EXPECT_EQ(g->schedule.scheduler, "sequential");
    EXPECT_EQ(g->schedule.streams, 1);
  }
}

TEST(Auto, KeepsTheSimplerScheduleWithinTheMargin) {
  // b is small: two streams (without stream fusion) save 8 µs of 109 (7 %), under the 10 % margin.
  FixedCostModel cm({{"a", 100}, {"b", 8}, {"y", 1}}, 1, 1);
  EXPECT_NEAR(estimate_of("sequential", cm, 2), 0.109, 1e-12);
  auto par = parse_graph(kTwoBranches);
  run_scheduler("parallel", *par, context(cm, 2, {{"stream_fusion", "false"}}));
  EXPECT_EQ(par->schedule.streams, 2);
  EXPECT_NEAR(simulate_schedule(*par, cm, 2), 0.101, 1e-12);  // b and its event end before a
  auto g = parse_graph(kTwoBranches);
  run_scheduler("auto", *g, context(cm, 2));
  EXPECT_EQ(g->schedule.scheduler, "sequential") << g->schedule.reason;
  EXPECT_NE(g->schedule.reason.find("the fewest streams within the margin"), std::string::npos) << g->schedule.reason;
  // With no margin the lowest estimate wins.
  g = parse_graph(kTwoBranches);
  run_scheduler("auto", *g, context(cm, 2, {{"margin", "0"}}));
  EXPECT_EQ(g->schedule.scheduler, "parallel") << g->schedule.reason;
  EXPECT_EQ(g->schedule.streams, 2);
}

TEST(Options, BadValuesNameTheKey) {
  auto g = parse_graph(kDiamond);
  FixedCostModel cm({});
  auto message = [&](const std::string& sched, std::map<std::string, std::string> opts) -> std::string {
    try {
      run_scheduler(sched, *g, context(cm, 2, std::move(opts)));
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  // The one option parser (ge/sdk/options.h): the key, what it must be, the value and, for a value
  // of another type, its type.
  EXPECT_EQ(message("parallel", {{"streams", "0"}}), "'scheduler.streams' must be an integer in [1, 64], not 0");
  EXPECT_EQ(message("parallel", {{"streams", "\"two\""}}),
            "'scheduler.streams' must be an integer in [1, 64], not \"two\" (a string)");
  EXPECT_EQ(message("parallel", {{"stream_fusion", "1"}}), "'scheduler.stream_fusion' must be true or false, not 1 (an integer)");
  EXPECT_EQ(message("parallel", {{"fusion_threshold", "1.5"}}), "'scheduler.fusion_threshold' must be a number in [0, 1], not 1.5");
  EXPECT_EQ(message("pipeline", {{"pipeline_stages", "-1"}}), "'scheduler.pipeline_stages' must be an integer in [1, 64], not -1");
  EXPECT_EQ(message("auto", {{"objective", "\"speed\""}}),
            "'scheduler.objective' must be one of \"latency\", \"throughput\", not \"speed\"");
}

}  // namespace
}  // namespace ge
