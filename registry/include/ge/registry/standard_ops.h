// ge/registry/standard_ops.h — the standard ONNX operator definitions (registry/README.md).
#pragma once
#include "ge/sdk/plugin.h"

namespace ge::registry {

/// The opsets of the ai.onnx domain GE supports (models outside are refused or converted).
inline constexpr int kMinOpset = 7;
inline constexpr int kMaxOpset = 17;

/// Defines every ai.onnx op and since_version of opsets kMinOpset..kMaxOpset from ONNX's schemas
/// (onnx::OpSchemaRegistry), applies GE's metadata embedded at build time (registry/ops/*.toml,
/// [[meta]] entries), attaches shape inference (ONNX's, or GE's own for the ops it keeps) and a
/// function expander to every op with an ONNX function body. Throws ge::Error when a file does
/// not parse or names an op ONNX does not define.
void register_standard_ops(Registrar& r);

}  // namespace ge::registry
