// plugins/ascend_backend/precision_plan.cc — the per-node fp16 / fp32 decision (precision_plan.h).
#include "precision_plan.h"

#include "placement.h"

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
  return any;
}

namespace {

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
