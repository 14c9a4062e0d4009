// tests/support/random_streams.h — a test-only schedule: every node on a random stream, in the
// graph's (topological) order, with the events that stream assignment needs (ge::derive_events).
// It is deliberately no scheduler (tests/ only, not a plugin): it produces legal but arbitrary
// multi-stream schedules so that the runtime, the memory planner, its checker and plan files are
// tested on schedules no heuristic would choose. `RandomStreamsPass` runs it in the schedule
// stage, so the memory stage plans for it, exactly as it would for a real scheduler.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "ge/core/environment.h"
#include "ge/sdk/error.h"
#include "ge/sdk/pass.h"
#include "ge/sdk/stream_order.h"

namespace ge::test {

/// Puts every node of `g` on a uniformly random stream in [0, streams), sorts the node list
/// topologically first when needed, and sets g.schedule (scheduler "random_streams", the
/// derived events). Deterministic for a seed.
inline void assign_random_streams(Graph& g, int streams, uint32_t seed) {
  if (streams < 1) throw Error("assign_random_streams: streams must be at least 1");
  g.sort_topologically();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, streams - 1);
  for (Node* n : g.nodes()) n->stream = pick(rng);
  g.schedule = ScheduleInfo{};
  g.schedule.scheduler = "random_streams";
  g.schedule.streams = streams;
  g.schedule.events = derive_events(g);
  g.schedule.reason = "test: random stream per node, seed " + std::to_string(seed);
}

/// Cuts g's (topological) node order into `stages` contiguous runs of about equal node count —
/// a test stand-in for the pipeline scheduler's cost-balanced cut — and sets
/// g.schedule.pipeline_stages. Streams are left as they are.
inline void assign_pipeline_stages(Graph& g, int stages) {
  if (stages < 1) throw Error("assign_pipeline_stages: stages must be at least 1");
  // The order must stay as it is when it is already topological (a stream schedule's events
  // point forward in it).
  std::set<const Node*> seen;
  bool topological = true;
  for (const Node* n : g.nodes()) {
    for (const Value* v : n->inputs()) topological &= !v || !v->producer() || seen.count(v->producer()) > 0;
    seen.insert(n);
  }
  if (!topological) g.sort_topologically();
  std::vector<Node*> order = g.nodes();
  const size_t n = order.size();
  for (size_t i = 0; i < n; ++i) order[i]->pipeline_stage = static_cast<int>(i * static_cast<size_t>(stages) / std::max<size_t>(n, 1));
  g.schedule.pipeline_stages = stages;
  if (g.schedule.scheduler.empty()) g.schedule.scheduler = "test_stages";
}

/// The test schedule as a schedule-stage pass (add it to an Environment's passes).
class RandomStreamsPass final : public Pass {
 public:
  RandomStreamsPass(int streams, uint32_t seed) : streams_(streams), seed_(seed) {}
  PassInfo info() const override {
    return {"random_streams", Stage::Schedule, OptLevel::O0, NumericsEffect::Exact, false,
            "test only: random stream per node, events derived from the data edges", {}, {}, {}};
  }
  bool run(Graph& g, PassContext&) override {
    assign_random_streams(g, streams_, seed_);
    return true;
  }

 private:
  int streams_;
  uint32_t seed_;
};

/// Adds RandomStreamsPass to `env` (it then runs in every compile_graph with that environment).
inline void add_random_streams(core::Environment& env, int streams, uint32_t seed) {
  env.passes.emplace_back(std::make_shared<RandomStreamsPass>(streams, seed), "test");
}

}  // namespace ge::test
