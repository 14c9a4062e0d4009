// plugins/ascend_backend/placement_cost.cc — placement by cost (placement_cost.h).
#include "placement_cost.h"

#include <cmath>
#include <cstdio>
#include <variant>

#include "cycle_model.h"
#include "ge/sdk/error.h"
#include "move_ops.h"
#include "ops_info.h"
#include "tiling_choose.h"

namespace ge::ascend {
namespace {

std::string fmt_time(double us) {
  char b[64];
  if (us >= 1000) std::snprintf(b, sizeof b, "%.3g ms", us / 1000);
  else std::snprintf(b, sizeof b, "%.3g us", us);
  return b;
}

std::string fmt_cycles(double c) {
  char b[64];
  std::snprintf(b, sizeof b, "%.0f", c);
  return b;
}

}  // namespace

double vector_cycles(const VectorTiling& t, double ops_per_element, bool fp32, const Platform& p) {
  const double lanes = p.get("vector.fp16_lanes") / (fp32 ? 2 : 1);
  const double compute = std::ceil(static_cast<double>(t.tile_units * t.unit_elements) * ops_per_element / lanes);
  const double data = static_cast<double>(t.tile_units * t.ub_bytes_per_unit) / p.get("bandwidth.gm_to_l1");
  const double waves = std::ceil(static_cast<double>(t.tiles()) / static_cast<double>(t.block_dim));
  return waves * std::max(compute, data);
}

double aicpu_us(double flops, const Platform& p) { return flops / (p.get("aicpu.gflops") * 1e3) + p.get("launch.aicpu_us"); }

double aicpu_move_us(const Node& n, const Platform& p) {
  double out = 0, in = 0;
  for (const Value* v : n.outputs())
    if (v) out += static_cast<double>(v->nbytes());
  const OpInfo* info = find_op_info(n);
  const bool reads_output_only = info && info->reads_output_only;  // as task_work (cycle_model.cc)
  for (size_t i = 0; i < n.num_inputs(); ++i)
    if (const Value* v = n.input(i)) in += i == 0 && reads_output_only ? std::min(static_cast<double>(v->nbytes()), out) : static_cast<double>(v->nbytes());
  return (in + out) / (p.get("aicpu.gbps") * 1e3) + p.get("launch.aicpu_us");
}

PlacementChoice place(const Node& n, const Platform& p) {
  PlacementChoice c;
  const std::string op = (n.domain().empty() ? "" : n.domain() + ".") + n.op_type();
  const double clock_mhz = p.get("clock_ghz") * 1e3;
  if (is_cube_op(n)) {
    for (size_t i = 0; i < 2 && i < n.num_inputs(); ++i)
      if (n.input(i) && n.input(i)->dtype != DataType::Float16) {
        const DataType t = n.input(i)->dtype;
        c.reason = "aicpu: " + (t == DataType::Float32 ? std::string("fp32") : std::string(dtype_name(t))) +
                   " input (the Cube multiplies fp16 only)";
        return c;
      }
    std::string why;
    const std::optional<CubeTiling> prob = cube_problem(n, &why);
    if (!prob) {
      c.reason = "aicpu: the Cube kernel cannot tile it (" + why + ")";
      return c;
    }
    // The task's operand sizes as the cycle model will see them (task_work of device_model.h).
    TaskWork w;
    w.op_type = op, w.engine = "cube", w.who = "node '" + n.name() + "'";
    w.input0_bytes = static_cast<double>(n.input(0)->nbytes());
    for (size_t i = 2; i < n.num_inputs(); ++i)
      if (n.input(i)) w.epilogue_bytes += static_cast<double>(n.input(i)->nbytes());
    for (const Value* v : n.outputs())
      if (v) w.output_bytes += static_cast<double>(v->nbytes());
    CubeTiling t;
    try {
      t = choose_cube_tiling(*prob, w, p, w.who);
    } catch (const Error& e) {
      c.reason = std::string("aicpu: ") + e.what();
      return c;
    }
    w.tiling = encode(t), w.block_dim = t.block_dim;
    const TaskCycles tc = cube_cycles(t, w, p);  // the cycle model's price (launch separate)
    const double cycles = tc.total - tc.launch;
    c.aicore_us = cycles / clock_mhz + p.get("launch.aicore_us");
    c.aicpu_us = aicpu_us(2.0 * static_cast<double>(t.batch * t.M) * static_cast<double>(t.N * t.K), p);
    if (c.aicore_us <= c.aicpu_us) {
      c.engine = Engine::Cube, c.cube = t;
      c.reason = "cube: " + fmt_cycles(cycles) + " cycles est. (" + fmt_time(c.aicore_us) + " with launch) vs aicpu " + fmt_time(c.aicpu_us);
    } else {
      c.reason = "aicpu: est. " + fmt_time(c.aicpu_us) + " vs cube " + fmt_time(c.aicore_us) + " (launch-bound)";
    }
    return c;
  }
  if (has_vector_kernel(n)) {
    std::string why;
    const std::optional<VectorTiling> prob = vector_problem(n, p.get_int("alignment.ub"), &why);
    if (!prob) {
      c.reason = "aicpu: the Vector kernel cannot tile it (" + why + ")";
      return c;
    }
    VectorTiling t;
    try {
      t = choose_vector_tiling(*prob, p, "node '" + n.name() + "'");
    } catch (const Error& e) {
      c.reason = std::string("aicpu: ") + e.what();
      return c;
    }
    const double ops = vector_ops_per_element(n);  // the cycle model's table (cycle_model.h)
    const bool fp32 = n.output(0)->dtype == DataType::Float32 || n.input(0)->dtype == DataType::Float32;
    const double cycles = vector_cycles(t, ops, fp32, p);
    c.aicore_us = cycles / clock_mhz + p.get("launch.aicore_us");
    const bool move = is_move_op(n);
    c.aicpu_us = move ? aicpu_move_us(n, p) : aicpu_us(static_cast<double>(t.units * t.unit_elements) * ops, p);
    if (c.aicore_us <= c.aicpu_us) {
      c.engine = Engine::Vector, c.vector = t;
      c.reason = "vector: " + fmt_cycles(cycles) + " cycles est. (" + fmt_time(c.aicore_us) + " with launch) vs aicpu " + fmt_time(c.aicpu_us) +
                 (move ? " (data movement)" : "");
    } else {
      c.reason = "aicpu: est. " + fmt_time(c.aicpu_us) + " vs vector " + fmt_time(c.aicore_us) + " (launch-bound)";
    }
    return c;
  }
  c.reason = "aicpu: no AI Core kernel for " + op;
  c.aicpu_us = aicpu_us(0, p);  // launch only: the AI CPU's own work is not estimated for these ops
  return c;
}

}  // namespace ge::ascend
