// ge/core/session.h — running compiled plans from an application.
//
//   auto plan = ge::LoadedPlan::load("model.gep");          // default manifest's plugins
//   for (auto& i : plan->inputs()) …                          // names, dtypes, shapes
//   ge::Session s = plan->new_session();                      // one per thread
//   std::vector<ge::Tensor> out = s.run({input0});            // or s.run({{"x", input0}})
//
// Threads: one LoadedPlan is shared by any number of threads. Each Session is a run context of
// its own — its own arena, intermediate buffers and kernels — and runs one inference at a time;
// give each thread its own Session (LoadedPlan::run makes a temporary one per call). Kernels are
// built per Session because a Kernel's run() is not required to be thread-safe (sdk/kernel.h: it
// may keep scratch state, e.g. the CPU backend's fused-elementwise scratch and oneDNN memory
// objects bound to its buffers). Weights are shared: constants are one memory-mapped copy; only
// weights a kernel reorders at build time (blocked convolution weights) exist once per Session.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ge/core/dynamic.h"
#include "ge/core/environment.h"
#include "ge/core/plan.h"
#include "ge/core/runtime.h"
#include "ge/sdk/error.h"
#include "ge/sdk/tensor.h"

namespace ge {

/// A graph input or output as an application binds it.
struct TensorInfo {
  std::string name;
  DataType dtype = DataType::Undefined;
  Shape shape;  ///< of a dynamic plan: -1 for each symbolic dim (see `dims`)
  std::string dims;  ///< a dynamic plan's declared dims, "[batch,sequence]"; empty for a static plan
};

struct PlanLoadOptions {
  core::LoadOptions load;  ///< outputs to keep (the rest are pruned at load)
  int threads = 1;         ///< intra-op threads of each run
  /// What messages call the source: "plan" (a plan file or bytes), or "model" when the bytes were
  /// compiled in this process from the model file `what` names (gec run of an ONNX model).
  std::string source_kind = "plan";
};

class Session;

class LoadedPlan : public std::enable_shared_from_this<LoadedPlan> {
 public:
  /// Loads the plan with the plugins of the default manifest (core::default_manifest_path()), or
  /// of its backend's manifest beside the plugins when there is one (core::backend_manifest_path:
  /// an Ascend .om loads through ascend.toml).
  static std::shared_ptr<LoadedPlan> load(const std::string& path, const PlanLoadOptions& opts = {});
  /// Loads the plan with the plugins of a given manifest file.
  static std::shared_ptr<LoadedPlan> load(const std::string& path, const std::string& manifest,
                                          const PlanLoadOptions& opts);
  /// Loads the plan into an environment the application already holds.
  static std::shared_ptr<LoadedPlan> load(const std::string& path, std::shared_ptr<const core::Environment> env,
                                          const PlanLoadOptions& opts = {});

  /// Loads a plan held in memory (e.g. just serialized by core::serialize_plan, or read by an
  /// application from its own storage): the same checks as a file, with `what` naming the
  /// source in messages ("plan 'what': …"). The bytes are shared, not copied; constants view them.
  static std::shared_ptr<LoadedPlan> load_bytes(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& what,
                                                std::shared_ptr<const core::Environment> env,
                                                const PlanLoadOptions& opts = {});

  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  /// The graph (a dynamic plan's first gear). A dynamic plan without gears has none: check
  /// is_dynamic() and has_graph() first.
  const Graph& graph() const {
    if (!contents_.graph) throw Error(label_ + " is dynamic and has no gear: it has no graph until a shape is run");
    return *contents_.graph;
  }
  bool has_graph() const { return contents_.graph != nullptr; }
  /// A plan compiled with symbolic input dims (gears, specialization; ge/core/dynamic.h).
  bool is_dynamic() const { return contents_.dynamic != nullptr; }
  /// The specializations compiled so far (every Session of this plan shares them).
  core::SpecializationStats specialization_stats() const;
  const core::PlanContents& contents() const { return contents_; }
  /// The passes that ran at load (each PassInfo::runtime_safe).
  const std::vector<PassInfo>& load_passes() const { return load_passes_; }
  double load_ms() const { return load_ms_; }

  /// A new run context (builds the kernels). Thread-safe. A kernel's refusal is a ge::Error
  /// starting "plan 'PATH': node 'n' (Op): …".
  Session new_session() const;
  /// One run in a temporary Session (convenient, but builds kernels each call). Thread-safe.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;

 private:
  friend class Session;
  LoadedPlan() = default;
  /// Load-time passes and the input/output lists, once contents_ is set (file or bytes).
  void finish_load(const std::string& what, const PlanLoadOptions& opts);
  std::shared_ptr<const core::Environment> env_;
  std::string what_;  ///< the plan's path (or load_bytes' `what`)
  std::string label_;  ///< "plan 'what'" (or "model 'what'", PlanLoadOptions::source_kind): messages start with it
  core::PlanContents contents_;
  std::vector<TensorInfo> inputs_, outputs_;
  std::vector<PassInfo> load_passes_;
  int threads_ = 1;
  double load_ms_ = 0;
  mutable std::mutex build_mutex_;  // kernel factories and Backend::set_threads touch shared state
  std::shared_ptr<core::SpecializationCache> spec_cache_;  // dynamic plans
};

/// One run context of a LoadedPlan: arena, buffers, kernels. Not thread-safe itself.
class Session {
 public:
  /// Inputs in LoadedPlan::inputs() order; each must match its dtype and shape (ge::Error
  /// naming the input otherwise). Outputs in LoadedPlan::outputs() order.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  /// Inputs by name; every input must be given (ge::Error naming a missing or unknown one).
  std::vector<Tensor> run(const std::map<std::string, Tensor>& inputs);
  const LoadedPlan& plan() const { return *plan_; }
  /// Of a dynamic plan: what the last run ran (gear, padded gear or specialization, its
  /// binding, first-use compile time, arena); null for a static plan or before any run.
  const core::DynamicRunInfo* last_run() const;

 private:
  friend class LoadedPlan;
  Session(std::shared_ptr<const LoadedPlan> plan, std::unique_ptr<core::Executable> exe);
  Session(std::shared_ptr<const LoadedPlan> plan, std::unique_ptr<core::DynamicExecutor> dyn);
  std::shared_ptr<const LoadedPlan> plan_;
  std::unique_ptr<core::Executable> exe_;
  std::unique_ptr<core::DynamicExecutor> dyn_;
  bool ran_ = false;
};

}  // namespace ge
