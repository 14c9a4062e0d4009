// plugins/ascend_backend/tiling.h — how one AI Core task is cut into tiles that fit the Da Vinci
// core's buffers, and how that choice travels with the node (docs/ascend.md, "Tiling").
//
// The tiling pass (ascend_tiling) decides it at compile time and stores it on the node as
// attributes, so it is part of the plan / offline model (.om):
//   ascend_engine     string  "cube" | "vector" | "aicpu"
//   ascend_block_dim  int     AI Cores the task spreads over (1 for AI CPU tasks)
//   ascend_tiling     ints    encode(CubeTiling) or encode(VectorTiling); absent for AI CPU tasks
//   ascend_reason     string  why this engine (report: ascend.placement)
//   ascend_soc_version string the platform the tiling was chosen and checked for (the kernels
//                     re-check against that platform file at load)
// The emulator's kernels read it back at build (load) time, refuse it when it does not fit the
// platform's buffers or does not match the node (a corrupted offline model), and execute the
// task tile by tile in the stored order. The cycle model (docs/ascend.md "Cycle model") prices the same tiles.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"
#include "platform.h"

namespace ge::ascend {

inline constexpr const char* kAttrEngine = "ascend_engine";
inline constexpr const char* kAttrBlockDim = "ascend_block_dim";
inline constexpr const char* kAttrTiling = "ascend_tiling";
inline constexpr const char* kAttrReason = "ascend_reason";
inline constexpr const char* kAttrSoc = "ascend_soc_version";

/// A Cube task as `batch` independent GEMMs C[M][N] (+)= A[M][K] · B[K][N] on fp16 operands with an
/// fp32 accumulator. Convolution: im2col, M = N·OH·OW, K = ⌈(C/group)/16⌉·16·Kh·Kw (FRACTAL_Z's K
/// order), N = O/group, batch = group. MatMul/Gemm: the matrix product's M, K, N, batch = the
/// broadcast batch count.
///
/// Per output tile (m_tile × n_tile, multiples of 16): for each k_tile-wide step along K, an
/// m_tile × k_tile block of A sits in L0A and a k_tile × n_tile block of B in L0B (fp16, 2 B per
/// element); the m_tile × n_tile fp32 partial sums stay in L0C (4 B) until K is done. A and B are
/// staged in L1 k_l1 elements of K at a time (k_l1 a multiple of k_tile). With double_buffer every
/// buffer holds two tiles (load of the next overlaps compute of the current), so the capacities
/// below count twice. Output tiles are ordered batch-major, then (order MN) M, then N — or (order
/// NM) N, then M; AI Core b of block_dim takes tiles b, b + block_dim, b + 2·block_dim, … The
/// order decides which operand panel a core's consecutive tiles share (MN: the A rows when
/// n_tiles > block_dim, or the B columns when n_tiles divides block_dim; NM: the B (weight)
/// columns when m_tiles > block_dim), i.e. which panel can stay resident in L1 (cycle_model.h);
/// it does not change any element's K-accumulation order, hence not the results.
///
/// Block partition (encoding version 3; CANN TCubeTiling's singleCoreM / singleCoreN /
/// usedCoreNum): with single_core_m, single_core_n > 0 the output of each batch is cut into
/// contiguous blocks of single_core_m × single_core_n elements (multiples of m_tile / n_tile; the
/// last block of a row or column may be smaller), one block per AI Core: block_dim = batch ·
/// ⌈M/single_core_m⌉ · ⌈N/single_core_n⌉ (batch-major, then M blocks, then N blocks). Core b walks
/// its block's base tiles in `order` (MN: m outer, n inner; NM: n outer, m inner), so its
/// consecutive tiles share an operand panel the core can keep in L1 (cycle_model.h). 0 / 0 = the
/// round-robin above (versions 1 and 2).
///
/// Separate L1 depths and split-K (encoding version 4; CANN TCubeTiling's stepKa·baseK /
/// stepKb·baseK and singleCoreK): k_l1 stages A, k_l1_b stages B (0 = k_l1, as versions 1–3),
/// both multiples of k_tile and one a multiple of the other (CANN: stepKa and stepKb are multiples
/// of each other); a whole-K panel of one operand can stay resident in L1 while the other streams
/// in chunks. With single_core_k > 0 (a multiple of k_tile below K₁₆, block partitions only) K
/// is cut into blocks_k() = ⌈K₁₆/single_core_k⌉ ranges as well: block_dim = batch · ⌈M/single_core_m⌉
/// · ⌈N/single_core_n⌉ · blocks_k (K blocks innermost). Each core accumulates its K range of its
/// output block in L0C from zero and writes the fp32 partial sums to a workspace in global memory;
/// after all cores have, each of the blocks_k cores of an output block combines a 1/blocks_k share
/// of its rows: init (bias) + partial 0 + partial 1 + … in fp32, in K-block order, then the
/// epilogue (cube_tiled.cc, cycle_model.cc).
enum class CubeOrder : int64_t { MN = 0, NM = 1 };

struct CubeTiling {
  int64_t batch = 1, M = 0, N = 0, K = 0;   ///< the problem (elements)
  int64_t m_tile = 16, n_tile = 16, k_tile = 16;  ///< L0 tile (elements, multiples of 16)
  int64_t k_l1 = 16;                        ///< K elements staged in L1 per load (multiple of k_tile)
  bool double_buffer = true;
  int64_t block_dim = 1;                    ///< 1 ≤ block_dim ≤ min(ai_cores, output tiles)
  CubeOrder order = CubeOrder::MN;          ///< output tile order (encoding version 2; version 1 is MN)
  int64_t single_core_m = 0, single_core_n = 0;  ///< per-core block (elements; 0 = round-robin; version 3)
  int64_t k_l1_b = 0;                       ///< K elements of B staged in L1 per load (0 = k_l1; version 4)
  int64_t single_core_k = 0;                ///< per-core K range (elements; 0 = all of K; version 4)

