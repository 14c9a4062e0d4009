// ge/sdk/device_sim.h — (ABI 1.1) a backend's own timing: a cost model for the schedulers and a
// device simulation for `gec run` / `gec profile`, registered per backend through
// Registrar::add_cost_model and Registrar::add_device_simulator (ge/sdk/plugin.h).
//
// A backend whose device is not the host (the ascend backend's emulator: its wall time on the
// host says nothing about the device) prices nodes with a model of its device instead of the
// host's roofline (ge/sdk/cost_model.h). The schedule stage then estimates with it (PassContext::
// cost_model() returns the compiled backend's model when it registered one), and the CLI prints
// the simulated device time beside the measured emulator time.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/sdk/cost_model.h"
#include "ge/sdk/ir.h"

namespace ge {

/// Reads a manifest option "section.key" as the TOML text of its value ("\"Ascend910A\"", "2"),
/// std::nullopt when absent.
using OptionReader = std::function<std::optional<std::string>(const std::string& section, const std::string& key)>;

/// Builds the backend's cost model for one compilation from the manifest's options (e.g. the
/// SoC). May throw ge::ConfigError naming the option. The host calls it once per compilation.
using CostModelFactory = std::function<std::shared_ptr<const CostModel>(const OptionReader& option)>;

/// One node's simulated run on the device. Times in µs from the start of the inference;
/// utilizations are busy cycles of the unit over (units the node held × its duration), in [0, 1].
struct SimulatedNode {
  std::string node, op_type;
  std::string engine;          ///< where it ran on the device ("cube", "vector", "aicpu", …)
  std::string bound;           ///< what limited it ("cube", "mte2", "vector", "aicpu_memory", …)
  int stream = 0;
  int64_t units = 1;           ///< cores it held (the ascend backend: block_dim AI Cores, or 1 AI CPU)
  double start_us = 0, end_us = 0;
  double cube_utilization = 0, vector_utilization = 0, movement_utilization = 0;
  /// A lower bound of us() under the simulator's model that no tiling or partition of the node
  /// can beat (the ascend backend: task_lower_bound, docs/ascend.md "Lower bound"); 0 = none
  /// given. us() / bound_us says how far the chosen tiling is from it. (SDK ABI 1.4)
  double bound_us = 0;
  double us() const { return end_us - start_us; }
};

/// A simulated inference of a compiled graph.
struct DeviceSimulation {
  std::string device;          ///< "Ascend910A"
  std::string model;           ///< one line naming the model and its source (docs)
  double total_us = 0;         ///< simulated latency of one inference
  int cores = 0;               ///< compute cores of the device (AI Cores)
  double peak_tflops = 0;      ///< the device's peak (fp16 on the ascend backend), for rooflines; 0 = unknown
  /// Whole-device utilization over total_us: busy cycles summed over cores / (cores × latency).
  double cube_utilization = 0, vector_utilization = 0, movement_utilization = 0;
  std::vector<SimulatedNode> nodes;  ///< in start order
  /// Σ nodes' bound_us: with one stream, a latency no compilation of these nodes on this device
  /// model can beat (with several, the device work they need); 0 = none given. (SDK ABI 1.4)
  double bound_us = 0;
  std::string trace_json;      ///< Chrome trace (one track per stream and per core), "" if none
};

/// Simulates one inference of `g` (compiled for the backend, with its schedule and attributes).
/// Throws ge::Error naming the node when the graph lacks what the simulator needs.
using DeviceSimulatorFn = std::function<DeviceSimulation(const Graph& g, const OptionReader& option)>;

}  // namespace ge
