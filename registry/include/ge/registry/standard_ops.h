// ge/registry/standard_ops.h — the standard ONNX operator definitions (registry/README.md).
#pragma once
#include "ge/sdk/plugin.h"

namespace ge::registry {

/// Parses the op-definition TOML embedded at build time (registry/ops/*.toml) with
/// ge::parse_op_defs_toml, adds every definition, then attaches shape inference to every op
/// type. Throws ge::Error when a file does not parse or an op type lacks shape inference.
void register_standard_ops(Registrar& r);

}  // namespace ge::registry
