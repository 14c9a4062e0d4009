// ge/core/runtime.h — runs a compiled graph: one kernel per node, in order, on the host.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/sdk/ir.h"

namespace ge::core {

struct StepTimes;  // ge/core/profiler.h

/// Per-run options. `profile`, when set, receives each step's start and end (steady_clock);
/// when null the run loop pays one pointer test per step.
struct RunOptions {
  StepTimes* profile = nullptr;
};

struct ExecOptions {
  std::string backend = "cpu";
  /// The thread budget. With a multi-stream schedule (Graph::schedule.streams = S > 1) and
  /// threads ≥ S, each stream runs on its own worker thread and kernels get threads / S
  /// intra-op threads each (2 streams × 1 thread at threads = 2); with threads < S the nodes
  /// run serially in graph order with all threads inside the kernels. The total never exceeds it.
  int threads = 1;
  /// Run a multi-stream schedule serially in graph order anyway (a baseline for comparisons).
  bool serialize_streams = false;
  /// An arena to run in instead of allocating one (DynamicExecutor: one arena for every graph
  /// of a dynamic plan, only one of which runs at a time). Used when it holds at least
  /// Graph::arena_bytes; the caller keeps it alive as long as the Executable and runs no two
  /// Executables sharing it at once.
  Tensor arena{};
};

/// A graph bound to kernels and buffers. Kernels are built once (they precompute primitives and
/// reorder constant weights); run() only executes. One Executable runs one inference at a time.
///
/// Streams: with a multi-stream schedule the constructor validates it (ge::StreamOrder: streams
/// in range, events naming nodes, no event waiting for a later-issued node, every cross-stream
/// data edge implied by events; ge::Error naming the edge otherwise) and starts one persistent
/// worker per stream. run() wakes them; each runs its stream's nodes in graph order, waiting
/// for the events before a node and recording those after it. An error on any stream stops the
/// others (no deadlock) and run() throws it, naming the node.
class Executable {
 public:
  /// Builds every node's kernel; throws ge::Error naming the op type, the node and the backend
  /// searched when a node has no kernel, or the kernel's own UnsupportedError.
  Executable(std::shared_ptr<const Graph> graph, const Environment& env, ExecOptions opts);
  ~Executable();

  const Graph& graph() const { return *graph_; }
  /// Runs once. `inputs` follow graph().inputs() order; each must match that input's dtype and
  /// shape (ge::Error naming the input otherwise). Returns the outputs in graph().outputs() order.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, const RunOptions& ro);
  /// Pipelined execution (core::RequestPipeline), one request at a time per Executable:
  /// bind_inputs checks and binds a request's inputs (the caller keeps them alive until
  /// collect_outputs), run_stage(k) runs the steps of pipeline stage k (Node::pipeline_stage;
  /// stages are contiguous in graph order) serially on the calling thread, and collect_outputs
  /// copies the outputs out (into the buffers of the previous run's outputs when the caller has
  /// dropped every copy of them, so a steady loop faults in no new pages). run() is
  /// bind_inputs + every step + collect_outputs.
  void bind_inputs(const std::vector<Tensor>& inputs);
  void run_stage(int stage);
  std::vector<Tensor> collect_outputs(const std::vector<Tensor>& inputs) const;
  /// Graph::schedule.pipeline_stages (1 when the graph is not pipelined).
  int num_stages() const;
  /// Node of step i (execution order) and its kernel's impl_name(); the profiler names spans so.
  const Node& step_node(size_t i) const;
  std::string step_kernel(size_t i) const;
  /// Stream step i ran on (0 when the schedule has one stream or runs serially).
  int step_stream(size_t i) const;
  /// Streams run concurrently (1 when serial) and each one's intra-op threads.
  int streams() const;
  int intra_op_threads() const;
  /// Steps that run a kernel.
  size_t num_kernels() const;
  /// Nodes executed as views of their input (their output shares the input's planned bytes and
  /// their op only moves data): no kernel runs for them.
  size_t num_aliases() const;
  /// Bytes of the one arena allocated for planned values (0 without a memory plan).
  uint64_t arena_bytes() const;
  /// The contents a produced value's buffer holds after the last run() (a copy), or std::nullopt
  /// when the name is not a produced value of this graph. With an arena plan that reuses memory
  /// the bytes may since belong to a later tensor: compile with `memory.level = "none"` to read
  /// intermediates (as `gec compare` does).
  std::optional<Tensor> value(const std::string& name) const;

 private:
  /// Output k's copy out of the arena: into the buffer of the previous run's output k when the
  /// caller no longer holds it, else into a new one.
  Tensor copy_output(size_t k, const Tensor& src) const;
  struct Impl;
  void build_streams(Backend& backend);
  void run_step(size_t k, StepTimes* prof);
  std::shared_ptr<const Graph> graph_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ge::core
