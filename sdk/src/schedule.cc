// Shared pieces of scheduling (ge/sdk/schedule.h): option readers, minimal events, the schedule
// checker and the latency simulation.
#include "ge/sdk/schedule.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "ge/sdk/error.h"

namespace ge {

namespace {

/// The option's TOML text parsed as `d` says (ge::parse_option, the one option parser).
OptionData parse_scheduler_option(OptionDecl d, const std::string& key, const std::string& text) {
  d.key = "scheduler." + key;
  return parse_option(d, text);
}

/// Position of every node in issue order, and its position on its own stream (by Node::id).
struct Positions {
  std::vector<int> order_, on_stream_;
  Positions(const Graph& g, const std::vector<Node*>& nodes) : order_(g.node_id_bound(), -1), on_stream_(g.node_id_bound(), -1) {
    std::unordered_map<int, int> next;
    for (size_t i = 0; i < nodes.size(); ++i) {
      order_[nodes[i]->id()] = static_cast<int>(i);
      on_stream_[nodes[i]->id()] = next[nodes[i]->stream]++;
    }
  }
  int order(const Node* n) const { return order_[n->id()]; }
  int on_stream(const Node* n) const { return on_stream_[n->id()]; }
};

/// Producers of a node's inputs (each once).
std::vector<Node*> preds(const Node* n) {
  std::vector<Node*> out;
  for (const Value* v : n->inputs())
    if (v && v->producer() && std::find(out.begin(), out.end(), v->producer()) == out.end()) out.push_back(v->producer());
  return out;
}

/// Vector clocks: clock[n][s] = highest position on stream s known to finish before n ends
/// (n itself included). -1 = nothing. Events are given per waiting node.
class Clocks {
 public:
  Clocks(const Graph& g, int streams) : streams_(streams), clock_(g.node_id_bound()) {}
  std::vector<int> start(const Node* n, const Node* stream_prev) const {
    std::vector<int> c(streams_, -1);
    if (stream_prev) c = at(stream_prev);
    return c;
  }
  static void join(std::vector<int>& c, const std::vector<int>& o) {
    for (size_t s = 0; s < c.size(); ++s) c[s] = std::max(c[s], o[s]);
  }
  const std::vector<int>& at(const Node* n) const { return clock_[n->id()]; }
  void set(const Node* n, std::vector<int> c) { clock_[n->id()] = std::move(c); }
  int streams() const { return streams_; }

