// plugins/scheduler/pipeline.cc — `pipeline`: K contiguous stages of balanced estimated cost.
//
// The issue order (topological) is cut into K contiguous segments minimizing the costliest
// segment (the classic linear-partition problem: binary search on the bound, greedy fill, which
// is optimal for contiguous cuts). Contiguous cuts of a topological order only have edges from a
// stage to the same or a later one. Stage k runs on stream k: successive requests overlap, one per
// stage, and each stage gets threads_per_stream(K) of the thread budget, so stage costs are
// estimated at that many threads; K is capped at the budget. Cross-stage edges become the minimal events.
//
// Options ([scheduler]): pipeline_stages (default 2).
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "registration.h"
#include "stream_fusion.h"

namespace ge::sched {
namespace {

/// Stage index per position for the cost vector `w`, at most K segments with cost ≤ bound each.
std::vector<int> fill(const std::vector<double>& w, double bound) {
  std::vector<int> stage(w.size());
  int k = 0;
  double acc = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (acc > 0 && acc + w[i] > bound) ++k, acc = 0;
    acc += w[i];
    stage[i] = k;
  }
  return stage;
}

class PipelineScheduler final : public Scheduler {
 public:
  std::string name() const override { return "pipeline"; }
  std::string summary() const override {
    return "K stages of balanced estimated cost (contiguous cuts of the order); requests overlap across stages";
  }
  std::vector<OptionDecl> option_decls() const override {
    return {{"scheduler.pipeline_stages", OptionType::Int, int64_t{2}, 1, 64, {},
             "pipeline stages the graph is cut into (gec run --requests streams requests through them)", OptionPhase::Compile, ""}};
  }

  void schedule(Graph& g, const ScheduleContext& ctx) const override {
    const int asked = ctx.int_option("pipeline_stages", 2, 1, 64);
    const std::vector<Node*> order = g.nodes();  // topological: the schedule pass sorts first
    // Each stage needs a thread of its own while requests overlap: K never exceeds the budget.
    const int k = std::max(1, std::min<int>({asked, ctx.threads, static_cast<int>(order.size())}));
    const int tps = ctx.threads_per_stream(k);
    std::vector<double> w;
    for (Node* n : order) w.push_back(ctx.cost_model->node_us(*n, tps));
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    double lo = w.empty() ? 0 : *std::max_element(w.begin(), w.end()), hi = std::max(lo, total);
    for (int it = 0; it < 60 && hi - lo > 1e-6 * std::max(1.0, hi); ++it) {
      const double mid = 0.5 * (lo + hi);
      std::vector<int> s = fill(w, mid);
      (s.empty() || s.back() < k ? hi : lo) = mid;
    }
    std::vector<int> stage = fill(w, hi);
    // Fewer than K segments when a bound fits fewer: split the costliest stage until there are K.
    int have = stage.empty() ? 0 : stage.back() + 1;
    while (have < k) {  // split the largest multi-node stage at its cost midpoint
      std::vector<double> cost(have, 0);
      std::vector<int> count(have, 0);
      for (size_t i = 0; i < stage.size(); ++i) cost[stage[i]] += w[i], ++count[stage[i]];
      int big = -1;
      for (int s = 0; s < have; ++s)
        if (count[s] > 1 && (big < 0 || cost[s] > cost[big])) big = s;
      if (big < 0) break;
      double acc = 0;
      bool split = false;
      int seen = 0;
      for (size_t i = 0; i < stage.size(); ++i) {
        if (stage[i] == big) {
          ++seen;
          if (!split && seen > 1 && acc >= cost[big] / 2) split = true;
          acc += w[i];
          if (!split && seen == count[big]) split = true;  // last node alone
          if (split) stage[i] = big + 1;
        } else if (stage[i] > big) {
          ++stage[i];
        }
      }
      ++have;
    }
    g.set_node_order(order);
    std::vector<double> cost(std::max(have, 1), 0);
    for (size_t i = 0; i < order.size(); ++i) {
      order[i]->pipeline_stage = stage[i];
      order[i]->stream = stage[i];
      cost[stage[i]] += w[i];
    }
    g.schedule.scheduler = name();
    g.schedule.streams = compact_streams(g);
    g.schedule.pipeline_stages = std::max(1, have);
    g.schedule.events = minimal_events(g);
    std::string reason = std::to_string(asked) + " stage(s) asked, " + std::to_string(g.schedule.pipeline_stages) +
                         " within the thread budget of " + std::to_string(ctx.threads) + ", at " + std::to_string(tps) +
                         " thread(s) each; estimated stage costs (ms):";
    double worst = 0;
    for (double c : cost) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %.3f", c / 1000);
      reason += buf;
      worst = std::max(worst, c);
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, "; steady state one request per %.3f ms", worst / 1000);
    g.schedule.reason = reason + buf;
  }
};

}  // namespace

GE_SCHEDULER(PipelineScheduler);

}  // namespace ge::sched