  int64_t m_tiles() const { return (M + m_tile - 1) / m_tile; }
  int64_t n_tiles() const { return (N + n_tile - 1) / n_tile; }
  int64_t k_steps() const { return (K + k_tile - 1) / k_tile; }
  int64_t output_tiles() const { return batch * m_tiles() * n_tiles(); }
  /// Bytes each buffer needs (double buffering included).
  int64_t l0a_bytes() const { return m_tile * k_tile * 2 * (double_buffer ? 2 : 1); }
  int64_t l0b_bytes() const { return k_tile * n_tile * 2 * (double_buffer ? 2 : 1); }
  int64_t l0c_bytes() const { return m_tile * n_tile * 4 * (double_buffer ? 2 : 1); }
  int64_t l1_bytes() const { return (m_tile * k_l1 + n_tile * kl1_b()) * 2 * (double_buffer ? 2 : 1); }
  int64_t kl1_b() const { return k_l1_b > 0 ? k_l1_b : k_l1; }  ///< B's L1 chunk (k_l1 is A's)
  int64_t k16() const { return (K + 15) / 16 * 16; }
  /// Output tile `tile` (0 ≤ tile < output_tiles()) as batch, m and n tile indices in `order`.
  void tile_indices(int64_t tile, int64_t& bi, int64_t& mi, int64_t& ni) const {
    const int64_t mt = m_tiles(), nt = n_tiles(), r = tile % (mt * nt);
    bi = tile / (mt * nt);
    if (order == CubeOrder::NM) mi = r % mt, ni = r / mt;
    else mi = r / nt, ni = r % nt;
  }
  /// Block partition (version 3): true when each core takes one contiguous block.
  bool blocked() const { return single_core_m > 0 && single_core_n > 0; }
  int64_t block_m_tiles() const { return single_core_m / m_tile; }  ///< m tiles per block
  int64_t block_n_tiles() const { return single_core_n / n_tile; }  ///< n tiles per block
  int64_t blocks_m() const { return (m_tiles() + block_m_tiles() - 1) / block_m_tiles(); }
  int64_t blocks_n() const { return (n_tiles() + block_n_tiles() - 1) / block_n_tiles(); }
  /// Split-K (version 4): K ranges per output block (1 without).
  bool split_k() const { return single_core_k > 0; }
  int64_t blocks_k() const { return split_k() ? (k16() + single_core_k - 1) / single_core_k : 1; }
  int64_t blocks() const { return batch * blocks_m() * blocks_n() * blocks_k(); }
  /// Core `core`'s K range [k_lo, k_hi) in elements of K (all of K without split-K) and its index
  /// among the blocks_k cores of its output block.
  int64_t k_block(int64_t core, int64_t& k_lo, int64_t& k_hi) const {
    if (!split_k()) return k_lo = 0, k_hi = K, 0;
    const int64_t kb = core % blocks_k();
    k_lo = kb * single_core_k, k_hi = std::min(K, k_lo + single_core_k);
    return kb;
  }
  /// The tile→core mapping the emulator and the cycle model share: how many output tiles AI Core
  /// `core` (0 ≤ core < block_dim) processes, and its i-th one (0 ≤ i < core_tile_count(core)) as
  /// batch, m and n tile indices, in the order the core processes them.
  int64_t core_tile_count(int64_t core) const {
    if (!blocked()) {
      const int64_t tiles = output_tiles();
      return core < tiles ? (tiles - core + block_dim - 1) / block_dim : 0;
    }
    int64_t bi, m_lo, n_lo, rows, cols;
    block_of(core, bi, m_lo, n_lo, rows, cols);
    return rows * cols;
  }
  void core_tile(int64_t core, int64_t i, int64_t& bi, int64_t& mi, int64_t& ni) const {
    if (!blocked()) return tile_indices(core + i * block_dim, bi, mi, ni);
    int64_t m_lo, n_lo, rows, cols;
    block_of(core, bi, m_lo, n_lo, rows, cols);
    if (order == CubeOrder::NM) mi = m_lo + i % rows, ni = n_lo + i / rows;
    else mi = m_lo + i / cols, ni = n_lo + i % cols;
  }
  /// Block `core`: its batch, first m and n tile, and its size in m tiles (rows) and n tiles (cols).
  void block_of(int64_t core, int64_t& bi, int64_t& m_lo, int64_t& n_lo, int64_t& rows, int64_t& cols) const {
    const int64_t bm = blocks_m(), bn = blocks_n(), c = core / blocks_k(), r = c % (bm * bn);
    bi = c / (bm * bn);
    m_lo = (r / bn) * block_m_tiles(), n_lo = (r % bn) * block_n_tiles();
    rows = std::min(block_m_tiles(), m_tiles() - m_lo), cols = std::min(block_n_tiles(), n_tiles() - n_lo);
  }
};

/// A Vector task as `units` independent work units processed through the Unified Buffer
/// tile_units at a time. A unit is what the op's kernel defines (elementwise, Cast, Concat and
/// TransData: one block of unit_elements = 16 output elements of the output's storage, padding
/// included — one 32-byte UB block of fp16; pools: one output row of OW·C0 elements with its input
/// window rows; Transpose / Slice / Gather: one output row of the innermost output dim with its
/// gathered input, move_ops.h; vector_problem() in tiling_choose.h is the definition). ub_bytes_per_unit counts the unit's inputs, outputs and
/// temporaries in UB, each rounded up to the UB alignment (32 B) per unit. With double_buffer two
/// tiles are resident. Tiles are contiguous ranges of units; AI Core b of block_dim takes tiles
/// b, b + block_dim, …
struct VectorTiling {
  int64_t units = 0;
  int64_t unit_elements = 1;       ///< output elements per unit
  int64_t ub_bytes_per_unit = 0;
  int64_t tile_units = 1;
  bool double_buffer = true;
  int64_t block_dim = 1;           ///< 1 ≤ block_dim ≤ min(ai_cores, tiles)

