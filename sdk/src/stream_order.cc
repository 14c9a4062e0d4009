// Happens-before of a scheduled graph by vector clocks; see ge/sdk/stream_order.h.
#include "ge/sdk/stream_order.h"

#include <algorithm>
#include <set>

#include "ge/sdk/error.h"

namespace ge {

namespace {

std::string on_stream(const Node& n) { return n.describe() + " (stream " + std::to_string(n.stream) + ")"; }

}  // namespace

StreamOrder::StreamOrder(const Graph& g) : streams_(g.schedule.streams) {
  const ScheduleInfo& s = g.schedule;
  // The bound keeps a corrupted plan from asking for nodes × streams clocks of absurd size.
  if (s.streams < 1 || s.streams > kMaxStreams)
    throw Error("schedule: streams = " + std::to_string(s.streams) + " (must be 1.." + std::to_string(kMaxStreams) + ")");
  if (s.pipeline_stages < 1)
    throw Error("schedule: pipeline_stages = " + std::to_string(s.pipeline_stages) + " (must be at least 1)");
  for (const Node* n : g.nodes()) {
    if (n->stream < 0 || n->stream >= s.streams)
      throw Error("schedule: " + n->describe() + " is on stream " + std::to_string(n->stream) + ", outside 0.." +
                  std::to_string(s.streams - 1));
    if (n->pipeline_stage < 0 || n->pipeline_stage >= s.pipeline_stages)
      throw Error("schedule: " + n->describe() + " is in pipeline stage " + std::to_string(n->pipeline_stage) +
                  ", outside 0.." + std::to_string(s.pipeline_stages - 1));
    if (!nodes_.empty() && n->pipeline_stage < nodes_.back()->pipeline_stage)
      throw Error("schedule: " + n->describe() + " in pipeline stage " + std::to_string(n->pipeline_stage) +
                  " is issued after " + nodes_.back()->describe() + " in stage " +
                  std::to_string(nodes_.back()->pipeline_stage) +
                  " (stages must be contiguous in graph order: the arena plan follows that order)");
    index_[n] = static_cast<int>(nodes_.size());
    nodes_.push_back(n);
  }
  const size_t N = nodes_.size();
  stream_.resize(N);
  position_.resize(N);
  std::vector<int> count(static_cast<size_t>(streams_), 0), last(static_cast<size_t>(streams_), -1);
  for (size_t i = 0; i < N; ++i) {
    stream_[i] = nodes_[i]->stream;
    position_[i] = count[stream_[i]]++;
  }
  // Events by waiting node.
  std::vector<std::vector<int>> waits(N);
  for (const StreamEvent& e : s.events) {
    const Node* r = g.find_node(e.record_after);
    const Node* w = g.find_node(e.wait_before);
    std::string what = "schedule: event '" + e.record_after + "' -> '" + e.wait_before + "'";
    if (!r) throw Error(what + ": record_after names no node of the graph");
    if (!w) throw Error(what + ": wait_before names no node of the graph");
    int ri = index_.at(r), wi = index_.at(w);
    if (r->stream == w->stream) throw Error(what + " joins two nodes of stream " + std::to_string(r->stream));
    if (ri >= wi)
      throw Error(what + ": " + on_stream(*w) + " waits for " + on_stream(*r) +
                  ", which is issued after it (a cycle: the streams would deadlock)");
    waits[wi].push_back(ri);
  }
  clock_.assign(N * streams_, -1);
  for (size_t i = 0; i < N; ++i) {
    int* c = &clock_[i * streams_];
    if (last[stream_[i]] >= 0) {  // everything before the previous node of this stream, and it
      const int* p = &clock_[static_cast<size_t>(last[stream_[i]]) * streams_];
      std::copy(p, p + streams_, c);
      c[stream_[i]] = position_[last[stream_[i]]];
    }
    for (int r : waits[i]) {
      const int* p = &clock_[static_cast<size_t>(r) * streams_];
      for (int k = 0; k < streams_; ++k) c[k] = std::max(c[k], p[k]);
      c[stream_[r]] = std::max(c[stream_[r]], position_[r]);
    }
    last[stream_[i]] = static_cast<int>(i);
  }
  // Every data edge must be ordered, and no stage may read a later stage.
  for (size_t i = 0; i < N; ++i)
    for (const Value* v : nodes_[i]->inputs()) {
      if (!v || !v->producer()) continue;
      auto it = index_.find(v->producer());
      if (it == index_.end()) continue;
      const Node &p = *v->producer(), &c = *nodes_[i];
      if (!before(it->second, static_cast<int>(i)))
        throw Error("schedule: " + on_stream(c) + " reads '" + v->name() + "' from " + on_stream(p) +
                    (p.stream == c.stream ? ", which is issued after it"
                                          : " but no event orders them (record after '" + p.name() +
                                                "' and wait before '" + c.name() + "' or earlier)"));
      if (p.pipeline_stage > c.pipeline_stage)
        throw Error("schedule: " + c.describe() + " in pipeline stage " + std::to_string(c.pipeline_stage) + " reads '" +
                    v->name() + "' from " + p.describe() + " in the later stage " + std::to_string(p.pipeline_stage));
    }
}

bool is_multi_stream(const Graph& g) { return g.schedule.streams > 1; }

std::vector<StreamEvent> derive_events(const Graph& g) {
  const int S = g.schedule.streams;
  if (S < 1) throw Error("derive_events: streams = " + std::to_string(S));
  std::vector<Node*> order = g.nodes();
  std::unordered_map<const Node*, int> index, position;
  std::vector<int> count(static_cast<size_t>(S), 0), last(static_cast<size_t>(S), -1);
  std::vector<int> clock(order.size() * S, -1);
  std::vector<StreamEvent> events;
  for (size_t i = 0; i < order.size(); ++i) {
    const Node* n = order[i];
    if (n->stream < 0 || n->stream >= S)
      throw Error("derive_events: " + n->describe() + " is on stream " + std::to_string(n->stream) + " of " + std::to_string(S));
    index[n] = static_cast<int>(i);
    position[n] = count[n->stream]++;
    int* c = &clock[i * S];
    if (last[n->stream] >= 0) {
      const int* p = &clock[static_cast<size_t>(last[n->stream]) * S];
      std::copy(p, p + S, c);
      c[n->stream] = position[order[last[n->stream]]];
    }
    std::set<const Node*> producers;
    for (const Value* v : n->inputs())
      if (v && v->producer()) producers.insert(v->producer());
    // Latest producers first: waiting for them often implies the earlier ones.
    std::vector<const Node*> ps(producers.begin(), producers.end());
    std::sort(ps.begin(), ps.end(), [&](const Node* a, const Node* b) { return index.at(a) > index.at(b); });
    for (const Node* p : ps) {
      auto it = index.find(p);
      if (it == index.end())
        throw Error("derive_events: " + n->describe() + " reads from " + p->describe() + ", issued after it (graph order is not topological)");
      if (c[p->stream] >= position.at(p)) continue;  // already ordered
      events.push_back({p->name(), n->name()});
      const int* pc = &clock[static_cast<size_t>(it->second) * S];
      for (int k = 0; k < S; ++k) c[k] = std::max(c[k], pc[k]);
      c[p->stream] = std::max(c[p->stream], position.at(p));
    }
    last[n->stream] = static_cast<int>(i);
  }
  return events;
}

void drop_from_schedule(Graph& g, const Node* n) {
  std::vector<StreamEvent>& ev = g.schedule.events;
  if (ev.empty()) return;
  const std::vector<Node*> order = g.nodes();
  const Node *prev = nullptr, *next = nullptr;
  auto at = std::find(order.begin(), order.end(), n);
  if (at == order.end()) return;
  for (auto it = order.begin(); it != at; ++it)
    if ((*it)->stream == n->stream) prev = *it;
  for (auto it = at + 1; it != order.end() && !next; ++it)
    if ((*it)->stream == n->stream) next = *it;
  std::vector<std::string> waited, recorded;  // n waits for these; these wait for n
  std::vector<StreamEvent> kept;
  for (const StreamEvent& e : ev) {
    if (e.wait_before == n->name()) waited.push_back(e.record_after);
    else if (e.record_after == n->name()) recorded.push_back(e.wait_before);
    else kept.push_back(e);
  }
  auto add = [&](const std::string& r, const std::string& w) {
    const Node *rn = g.find_node(r), *wn = g.find_node(w);
    if (!rn || !wn || rn->stream == wn->stream) return;  // same stream: already ordered
    StreamEvent e{r, w};
    if (std::find(kept.begin(), kept.end(), e) == kept.end()) kept.push_back(e);
  };
  for (const std::string& r : waited) {
    if (next) add(r, next->name());
    for (const std::string& w : recorded) add(r, w);
  }
  if (prev)
    for (const std::string& w : recorded) add(prev->name(), w);
  ev = std::move(kept);
}

}  // namespace ge
