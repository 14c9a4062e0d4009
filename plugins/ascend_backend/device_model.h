// plugins/ascend_backend/device_model.h — the cycle model and timeline behind the SDK's timing
// hooks (ge/sdk/device_sim.h): the `ascend` backend's CostModel (schedulers' node estimates, the
// schedule stage's estimated_latency_ms) and its device simulator (`gec run`, `gec profile`).
// The SoC is `[ascend] soc_version` (default Ascend910A); platform files are read from
// <plugin dir>/ascend/platforms once per SoC.
#pragma once
#include <memory>
#include <string>

#include "ge/sdk/device_sim.h"
#include "platform.h"
#include "timeline.h"

namespace ge::ascend {

/// The platform `[ascend] soc_version` names (cached per directory and SoC).
std::shared_ptr<const Platform> platform_for(const std::string& dir, const OptionReader& option);
/// The platform a compiled graph was tiled for: its nodes' ascend_soc_version attribute (an
/// offline model keeps it), else `[ascend] soc_version`.
std::shared_ptr<const Platform> platform_for(const std::string& dir, const Graph& g, const OptionReader& option);

/// Prices one node as the task it becomes (cycle_model.h): µs = task cycles / clock; views
/// (task.h is_view_node: no task) cost 0; event_us = launch.event_us. Ignores
/// `threads` (the device's parallelism is block_dim, in the node's tiling).
class AscendCostModel final : public CostModel {
 public:
  explicit AscendCostModel(std::shared_ptr<const Platform> p);
  double node_us(const Node& n, int threads) const override;
  double event_us() const override;
  const MachineCeilings& ceilings() const override { return ceilings_; }
  const Platform& platform() const { return *platform_; }

 private:
  std::shared_ptr<const Platform> platform_;
  MachineCeilings ceilings_;
};

/// The kernel task of one node (task.h build_tasks for a single node, stream 0).
Task node_task(const Node& n);

/// Simulates `g` (timeline.h) and converts the result to the SDK's DeviceSimulation, with the
/// Chrome trace when `with_trace`.
DeviceSimulation simulate_graph(const Graph& g, const Platform& p, bool with_trace);

}  // namespace ge::ascend
