// plugins/ascend_backend/precision_plan.h — which nodes compute in fp16 under a precision mode
// (the decision; precision_pass.cc rewrites the graph accordingly). Only AI Core ops (Cube or
// Vector, placement.h) whose float inputs and outputs are all fp32 are candidates: AI CPU
// kernels compute fp32 only, and a node already in fp16 keeps it.
//
//   force_fp16              every candidate;
//   allow_fp32_to_fp16      Cube candidates (matrix ops: the Cube multiplies fp16 only); Vector
//                           candidates keep fp32 (every Vector kernel here has an fp32
//                           implementation — the vendor lowers a vector op only when it has none);
//   allow_mix_precision     white candidates; gray candidates when every non-constant float input
//                           is produced by a node computing in fp16 (graph order, so a gray chain
//                           after a white op follows it); black candidates never;
//   must_keep_origin_dtype  none.
// keep_dtype nodes (and the overflow check's) are never fp16, in every mode.
//
// Dtype followers (dtype_follower): the data-movement ops (Transpose, Slice, Gather: move_ops.h)
// and the views (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout: task.h) only move
// bytes, so they are exact in any dtype. In every mode that reduces precision each one follows
// its data input (input 0): fp16 when that value is produced by a node computing in fp16 (graph
// order, so a chain of them follows), fp32 otherwise (a graph input, a constant, an fp32 node).
// They are not candidates, so no Cast is ever inserted in front of one; their other inputs
// (Gather's indices, Reshape's shape, Slice's bounds, Dropout's ratio) keep their dtypes.
// keep_dtype (and the overflow check) keep a follower in fp32 too.
#pragma once
#include <map>
#include <set>
#include <string>

#include "precision.h"
#include "ge/sdk/precision_lists.h"

namespace ge::ascend {

struct PrecisionPlan {
  std::set<const Node*> fp16;                   ///< nodes to compute in fp16
  std::set<const Node*> follow;                 ///< dtype followers in fp16 (a subset of fp16)
  std::map<const Node*, std::string> fp32_why;  ///< candidates kept fp32: "keep_dtype", "black", "gray", "vector", "overflow_check"
};

/// `lists` is read only under allow_mix_precision (may be null otherwise); `extra_keep` are node
/// names kept in fp32 besides keep_dtype (the overflow check's finds).
PrecisionPlan plan_precision(const Graph& g, PrecisionMode mode, const MixLists* lists, const KeepDtype& keep,
                             const std::set<std::string>& extra_keep = {});

/// Transpose, Slice, Gather, Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout (default
/// domain): ops that only move bytes and follow their data input's dtype (see above).
bool dtype_follower(const Node& n);

/// An AI Core op whose float inputs and outputs are all fp32 (with at least one float input).
bool fp16_candidate(const Node& n);

}  // namespace ge::ascend
