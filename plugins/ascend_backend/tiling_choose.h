// plugins/ascend_backend/tiling_choose.h — what a node's AI Core task is (the problem: GEMM sizes
// or Vector work units, recomputed from the node's shapes, formats and dtypes) and the tiling the
// ascend_tiling pass chooses for it on a platform (docs/ascend.md, "Tiling"). The kernels call
// the same *_problem functions at load time to verify a stored tiling matches its node.
#pragma once
#include <optional>
#include <string>

#include "cycle_model.h"
#include "ge/sdk/ir.h"
#include "platform.h"
#include "tiling.h"

namespace ge::ascend {

/// The Cube problem of Conv / ge.FusedConv / MatMul / Gemm / ge.FusedMatMul (batch, M, N, K of tiling.h; the tile
/// fields keep their defaults). std::nullopt with `why` set when the node's shapes have no Cube
/// form (not 2-D convolution, MatMul operand of rank < 2, broadcast batch dims, ...).
std::optional<CubeTiling> cube_problem(const Node& n, std::string* why = nullptr);

/// The Vector problem of an elementwise op, ge.Cast, ge.TransData, Concat or a pool: units,
/// unit_elements and ub_bytes_per_unit (tiling.h). Elementwise, Cast, TransData, Concat: a unit is
/// one block of 16 output elements (of the output's storage, padding included); per unit the UB
/// holds each streamed input (at most 2 at a time) and the output, each rounded up to the UB
/// alignment. Pools: a unit is one output row (n, c1, oh) of OW·C0 elements (C0 = 16 in NC1HWC0,
/// 1 in plain layouts), holding its input window rows ((kh−1)·dh+1 rows of W·C0), the output row
/// and an fp32 accumulator row; global pools are one (n, c1) plane. std::nullopt with `why`
/// when the op has no Vector form.
std::optional<VectorTiling> vector_problem(const Node& n, int64_t ub_align, std::string* why = nullptr);

/// Softmax, ReduceMean, ge.LayerNormalization, ge.Gelu, ge.FusedElementwise (tiling_problem_rows.cc).
bool is_row_vector_op(const Node& n);
/// Their Vector problem: one row per unit for Softmax / LayerNorm (row_ops.h), one output element
/// with its reduced inputs for ReduceMean, 16-element blocks for Gelu / FusedElementwise; see
/// tiling_problem_rows.cc for the UB bytes per unit. vector_problem() dispatches to it.
std::optional<VectorTiling> row_vector_problem(const Node& n, int64_t ub_align, std::string* why = nullptr);

/// Transpose, Slice, Gather (move_ops.h, tiling_problem_move.cc): one unit = one output row of the
/// innermost output dim; UB per unit: the gathered input (a unit-stride row rounded up to 32 B,
/// + one block when rows may start unaligned; one 32-byte block per element for a strided row),
/// Gather's indices, the output row. Plain layouts, float data only. vector_problem() dispatches.
std::optional<VectorTiling> move_problem(const Node& n, int64_t ub_align, std::string* why = nullptr);

/// The Cube tiling rule (double buffering always on), for a problem from cube_problem and the
/// task's operand sizes (`work`: input0_bytes and output_bytes, as task_work() gives them; the
/// cycle model prices with them):
///  * candidates: every (m_tile, n_tile), multiples of 16 up to ⌈M/16⌉·16 and ⌈N/16⌉·16, whose
///    double-buffered fp32 L0C tile fits; for each, k_tile = the largest multiple of 16 (≤ K rounded
///    up to 16) whose double-buffered L0A and L0B tiles fit, and k_l1 = the largest multiple of
///    k_tile (≤ K rounded up to k_tile) whose double-buffered A and B panels fit L1; and when the
///    whole K₁₆ fits L1 but that k_l1 does not reach it, also k_l1 = K₁₆ with the largest k_tile
///    dividing K₁₆ (panels resident across a core's tiles), and when it does not fit, the two
///    separate-depth tilings (version 4): A's whole K₁₆ in L1 with B in the largest chunk (a
///    divisor of K₁₆, multiple of that k_tile) that fits beside it, and the reverse; each in tile
///    order MN and NM (tiling.h; one order when there is a single m or n tile); block_dim =
///    min(ai_cores, output tiles);
///  * then block partitions (tiling.h, CANN's singleCoreM × singleCoreN) of the candidates whose
///    k_l1 covers K₁₆: for each count of M blocks the most N blocks with batch · blocks ≤ ai_cores,
///    only shapes using more than half the cores, per tile and order the one with the smallest
///    lower bound (core 0's block, every pipe exact), and only when that bound is below the best
///    round-robin price; candidates whose k_l1 or k_l1_b covers K₁₆ qualify;
///  * split-K (version 4, CANN's singleCoreK): per (m_tile, n_tile), K cut into 2, 3, 4, 6 or 8
///    blocks (single_core_k rounded up to k_tile) whose A and B panels fit L1 whole, block shapes
///    as above with batch · blocks · blocks_k ≤ ai_cores, only for the K-block counts whose floor
///    (the average core's share of the Cube work plus of the combine) is below the best price;
///  * choose the candidate with the fewest cycles of the cycle model, cube_cycles() of
///    cycle_model.h — the same price the timeline charges (one source of truth). Candidates are
///    priced in order of a lower bound (every pipe's total over block_dim) and the search stops
///    when the bound exceeds the best price. Ties go to the larger tile, then the larger n_tile,
///    k_l1, k_tile, k_l1_b, then order MN, then round-robin, then fewer K blocks. Memoized
///    (networks repeat their layer shapes).
/// Throws ge::Error naming `who` when not even 16 × 16 × 16 fits.
CubeTiling choose_cube_tiling(const CubeTiling& problem, const TaskWork& work, const Platform& p, const std::string& who);
/// The same for a MatMul with fp16 operands (input0_bytes = 2·batch·M·K, output_bytes = 2·batch·M·N).
CubeTiling choose_cube_tiling(const CubeTiling& problem, const Platform& p, const std::string& who);

/// The Vector tiling rule: tile_units = min(the most units whose double-buffered UB tile fits,
/// ⌈units / ai_cores⌉) — the largest tile that still gives every AI Core work —, block_dim =
/// min(ai_cores, tiles). Throws ge::Error naming `who` when one unit does not fit the UB twice.
VectorTiling choose_vector_tiling(const VectorTiling& problem, const Platform& p, const std::string& who);

}  // namespace ge::ascend
