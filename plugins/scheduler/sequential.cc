// plugins/scheduler/sequential.cc — `sequential`: one stream, a topological order chosen to lower
// the peak of live bytes.
//
// Memory-aware ordering as in TFLite's and XLA's schedulers (XLA: "List scheduler that tries to
// minimize memory", hlo_memory_scheduler.cc): among the ready nodes, run the one whose step changes
// the live bytes least — bytes it allocates (its outputs) minus bytes it frees (inputs it reads
// last). The greedy can lose to a plain topological order on some graphs, so the order with the
// lower peak (liveness.h) wins among: the greedy, the current graph order, Boost.Graph's
// topological order; ties keep the current order (no churn for graphs that are fine already).
#include <algorithm>

#include "liveness.h"
#include "registration.h"

namespace ge::sched {
namespace {

std::vector<Node*> greedy_memory_order(const Graph& g) {
  // Per-node and per-value state in vectors indexed by Node::id / Value::id (ir.h).
  const std::vector<Node*> nodes = g.nodes();
  std::vector<size_t> pos(g.node_id_bound()), missing(g.node_id_bound()), mark(g.node_id_bound(), 0);
  std::vector<size_t> readers(g.value_id_bound(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) pos[nodes[i]->id()] = i;
  for (Node* n : nodes) {
    size_t m = 0;
    const size_t stamp = pos[n->id()] + 1;  // distinct producers counted once, without a set per node
    for (const Value* v : n->inputs())
      if (v && v->producer()) {
        ++readers[v->id()];
        if (size_t& s = mark[v->producer()->id()]; s != stamp) s = stamp, ++m;
      }
    missing[n->id()] = m;
  }
  std::vector<Node*> ready, order;
  std::vector<std::pair<const Value*, size_t>> reads;
  for (Node* n : nodes)
    if (missing[n->id()] == 0) ready.push_back(n);
  order.reserve(nodes.size());
  while (!ready.empty()) {
    // Score = bytes allocated − bytes freed; lower first, then the earlier current position.
    size_t best = 0;
    int64_t best_score = 0;
    for (size_t r = 0; r < ready.size(); ++r) {
      const Node* n = ready[r];
      int64_t score = 0;
      for (const Value* o : n->outputs())
        if (o) score += static_cast<int64_t>(o->nbytes());
      reads.clear();  // (input, reads by this node), few per node
      for (const Value* v : n->inputs())
        if (v && v->producer()) {
          auto it = std::find_if(reads.begin(), reads.end(), [v](auto& e) { return e.first == v; });
          if (it == reads.end()) reads.emplace_back(v, 1);
          else ++it->second;
        }
      for (auto& [v, k] : reads)
        if (readers[v->id()] == k && !v->is_graph_output()) score -= static_cast<int64_t>(v->nbytes());
      if (r == 0 || score < best_score || (score == best_score && pos[n->id()] < pos[ready[best]->id()]))
        best = r, best_score = score;
    }
    Node* n = ready[best];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
    order.push_back(n);
    for (const Value* v : n->inputs())
      if (v && v->producer()) --readers[v->id()];
    const size_t stamp = nodes.size() + order.size();  // consumers released once each, as above
    for (const Value* o : n->outputs())
      if (o)
        for (const Use& u : o->uses())
          if (size_t& s = mark[u.node->id()]; s != stamp) {
            s = stamp;
            if (--missing[u.node->id()] == 0) ready.push_back(u.node);
          }
  }
  return order;
}

class SequentialScheduler final : public Scheduler {
 public:
  std::string name() const override { return "sequential"; }
  std::string summary() const override {
    return "one stream; the topological order with the lowest peak of live bytes (memory-aware greedy)";
  }

  void schedule(Graph& g, const ScheduleContext&) const override {
    std::vector<Node*> current = g.nodes();
    struct Candidate {
      const char* what;
      std::vector<Node*> order;
    };
    std::vector<Candidate> candidates;
    if (g.is_topological(current)) candidates.push_back({"graph order", current});
    candidates.push_back({"memory-aware greedy", greedy_memory_order(g)});
    candidates.push_back({"topological sort", g.topological_order()});
    size_t best = 0;
    std::vector<uint64_t> peaks;
    for (size_t i = 0; i < candidates.size(); ++i) {
      peaks.push_back(peak_live_bytes(g, candidates[i].order));
      if (peaks[i] < peaks[best]) best = i;
    }
    g.set_node_order(candidates[best].order);
    for (Node* n : g.nodes()) n->stream = 0, n->pipeline_stage = 0;
    g.schedule.scheduler = name();
    g.schedule.streams = 1;
    g.schedule.pipeline_stages = 1;
    g.schedule.events.clear();
    std::string reason = "one stream; order: " + std::string(candidates[best].what) + " (peak live bytes";
    for (size_t i = 0; i < candidates.size(); ++i)
      reason += std::string(i ? ", " : " ") + candidates[i].what + " " + std::to_string(peaks[i]);
    g.schedule.reason = reason + ")";
  }
};

}  // namespace

GE_SCHEDULER(SequentialScheduler);

}  // namespace ge::sched
