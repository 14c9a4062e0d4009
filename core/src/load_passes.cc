// Passes that run when a plan is loaded. Only PassInfo::runtime_safe passes may: they are cheap
// (linear in the graph), exact, and keep the compile-time arena plan valid — removing nodes only
// shortens lifetimes, so every remaining offset stays correct.
#include <algorithm>
#include <map>
#include <set>

#include "ge/core/plan.h"
#include "ge/sdk/error.h"
#include "ge/sdk/stream_order.h"
#include "pass_context.h"

namespace ge::core {

namespace {

/// Drops the graph outputs the caller does not ask for, then every node none of whose outputs is
/// still needed, and the values left without producer and uses.
class PruneOutputsPass : public Pass {
 public:
  explicit PruneOutputsPass(std::vector<std::string> keep) : keep_(std::move(keep)) {}
  PassInfo info() const override {
    PassInfo i;
    i.name = "prune_outputs";
    i.stage = Stage::Simplify;
    i.min_level = OptLevel::O0;
    i.runtime_safe = true;
    i.summary = "drop graph outputs the caller does not ask for, and the nodes that only fed them";
    return i;
  }
  bool run(Graph& g, PassContext&) override {
    if (keep_.empty()) return false;
    std::map<std::string, Value*> by_name;
    for (Value* v : g.outputs()) by_name[v->name()] = v;
    for (const std::string& k : keep_)
      if (!by_name.count(k)) {
        std::string have;
        for (auto& [n, v] : by_name) have += (have.empty() ? "'" : ", '") + n + "'";
        throw Error("output '" + k + "' is not an output of the plan (outputs: " + have + ")");
      }
    std::set<std::string> keep(keep_.begin(), keep_.end());
    bool changed = false;
    for (Value* v : std::vector<Value*>(g.outputs()))
      if (!keep.count(v->name())) {
        g.unmark_output(v);
        changed = true;
      }
    // Reverse execution order: a node is dead when none of its outputs is used or a graph output.
    std::vector<Node*> nodes = g.nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      Node* n = *it;
      bool live = std::any_of(n->outputs().begin(), n->outputs().end(),
                              [](const Value* o) { return o->is_graph_output() || !o->uses().empty(); });
      if (live) continue;
      std::vector<Value*> outs = n->outputs(), ins = n->inputs();
      drop_from_schedule(g, n);  // events through n are rerouted: the others stay ordered
      g.remove_node(n);
      changed = true;
      for (Value* o : outs)
        if (o->uses().empty() && !o->is_graph_output()) g.remove_value(o);
      for (Value* in : ins)
        if (in && in->is_constant() && in->uses().empty() && !in->is_graph_output() && !in->is_graph_input())
          g.remove_value(in);
    }
    return changed;
  }

 private:
  std::vector<std::string> keep_;
};

}  // namespace

std::vector<std::shared_ptr<Pass>> load_time_passes(const LoadOptions& opts) {
  return {std::make_shared<PruneOutputsPass>(opts.outputs)};
}

std::vector<PassInfo> run_load_time_passes(Graph& g, const Environment& env, const std::string& backend,
                                           const LoadOptions& opts) {
  CompileOptions co;
  co.backend = backend;
  co.opt_level = OptLevel::O0;
  std::map<std::string, int64_t> counters;
  HostPassContext ctx(env, co, g, counters);
  std::vector<PassInfo> ran;
  for (const auto& p : load_time_passes(opts)) {
    PassInfo info = p->info();
    // The rule of load time: a pass not marked runtime_safe never runs here.
    if (!info.runtime_safe) throw Error("pass '" + info.name + "' is not runtime_safe and cannot run at plan load");
    p->run(g, ctx);
    ran.push_back(std::move(info));
  }
  return ran;
}

}  // namespace ge::core
