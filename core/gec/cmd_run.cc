// gec run: import, compile, run a model; check against references; time it.
// gec compile: import and compile; print the pass summary and write the report.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "common.h"
#include "ge/core/importer.h"
#include "ge/core/file_io.h"
#include "ge/core/compare.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/plan.h"
#include "ge/sdk/error.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace gec {

namespace {
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

void print_summary(const std::string& model, const Compiled& c) {
  std::printf("model %s: %zu nodes → %zu after compilation, %zu kernels + %zu views, O%d, backend %s, %d thread%s\n",
              model.c_str(), c.nodes_before, c.graph->num_nodes(), c.exe->num_kernels(), c.exe->num_aliases(),
              static_cast<int>(c.options.opt_level), c.options.backend.c_str(), c.threads, c.threads == 1 ? "" : "s");
  if (c.plan_load_ms >= 0) return;  // a plan: its own line says how it was loaded; nothing was compiled
  // Import and compile are separate stages (report: import_ms, compile_ms); fusions count rewrites.
  std::printf("import %.1f ms, compile %.1f ms", c.import_ms, c.compile_ms);
  for (auto& [k, v] : c.result.counters)
    if (k.rfind("fusion.", 0) == 0) std::printf(", %s ×%lld", k.substr(7).c_str(), static_cast<long long>(v));
  std::printf("\n");
}
}  // namespace

int cmd_compile(const std::string& model, const CommonOptions& common, const std::string& plan_out,
                const std::string& gears) {
  if (is_dynamic_model(model, common)) return cmd_compile_dynamic(model, common, plan_out, gears);
  if (!gears.empty())
    throw ge::Error("--gears: '" + model + "' has no symbolic input dim" +
                    (common.input_shapes.empty() ? std::string() : std::string(" once --input-shape fixes them")));
  auto env = common.load_environment();
  Compiled c;
  try {
    c = compile_model(model, *env, common);
  } catch (const ge::core::DataDependentShapeError& e) {
    if (!common.input_shapes.empty()) throw;
    std::printf("%s: %s; the plan keeps the model and runs it in stages cut at that node\n", model.c_str(), e.what());
    return cmd_compile_dynamic(model, common, plan_out, gears);
  }
  print_summary(model, c);
  if (!plan_out.empty()) write_plan(c, *env, plan_out);
  for (auto& p : c.result.passes)
    std::printf("  %-24s %-12s %8.2f ms  %-7s nodes %zu  %s\n", p.name.c_str(), p.stage.c_str(), p.ms,
                p.changed ? "changed" : "-", p.nodes_after, p.status == "ran" ? "" : p.status.c_str());
  if (!common.report.empty()) {
    nlohmann::json r = make_report(model, c);
    r["run"] = nullptr;
    write_json(r, common.report);
  }
  return 0;
}

