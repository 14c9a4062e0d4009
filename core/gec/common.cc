#include "common.h"
#include "ge/core/file_io.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <cstdio>
#include <thread>
#include <unistd.h>

#include "ge/core/inputs.h"
#include "ge/core/manifest.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/plan.h"
#include "ge/core/report.h"
#include "ge/sdk/cost_model.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"

namespace fs = std::filesystem;

namespace gec {

void CommonOptions::add_to(CLI::App& app, bool compile_options) {
  app.add_option("--manifest", manifest, "Deployment manifest (TOML); default: the installed default.toml");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error, off (default: GE_LOG_LEVEL or warn)");
  app.add_option("--set", sets,
                 "Set any manifest option: SECTION.KEY=VALUE (repeatable; on a compiled plan, compile-time keys are refused: README)");
  if (!compile_options) return;
  app.add_option("-O", opt_level, "Optimization level: -O0 .. -O3 (default: the manifest's, O2)")
      ->check(CLI::IsMember({"0", "1", "2", "3"}));
  app.add_option("--numerics", numerics, "strict: only exact passes; relaxed (default)")
      ->check(CLI::IsMember({"strict", "relaxed"}));
  app.add_option("--disable", disable, "Disable a pass or fusion rule by name (repeatable)");
  app.add_option("--backend", backend, "Backend to compile for and run on (default: the manifest's)");
  app.add_option("--scheduler", scheduler, "Scheduler (= --set scheduler.name=NAME)");
  // Given empty, it still reaches the plugin, which refuses it listing the known SoCs.
  app.add_option_function<std::string>(
      "--soc-version",
      [this](const std::string& v) {
        soc_version = v;
        soc_version_given = true;
      },
      "Ascend SoC (= --set ascend.soc_version=NAME; with --backend ascend or an .om: default Ascend910A, an .om's own; "
      "docs/ascend.md)");
  app.add_option("--threads", threads, "Threads for kernels (default: the manifest's, else all cores)");
  app.add_option("--input-shape", input_shapes, "Override a graph input's shape: NAME:D0,D1,... (repeatable)");
  app.add_option("--report", report, "Write the compile/run report (JSON, docs/report.md) to this file");
  app.add_flag("--quiet,-q", quiet, "No progress lines on stderr (shown only when stderr is a terminal)");
  app.add_flag("--verify-each", verify_each, "Verify the graph (types and shapes) after every pass");
  app.add_option("--print-after", print_after, "Print the text IR after this pass, or 'all' (repeatable)");
  app.add_flag("--fail-on-pass-error", fail_on_pass_error, "Fail instead of undoing a pass that throws");
  app.add_flag("--keep-initializer-inputs", keep_initializer_inputs,
               "Keep initializers that are also graph inputs (old IR) as inputs instead of constants");
}

namespace {
/// The text given to option `name` of `sub`, or nullptr when the subcommand has no such option
/// or it was not given.
const std::string* given(const CLI::App& sub, const std::string& name) {
  const CLI::Option* o = sub.get_option_no_throw(name);
  if (!o || !o->count() || o->results().empty()) return nullptr;
  return &o->results().back();
}

void require_integer(const CLI::App& sub, const std::string& name, long long lo, long long hi, const std::string& note = "") {
  const std::string* text = given(sub, name);
  if (!text) return;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text->c_str(), &end, 10);
  const bool ok = !text->empty() && end == text->c_str() + text->size() && errno == 0 && v >= lo && v <= hi;
  if (ok) return;
  std::string range = hi == std::numeric_limits<int>::max() ? "an integer ≥ " + std::to_string(lo)
                                                                   : "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  throw ge::Error(name + " " + *text + ": must be " + range + note);
}

void require_finite_nonnegative(const CLI::App& sub, const std::string& name) {
  const std::string* text = given(sub, name);
  if (!text) return;
  char* end = nullptr;
  double v = std::strtod(text->c_str(), &end);
  if (!text->empty() && end == text->c_str() + text->size() && std::isfinite(v) && v >= 0) return;
  throw ge::Error(name + " " + *text + ": must be a finite number ≥ 0");
}
}  // namespace

