// plugins/scheduler/auto.cc — `auto`: runs every other scheduler on a copy of the graph, estimates
// each result (ScheduleContext::estimate_ms: the backend's device simulation when it has one,
// else the cost model through ge::simulate_schedule) and applies the lowest.
//
// The objective ([scheduler] objective): "latency" (default) compares the estimated latency of
// one inference and leaves `pipeline` out (stages only pay off across requests); "throughput"
// compares the steady-state time per request: the busiest stream's time for a pipeline, the
// latency for the others. Graph::schedule.reason lists every candidate's estimate.
#include <algorithm>
#include <cstdio>
#include <limits>

#include "ge/sdk/error.h"
#include "registration.h"

namespace ge::sched {
namespace {

class AutoScheduler final : public Scheduler {
 public:
  std::string name() const override { return "auto"; }
  std::string summary() const override {
    return "tries every other scheduler, estimates each with the cost model, keeps the lowest";
  }
  std::vector<OptionDecl> option_decls() const override {
    return {{"scheduler.objective", OptionType::String, std::string("latency"), {}, {}, {"latency", "throughput"},
             "what the choice minimizes: one inference's latency, or time per inference over many", OptionPhase::Compile, ""}};
  }

  void schedule(Graph& g, const ScheduleContext& ctx) const override {
    const std::string objective = ctx.string_option("objective", "latency", {"latency", "throughput"});
    std::string best;
    double best_ms = std::numeric_limits<double>::infinity();
    int best_streams = 0;
    std::string table;
    // Simplest first, so that a tie keeps the simpler schedule: sequential, parallel, pipeline,
    // then any other registered scheduler by name.
    std::vector<std::string> names = {"sequential", "parallel", "pipeline"};
    for (auto& [n, s] : ctx.schedulers)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    for (const std::string& cand_name : names) {
      auto found = ctx.schedulers.find(cand_name);
      if (found == ctx.schedulers.end() || !found->second || cand_name == name()) continue;
      const Scheduler* cand = found->second;
      if (objective == "latency" && cand_name == "pipeline") continue;
      std::unique_ptr<Graph> trial = g.clone();
      cand->schedule(*trial, ctx);
      if (!check_schedule(*trial).empty()) continue;  // a broken candidate never wins
      std::vector<double> busy;
      double ms = ctx.estimate_ms(*trial, &busy);
      if (objective == "throughput" && trial->schedule.pipeline_stages > 1)
        ms = *std::max_element(busy.begin(), busy.end()) / 1000.0;
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%s %.3f ms", table.empty() ? "" : ", ", cand_name.c_str(), ms);
      table += buf;
      // Lower wins; on a tie the schedule with fewer streams (fewer threads and events for the
      // same estimate), then the earlier candidate.
      const int streams = trial->schedule.streams;
      // (Estimates within 1e-6 relative are a tie: the same work summed in another order.)
      const bool lower = ms < best_ms * (1 - 1e-6);
      const bool tie = !lower && ms <= best_ms * (1 + 1e-6);
      if (lower || (tie && streams < best_streams)) best = cand_name, best_ms = ms, best_streams = streams;
    }
    if (best.empty()) throw Error("scheduler 'auto': no other scheduler is registered to choose from");
    ctx.schedulers.at(best)->schedule(g, ctx);
    char head[160];
    std::snprintf(head, sizeof head, "auto (%s, %d thread(s)): chose %s, the lowest estimate (", objective.c_str(),
                  ctx.threads, best.c_str());
    g.schedule.reason = head + table + "); " + best + ": " + g.schedule.reason;
  }
};

}  // namespace

GE_SCHEDULER(AutoScheduler);

}  // namespace ge::sched