int cmd_run(const std::string& model, const CommonOptions& common, CLI::App& sub) {
  if (is_dynamic_model(model, common)) return cmd_run_dynamic(model, common, sub);
  if (sub.get_option("--inputs")->count() > 1)
    throw ge::Error("--inputs is given " + std::to_string(sub.get_option("--inputs")->count()) + " times; several input sets run "
                    "from a model with symbolic input dims (this one has static shapes)");
  std::string inputs_dir = sub.get_option("--inputs")->as<std::string>();
  std::string check_dir = sub.get_option("--check")->as<std::string>();
  std::string outputs_dir = sub.get_option("--outputs")->as<std::string>();
  std::string json_path = sub.get_option("--json")->as<std::string>();
  // Writing the outputs into the reference folder would overwrite the references: refused
  // before anything is loaded (the same folder however spelled: canonical paths, and the same
  // file system entry when both exist).
  if (!outputs_dir.empty() && !check_dir.empty()) {
    std::error_code eo, ec;
    const fs::path po = fs::weakly_canonical(outputs_dir, eo), pc = fs::weakly_canonical(check_dir, ec);
    bool same = !eo && !ec && po == pc;
    if (!same && fs::exists(outputs_dir, eo) && fs::exists(check_dir, ec)) same = fs::equivalent(outputs_dir, check_dir, ec) && !ec;
    if (same)
      throw ge::Error("--outputs '" + outputs_dir +
                      "' is the --check directory: writing there would overwrite the reference outputs");
  }
  // References hold the outputs of particular inputs: --check without --inputs takes the inputs
  // stored beside them (an ONNX test set's input_K.pb), never random ones.
  if (!check_dir.empty() && inputs_dir.empty()) {
    if (!fs::exists(fs::path(check_dir) / "input_0.pb"))
      throw ge::Error("--check '" + check_dir + "' has no input_0.pb: give the inputs its references were made from with "
                      "--inputs (a model folder: --check its test_data_set_K)");
    inputs_dir = check_dir;
  }
  int iterations = sub.get_option("--iterations")->as<int>();
  uint32_t seed = sub.get_option("--seed")->as<uint32_t>();
  ge::core::Tolerance tol;
  tol.max_rel_l2 = sub.get_option("--max-rel-l2")->as<double>();
  tol.rtol = sub.get_option("--rtol")->as<double>();
  if (sub.get_option("--atol")->count()) tol.atol = sub.get_option("--atol")->as<double>();
  // --max-rel-l2 alone: the relative L2 error is the criterion (docs/ascend.md; models/README).
  tol.elementwise = !sub.get_option("--max-rel-l2")->count() || sub.get_option("--rtol")->count() ||
                    sub.get_option("--atol")->count();

  auto t_load = Clock::now();
  auto env = common.load_environment(model);
  double load_ms = ms_since(t_load);
  // A plan runs without import or compilation; run.load_ms is then its load time.
  const bool plan = ge::core::is_plan_file(model);
  Compiled c;
  try {
    c = plan ? load_plan_model(model, *env, common) : compile_model(model, *env, common);
  } catch (const ge::core::DataDependentShapeError& e) {
    if (plan || !common.input_shapes.empty()) throw;
    std::printf("%s: %s; it runs in stages cut at that node\n", model.c_str(), e.what());
    return cmd_run_dynamic(model, common, sub);
  }
  if (plan) load_ms = c.plan_load_ms;
  ge::core::Executable& exe = *c.exe;
  print_summary(model, c);

  std::vector<ge::Tensor> inputs =
      inputs_dir.empty() ? random_inputs(exe.graph(), seed) : read_inputs(inputs_dir, exe.graph());
  auto t_first = Clock::now();
  std::vector<ge::Tensor> outputs = exe.run(inputs);
  double first_ms = ms_since(t_first);
  // A backend that emulates a device (ascend): its simulated device time beside the host's wall time.
  const std::optional<ge::DeviceSimulation> sim = device_simulation(c);
  if (sim) {
    print_simulation_line(*sim, graph_flops(*c.graph));
    std::printf("emulator wall time on this host: %.3f ms (first run; the device time above is the simulation's)\n", first_ms);
  }

  std::vector<double> times;
  for (int i = 0; i < iterations; ++i) {
    auto t0 = Clock::now();
    outputs = exe.run(inputs);
    times.push_back(ms_since(t0));
  }
  double min_ms = 0, median_ms = 0;
  if (!times.empty()) {
    std::vector<double> s = times;
    std::sort(s.begin(), s.end());
    min_ms = s.front();
    median_ms = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
    std::printf("timing: %d iterations after 1 warm-up: min %.3f ms, median %.3f ms\n", iterations, min_ms, median_ms);
  }

  nlohmann::json check_json = nullptr;
  bool check_ok = true;
  if (!check_dir.empty()) {
    check_json = nlohmann::json::array();
    for (size_t k = 0; k < outputs.size(); ++k) {
      std::string p = (fs::path(check_dir) / ("output_" + std::to_string(k) + ".pb")).string();
      const std::string& oname = exe.graph().outputs()[k]->name();
      if (!fs::exists(p)) throw ge::Error("--check: '" + p + "' is missing (graph output #" + std::to_string(k) + " '" + oname + "')");
      ge::Tensor ref = ge::core::read_tensor_file(p);
      ge::core::Comparison cmp = ge::core::compare_tensors(outputs[k], ref, tol);
      check_ok &= cmp.ok;
      std::printf("check output %zu '%s': %s %s\n", k, oname.c_str(), cmp.ok ? "PASS" : "FAIL", cmp.message.c_str());
      check_json.push_back({{"output", oname}, {"ok", cmp.ok}, {"rel_l2", cmp.rel_l2}, {"max_abs", cmp.max_abs},
                            {"atol", cmp.atol}, {"worst_index", cmp.worst_index}, {"worst_out", cmp.worst_out},
                            {"worst_ref", cmp.worst_ref}});
    }
    std::printf("check: %s\n", check_ok ? "PASS" : "FAIL");
  }
  RequestOptions ro;
  ro.requests = sub.get_option("--requests")->as<int>();
  ro.sequential = sub.get_option("--sequential")->count() > 0;
  ro.baseline = sub.get_option("--baseline")->count() > 0;
  nlohmann::json requests_json = nullptr;
  if (ro.requests > 0) requests_json = run_requests(c, *env, inputs, ro, check_dir, tol, check_ok);
  if (!outputs_dir.empty()) {
    fs::create_directories(outputs_dir);
    // All or nothing: a folder never mixes this run's outputs with an earlier run's.
    std::vector<std::pair<std::string, std::string>> files;
    for (size_t k = 0; k < outputs.size(); ++k)
      files.emplace_back((fs::path(outputs_dir) / ("output_" + std::to_string(k) + ".pb")).string(),
                         ge::core::tensor_file_bytes(outputs[k], exe.graph().outputs()[k]->name()));
    ge::core::write_files_atomically(files, "output tensor file");
  }
  if (!json_path.empty() || !common.report.empty()) {
    nlohmann::json r = make_report(model, c);
    r["run"] = {{"threads", c.threads},     {"streams", exe.streams()}, {"intra_op_threads", exe.intra_op_threads()},
                {"iterations", iterations}, {"min_ms", min_ms},
                {"median_ms", median_ms},   {"load_ms", load_ms},       {"first_run_ms", first_ms},
                {"check", check_json}};
    if (!requests_json.is_null()) r["run"]["requests"] = requests_json;
    if (sim) r["run"]["simulated_ms"] = sim->total_us / 1e3;
    if (!json_path.empty()) write_json(r, json_path);
    if (!common.report.empty()) write_json(r, common.report);
  }
  return check_ok ? 0 : 1;
}

}  // namespace gec
