// plugins/ascend_backend/placement.cc — the placement rules (placement.h).
#include "placement.h"

#include "move_ops.h"
#include "ops_info.h"
#include "tiling.h"
#include "util.h"

namespace ge::ascend {

bool is_cube_op(const Node& n) {
  const OpInfo* info = find_op_info(n);
  return info && info->cube;
}

bool is_vector_op(const Node& n) {
  const OpInfo* info = find_op_info(n);
  return info && !info->cube && info->problem != Problem::Move && info->problem != Problem::Convert;
}

bool has_vector_kernel(const Node& n) {
  const OpInfo* info = find_op_info(n);
  return info && !info->cube;
}

Engine engine_for(const Node& n) {
  // The engine the ascend_tiling pass chose (by cost, placement_cost.h) wins once it is stored.
  const std::string stored = n.attrs.get_string(kAttrEngine, "");
  if (stored == "cube") return Engine::Cube;
  if (stored == "vector") return Engine::Vector;
  if (stored == "aicpu") return Engine::AiCpu;
  if (is_cube_op(n)) return n.input(0) && n.input(0)->dtype == DataType::Float16 ? Engine::Cube : Engine::AiCpu;
  if (is_vector_op(n)) return Engine::Vector;
  // Data movement: float data in plain layouts (move_ops.h); shape arithmetic on int64 stays on the AI CPU.
  if (is_move_op(n) && n.input(0) && dtype_is_float(n.input(0)->dtype) && plain(n.input(0)->format) &&
      n.output(0) && plain(n.output(0)->format))
    return Engine::Vector;
  if (has_vector_kernel(n) && !is_move_op(n)) return Engine::Vector;  // TransData, Cast
  return Engine::AiCpu;
}

std::string engine_name(Engine e) {
  switch (e) {
    case Engine::Cube: return "aicore:cube";
    case Engine::Vector: return "aicore:vector";
    case Engine::AiCpu: return "aicpu";
  }
  return "?";
}

}  // namespace ge::ascend
