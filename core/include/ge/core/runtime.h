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
  int threads = 1;  ///< intra-op threads given to the backend
};

/// A graph bound to kernels and buffers. Kernels are built once (they precompute primitives and
/// reorder constant weights); run() only executes. One Executable runs one inference at a time.
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
  /// Node of step i (execution order) and its kernel's impl_name(); the profiler names spans so.
  const Node& step_node(size_t i) const;
  std::string step_kernel(size_t i) const;
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
  struct Impl;
  std::shared_ptr<const Graph> graph_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ge::core
