// ge/core/dynamic.h — dynamic shapes: gears and per-shape specialization (docs/plan.md,
// "Dynamic shapes").
//
// A model whose graph inputs have symbolic dimensions (ONNX dim_param: `batch`, `sequence`) is
// compiled into a dynamic plan. It holds
//   - gears (CANN's term for its dynamic-batch / dynamic-dims offline models): for each given
//     binding of the symbols, the graph compiled, arena-planned and scheduled for that static
//     shape; their constants share one weights section (bytes stored once across gears);
//   - the source model and the compile options, from which a shape outside every gear is
//     specialized on first use: imported with those input shapes and compiled by the whole
//     pipeline, then kept in an LRU cache of `cache_size` shapes (ONNX Runtime runs every shape
//     from one session; TensorRT's optimization profiles play the role of gears).
// At run the input shapes bind the symbols (checked against the model's declared dims); an
// exact gear runs; else, when every differing symbol is `paddable`, the smallest gear at least
// as large runs on zero-padded inputs and its outputs are cut back along those symbols; else a
// specialization runs. A model with a node whose output shape depends on run-time values runs
// in stages cut at that node (ge/core/staging.h), every stage specialized the same way.
#pragma once
#include <chrono>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/pipeline.h"
#include "ge/core/runtime.h"
#include "ge/core/staging.h"
#include "ge/sdk/ir.h"

namespace ge::core {

/// symbol → extent, e.g. {batch: 2, sequence: 17}
using Binding = std::map<std::string, int64_t>;
/// "batch=2,sequence=17"
std::string binding_str(const Binding& b);

struct DynamicSpec {
  std::string source_name;  ///< the model's file name, for messages
  /// The ONNX model bytes (a view of the plan's weights or an owned copy; `keepalive` holds them).
  const uint8_t* source_data = nullptr;
  size_t source_size = 0;
  std::shared_ptr<const void> keepalive;
  std::vector<SymbolicTensor> inputs, outputs;
  std::vector<std::string> paddable;
  size_t cache_size = 8;
  /// Symbolic dims may be 0 (the inputs of a stage: NonZero of zeros gives [r, 0]).
  bool allow_empty = false;
  OptLevel opt_level = OptLevel::O2;
  bool strict_numerics = false;
  std::vector<std::string> disabled;
  std::string backend = "cpu";

  /// The symbols of the inputs, in order of first occurrence.
  std::vector<std::string> symbols() const;
  /// The raw bytes of initializers a plan keeps apart from the model: aligned in its weights
  /// section, where the gears' byte-equal constants share them (the model at source_data then
  /// has those initializers without raw_data). Empty for a model read from a file.
  struct SourceTensor {
    std::string name;
    const uint8_t* data = nullptr;
    size_t size = 0;
  };
  std::vector<SourceTensor> source_tensors;
  /// The whole ONNX model: source_data with source_tensors' bytes put back (rebuilt once per
  /// loaded plan, shared by the copies of this spec). Throws ge::Error for an initializer the
  /// model does not have.
  std::string source_bytes() const;

 private:
  struct Rebuilt {
    std::mutex mu;
    std::shared_ptr<const std::string> bytes;
  };
  std::shared_ptr<Rebuilt> rebuilt_ = std::make_shared<Rebuilt>();

 public:
};

struct GearGraph {
  Binding binding;
  std::shared_ptr<Graph> graph;
};

struct DynamicPlan {
  DynamicSpec spec;
  std::vector<GearGraph> gears;
};

/// True when some graph input of the signature has a symbolic dim.
bool has_symbolic_inputs(const OnnxSignature& s);

/// The spec of a model file: its signature, its bytes (owned), the options a specialization
/// replays (opt level, numerics, disabled passes, backend of `opts`) and the manifest's
/// [compile] paddable / specialization_cache. Throws ge::Error for a paddable name that is no
/// symbol of the inputs, or a model with external data (a plan cannot carry its files).
DynamicSpec dynamic_spec_from_file(const std::string& path, const CompileOptions& opts, const Manifest& m);

/// Gears from text: "batch=1,2,4;sequence=16,32" (every combination of the listed values of
/// each symbol; every symbol needs values) or whole-shape profiles "NAME:D0xD1,NAME2:…;…" (one
/// profile per ';', every input given). Throws ge::Error naming the part that is wrong.
std::vector<Binding> parse_gears(const std::string& text, const DynamicSpec& spec);

/// Binds the symbols from concrete input shapes (inputs in spec.inputs order). Throws ge::Error
/// naming the input, the dim and both values for a rank mismatch, a fixed dim given another
/// value, a symbol bound to two values, a non-positive extent, a dtype mismatch.
Binding bind_inputs(const DynamicSpec& spec, const std::vector<Tensor>& inputs);

/// The static input shapes of a binding (name → dims) for ImportOptions::frontend.input_shapes.
std::map<std::string, std::vector<int64_t>> input_shapes_for(const DynamicSpec& spec, const Binding& b);

/// The source model imported at binding `b` and compiled by every stage. `base` gives the
/// options not in the spec (threads, verification, progress). Throws ge::Error for a model with
/// a data-dependent output shape (a gear must be one static plan; see specialize).
std::shared_ptr<Graph> compile_binding(const DynamicSpec& spec, const Binding& b, const Environment& env,
                                       const CompileOptions& base, CompileResult* result = nullptr);

class SpecializationCache;

/// A model at one binding cut into stages at a node whose output shape depends on run-time
/// values (ge/core/staging.h): the prefix (static at the binding), the eager node, and the
/// suffix, specialized per shape of its inputs (one DynamicPlan per dtypes and ranks of them).
struct Staging {
  StageCut cut;
  std::shared_ptr<const DynamicPlan> prefix;  ///< null when the prefix computes nothing
  std::shared_ptr<SpecializationCache> prefix_cache;
  /// The suffix plan (and its cache) for inputs of these dtypes and ranks; made on first use.
  std::pair<std::shared_ptr<const DynamicPlan>, std::shared_ptr<SpecializationCache>> suffix_for(
      const std::vector<Tensor>& inputs);
  /// Evaluates the cut node on the host: its inputs in cut.eager_inputs order.
  std::vector<Tensor> run_eager(const std::vector<Tensor>& inputs) const;