  int64_t tiles() const { return (units + tile_units - 1) / tile_units; }
  int64_t ub_bytes() const { return tile_units * ub_bytes_per_unit * (double_buffer ? 2 : 1); }
};

/// Attribute encodings (versioned; the first two ints are kind and version):
///   cube:   [1, 4, batch, M, N, K, m_tile, n_tile, k_tile, k_l1, double_buffer, block_dim, order,
///           single_core_m, single_core_n, k_l1_b, single_core_k] (order 0 = MN, 1 = NM;
///           single_core_m = single_core_n = 0: round-robin tiles; k_l1_b written resolved;
///           single_core_k 0 = all of K); version 3 — without the last two (k_l1_b = k_l1, no
///           split-K) —, version 2 — also without the block fields — and version 1 — also without
///           order (order MN) — are still decoded (plans and offline models written before)
///   vector: [2, 1, units, unit_elements, ub_bytes_per_unit, tile_units, double_buffer, block_dim]
std::vector<int64_t> encode(const CubeTiling& t);
std::vector<int64_t> encode(const VectorTiling& t);
/// Decoders: throw ge::Error naming `who` (the node) when the list has another kind, version or
/// length.
CubeTiling decode_cube(const std::vector<int64_t>& v, const std::string& who);
VectorTiling decode_vector(const std::vector<int64_t>& v, const std::string& who);

/// Refuse a tiling that cannot run on `p`: non-positive sizes, tiles not multiples of 16, k_l1 not
/// a multiple of k_tile, a buffer over capacity (L0A, L0B, L0C, L1 for cube; UB for vector), a
/// tile misaligned for its buffer (L0A/L0B 512 B), block_dim outside 1..min(ai_cores, tiles), a
/// block partition that is not one of round-robin (0, 0) or positive multiples of m_tile /
/// n_tile within M / N rounded up to them, or whose block count is not block_dim (the blocks
/// would not cover the output exactly once with one block per core); k_l1_b not a multiple of
/// k_tile, k_l1 and k_l1_b not multiples of one another; single_core_k not 0 or a multiple of
/// k_tile below K₁₆, or split-K without a block partition. L1 counts A's and B's chunks
/// separately: (m_tile·k_l1 + n_tile·k_l1_b)·2 B, twice with double buffering.
/// Throws ge::Error naming `who`, the buffer or field, the bytes needed and the capacity.
void check(const CubeTiling& t, const Platform& p, const std::string& who);
void check(const VectorTiling& t, const Platform& p, const std::string& who);

}  // namespace ge::ascend
