// gec: the simulated device time of a backend that registered a device simulator
// (ge/sdk/device_sim.h; the ascend backend's cycle model and timeline, docs/ascend.md): the line
// `gec run` prints beside the emulator's wall time, the per-node table of `gec profile`, the
// report's `simulation` key.
#include <algorithm>
#include <cstdio>
#include <fstream>

#include "common.h"
#include "ge/sdk/cost_model.h"
#include "ge/sdk/error.h"

namespace gec {

namespace {
std::string clip(const std::string& s, size_t w) { return s.size() <= w ? s : s.substr(0, w - 1) + "~"; }
}  // namespace

std::optional<ge::DeviceSimulation> device_simulation(const Compiled& c) {
  if (!c.env || !c.graph) return std::nullopt;
  return c.env->simulate_device(c.options.backend, *c.graph);
}

std::vector<size_t> simulated_top(const ge::DeviceSimulation& s, size_t top) {
  std::vector<size_t> idx(s.nodes.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s.nodes[a].us() > s.nodes[b].us(); });
  if (top > 0 && idx.size() > top) idx.resize(top);
  return idx;
}

double graph_flops(const ge::Graph& g) {
  double f = 0;
  for (const ge::Node* n : g.nodes()) f += ge::node_flops(*n);
  return f;
}

double roofline_us(const ge::DeviceSimulation& s, double flops) { return s.peak_tflops > 0 ? flops / (s.peak_tflops * 1e6) : 0; }

nlohmann::json simulation_json(const ge::DeviceSimulation& s, size_t top, double flops) {
  nlohmann::json nodes = nlohmann::json::array(), top_j = nlohmann::json::array();
  for (const ge::SimulatedNode& n : s.nodes)
    nodes.push_back({{"node", n.node}, {"op_type", n.op_type}, {"engine", n.engine}, {"bound", n.bound}, {"stream", n.stream},
                     {"units", n.units}, {"start_us", n.start_us}, {"us", n.us()}, {"cube_utilization", n.cube_utilization},
                     {"vector_utilization", n.vector_utilization}, {"movement_utilization", n.movement_utilization},
                     {"bound_us", n.bound_us}});
  for (size_t i : simulated_top(s, top)) top_j.push_back(s.nodes[i].node);
  return {{"device", s.device},
          {"model", s.model},
          {"latency_us", s.total_us},
          {"cores", s.cores},
          {"cube_utilization", s.cube_utilization},
          {"vector_utilization", s.vector_utilization},
          {"movement_utilization", s.movement_utilization},
          {"flops", flops},
          {"peak_tflops", s.peak_tflops},
          {"roofline_us", roofline_us(s, flops)},
          {"bound_us", s.bound_us},
          {"top", top_j},
          {"nodes", nodes}};
}

void print_simulation_line(const ge::DeviceSimulation& s, double flops) {
  std::printf("simulated on %s: %.3f ms per inference (Cube %.1f%%, Vector %.1f%%, data movement %.1f%% of %d cores; %s)\n",
              s.device.c_str(), s.total_us / 1e3, 100 * s.cube_utilization, 100 * s.vector_utilization,
              100 * s.movement_utilization, s.cores, s.model.c_str());
  if (s.peak_tflops > 0 && flops > 0)
    std::printf("roofline: %.3f GFLOP at the %s peak of %.0f TFLOPS = %.3f ms; simulated / roofline = %.2fx\n", flops / 1e9,
                s.device.c_str(), s.peak_tflops, roofline_us(s, flops) / 1e3, s.total_us / roofline_us(s, flops));
  if (s.bound_us > 0) {
    std::printf("task lower bounds (lower_us: no tiling of a task beats it on this model; their sum bounds a one-stream "
                "latency): sum %.3f ms",
                s.bound_us / 1e3);
    if (s.peak_tflops > 0 && flops > 0) std::printf(" = %.2fx roofline", s.bound_us / roofline_us(s, flops));
    std::printf("; simulated / bounds = %.2fx\n", s.total_us / s.bound_us);
  }
}

void print_simulation_top(const ge::DeviceSimulation& s, size_t top) {
  const std::vector<size_t> idx = simulated_top(s, top);
  std::printf("top %zu of %zu tasks by simulated time on %s:\n", idx.size(), s.nodes.size(), s.device.c_str());
  std::printf("  %3s %-32s %-20s %-7s %-13s %5s %10s %6s %6s %6s %6s %9s %7s\n", "#", "node", "op", "engine", "limited_by", "cores",
              "sim_us", "share", "cube", "vector", "move", "lower_us", "sim/low");
  for (size_t r = 0; r < idx.size(); ++r) {
    const ge::SimulatedNode& n = s.nodes[idx[r]];
    std::printf("  %3zu %-32s %-20s %-7s %-13s %5lld %10.2f %5.1f%% %5.1f%% %5.1f%% %5.1f%% %9.2f %7.2f\n", r + 1,
                clip(n.node, 32).c_str(), clip(n.op_type, 20).c_str(), n.engine.c_str(), n.bound.c_str(),
                static_cast<long long>(n.units), n.us(), s.total_us > 0 ? 100 * n.us() / s.total_us : 0.0, 100 * n.cube_utilization,
                100 * n.vector_utilization, 100 * n.movement_utilization, n.bound_us, n.bound_us > 0 ? n.us() / n.bound_us : 0.0);
  }
}

void write_simulation_trace(const ge::DeviceSimulation& s, const std::string& path) {
  if (s.trace_json.empty()) throw ge::Error("the " + s.device + " simulator wrote no trace");
  write_file_atomic(path, s.trace_json);
  std::printf("trace: %s (simulated %s: one track per stream and per core; open in Perfetto or chrome://tracing)\n",
              path.c_str(), s.device.c_str());
}

}  // namespace gec
