// plugins/ascend_backend/move_ops.h — the data-movement ops the AI Core runs with its MTE / Vector
// pipes (CANN: TransposeD, StridedSlice / Slice, GatherV2 on the AI Core): Transpose, Slice
// (constant starts / ends / axes / steps), Gather (float data, int32 / int64 indices). They only
// copy elements, so every dtype is exact. Plain layouts (ND / NCHW) only: a blocked tensor
// (NC1HWC0, FRACTAL_*) has another element order and stays on the AI CPU with the reason.
//
// Geometry: one work unit = one row of the output's innermost dim (row = its length L; a rank-0
// output is one unit of 1 element). Transpose and Slice map output element idx to the input
// element base + Σ_d idx[d]·stride[d] (an affine map); Gather reads index j of its row's indices
// tensor and copies from data row (a·dim + ind[j]).
//
// UB bytes per unit (tiling_problem_move.cc), each buffer rounded up to alignment.ub (32 B):
//   input:  a unit-stride row (the innermost output dim is the input's innermost, step 1): the L
//           elements, plus one 32-byte block when rows can start off a 32-byte boundary (MTE moves
//           whole 32-byte blocks, [ACDOC]); a strided row (Transpose moving the innermost dim,
//           |step| ≠ 1, Gather on the last axis): one 32-byte block per element;
//   indices (Gather): one index per unit when the row is contiguous, L otherwise;
//   output: the L elements.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"

namespace ge::ascend {

/// Ops whose problem is "move" in ops_info.toml: Transpose, Slice, Gather of the default domain.
bool is_move_op(const Node& n);

struct MoveGeometry {
  enum class Kind { Affine, Gather } kind = Kind::Affine;
  std::vector<int64_t> out;      ///< output shape
  int64_t row = 1;               ///< L: elements per unit (the innermost output dim; 1 for rank 0)
  int64_t units = 0;             ///< output numel / row
  // Affine (Transpose, Slice): input flat index = base + Σ idx[d]·stride[d].
  int64_t base = 0;
  std::vector<int64_t> stride;
  // Gather: output flat index i = (a·nidx + j)·inner + e reads data[(a·dim + ind[j])·inner + e].
  int64_t dim = 0, inner = 1, nidx = 1;
  size_t index_bytes = 8;        ///< size of one index (int32 4, int64 8)

  /// Whether consecutive elements of a row are consecutive in the input (unit stride).
  bool contiguous_row() const;
  /// Whether every row's first input element sits at a multiple of `align` bytes.
  bool rows_aligned(int64_t elem_bytes, int64_t align) const;
  /// Input flat index of element k of unit u (Affine only).
  int64_t affine_src(int64_t u, int64_t k) const;
};

/// The geometry of a Transpose / Slice / Gather node from its shapes, attributes and constant
/// inputs; std::nullopt with `why` (perm of the wrong length, non-constant Slice bounds, a zero
/// step, an axis out of range, non-integer indices).
std::optional<MoveGeometry> move_geometry(const Node& n, std::string* why = nullptr);

}  // namespace ge::ascend
