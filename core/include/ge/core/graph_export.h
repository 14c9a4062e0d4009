// ge/core/graph_export.h — views of a compiled graph for people and tools (`gec inspect`).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"

namespace ge::core {

/// GraphViz DOT: one node per graph node, labelled "op_type\nname" (ops of another domain as
/// "domain.op_type"; fused ops — any non-ONNX domain — filled in colour), graph inputs and
/// outputs as ellipses, one edge per (value, consumer) labelled with the value's dtype and shape.
/// Constants are left out (they would hide the dataflow in real models) — a node's label counts
/// its weights instead.
/// Fused ops also list what they absorbed: their text-valued attributes (activation, the ops of a
/// FusedElementwise program), one per line.
std::string to_dot(const Graph& g);

/// The memory plan of a compiled graph: every value the planner put in the arena, with the
/// schedule steps (positions in Graph::nodes()) from the one writing it to the last reading it,
/// and the bytes live at each step — the union of the live buffers' byte ranges, so values
/// sharing bytes (views, in-place outputs, Concat slices) count once. Its peak is the least arena
/// any placement of these buffers in this order can have (the planner's lower bound).
struct MemoryPicture {
  struct Buffer {
    const Value* value;
    int first_step, last_step;
    uint64_t begin, end;  ///< arena byte range [begin, end)
  };
  std::vector<Buffer> buffers;
  std::vector<uint64_t> live_bytes;  ///< per step
  uint64_t peak_live_bytes = 0, arena_bytes = 0;
  int steps = 0;
};
MemoryPicture memory_picture(const Graph& g);

/// The memory plan as an SVG picture (`gec inspect --format memory-svg`): each arena buffer a
/// box spanning its steps (x) and its bytes (y, arena offset), coloured by the op that writes it,
/// with a tooltip naming it; the live bytes per step as a line, their peak dashed, the arena's
/// size solid, and `planner_lower_bound` (the memory pass's reported bound, which counts every
/// legal alias even where the plan's level used none) dotted where it differs from the peak;
/// without it the peak is the bound stated. The root element carries data-arena-bytes,
/// data-lower-bound-bytes, data-peak-live-bytes and data-steps for tools. Throws ge::Error for a
/// graph without a memory plan.
std::string to_memory_svg(const Graph& g, std::optional<uint64_t> planner_lower_bound = std::nullopt);

/// An ONNX ModelProto (serialized) holding the graph: ONNX ops in the default domain, GE's fused
/// ops in their own domain (`ge`, opset version from Graph::opsets or 1) so Netron shows them and
/// gec (whose fusion plugin registers the `ge` domain) loads them back; attributes converted
/// back to AttributeProto; constants as initializers; every produced value's type in value_info.
/// Value formats (e.g. NC1HWC0) are not representable in ONNX and are dropped: ge.TransData
/// nodes become Identity and blocked constants are written in NCHW, so the export computes the
/// same logical values as the graph.
std::string to_onnx(const Graph& g);

}  // namespace ge::core