void check_numeric_options(const CLI::App& sub) {
  require_integer(sub, "--threads", 0, std::numeric_limits<int>::max(), " (0 = the manifest's, else all cores)");
  // gec profile measures at least one run; gec run's 0 means no timed runs.
  require_integer(sub, "--iterations", sub.get_name() == "profile" ? 1 : 0, std::numeric_limits<int>::max());
  require_integer(sub, "--requests", 0, std::numeric_limits<int>::max());
  require_integer(sub, "--top", 0, std::numeric_limits<int>::max());
  require_integer(sub, "--seed", 0, std::numeric_limits<uint32_t>::max());
  for (const char* t : {"--max-rel-l2", "--rtol", "--atol"}) require_finite_nonnegative(sub, t);
}

void check_path_options(const CLI::App& sub) {
  // Directories gec reads from: said now, in the words --inputs always used.
  for (const char* name : {"--inputs", "--check"}) {
    const std::string* text = given(sub, name);
    std::error_code ec;
    if (text && !text->empty() && !fs::is_directory(*text, ec)) throw ge::Error(std::string(name) + ": '" + *text + "' is not a directory");
  }
  // Files gec writes after compiling or running: a missing directory is said now, not after the
  // work (and not after another output was already written). --outputs is created as needed.
  for (const char* name : {"--report", "--json", "--trace", "--output"}) {
    const std::string* text = given(sub, name);
    if (!text || text->empty()) continue;
    const fs::path p(*text);
    std::error_code ec;
    if (fs::is_directory(p, ec)) throw ge::Error(std::string(name) + " '" + *text + "': is a directory, not a file");
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    if (!fs::is_directory(dir, ec))
      throw ge::Error(std::string(name) + " '" + *text + "': " +
                      (fs::exists(dir, ec) ? "'" + dir.string() + "' is not a directory" : "directory '" + dir.string() + "' does not exist"));
  }
}

ge::core::CompileRequest CommonOptions::request(const std::string& model) const {
  ge::core::CompileRequest r;
  r.manifest = manifest;
  r.model = model;
  r.backend = backend;
  r.sets = sets;
  r.opt_level = opt_level.empty() ? "" : "O" + opt_level;
  r.numerics = numerics;
  r.scheduler = scheduler;
  if (soc_version_given) r.soc_version = soc_version;
  r.disable = disable;
  r.threads = threads;
  r.verify_each = verify_each;
  r.fail_on_pass_error = fail_on_pass_error;
  r.print_after = print_after;
  return r;
}

std::unique_ptr<ge::core::Environment> CommonOptions::load_environment(const std::string& model) const {
  if (!log_level.empty()) ge::set_log_level(log_level);
  return request(model).load_environment();
}

ge::core::ImportOptions CommonOptions::import_options() const {
  ge::core::ImportOptions o;
  o.frontend.keep_initializer_inputs = keep_initializer_inputs;
  for (const std::string& spec : input_shapes) {
    auto colon = spec.rfind(':');
    if (colon == std::string::npos || colon == 0)
      throw ge::Error("--input-shape '" + spec + "': expected NAME:D0,D1,...");
    std::vector<int64_t> dims;
    std::istringstream is(spec.substr(colon + 1));
    std::string d;
    while (std::getline(is, d, ',')) {
      try {
        size_t used = 0;
        long long v = std::stoll(d, &used);
        if (used != d.size() || v < 0) throw std::invalid_argument(d);
        dims.push_back(v);
      } catch (const std::exception&) {
        throw ge::Error("--input-shape '" + spec + "': '" + d + "' is not a dimension");
      }
    }
    // Sizes are 64-bit byte counts: a shape whose bytes cannot be counted (any dtype, up to 16
    // bytes an element) would wrap around and be reported as some other size.
    int64_t elements = 1;
    bool overflow = false;
    for (int64_t d : dims) overflow |= __builtin_mul_overflow(elements, d, &elements);
    if (overflow || elements > std::numeric_limits<int64_t>::max() / 16)
      throw ge::Error("--input-shape '" + spec + "': more elements than a 64-bit byte count can hold");
    if (o.frontend.input_shapes.count(spec.substr(0, colon)))
      throw ge::Error("--input-shape '" + spec + "': input '" + spec.substr(0, colon) + "' is given twice");
    o.frontend.input_shapes[spec.substr(0, colon)] = dims;
  }
  return o;
}

