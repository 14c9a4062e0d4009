// plugins/ascend_backend/device_model.cc — the ascend backend's timing hooks (device_model.h).
#include "device_model.h"

#include <map>
#include <mutex>

#include "ge/sdk/error.h"
#include "ge/sdk/options.h"
#include "task.h"
#include "tiling.h"

namespace ge::ascend {
namespace {

TaskOperand operand(const Value* v) {
  return TaskOperand{v->name(), v->is_constant() ? -1 : v->arena_offset, static_cast<int64_t>(v->nbytes()), static_cast<int>(v->format)};
}

}  // namespace

namespace {

std::shared_ptr<const Platform> cached(const std::string& dir, const std::string& soc) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Platform>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[dir + "/" + soc];
  if (!slot) slot = std::make_shared<const Platform>(load_platform(dir, soc));
  return slot;
}

std::string option_soc(const OptionReader& option) {
  const std::optional<std::string> v = option ? option("ascend", "soc_version") : std::nullopt;
  return v ? std::get<std::string>(parse_option_as(OptionType::String, "ascend.soc_version", *v)) : "Ascend910A";
}

}  // namespace

std::shared_ptr<const Platform> platform_for(const std::string& dir, const OptionReader& option) {
  return cached(dir, option_soc(option));
}

std::shared_ptr<const Platform> platform_for(const std::string& dir, const Graph& g, const OptionReader& option) {
  for (const Node* n : g.nodes()) {
    const std::string soc = n->attrs.get_string(kAttrSoc, "");
    if (!soc.empty()) return cached(dir, soc);
  }
  return cached(dir, option_soc(option));
}

Task node_task(const Node& n) {
  Task t;
  t.node = n.name();
  t.op_type = n.domain().empty() ? n.op_type() : n.domain() + "." + n.op_type();
  t.engine = n.attrs.get_string(kAttrEngine, "aicpu");
  t.block_dim = n.attrs.get_int(kAttrBlockDim, 1);
  t.tiling = n.attrs.get_ints(kAttrTiling, {});
  for (const Value* v : n.inputs())
    if (v) t.inputs.push_back(operand(v));
  for (const Value* v : n.outputs())
    if (v) t.outputs.push_back(operand(v));
  return t;
}

AscendCostModel::AscendCostModel(std::shared_ptr<const Platform> p) : platform_(std::move(p)) {
  const Platform& pl = *platform_;
  // The ceilings other code prints: the Cube's fp16 peak and the cores' global-memory rate.
  ceilings_.gemm_gflops_1t = ceilings_.gemm_gflops_nt = pl.get("peak.fp16_tflops") * 1e3;
  ceilings_.mem_gbps_1t = ceilings_.mem_gbps_nt = pl.get("bandwidth.gm_to_l1") * pl.get("ai_cores") * pl.get("clock_ghz");
  ceilings_.threads_nt = 1;
  ceilings_.launch_us = pl.get("launch.aicore_us");
  ceilings_.event_us = pl.get("launch.event_us");
  ceilings_.calibrated = false;
  ceilings_.source = "ascend cycle model (" + pl.file + ")";
}

double AscendCostModel::node_us(const Node& n, int /*threads*/) const {
  if (is_view_node(n)) return 0;  // no task (task.h)
  return cycles_to_us(task_cycles(task_work(node_task(n), n), *platform_).total, *platform_);
}

double AscendCostModel::event_us() const { return ceilings_.event_us; }

DeviceSimulation simulate_graph(const Graph& g, const Platform& p, bool with_trace) {
  const Timeline tl = simulate(g, build_tasks(g), p);
  DeviceSimulation s;
  s.device = p.name;
  s.model = "ascend cycle model + discrete-event timeline (docs/ascend.md \"Cycle model\"), " + p.file;
  s.total_us = tl.latency_us();
  s.cores = tl.ai_cores;
  s.peak_tflops = p.get("peak.fp16_tflops");
  s.cube_utilization = tl.cube_utilization();
  s.vector_utilization = tl.vector_utilization();
  s.movement_utilization = tl.movement_utilization();
  const double us = 1.0 / (tl.clock_ghz * 1e3);
  for (const TimelineTask& k : tl.kernels) {
    SimulatedNode n;
    n.node = k.node, n.op_type = k.op_type, n.engine = k.engine, n.bound = k.bound, n.stream = k.stream;
    n.units = static_cast<int64_t>(k.units.size());
    n.start_us = k.start * us, n.end_us = k.end * us;
    n.bound_us = k.lower_bound * us;
    s.bound_us += n.bound_us;
    const double held = (k.end - k.start) * static_cast<double>(std::max<size_t>(1, k.units.size()));
    if (held > 0 && k.engine != "aicpu") {
      n.cube_utilization = k.pipes.cube / held;
      n.vector_utilization = k.pipes.vector / held;
      n.movement_utilization = k.pipes.busiest_movement() / held;
    }
    s.nodes.push_back(std::move(n));
  }
  if (with_trace) s.trace_json = chrome_trace(tl, g.name);
  return s;
}

}  // namespace ge::ascend
