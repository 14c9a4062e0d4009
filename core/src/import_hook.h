// Internal to libge_core: propagate_shapes with a per-node hook (symbolic.cc keeps symbolic
// dims through the import this way; every other node takes the static path of importer.cc).
#pragma once
#include <functional>

#include "ge/core/importer.h"
#include "ge/sdk/op_registry.h"

namespace ge::core {

/// Called for each node after its definition and inputs are checked; returns true when it set
/// the node's outputs itself (the static inference and constant folding are then skipped).
using NodeHook = std::function<bool(Node* node, const OpDef& def, int64_t opset)>;

ImportResult propagate_shapes_hooked(Graph& g, const Environment& env, const ImportOptions& opts, const NodeHook* hook);

}  // namespace ge::core
