// plugins/ascend_backend/precision_plan.cc — the per-node fp16 / fp32 decision (precision_plan.h).
#include "precision_plan.h"

#include "ge/sdk/op_registry.h"
#include "move_ops.h"
#include "placement.h"
#include "tiling_choose.h"

namespace ge::ascend {

bool fp16_candidate(const Node& n) {
  if (!is_cube_op(n) && !is_vector_op(n)) return false;
  bool any = false;
  for (const Value* v : n.inputs())
    if (v && dtype_is_float(v->dtype)) {
      if (v->dtype != DataType::Float32) return false;
      any = true;
    }
  for (const Value* o : n.outputs())
    if (o && o->dtype != DataType::Float32) return false;
  // A shape the AI Core kernel cannot tile (a 1-D pool, a 3-D convolution) is placed on the AI
  // CPU (placement_cost.h), which computes it in fp32 like any AI CPU op. The problems depend on
  // shapes, not on dtypes or formats, for these refusals (32: the UB alignment of every platform).
  if (is_cube_op(n) ? !cube_problem(n, nullptr) : !vector_problem(n, 32, nullptr)) return false;
  return any;
}

bool dtype_follower(const Node& n) {
  if (is_move_op(n)) return true;  // ops_info.toml problem "move"
  // Views (the registry's `view` contract: Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout).
  const Graph* g = n.graph();
  const OpDef* def = g && g->ops ? g->ops->find(n.domain(), n.op_type(), g->opset()) : nullptr;
  return def && def->view;
}

namespace {

/// A follower's data input is an fp32 value computed in fp16 by the plan, and its float outputs
/// are all fp32 (so it can turn them into fp16).
bool follows_fp16(const Node& n, const std::set<const Node*>& fp16) {
  const Value* v = n.num_inputs() ? n.input(0) : nullptr;
  if (!v || v->dtype != DataType::Float32 || !v->producer() || !fp16.count(v->producer())) return false;
  for (const Value* o : n.outputs())
    if (o && dtype_is_float(o->dtype) && o->dtype != DataType::Float32) return false;
  return true;
}

/// A gray node follows its inputs: fp16 when every non-constant float input comes from a node
/// that computes in fp16 (a graph input, or a node staying fp32, makes it fp32).
bool inputs_in_fp16(const Node& n, const std::set<const Node*>& fp16) {
  bool any = false;
  for (const Value* v : n.inputs()) {
    if (!v || v->is_constant() || !dtype_is_float(v->dtype)) continue;
    if (!v->producer() || !fp16.count(v->producer())) return false;
    any = true;
  }
  return any;
}

}  // namespace

PrecisionPlan plan_precision(const Graph& g, PrecisionMode mode, const MixLists* lists, const KeepDtype& keep,
                             const std::set<std::string>& extra_keep) {
  PrecisionPlan p;
  if (mode == PrecisionMode::MustKeepOriginDtype) return p;
  for (const Node* n : g.topological_order()) {
    if (dtype_follower(*n)) {
      if (!keep.keeps(*n) && !extra_keep.count(n->name()) && follows_fp16(*n, p.fp16)) p.fp16.insert(n), p.follow.insert(n);
      continue;
    }
    if (!fp16_candidate(*n)) continue;
    std::string why;
    if (keep.keeps(*n)) why = "keep_dtype";
    else if (extra_keep.count(n->name())) why = "overflow_check";
    else if (mode == PrecisionMode::AllowFp32ToFp16 && !is_cube_op(*n)) why = "vector";
    else if (mode == PrecisionMode::AllowMixPrecision) {
      const MixClass c = lists ? lists->of(*n) : MixClass::Gray;
      if (c == MixClass::Black) why = "black";
      else if (c == MixClass::Gray && !inputs_in_fp16(*n, p.fp16)) why = "gray";
    }
    if (why.empty()) p.fp16.insert(n);
    else p.fp32_why[n] = why;
  }
  return p;
}

}  // namespace ge::ascend
