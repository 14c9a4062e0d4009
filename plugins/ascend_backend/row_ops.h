// plugins/ascend_backend/row_ops.h — the row geometry of the reducing Vector ops (Softmax,
// ReduceMean, ge.LayerNormalization), shared by their Vector problem (tiling_choose.h: one unit
// = one row) and their kernels (vector_rows.cc), so the tiling the pass stores and the work the
// kernel does are computed by one function.
//
// A row is the set of input elements one output row / element depends on:
//   Softmax (opset >= 13): the `axis` dim, outer = dims before it, inner = dims after it; row r =
//     (o, i) reads x[o, k, i] for k < len (stride inner). Opset < 13: the flattened dims from
//     `axis` on (inner = 1).
//   ge.LayerNormalization: the dims from `axis` on (inner = 1), outer = the rest.
//   ReduceMean: the reduced axes (attribute `axes`, or the constant input 1 from opset 18; none
//     given: all, unless noop_with_empty_axes); units = the output's elements, len = the product
//     of the reduced dims.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"

namespace ge::ascend {

struct RowGeometry {
  int64_t outer = 1, len = 1, inner = 1;  ///< rows = outer · inner, each of len elements (stride inner)
  int64_t rows() const { return outer * inner; }
};

/// Softmax's rows; `opset` is the node's ai.onnx opset. std::nullopt + why for a bad axis.
std::optional<RowGeometry> softmax_rows(const Node& n, int64_t opset, std::string* why);
/// ge.LayerNormalization's rows; std::nullopt + why for a bad axis or a Scale / B / Skip that is
/// not one value per normalized element (Skip: X's shape).
std::optional<RowGeometry> layer_norm_rows(const Node& n, std::string* why);
/// ReduceMean's reduced-axis mask (true = reduced) over input 0's rank; std::nullopt + why when
/// the axes are not known at compile time or out of range.
std::optional<std::vector<bool>> reduce_mean_axes(const Node& n, int64_t opset, std::string* why);

}  // namespace ge::ascend