ge::core::CompileOptions CommonOptions::compile_options(const ge::core::Environment& env) const {
  return request().compile_options(env);
}

int CommonOptions::thread_count(const ge::core::Environment& env) const { return request().thread_count(env); }

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
}  // namespace

Compiled compile_model(const std::string& model, const ge::core::Environment& env, const CommonOptions& common) {
  Compiled c;
  ge::core::ImportOptions io = common.import_options();
  io.backend = ge::core::CompileOptions::from_manifest(env.manifest).backend;
  auto t0 = Clock::now();
  // Progress: a line per stage with the time since the start, for people watching a terminal.
  const bool progress = !common.quiet && ::isatty(STDERR_FILENO);
  auto say = [&](const std::string& what, size_t nodes) {
    if (progress) std::fprintf(stderr, "gec: %-14s %9.1f ms  %zu nodes\n", what.c_str(), ms_since(t0), nodes);
  };
  std::unique_ptr<ge::Graph> g = env.frontend_for(model).load(model, io.frontend);
  c.import_ms = ms_since(t0);
  say("import", g->num_nodes());
  // ONNX nodes minus Constant: a node without inputs whose outputs are known is a constant.
  for (ge::Node* n : g->nodes()) c.nodes_before += !(n->num_inputs() == 0);
  auto t1 = Clock::now();
  c.import = ge::core::propagate_shapes(*g, env, io);
  c.dense_flops = 0;
  for (const ge::Node* n : g->nodes())
    if (n->domain().empty() && (n->op_type() == "Conv" || n->op_type() == "MatMul" || n->op_type() == "Gemm"))
      c.dense_flops += ge::node_flops(*n);
  c.options = common.compile_options(env);
  // Undoing a failed pass re-imports the model instead of compile_graph keeping a copy.
  c.options.rebuild_received = [model, &env, io]() {
    std::unique_ptr<ge::Graph> again = env.frontend_for(model).load(model, io.frontend);
    ge::core::propagate_shapes(*again, env, io);
    return again;
  };
  if (progress) c.options.on_stage_done = [&](const std::string& stage, size_t nodes) { say(stage, nodes); };
  c.result = ge::core::compile_graph(*g, env, c.options);
  c.options.on_stage_done = nullptr;  // `say` captures this frame
  c.options.rebuild_received = nullptr;
  c.graph = std::move(g);
  c.threads = common.thread_count(env);
  c.env = &env;
  c.exe = std::make_unique<ge::core::Executable>(c.graph, env, ge::core::ExecOptions{c.options.backend, c.threads});
  c.compile_ms = ms_since(t1);
  say("kernels built", c.exe->num_kernels());
  return c;
}

nlohmann::json schedule_report(const ge::Graph& g, const ge::core::Environment* env, const std::string& backend) {
  const ge::ScheduleInfo& s = g.schedule;
  if (s.scheduler.empty()) return nlohmann::json::object();
  nlohmann::json j = {{"scheduler", s.scheduler},
                      {"streams", s.streams},
                      {"events", s.events.size()},
                      {"pipeline_stages", s.pipeline_stages},
                      {"estimated_latency_ms", s.estimated_latency_ms},
                      {"reason", s.reason}};
  // The model the schedule stage estimated with: the backend's own (ge/sdk/device_sim.h) or the machine's.
  if (const auto cm = env ? env->cost_model_for(backend) : nullptr) {
    j["calibrated"] = cm->ceilings().calibrated;
    j["cost_model_source"] = cm->ceilings().source;
  }
  return j;
}