 private:
  int streams_;
  std::vector<std::vector<int>> clock_;  // by Node::id
};

int num_streams(const Graph& g) {
  int s = std::max(1, g.schedule.streams);
  for (const Node* n : g.nodes()) s = std::max(s, n->stream + 1);
  return s;
}

}  // namespace

// ---- options

std::vector<std::string> Scheduler::options() const {
  std::vector<std::string> keys;
  for (const OptionDecl& d : option_decls()) keys.push_back(d.key.substr(d.key.find('.') + 1));
  return keys;
}

int ScheduleContext::int_option(const std::string& key, int dflt, int lo, int hi) const {
  auto it = options.find(key);
  if (it == options.end()) return dflt;
  OptionDecl d;
  d.type = OptionType::Int;
  d.min = lo, d.max = hi;
  return static_cast<int>(std::get<int64_t>(parse_scheduler_option(d, key, it->second)));
}

double ScheduleContext::double_option(const std::string& key, double dflt, double lo, double hi) const {
  auto it = options.find(key);
  if (it == options.end()) return dflt;
  OptionDecl d;
  d.type = OptionType::Float;
  d.min = lo, d.max = hi;
  return std::get<double>(parse_scheduler_option(d, key, it->second));
}

bool ScheduleContext::bool_option(const std::string& key, bool dflt) const {
  auto it = options.find(key);
  if (it == options.end()) return dflt;
  OptionDecl d;
  d.type = OptionType::Bool;
  return std::get<bool>(parse_scheduler_option(d, key, it->second));
}

std::string ScheduleContext::string_option(const std::string& key, const std::string& dflt,
                                           const std::vector<std::string>& allowed) const {
  auto it = options.find(key);
  if (it == options.end()) return dflt;
  OptionDecl d;
  d.type = OptionType::String;
  d.choices = allowed;
  return std::get<std::string>(parse_scheduler_option(d, key, it->second));
}

int ScheduleContext::threads_per_stream(int streams) const { return std::max(1, threads / std::max(1, streams)); }

double ScheduleContext::estimate_ms(const Graph& g, std::vector<double>* stream_busy_us) const {
  if (device_estimate) return device_estimate(g, stream_busy_us);
  if (!cost_model) throw Error("ScheduleContext: no cost model to estimate graph '" + g.name + "' with");
  return simulate_schedule(g, *cost_model, threads, stream_busy_us);
}

// ---- events

std::vector<StreamEvent> minimal_events(const Graph& g) {
  const std::vector<Node*> nodes = g.nodes();
  const int streams = num_streams(g);
  if (streams == 1) return {};  // one stream orders everything
  Positions pos(g, nodes);
  Clocks clocks(g, streams);
  std::unordered_map<int, const Node*> last_on;
  std::vector<StreamEvent> events;
  for (const Node* v : nodes) {
    auto lp = last_on.find(v->stream);
    std::vector<int> c = clocks.start(v, lp == last_on.end() ? nullptr : lp->second);
    // Latest producer per other stream: an earlier one on the same stream is implied by it.
    std::map<int, const Node*> latest;
    for (const Node* u : preds(v)) {
      if (u->stream == v->stream) {
        Clocks::join(c, clocks.at(u));  // same stream: already ordered, its knowledge flows along
        continue;
      }
      auto& l = latest[u->stream];
      if (!l || pos.on_stream(u) > pos.on_stream(l)) l = u;
    }
    // A candidate is needed unless the stream predecessor or another candidate already follows it.
    std::vector<const Node*> needed;
    for (auto& [s, u] : latest) {
      bool implied = c[s] >= pos.on_stream(u);
      for (auto& [s2, w] : latest)
        if (!implied && w != u && clocks.at(w)[s] >= pos.on_stream(u)) implied = true;
      if (!implied) needed.push_back(u);
    }
    for (const Node* u : needed) {
      events.push_back({u->name(), v->name()});
      Clocks::join(c, clocks.at(u));
    }
    c[v->stream] = pos.on_stream(v);
    clocks.set(v, std::move(c));
    last_on[v->stream] = v;
  }
  return events;
}

// ---- checker

std::vector<std::string> check_schedule(const Graph& g) {
  std::vector<std::string> problems;
  const std::vector<Node*> nodes = g.nodes();
  const int streams = std::max(1, g.schedule.streams), stages = std::max(1, g.schedule.pipeline_stages);
  Positions pos(g, nodes);
  for (const Node* n : nodes) {
    if (n->stream < 0 || n->stream >= streams)
      problems.push_back(n->describe() + " is on stream " + std::to_string(n->stream) + " of " + std::to_string(streams));
    if (n->pipeline_stage < 0 || n->pipeline_stage >= stages)
      problems.push_back(n->describe() + " is in pipeline stage " + std::to_string(n->pipeline_stage) + " of " +
                         std::to_string(stages));
    for (const Node* u : preds(n)) {
      if (pos.order(u) >= pos.order(n))
        problems.push_back("issue order is not topological: " + n->describe() + " comes before its producer " + u->describe());
      if (u->pipeline_stage > n->pipeline_stage)
        problems.push_back(n->describe() + " (stage " + std::to_string(n->pipeline_stage) + ") reads " + u->describe() +
                           " of the later stage " + std::to_string(u->pipeline_stage));
    }
  }
  if (!problems.empty()) return problems;
  // One stream and no events: issue order is the only order, and it is topological (above).
  if (streams == 1 && g.schedule.events.empty() && num_streams(g) == 1) return problems;
  // Events per waiting node, then vector clocks over stream order + events.
  std::vector<std::vector<const Node*>> waits(g.node_id_bound());  // by Node::id
  for (const StreamEvent& e : g.schedule.events) {
    const Node* r = g.find_node(e.record_after);
    const Node* w = g.find_node(e.wait_before);
    if (!r || !w) {
      problems.push_back("event " + e.record_after + " -> " + e.wait_before + " names an unknown node");
      continue;
    }
    if (r->stream == w->stream) problems.push_back("event " + e.record_after + " -> " + e.wait_before + " joins nodes of one stream");
    if (pos.order(r) >= pos.order(w))
      problems.push_back("event " + e.record_after + " -> " + e.wait_before + " waits for a node issued later (deadlock)");
    waits[w->id()].push_back(r);
  }
  if (!problems.empty()) return problems;
  Clocks clocks(g, num_streams(g));
  std::unordered_map<int, const Node*> last_on;
  for (const Node* v : nodes) {
    auto lp = last_on.find(v->stream);
    std::vector<int> c = clocks.start(v, lp == last_on.end() ? nullptr : lp->second);
    for (const Node* r : waits[v->id()]) Clocks::join(c, clocks.at(r));
    for (const Node* u : preds(v))
      if (u->stream != v->stream && c[u->stream] < pos.on_stream(u))
        problems.push_back("cross-stream edge " + u->describe() + " (stream " + std::to_string(u->stream) + ") -> " +
                           v->describe() + " (stream " + std::to_string(v->stream) + ") is not ordered by any event");
    c[v->stream] = pos.on_stream(v);
    clocks.set(v, std::move(c));
    last_on[v->stream] = v;
  }
  return problems;
}

// ---- simulation

double simulate_schedule(const Graph& g, const CostModel& cm, int threads, std::vector<double>* stream_busy_us) {
  const int streams = num_streams(g);
  const int per_stream = std::max(1, threads / streams);
  std::vector<std::vector<const Node*>> waits(g.schedule.events.empty() ? 0 : g.node_id_bound());  // by Node::id
  for (const StreamEvent& e : g.schedule.events) {
    const Node* r = g.find_node(e.record_after);
    const Node* w = g.find_node(e.wait_before);
    if (r && w) waits[w->id()].push_back(r);
  }
  std::vector<double> free_at(streams, 0), busy(streams, 0);
  std::vector<double> finish(g.node_id_bound(), 0.0);  // by Node::id; a node's waits come earlier
  double end = 0;
  for (const Node* n : g.nodes()) {
    double start = free_at[n->stream];
    if (!waits.empty())
      for (const Node* r : waits[n->id()]) start = std::max(start, finish[r->id()] + cm.event_us());
    const double t = cm.node_us(*n, per_stream);
    finish[n->id()] = start + t;
    free_at[n->stream] = start + t;
    busy[n->stream] += t;
    end = std::max(end, start + t);
  }
  if (stream_busy_us) *stream_busy_us = busy;
  return end / 1000.0;
}

double serial_latency_ms(const Graph& g, const CostModel& cm, int threads) {
  double us = 0;
  for (const Node* n : g.nodes()) us += cm.node_us(*n, threads);
  return us / 1000.0;
}

}  // namespace ge
