// plugins/scheduler/schedule_pass.cc — the schedule stage: runs the scheduler `[scheduler] name`
// picks (default "sequential") with its options, checks the result and records the estimate.
//
// It runs at every level (O0 too): the runtime needs a valid issue order and a stream for every
// node, and scheduling changes no numerics. It runs before the memory stage, which computes
// lifetimes from the issue order the scheduler chose.
#include <algorithm>
#include <optional>
#include <set>

#include "ge/sdk/error.h"
#include "liveness.h"
#include "registration.h"

namespace ge::sched {
namespace {

class SchedulePass final : public Pass {
 public:
  PassInfo info() const override {
    return {"schedule", Stage::Schedule, OptLevel::O0, NumericsEffect::Exact, false,
            "orders nodes onto streams and pipeline stages with the scheduler [scheduler] name picks",
            {"scheduler.name"}, {}, {}};
  }

  bool run(Graph& g, PassContext& pctx) override {
    ScheduleContext ctx;
    std::set<std::string> keys = {"name"};
    for (const std::string& n : pctx.schedulers())
      if (const Scheduler* s = pctx.scheduler(n)) {
        ctx.schedulers[n] = s;
        for (const std::string& k : s->options()) keys.insert(k);
      }
    for (const std::string& k : keys)
      if (auto v = pctx.option("scheduler", k)) ctx.options[k] = *v;
    ctx.threads = std::max(1, pctx.threads());
    RooflineCostModel fallback({}, &pctx.ops());
    ctx.cost_model = pctx.cost_model() ? pctx.cost_model() : &fallback;
    // A backend that simulates its device (ge/sdk/device_sim.h) estimates whole schedules itself:
    // its streams share the device's cores, which simulate_schedule does not know.
    const PassContext* pc = &pctx;
    const CostModel* cm = ctx.cost_model;
    const int threads = ctx.threads;
    ctx.device_estimate = [pc, cm, threads](const Graph& h, std::vector<double>* busy) {
      const std::optional<DeviceSimulation> sim = pc->simulate_device(h);
      if (!sim) return simulate_schedule(h, *cm, threads, busy);
      if (busy) {
        busy->assign(static_cast<size_t>(std::max(1, h.schedule.streams)), 0.0);
        for (const SimulatedNode& n : sim->nodes)
          if (n.stream >= 0 && static_cast<size_t>(n.stream) < busy->size()) (*busy)[static_cast<size_t>(n.stream)] += n.us();
      }
      return sim->total_us / 1000.0;
    };

    const std::string name = ctx.string_option("name", "sequential");
    auto it = ctx.schedulers.find(name);
    if (it == ctx.schedulers.end()) {
      std::string known;
      for (auto& [n, s] : ctx.schedulers) known += (known.empty() ? "" : ", ") + n;
      throw ConfigError("scheduler.name = \"" + name + "\": no loaded plugin registers a scheduler of that name (known: " +
                        (known.empty() ? "none" : known) + ")");
    }
    // An option of another scheduler than the one chosen would be ignored: refused instead
    // (`auto` runs every other scheduler, so their options all apply).
    if (name != "auto") {
      const std::vector<std::string> own = it->second->options();
      for (auto& [k, v] : ctx.options) {
        if (k == "name" || std::find(own.begin(), own.end(), k) != own.end()) continue;
        std::vector<std::string> owners;
        for (auto& [n, s] : ctx.schedulers) {
          const std::vector<std::string> o = s->options();
          if (n != "auto" && std::find(o.begin(), o.end(), k) != o.end()) owners.push_back(n);
        }
        if (ctx.schedulers.count("auto")) owners.push_back("auto");
        std::string who, list;
        for (size_t i = 0; i < owners.size(); ++i) who += (i == 0 ? "" : i + 1 == owners.size() ? " or " : ", ") + owners[i];
        for (const std::string& o : own) list += (list.empty() ? "" : ", ") + o;
        throw ConfigError("scheduler." + k + " = " + v + ": only scheduler " + who + " reads it, and scheduler.name = \"" +
                          name + "\" (options of " + name + ": " + (list.empty() ? "none" : list) + ")");
      }
    }
    const std::vector<Node*> before = g.nodes();
    if (!g.is_topological(before)) g.sort_topologically();
    for (Node* n : g.nodes()) n->stream = 0, n->pipeline_stage = 0;
    g.schedule = ScheduleInfo{};
    it->second->schedule(g, ctx);
    if (g.schedule.scheduler.empty()) g.schedule.scheduler = name;

    std::vector<std::string> problems = check_schedule(g);
    if (!problems.empty()) {
      std::string all;
      for (size_t i = 0; i < problems.size() && i < 5; ++i) all += (i ? "; " : "") + problems[i];
      throw Error("scheduler '" + name + "' produced an invalid schedule: " + all);
    }
    g.schedule.estimated_latency_ms = ctx.estimate_ms(g);
    pctx.count("schedule.streams", g.schedule.streams);
    pctx.count("schedule.events", static_cast<int64_t>(g.schedule.events.size()));
    return g.nodes() != before || g.schedule.streams > 1 || g.schedule.pipeline_stages > 1;
  }
};

}  // namespace

GE_SCHEDULE_PASS(SchedulePass);

}  // namespace ge::sched
