// ge/core/request_pipeline.h — many requests through one compiled graph: back to back, or
// overlapped through the pipeline stages the schedule cut (Graph::schedule.pipeline_stages = K,
// Node::pipeline_stage), for throughput.
//
// Pipelined: W = min(K, threads) stage workers, worker w owning the contiguous stages
// [w·K/W, (w+1)·K/W), each worker thread with threads / W intra-op threads (total ≤ threads).
// Requests flow worker 0 → … → W−1 in order. Each in-flight request has its own run context — an
// Executable with its own arena, buffers and kernels (Kernel::run need not be thread-safe, so
// kernels are not shared between slots) — taken from W + 1 slots, request r in slot r mod (W+1):
// one more slot than workers lets the first stage start a request while the last one finishes
// an earlier one. Memory: (W + 1) arenas.
//
// Sequential (K = 1, or asked for): the requests run one after the other on one Executable with
// all threads (a multi-stream schedule runs on its streams), the baseline pipelining must beat.
//
// Latency of a request: from its first stage's start to its last stage's end (queueing between
// stages included); throughput: requests / wall time of the whole batch.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ge/core/runtime.h"

namespace ge::core {

struct RequestStats {
  std::string mode;  ///< "pipeline" or "sequential"
  int requests = 0, stages = 1, workers = 1, slots = 1, threads_per_worker = 1;
  double total_ms = 0, throughput_rps = 0;
  double latency_mean_ms = 0, latency_median_ms = 0, latency_min_ms = 0, latency_max_ms = 0;
  std::vector<double> latency_ms;  ///< per request, in request order
};

class RequestPipeline {
 public:
  /// Builds the slots' Executables (ge::Error as Executable's constructor). `sequential` forces
  /// back-to-back execution even when the graph has pipeline stages.
  RequestPipeline(std::shared_ptr<const Graph> graph, const Environment& env, ExecOptions opts, bool sequential = false);
  ~RequestPipeline();

  /// Runs every request (each a full input list in graph input order) and returns each one's
  /// outputs in request order. An error in any stage stops the batch and is rethrown, naming the
  /// request and the node.
  std::vector<std::vector<Tensor>> run(const std::vector<std::vector<Tensor>>& requests);
  /// Figures of the last run().
  const RequestStats& stats() const { return stats_; }

 private:
  std::shared_ptr<const Graph> graph_;
  const Environment& env_;
  ExecOptions opts_;
  bool pipelined_;
  int workers_ = 1, intra_ = 1;
  std::vector<std::unique_ptr<Executable>> slots_;
  RequestStats stats_;
};

}  // namespace ge::core
