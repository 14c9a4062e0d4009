// ge/core/graph_export.h — views of a compiled graph for people and tools (`gec inspect`).
#pragma once
#include <string>

#include "ge/sdk/ir.h"

namespace ge::core {

/// GraphViz DOT: one node per graph node, labelled "op_type\nname" (ops of another domain as
/// "domain.op_type"; fused ops — any non-ONNX domain — filled in colour), graph inputs and
/// outputs as ellipses, one edge per (value, consumer) labelled with the value's dtype and shape.
/// Constants are left out (they would hide the dataflow in real models) — a node's label counts
/// its weights instead.
std::string to_dot(const Graph& g);

/// An ONNX ModelProto (serialized) holding the graph: ONNX ops in the default domain, GE's fused
/// ops in their own domain (`ge`, opset version from Graph::opsets or 1) so Netron shows them and
/// gec (whose fusion plugin registers the `ge` domain) loads them back; attributes converted
/// back to AttributeProto; constants as initializers; every produced value's type in value_info.
/// Value formats (e.g. NC1HWC0) are not representable in ONNX and are dropped: ge.TransData
/// nodes become Identity and blocked constants are written in NCHW, so the export computes the
/// same logical values as the graph.
std::string to_onnx(const Graph& g);

}  // namespace ge::core