nlohmann::json make_report(const std::string& model, const Compiled& c) {
  nlohmann::json fusions = nlohmann::json::object(), passes = nlohmann::json::array();
  for (auto& [rule, n] : ge::core::fusion_counts(c.result)) fusions[rule] = n;
  // The memory stage's figures (ge/core/report.h; the Python module reads the same ones).
  nlohmann::json memory = nlohmann::json::object();
  const ge::core::MemoryFigures mf = ge::core::memory_figures(c.result);
  if (!mf.planner.empty()) memory["planner"] = mf.planner;
  if (!mf.level.empty()) memory["level"] = mf.level;
  if (mf.arena_bytes) memory["arena_bytes"] = *mf.arena_bytes;
  if (mf.lower_bound_bytes) memory["lower_bound_bytes"] = *mf.lower_bound_bytes;
  if (mf.no_reuse_bytes) memory["no_reuse_bytes"] = *mf.no_reuse_bytes;
  if (mf.arena_bytes) {
    memory["part_views"] = mf.part_views, memory["pad_in_place"] = mf.pad_in_place;
    memory["concat_in_place"] = mf.concat_in_place;
  }
  // The layout pass's figures (docs/layout.md): counters "layout.<figure>".
  nlohmann::json layout = nlohmann::json::object();
  for (auto& [k, v] : c.result.counters)
    if (k.rfind("layout.", 0) == 0) layout[k.substr(7)] = v;
  // The ascend backend's figures (docs/ascend.md): counters "ascend.<figure>" (casts, placement).
  nlohmann::json ascend = nlohmann::json::object();
  for (auto& [k, v] : c.result.counters)
    if (k.rfind("ascend.", 0) == 0) ascend[k.substr(7)] = v;
  // The cpu backend's figures (docs/cpu.md): counters "cpu.<figure>" (precision mode).
  nlohmann::json cpu = nlohmann::json::object();
  for (auto& [k, v] : c.result.counters)
    if (k.rfind("cpu.", 0) == 0) cpu[k.substr(4)] = v;
  // Nodes a precision mode moved to a narrower type (bf16 on cpu, fp16 on ascend): non-zero flags
  // a compile whose results differ from the model's dtype.
  const auto reduced = c.result.counters.find("numerics.reduces_precision");
  for (auto& p : c.result.passes)
    passes.push_back({{"name", p.name}, {"stage", p.stage}, {"ms", p.ms}, {"changed", p.changed},
                      {"nodes_after", p.nodes_after}, {"status", p.status}});
  return {{"model", model},
          {"opt_level", "O" + std::to_string(static_cast<int>(c.options.opt_level))},
          {"numerics", c.options.strict_numerics ? "strict" : "relaxed"},
          {"backend", c.options.backend},
          {"nodes_before", c.nodes_before},
          {"dense_flops", c.dense_flops < 0 ? nlohmann::json(nullptr) : nlohmann::json(c.dense_flops)},
          {"nodes_after", c.graph->num_nodes()},
          {"kernels", c.exe->num_kernels()},
          {"aliases", c.exe->num_aliases()},
          {"fusions", fusions},
          {"passes", passes},
          {"import_ms", c.import_ms},
          {"import", {{"expanded_functions", c.import.expanded_functions}}},
          {"compile_ms", c.compile_ms},
          {"memory", memory},
          {"layout", layout},
          {"schedule", schedule_report(*c.graph, c.env, c.options.backend)},
          {"ascend", ascend},
          {"cpu", cpu},
          {"reduces_precision", reduced == c.result.counters.end() ? int64_t{0} : reduced->second},
          // A backend with a device simulator (ge/sdk/device_sim.h): one simulated inference.
          {"simulation", [&]() -> nlohmann::json {
             const std::optional<ge::DeviceSimulation> s = device_simulation(c);
             return s ? simulation_json(*s, 3, graph_flops(*c.graph)) : nlohmann::json(nullptr);
           }()}};
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  ge::core::write_file_atomically(path, bytes);
}

void write_json(const nlohmann::json& j, const std::string& path) { write_file_atomic(path, j.dump(2) + "\n"); }

std::vector<ge::Tensor> read_inputs(const std::string& dir, const ge::Graph& g) {
  if (!fs::is_directory(dir)) throw ge::Error("--inputs: '" + dir + "' is not a directory");
  std::vector<ge::Tensor> out;
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    std::string p = (fs::path(dir) / ("input_" + std::to_string(i) + ".pb")).string();
    if (!fs::exists(p))
      throw ge::Error("--inputs: '" + p + "' is missing (graph input #" + std::to_string(i) + " '" + g.inputs()[i]->name() + "')");
    out.push_back(ge::core::read_tensor_file(p));
  }
  return out;
}

std::vector<ge::Tensor> random_inputs(const ge::Graph& g, uint32_t seed) { return ge::core::random_inputs(g, seed); }

}  // namespace gec
