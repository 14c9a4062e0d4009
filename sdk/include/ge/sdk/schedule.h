// ge/sdk/schedule.h — schedulers: node order, streams, events and pipeline stages.
//
// The schedule stage (plugins/scheduler, pass `schedule`) hands the graph to the Scheduler named
// by `[scheduler] name` (default "sequential"). A scheduler
//   - reorders the node list (Graph::nodes() order = issue order; it must stay topological),
//   - puts every node on a stream (Node::stream, 0..streams-1); each stream runs its nodes in
//     issue order, streams run concurrently,
//   - records the cross-stream dependencies as events (ScheduleInfo::events): every data edge
//     between nodes of different streams must be implied by the stream orders and the events,
//   - optionally cuts the graph into pipeline stages (Node::pipeline_stage, monotone along edges),
//     which run concurrently on successive requests,
// and fills Graph::schedule (scheduler, streams, pipeline_stages, events, reason). The stage then
// checks the result (check_schedule) and estimates its latency (simulate_schedule).
//
// Priorities for list scheduling follow HEFT's upward rank (Topcuoglu, Hariri & Wu,
// "Performance-effective and low-complexity task scheduling for heterogeneous computing",
// IEEE TPDS 13(3), 2002): rank(n) = w(n) + max over successors s (c(n, s) + rank(s)), with w the
// cost model's node time and c the event cost when n and s may land on different streams.
// Node times come from a CostModel (ge/sdk/cost_model.h, roofline per node).
#pragma once
#include <functional>
#include <map>
#include <optional>

#include "ge/sdk/options.h"
#include <string>
#include <vector>

#include "ge/sdk/cost_model.h"
#include "ge/sdk/ir.h"

namespace ge {

class Scheduler;

/// What a scheduler is given besides the graph.
struct ScheduleContext {
  /// The `[scheduler]` manifest section: key → TOML text of its value ("2", "true", "\"auto\"").
  std::map<std::string, std::string> options;
  /// Thread budget of one inference (`--threads`): streams × threads per stream never exceed it.
  int threads = 1;
  /// Node latency estimates; never null when a scheduler runs.
  const CostModel* cost_model = nullptr;
  /// Every registered scheduler by name (the `auto` scheduler tries the others).
  std::map<std::string, const Scheduler*> schedulers;
  /// (ABI 1.1) Latency in ms of one inference of a scheduled graph when the backend simulates its
  /// device (PassContext::simulate_device: AI Cores shared between streams, ge/sdk/device_sim.h);
  /// per-stream busy µs go to the vector when given. Empty → simulate_schedule with cost_model.
  std::function<double(const Graph& g, std::vector<double>* stream_busy_us)> device_estimate;
  /// device_estimate when set, else simulate_schedule(g, *cost_model, threads, stream_busy_us).
  double estimate_ms(const Graph& g, std::vector<double>* stream_busy_us = nullptr) const;

  /// Typed option readers. Absent → `dflt`; a value of the wrong type or out of [lo, hi] throws
  /// ge::ConfigError naming "scheduler.<key>" and what is allowed.
  int int_option(const std::string& key, int dflt, int lo, int hi) const;
  double double_option(const std::string& key, double dflt, double lo, double hi) const;
  bool bool_option(const std::string& key, bool dflt) const;
  /// A string option, one of `allowed` (empty = any).
  std::string string_option(const std::string& key, const std::string& dflt,
                            const std::vector<std::string>& allowed = {}) const;
  /// Threads each of `streams` concurrent streams may use: max(1, threads / streams).
  int threads_per_stream(int streams) const;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string name() const = 0;  ///< "sequential", "parallel", "pipeline", "auto", …
  virtual std::string summary() const = 0;
  /// Keys of `[scheduler]` this scheduler reads (without the section); the pass manager refuses
  /// keys that no loaded pass or scheduler declares. Default: the keys of option_decls().
  virtual std::vector<std::string> options() const;
  /// Schedules `g` in place (see the top of this file). Throws ge::ConfigError for bad options.
  virtual void schedule(Graph& g, const ScheduleContext& ctx) const = 0;
  /// (ABI 1.6) The options it reads, declared (ge/sdk/options.h; keys "scheduler.KEY"): the host
  /// declares them for the registering plugin, so manifest values are checked when the
  /// environment is loaded and `gec plugins --options` lists them.
  virtual std::vector<OptionDecl> option_decls() const { return {}; }
};

// ---- helpers every scheduler uses

/// The minimal set of events that orders every cross-stream data edge of `g`, given Node::stream
/// and the issue order (Graph::nodes(), which must be topological). An edge u → v is left out when
/// stream order and the events already chosen imply it (a vector clock per node: u precedes v iff
/// clock(v)[stream(u)] ≥ position of u on its stream, which is exact for stream-ordered DAGs);
/// among the remaining candidates of one node only those not implied by another candidate are
/// kept — the transitive reduction of the cross-stream edges over the stream-order + event graph.
std::vector<StreamEvent> minimal_events(const Graph& g);

/// Problems of a schedule, empty when valid: issue order not topological, a stream or stage out
/// of range, an event naming an unknown node or nodes of one stream, a cross-stream data edge not
/// implied by stream order and events, an edge from a later pipeline stage to an earlier one.
std::vector<std::string> check_schedule(const Graph& g);

/// Estimated latency in ms of one inference under g.schedule: every stream is a queue running its
/// nodes in issue order with threads_per_stream(streams) threads; a node starts when its stream is
/// free and every event it waits for has been recorded (+ event_us). Per-stream busy time in µs
/// goes to `stream_busy_us` when given.
double simulate_schedule(const Graph& g, const CostModel& cm, int threads,
                         std::vector<double>* stream_busy_us = nullptr);

/// Sum of node_us over the graph at `threads` threads, in ms (one stream, no overlap).
double serial_latency_ms(const Graph& g, const CostModel& cm, int threads);

}  // namespace ge
