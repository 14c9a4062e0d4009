// gec run: import, compile, run a model; check against references; time it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common.h"
#include "ge/core/compare.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/pipeline.h"
#include "ge/core/runtime.h"
#include "ge/sdk/error.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace gec {

namespace {
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

void write_json_atomically(const nlohmann::json& j, const std::string& path) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw ge::Error("cannot write '" + path + "'");
    out << j.dump(2) << "\n";
    if (!out) throw ge::Error("cannot write '" + path + "'");
  }
  fs::rename(tmp, path);
}
}  // namespace

int cmd_run(const std::string& model, const CommonOptions& common, CLI::App& sub) {
  std::string inputs_dir = sub.get_option("--inputs")->as<std::string>();
  std::string check_dir = sub.get_option("--check")->as<std::string>();
  std::string outputs_dir = sub.get_option("--outputs")->as<std::string>();
  std::string json_path = sub.get_option("--json")->as<std::string>();
  int iterations = sub.get_option("--iterations")->as<int>();
  uint32_t seed = sub.get_option("--seed")->as<uint32_t>();
  ge::core::Tolerance tol;
  tol.max_rel_l2 = sub.get_option("--max-rel-l2")->as<double>();
  tol.rtol = sub.get_option("--rtol")->as<double>();
  if (sub.get_option("--atol")->count()) tol.atol = sub.get_option("--atol")->as<double>();

  auto env = common.load_environment();
  std::string backend = common.backend_name(*env);
  int threads = common.thread_count(*env);

  auto t_import = Clock::now();
  std::shared_ptr<ge::Graph> graph = ge::core::import_model(*env, model, common.import_options(*env));
  double import_ms = ms_since(t_import);
  size_t nodes_before = graph->num_nodes();
  auto t_compile = Clock::now();
  ge::core::PipelineReport prep = ge::core::run_pipeline(*graph, *env);
  ge::core::ExecOptions eo{backend, threads};
  ge::core::Executable exe(graph, *env, eo);
  double compile_ms = ms_since(t_compile);

  std::vector<ge::Tensor> inputs =
      inputs_dir.empty() ? random_inputs(exe.graph(), seed) : read_inputs(inputs_dir, exe.graph());

  auto t_first = Clock::now();
  std::vector<ge::Tensor> outputs = exe.run(inputs);
  double first_ms = ms_since(t_first);
  std::printf("model %s: %zu nodes, %zu kernels, backend %s, %d thread%s\n", model.c_str(), nodes_before,
              exe.num_kernels(), backend.c_str(), threads, threads == 1 ? "" : "s");

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
      ge::core::Comparison c = ge::core::compare_tensors(outputs[k], ref, tol);
      check_ok &= c.ok;
      std::printf("check output %zu '%s': %s %s\n", k, oname.c_str(), c.ok ? "PASS" : "FAIL", c.message.c_str());
      check_json.push_back({{"output", oname}, {"ok", c.ok}, {"rel_l2", c.rel_l2}, {"max_abs", c.max_abs},
                            {"atol", c.atol}, {"worst_index", c.worst_index}, {"worst_out", c.worst_out},
                            {"worst_ref", c.worst_ref}});
    }
    std::printf("check: %s\n", check_ok ? "PASS" : "FAIL");
  }
  if (!outputs_dir.empty()) {
    fs::create_directories(outputs_dir);
    for (size_t k = 0; k < outputs.size(); ++k)
      ge::core::write_tensor_file(outputs[k], exe.graph().outputs()[k]->name(),
                                  (fs::path(outputs_dir) / ("output_" + std::to_string(k) + ".pb")).string());
  }
  if (!json_path.empty()) {
    nlohmann::json j = {{"model", model},
                        {"backend", backend},
                        {"nodes_before", nodes_before},
                        {"kernels", exe.num_kernels()},
                        {"import_ms", import_ms},
                        {"compile_ms", compile_ms},
                        {"stages", prep.stages},
                        {"run",
                         {{"threads", threads},
                          {"iterations", iterations},
                          {"min_ms", min_ms},
                          {"median_ms", median_ms},
                          {"first_run_ms", first_ms},
                          {"check", check_json}}}};
    write_json_atomically(j, json_path);
  }
  return check_ok ? 0 : 1;
}

}  // namespace gec