  DynamicSpec base;  ///< the options every stage replays
  const Environment* env = nullptr;
  CompileOptions compile;
  mutable std::mutex mu;
  std::map<std::string, std::pair<std::shared_ptr<const DynamicPlan>, std::shared_ptr<SpecializationCache>>> suffixes;
};

/// What one binding of a model runs: the whole model compiled, or stages.
struct Specialization {
  std::shared_ptr<const Graph> graph;
  std::shared_ptr<Staging> staged;
};

/// The model at binding `b`: compiled whole when every shape is static there, else cut into
/// stages at the first node whose output shape depends on run-time values. Throws like
/// compile_binding otherwise.
Specialization specialize(const DynamicSpec& spec, const Binding& b, const Environment& env, const CompileOptions& base);

/// The plan bytes (ge/core/plan.h layout; Header.dynamic). Throws ge::Error like serialize_plan.
std::vector<uint8_t> serialize_dynamic_plan(const DynamicPlan& p, const Environment& env);
void save_dynamic_plan(const DynamicPlan& p, const Environment& env, const std::string& path);

/// What one DynamicExecutor::run ran.
struct DynamicRunInfo {
  std::string kind;         ///< "gear", "padded gear", "specialization", "stages"
  Binding binding;          ///< the inputs' binding
  Binding ran;              ///< the binding of the graph that ran (the gear's when padded)
  int gear = -1;            ///< index into DynamicPlan::gears, -1 for a specialization
  bool compiled = false;    ///< a specialization compiled by this run (first use of the shape)
  double compile_ms = 0;    ///< its compile time (import + every stage)
  bool built = false;       ///< kernels built by this run (first use in this executor)
  double build_ms = 0;
  uint64_t arena_bytes = 0; ///< the arena of the graph that ran
  /// Stages: the cut node ("node 'NonZero_1' (NonZero)"), and for each stage what ran.
  std::string cut_node;
  std::vector<DynamicRunInfo> stages;  ///< prefix (when any), then suffix (when any)
};

/// Counters of a plan's specializations (reported by gec run and the profile).
struct SpecializationStats {
  int64_t compiled = 0, hits = 0, evicted = 0;
  double compile_ms = 0;
};

/// The specializations of one plan, shared by every executor of it (thread-safe): at most
/// spec.cache_size graphs, least recently used evicted.
class SpecializationCache {
 public:
  SpecializationCache(std::shared_ptr<const DynamicPlan> plan, const Environment& env, CompileOptions base);
  /// What runs at `b`; compiles it when absent (then *compiled = true, *ms = its compile time).
  Specialization get(const Binding& b, bool* compiled, double* ms);
  /// The counts of this cache and of the caches of its stages.
  SpecializationStats stats() const;

 private:
  std::shared_ptr<const DynamicPlan> plan_;
  const Environment& env_;
  CompileOptions base_;
  mutable std::mutex mu_;
  std::list<std::pair<Binding, Specialization>> lru_;  // most recent first
  SpecializationStats stats_;
};

/// Runs a dynamic plan at any shape it can serve. Executables (kernels) are built per graph on
/// first use and kept (gears: all; specializations: as many as the cache keeps); every one of
/// them runs in one arena sized for the largest graph used so far — only one runs at a time.
/// Not thread-safe (one per thread, like Executable).
class DynamicExecutor {
 public:
  DynamicExecutor(std::shared_ptr<const DynamicPlan> plan, std::shared_ptr<SpecializationCache> cache,
                  const Environment& env, ExecOptions opts);
  ~DynamicExecutor();
  /// Inputs in spec.inputs order; outputs in spec.outputs order.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  const DynamicRunInfo& last_run() const { return last_; }
  /// Bytes of the shared arena now.
  uint64_t arena_bytes() const;
  const DynamicPlan& plan() const { return *plan_; }
  SpecializationStats specialization_stats() const { return cache_->stats(); }
  /// The executable that ran last (profiling, inspection); null before any run.
  Executable* last_executable() const { return last_exe_; }

 private:
  struct StagedRun;
  Executable& executable(const std::string& key, std::shared_ptr<const Graph> g);
  std::vector<Tensor> run_stages(const std::string& key, const std::shared_ptr<Staging>& st,
                                 const std::vector<Tensor>& inputs, DynamicRunInfo& info);
  std::shared_ptr<const DynamicPlan> plan_;
  std::shared_ptr<SpecializationCache> cache_;
  const Environment& env_;
  ExecOptions opts_;
  Tensor arena_;
  std::list<std::pair<std::string, std::unique_ptr<Executable>>> exes_;  // most recent first
  std::list<std::pair<std::string, std::unique_ptr<StagedRun>>> staged_;  // most recent first
  Executable* last_exe_ = nullptr;
  DynamicRunInfo last_;
};

}  // namespace ge::core
