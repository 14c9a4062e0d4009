// Shared pieces of gec's subcommands: one set of options, one compile path, one report.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ge/core/compare.h"
#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/core/pipeline.h"
#include "ge/core/request.h"
#include "ge/core/runtime.h"
#include "ge/sdk/tensor.h"

namespace gec {

/// Options every subcommand that compiles or runs accepts (`compile`, `run`, `conformance`, …).
struct CommonOptions {
  std::string manifest;   ///< --manifest; default: the installed default manifest
  std::string log_level;  ///< --log-level
  std::string opt_level;  ///< -O0..-O3
  std::string numerics;   ///< --numerics strict|relaxed
  std::vector<std::string> disable, sets, print_after, input_shapes;
  std::string backend, scheduler, report;
  std::string soc_version;  ///< --soc-version (= --set ascend.soc_version=NAME; docs/ascend.md)
  bool soc_version_given = false;  ///< --soc-version was given (even as ""; the plugin refuses an empty one)
  int threads = 0;  ///< --threads; 0 = manifest value or all cores
  bool verify_each = false, fail_on_pass_error = false, keep_initializer_inputs = false;
  bool quiet = false;  ///< --quiet: no progress lines (they go to stderr only when it is a terminal)

  void add_to(CLI::App& app, bool compile_options = true);
  /// Applies the log level and overrides, loads the manifest's plugins. Without --manifest, the
  /// backend asked for (--backend NAME, else the backend of the plan file `model`) is loaded
  /// through <plugin dir>/NAME.toml when that file exists (docs/ascend.md), else through the
  /// default manifest. Throws ge::Error when no loaded plugin registers that backend, listing
  /// the registered backends and the backend manifests found (Environment::backend).
  std::unique_ptr<ge::core::Environment> load_environment(const std::string& model = "") const;
  /// The options as one core request (ge/core/request.h), which the Python module builds too.
  ge::core::CompileRequest request(const std::string& model = "") const;
  ge::core::ImportOptions import_options() const;
  ge::core::CompileOptions compile_options(const ge::core::Environment& env) const;
  int thread_count(const ge::core::Environment& env) const;
};

/// Usage checks of the numeric options of a parsed subcommand (those it has and was given):
/// --threads, --iterations, --requests, --top, --seed (integers in range) and the tolerances
/// --max-rel-l2, --rtol, --atol (finite numbers >= 0). Throws ge::Error "NAME VALUE: must be ..."
/// (gec exits 2), on the text as typed, before anything is loaded.
void check_numeric_options(const CLI::App& sub);
/// Path options refused before any work (ge::Error naming the option and the path): --inputs or
/// --check that is not a directory; an output file (--report, --json, --trace, -o/--output)
/// whose directory does not exist or that names a directory.
void check_path_options(const CLI::App& sub);

using ge::core::plan_backend_refusal;

/// A model taken from file to executable, with the figures the report needs.
struct Compiled {
  std::shared_ptr<ge::Graph> graph;
  std::unique_ptr<ge::core::Executable> exe;
  ge::core::CompileResult result;
  ge::core::CompileOptions options;
  size_t nodes_before = 0;
  /// FLOPs (2 × multiply-add, bias adds included: ge::node_flops) of the imported graph's ONNX
  /// Conv, MatMul and Gemm nodes at the shapes propagated for this compile; -1 for a plan (the
  /// imported graph is not kept in it).
  double dense_flops = -1;
  double import_ms = 0;   ///< frontend: protobuf parsing and weights
  ge::core::ImportResult import;  ///< what shape propagation did (expanded function bodies)
  double compile_ms = 0;  ///< parsed model → executable in memory
  int threads = 1;
  double plan_load_ms = -1;
  const ge::core::Environment* env = nullptr;  ///< the environment it was compiled in (cost model)  ///< a plan: file → executable (map, checksum, parse, kernels); -1 for models
};
Compiled compile_model(const std::string& model, const ge::core::Environment& env, const CommonOptions& common);
/// A plan file (ge/core/plan.h) loaded and bound to kernels, without import or compilation (cmd_plan.cc).
Compiled load_plan_model(const std::string& path, const ge::core::Environment& env, const CommonOptions& common);
/// Writes the compiled graph as a plan (temporary file + rename).
void write_plan(const Compiled& c, const ge::core::Environment& env, const std::string& path);

/// The report (docs/report.md): one schema for every subcommand.
nlohmann::json make_report(const std::string& model, const Compiled& c);
/// The report's `schedule` key: Graph::schedule plus the cost model's calibration state ({} when
/// the graph was not scheduled).
nlohmann::json schedule_report(const ge::Graph& g, const ge::core::Environment* env, const std::string& backend);
/// Writes `bytes` to `path` through `path`.tmp and a rename: never a half-written file. Throws
/// ge::Error "cannot write 'path': <the OS reason>" (the temporary file removed).
void write_file_atomic(const std::string& path, const std::string& bytes);
/// write_file_atomic of the JSON (2-space indent, trailing newline).
void write_json(const nlohmann::json& j, const std::string& path);

/// input_K.pb files of DIR, one per graph input (K in graph-input order).
std::vector<ge::Tensor> read_inputs(const std::string& dir, const ge::Graph& g);
/// Seeded random inputs: floats uniform in [-1, 1), integers in {0, 1}, booleans.
std::vector<ge::Tensor> random_inputs(const ge::Graph& g, uint32_t seed);

int cmd_run(const std::string& model, const CommonOptions& common, CLI::App& sub);

// ---- models with symbolic input dims (cmd_dynamic.cc; ge/core/dynamic.h)
/// An ONNX model with a symbolic input dim and no --input-shape, or a dynamic plan file.
bool is_dynamic_model(const std::string& model, const CommonOptions& common);
/// gec compile of such a model: its gears (--gears, else [compile] gears), written as one plan.
int cmd_compile_dynamic(const std::string& model, const CommonOptions& common, const std::string& plan_out,
                        const std::string& gears_text);
/// gec run of such a model or plan over every input set (--inputs DIR..., --check DIR).
int cmd_run_dynamic(const std::string& model, const CommonOptions& common, CLI::App& sub);
/// gec inspect of a dynamic plan: its gears and their arenas.
int inspect_dynamic(const std::string& model, const ge::core::Environment& env, const std::string& out_path);

// ---- the simulated device time of backends with a device simulator (simulation.cc, ge/sdk/device_sim.h)
/// One simulated inference of c's graph; std::nullopt when its backend registered no simulator.
std::optional<ge::DeviceSimulation> device_simulation(const Compiled& c);
/// The nodes by simulated time, longest first (indexes into s.nodes; top 0 = all).
std::vector<size_t> simulated_top(const ge::DeviceSimulation& s, size_t top);
/// FLOPs of the graph's nodes (ge::node_flops), for the roofline FLOPs / peak.
double graph_flops(const ge::Graph& g);
/// The report's `simulation` key (docs/report.md).
nlohmann::json simulation_json(const ge::DeviceSimulation& s, size_t top, double flops);
void print_simulation_line(const ge::DeviceSimulation& s, double flops);
void print_simulation_top(const ge::DeviceSimulation& s, size_t top);
/// Writes s.trace_json (temporary file + rename).
void write_simulation_trace(const ge::DeviceSimulation& s, const std::string& path);

/// gec run --requests M [--sequential] [--baseline] (run_requests.cc).
struct RequestOptions {
  int requests = 0;         ///< 0: not asked for
  bool sequential = false;  ///< back to back even when the schedule has pipeline stages
  bool baseline = false;    ///< pipelined: also run back to back at --threads and at 1 thread
};
/// Runs the requests, prints and returns their figures (report key run.requests); checks every
/// request's outputs against check_dir when given (clears check_ok on a mismatch).
nlohmann::json run_requests(const Compiled& c, const ge::core::Environment& env, const std::vector<ge::Tensor>& inputs,
                            const RequestOptions& ro, const std::string& check_dir, const ge::core::Tolerance& tol,
                            bool& check_ok);
int cmd_compile(const std::string& model, const CommonOptions& common, const std::string& plan_out = "",
                const std::string& gears = "");
int cmd_plugins(const CommonOptions& common);
int cmd_plugin_options(const CommonOptions& common);
/// `gec ops`: the registries' op types and versions, metadata and backends (cmd_ops.cc).
int cmd_ops(const CommonOptions& common, const std::string& format);
/// `gec calibrate`: measures the cost model's ceilings and caches them (cmd_calibrate.cc); with
/// `peaks`, measures the machine's peaks instead (GEMM sweep, FMA loop, STREAM) and writes them
/// to `out_path` as JSON when given.
int cmd_calibrate(const CommonOptions& common, const std::string& out_path, bool peaks);

/// `gec profile` options (main.cc binds them).
struct ProfileOptions {
  int iterations = 20, top = 10;
  std::string trace, json;
  double peak_gflops = 0;  ///< 0 = nominal peak from /proc/cpuinfo
  uint32_t seed = 0;
  /// --simulate-only: no run at all; the backend's device simulation only (per-node simulated
  /// time and utilization, --trace = the simulated trace). Refused for backends without one.
  bool simulate_only = false;
};
int cmd_profile(const std::string& model, const CommonOptions& common, const ProfileOptions& po);
int cmd_inspect(const std::string& model, const CommonOptions& common, const std::string& format,
                const std::string& out_path);
int cmd_compare(const std::string& model, const CommonOptions& common, const std::string& level_a,
                const std::string& level_b, const std::string& inputs_dir, double threshold, bool fail_on_drift);
int cmd_conformance(const std::string& dir, const CommonOptions& common, const std::vector<std::string>& filters,
                    const std::string& json_path, double timeout_s, bool verbose, bool strip_output_shapes = false);

}  // namespace gec
