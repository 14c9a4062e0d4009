// gec profile: run a compiled model repeatedly with per-node timing; print the top-K nodes with
// FLOPs and efficiency, memory, whole-run latency and the profiler's own overhead; write a Chrome
// trace and the report with a `profile` key.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "common.h"
#include "ge/core/plan.h"
#include "ge/core/profiler.h"
#include "ge/sdk/error.h"

using Clock = std::chrono::steady_clock;

namespace gec {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::string op_name(const ge::core::NodeProfile& n) { return n.domain.empty() ? n.op_type : n.domain + "." + n.op_type; }

std::string clip(const std::string& s, size_t w) { return s.size() <= w ? s : s.substr(0, w - 1) + "~"; }

nlohmann::json node_json(const ge::core::NodeProfile& n, double estimated_us) {
  return {{"estimated_us", estimated_us},{"step", n.step},     {"name", n.name},          {"op_type", op_name(n)},   {"kernel", n.kernel},
          {"stream", n.stream}, {"mean_us", n.mean_us},    {"median_us", n.median_us}, {"share", n.share},
          {"flops", n.flops},   {"gflops", n.gflops},      {"efficiency", n.efficiency}, {"bytes", n.bytes}};
}

}  // namespace

int cmd_profile(const std::string& model, const CommonOptions& common, const ProfileOptions& po) {
  if (po.iterations < 1) throw ge::Error("--iterations must be at least 1");
  auto env = common.load_environment(model);
  // A plan file (told apart by its magic) runs as saved, without recompiling.
  Compiled c = ge::core::is_plan_file(model) ? load_plan_model(model, *env, common) : compile_model(model, *env, common);
  ge::core::Executable& exe = *c.exe;
  // A backend that emulates a device (ascend, ge/sdk/device_sim.h): its simulated device time per
  // node; --simulate-only skips the (host) runs altogether.
  const std::optional<ge::DeviceSimulation> sim = device_simulation(c);
  if (po.simulate_only) {
    if (!sim)
      throw ge::Error("--simulate-only: backend '" + c.options.backend +
                      "' registered no device simulator (the ascend backend has one: docs/ascend.md)");
    std::printf("profile %s: simulated only (no run), %zu tasks, O%d, backend %s\n", model.c_str(), sim->nodes.size(),
                static_cast<int>(c.options.opt_level), c.options.backend.c_str());
    print_simulation_line(*sim, graph_flops(*c.graph));
    print_simulation_top(*sim, static_cast<size_t>(po.top));
    if (!po.trace.empty()) write_simulation_trace(*sim, po.trace);
    if (!po.json.empty() || !common.report.empty()) {
      nlohmann::json r = make_report(model, c);
      r["run"] = nullptr;
      r["profile"] = {{"simulate_only", true}, {"simulated", simulation_json(*sim, static_cast<size_t>(po.top), graph_flops(*c.graph))}};
      if (!po.json.empty()) write_json(r, po.json);
      if (!common.report.empty()) write_json(r, common.report);
    }
    return 0;
  }
  std::vector<ge::Tensor> inputs = random_inputs(exe.graph(), po.seed);
  exe.run(inputs);  // warm-up: first-touch of the arena, oneDNN primitive caches

  // Runs with profiling off and on alternate, so that a loaded machine's drift hits both alike.
  std::vector<double> off_ms;
  std::vector<ge::core::StepTimes> runs(po.iterations);
  for (int i = 0; i < po.iterations; ++i) {
    auto t0 = Clock::now();
    exe.run(inputs);
    off_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    exe.run(inputs, ge::core::RunOptions{&runs[i]});
  }
  std::string peak_source;
  double peak = po.peak_gflops;
  if (peak > 0) {
    peak_source = "given: --peak-gflops";
  } else if (const ge::MachineCeilings& cc = env->cost_model->ceilings(); cc.calibrated) {
    peak = ge::RooflineCostModel(cc).gflops(c.threads);
    peak_source = "measured by gec calibrate (MatMul 512x512x512 at " + std::to_string(c.threads) + " thread(s), " +
                  cc.source + ")";
  } else {
    peak = ge::core::nominal_peak_gflops(c.threads, &peak_source);
  }
  ge::core::Profile p = ge::core::make_profile(exe, std::move(runs), peak, peak_source);
  double off = median(off_ms), on = p.run_median_ms;

  std::printf("profile %s: %zu nodes, %d iterations after 1 warm-up, %d thread%s, O%d, backend %s\n", model.c_str(),
              p.nodes.size(), po.iterations, c.threads, c.threads == 1 ? "" : "s", static_cast<int>(c.options.opt_level),
              c.options.backend.c_str());
  // A backend with a device simulator runs its kernels in an emulator on this host: the measured
  // times, GFLOP/s and eff below are the host's; the device's figures are the simulated table.
  const bool emulated = sim.has_value();
  std::printf("peak: %s%s\n", p.peak_source.c_str(),
              emulated ? " — of this host's CPU: the measured times below are the emulator's, the device's are simulated (table after)" : "");
  std::printf("latency: median %.3f ms with profiling off, %.3f ms on (overhead %+.1f%%); mean %.3f ms, min %.3f ms (on)\n",
              off, on, off > 0 ? 100 * (on - off) / off : 0.0, p.run_mean_ms, p.run_min_ms);
  double total_gflops = on > 0 ? p.total_flops / (on * 1e6) : 0;
  std::printf("compute: %.3f GFLOP per run, %.2f GFLOP/s achieved (%.1f%% of peak); node medians sum to %.3f ms\n",
              p.total_flops / 1e9, total_gflops, peak > 0 ? 100 * total_gflops / peak : 0.0, p.nodes_total_us / 1e3);
  std::printf("memory: arena %.2f MiB, weights %.2f MiB\n", p.arena_bytes / 1048576.0, p.weight_bytes / 1048576.0);
  if (!c.graph->schedule.scheduler.empty()) {
    // The estimate is the compiled backend's cost model (a device model for ascend), not the host's.
    const auto cm = env->cost_model_for(c.options.backend);
    const bool device = cm && cm != env->cost_model;
    std::printf("schedule: %s, %d stream(s), %zu event(s); estimated %.3f ms (%s)\n", c.graph->schedule.scheduler.c_str(),
                c.graph->schedule.streams, c.graph->schedule.events.size(), c.graph->schedule.estimated_latency_ms,
                device                             ? ("device model: " + cm->ceilings().source).c_str()
                : cm && cm->ceilings().calibrated ? "cost model calibrated"
                                                   : "cost model on defaults: calibrated: false");
  }

  std::vector<ge::core::NodeProfile> top = p.top(po.top);
  std::printf("top %zu of %zu nodes by median time:\n", top.size(), p.nodes.size());
  std::printf("  %3s %-32s %-20s %-32s %10s %10s %6s %6s %9s %8s %6s %9s\n", "#", "node", "op", "kernel", "median_us",
              "mean_us", "share", "cum", "MFLOP", "GFLOP/s", "eff", "MB moved");
  double cum = 0;
  for (size_t i = 0; i < top.size(); ++i) {
    const auto& n = top[i];
    cum += n.share;
    std::printf("  %3zu %-32s %-20s %-32s %10.1f %10.1f %5.1f%% %5.1f%% %9.2f %8.2f %5.1f%% %9.3f\n", i + 1,
                clip(n.name, 32).c_str(), clip(op_name(n), 20).c_str(), clip(n.kernel, 32).c_str(), n.median_us,
                n.mean_us, 100 * n.share, 100 * cum, n.flops / 1e6, n.gflops, 100 * n.efficiency, n.bytes / 1e6);
  }

  if (sim) {
    print_simulation_line(*sim, graph_flops(*c.graph));
    print_simulation_top(*sim, static_cast<size_t>(po.top));
  }

  if (!po.trace.empty() && sim) {
    write_simulation_trace(*sim, po.trace);  // the device's timeline, not the emulator's host threads
  } else if (!po.trace.empty()) {
    write_file_atomic(po.trace, ge::core::chrome_trace(p, "gec profile " + model));
    std::printf("trace: %s (%zu spans on %d stream track%s; open in Perfetto or chrome://tracing)\n", po.trace.c_str(),
                p.nodes.size() * p.runs.size(), exe.streams(), exe.streams() == 1 ? "" : "s");
  }
  if (!po.json.empty() || !common.report.empty()) {
    nlohmann::json r = make_report(model, c);
    r["run"] = nullptr;
    nlohmann::json nodes = nlohmann::json::array(), top_j = nlohmann::json::array();
    // The cost model's estimate of each node (docs/scheduling.md) beside its measured time.
    const auto cm = env->cost_model_for(c.options.backend);  // the backend's own when it has one
    for (const auto& n : p.nodes)
      nodes.push_back(node_json(n, cm ? cm->node_us(exe.step_node(n.step), c.threads) : 0.0));
    for (const auto& n : top) top_j.push_back(n.step);
    r["profile"] = {{"iterations", p.iterations},
                    {"threads", c.threads},
                    {"median_ms", on},
                    {"median_ms_unprofiled", off},
                    {"overhead_pct", off > 0 ? 100 * (on - off) / off : 0.0},
                    {"mean_ms", p.run_mean_ms},
                    {"min_ms", p.run_min_ms},
                    {"total_flops", p.total_flops},
                    {"peak_gflops", peak},
                    {"peak_source", p.peak_source},
                    {"arena_bytes", p.arena_bytes},
                    {"weight_bytes", p.weight_bytes},
                    {"nodes", nodes},
                    {"top", top_j}};
    if (sim) r["profile"]["simulated"] = simulation_json(*sim, static_cast<size_t>(po.top), graph_flops(*c.graph));
    if (!po.json.empty()) write_json(r, po.json);
    if (!common.report.empty()) write_json(r, common.report);
  }
  return 0;
}

}  // namespace gec
