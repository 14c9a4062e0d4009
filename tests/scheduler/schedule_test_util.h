// tests/scheduler/schedule_test_util.h — fixed-cost models, the plugin's schedulers without
// loading it, a printable schedule and a test-side liveness.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "ge/sdk/schedule.h"
#include "ge/sdk/text_ir.h"
#include "registration.h"

namespace ge::test {

/// Node costs by node name (µs); unnamed nodes cost `dflt`. `speedup`: a node at t threads takes
/// cost / min(t, speedup) (1 = threads do not help).
class FixedCostModel final : public CostModel {
 public:
  FixedCostModel(std::map<std::string, double> us, double event_us = 1, double speedup = 1, double dflt = 1)
      : us_(std::move(us)), event_(event_us), speedup_(speedup), dflt_(dflt) {}
  double node_us(const Node& n, int threads) const override {
    auto it = us_.find(n.name());
    const double t = it == us_.end() ? dflt_ : it->second;
    return t / std::min<double>(std::max(1, threads), speedup_);
  }
  double event_us() const override { return event_; }
  const MachineCeilings& ceilings() const override { return c_; }

 private:
  std::map<std::string, double> us_;
  double event_, speedup_, dflt_;
  MachineCeilings c_;
};

/// Every scheduler the plugin registers, by name (the plugin's objects are linked in).
inline const std::map<std::string, std::shared_ptr<Scheduler>>& all_schedulers() {
  static const auto* m = [] {
    auto* out = new std::map<std::string, std::shared_ptr<Scheduler>>;
    for (auto& make : sched::scheduler_entries()) {
      auto s = make();
      (*out)[s->name()] = s;
    }
    return out;
  }();
  return *m;
}

inline ScheduleContext context(const CostModel& cm, int threads, std::map<std::string, std::string> options = {}) {
  ScheduleContext ctx;
  ctx.cost_model = &cm;
  ctx.threads = threads;
  ctx.options = std::move(options);
  for (auto& [n, s] : all_schedulers()) ctx.schedulers[n] = s.get();
  return ctx;
}

inline void run_scheduler(const std::string& name, Graph& g, const ScheduleContext& ctx) {
  all_schedulers().at(name)->schedule(g, ctx);
}

/// "stream 0: a b e\nstream 1: c d\nevents: a->c d->e\n" (+ "stages: …" when pipelined).
inline std::string describe_schedule(const Graph& g) {
  std::map<int, std::string> streams;
  std::string stages;
  for (const Node* n : g.nodes()) {
    streams[n->stream] += " " + n->name();
    stages += " " + n->name() + ":" + std::to_string(n->pipeline_stage);
  }
  std::string out;
  for (auto& [s, names] : streams) out += "stream " + std::to_string(s) + ":" + names + "\n";
  out += "events:";
  for (const StreamEvent& e : g.schedule.events) out += " " + e.record_after + "->" + e.wait_before;
  out += "\n";
  if (g.schedule.pipeline_stages > 1) out += "stages:" + stages + "\n";
  return out;
}

/// Peak live bytes of an order, computed independently of the plugin: a value lives from its
/// producer's step through its last reader's step (graph outputs to the end); inputs and
/// constants are not counted.
inline uint64_t test_peak_live_bytes(const std::vector<Node*>& order) {
  std::unordered_map<const Value*, size_t> last;
  for (size_t i = 0; i < order.size(); ++i)
    for (const Value* v : order[i]->inputs())
      if (v && v->producer()) last[v] = i;
  uint64_t peak = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    uint64_t live = 0;
    for (size_t j = 0; j <= i; ++j)
      for (const Value* o : order[j]->outputs()) {
        if (!o) continue;
        auto it = last.find(o);
        const size_t end = o->is_graph_output() ? order.size() : it == last.end() ? j : it->second;
        if (end >= i) live += o->nbytes();
      }
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace ge::test
