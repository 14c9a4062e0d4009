// plugins/scheduler/parallel.cc — `parallel`: list scheduling onto N streams by critical-path
// priority (CriticalPathScheduler).
//
// HEFT without insertion (Topcuoglu, Hariri & Wu, IEEE TPDS 2002): nodes become ready when all
// their producers are scheduled; the ready node with the highest upward rank (upward_rank.h) goes
// to the stream where it finishes earliest, paying the event cost for each producer on another
// stream. Node times are the cost model's at threads_per_stream(N): streams split the thread
// budget, so N is capped at the budget. Then small streams are fused (stream_fusion.h) and the
// cross-stream edges become the minimal set of events (ge::minimal_events).
//
// Options ([scheduler]): streams (default 2), stream_fusion (default true), fusion_threshold
// (default 0.2: a stream busy less than 20 % of the busiest one is merged).
#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "registration.h"
#include "stream_fusion.h"
#include "upward_rank.h"

namespace ge::sched {
namespace {

class CriticalPathScheduler final : public Scheduler {
 public:
  std::string name() const override { return "parallel"; }
  std::string summary() const override {
    return "list scheduling onto N streams by upward rank (HEFT); events for cross-stream edges; stream fusion";
  }
  std::vector<OptionDecl> option_decls() const override {
    OptionDecl streams{"scheduler.streams", OptionType::Int, int64_t{2}, 1, 64, {},
                       "streams to schedule onto (at most the thread count)", OptionPhase::Compile, ""};
    OptionDecl fusion{"scheduler.stream_fusion", OptionType::Bool, true, {}, {}, {},
                      "merge streams whose work is too small to pay for an event", OptionPhase::Compile, ""};
    OptionDecl threshold{"scheduler.fusion_threshold", OptionType::Float, 0.2, 0.0, 1.0, {},
                         "a stream doing less than this share of the critical path is merged", OptionPhase::Compile, ""};
    return {streams, fusion, threshold};
  }

  void schedule(Graph& g, const ScheduleContext& ctx) const override {
    const int asked = ctx.int_option("streams", 2, 1, 64);
    const bool fusion = ctx.bool_option("stream_fusion", true);
    const double threshold = ctx.double_option("fusion_threshold", 0.2, 0.0, 1.0);
    const int streams = std::max(1, std::min(asked, ctx.threads));
    const int tps = ctx.threads_per_stream(streams);
    const CostModel& cm = *ctx.cost_model;
    const double c = cm.event_us();

    const std::vector<Node*> nodes = g.nodes();
    std::unordered_map<const Node*, double> w;
    std::unordered_map<const Node*, size_t> pos;
    for (size_t i = 0; i < nodes.size(); ++i) w[nodes[i]] = cm.node_us(*nodes[i], tps), pos[nodes[i]] = i;
    const auto rank = upward_rank(nodes, w, c);

    std::unordered_map<const Node*, size_t> missing;
    std::vector<Node*> ready, order;
    for (Node* n : nodes) {
      missing[n] = producers(n).size();
      if (missing[n] == 0) ready.push_back(n);
    }
    std::vector<double> free_at(streams, 0);
    std::unordered_map<const Node*, double> finish;
    while (!ready.empty()) {
      auto it = std::max_element(ready.begin(), ready.end(), [&](Node* a, Node* b) {
        return rank.at(a) != rank.at(b) ? rank.at(a) < rank.at(b) : pos[a] > pos[b];
      });
      Node* n = *it;
      ready.erase(it);
      int best = 0;
      double best_finish = 0;
      for (int s = 0; s < streams; ++s) {
        double start = free_at[s];
        for (Node* p : producers(n)) start = std::max(start, finish.at(p) + (p->stream != s ? c : 0));
        if (s == 0 || start + w[n] < best_finish) best = s, best_finish = start + w[n];
      }
      n->stream = best;
      finish[n] = best_finish;
      free_at[best] = best_finish;
      order.push_back(n);
      for (Node* s : consumers(n))
        if (--missing[s] == 0) ready.push_back(s);
    }
    g.set_node_order(order);
    for (Node* n : nodes) n->pipeline_stage = 0;
    const int used = fusion ? fuse_small_streams(g, w, threshold) : compact_streams(g);
    g.schedule.scheduler = name();
    g.schedule.streams = used;
    g.schedule.pipeline_stages = 1;
    g.schedule.events = minimal_events(g);
    char buf[200];
    std::snprintf(buf, sizeof buf, "%d stream(s) asked, %d within the thread budget of %d, %d after stream fusion%s; %zu events",
                  asked, streams, ctx.threads, used, fusion ? "" : " (off)", g.schedule.events.size());
    g.schedule.reason = buf;
  }
};

}  // namespace

GE_SCHEDULER(CriticalPathScheduler);

}  // namespace ge::sched
