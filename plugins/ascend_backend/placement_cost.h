// plugins/ascend_backend/placement_cost.h — where a node runs, chosen by cost (docs/ascend.md,
// "Placement"): hard rules first (no AI Core kernel, the Cube multiplies fp16 only, a shape the
// AI Core kernel cannot tile → AI CPU), then the AI Core estimate against the AI CPU estimate.
//
// AI Core (per task, cycles at the platform's clock, plus launch.aicore_us):
//   Cube:   the cycle model's price of the chosen tiling (cube_cycles of cycle_model.h: the
//           slowest core's pipes as a flow shop), the tiling being the one with the fewest such
//           cycles (choose_cube_tiling, tiling_choose.h)
//   Vector: ⌈tiles / block_dim⌉ · max(⌈ops / lanes⌉, tile_units·ub_bytes_per_unit / bandwidth.gm_to_l1)
//           per UB tile; lanes = vector.fp16_lanes (half of it for fp32), ops = elements · op count
//           (pools: window size per output element; Softmax 5, LayerNorm 8, Gelu 5 (+1 bias),
//           FusedElementwise its instruction count, ReduceMean the reduced elements per output).
//           Transpose / Slice / Gather (move_ops.h): ops = 0 (only the UB tile's bytes count).
// AI CPU: FLOPs / aicpu.gflops + launch.aicpu_us (Cube ops 2·batch·M·N·K, Vector ops as above);
//         Transpose / Slice / Gather: bytes read and written / aicpu.gbps + launch.aicpu_us
//         (Slice and Gather read as many bytes of input 0 as they write), as the cycle model.
// The numbers aicpu.gflops and launch.* are assumptions marked in platforms/*.toml.
#pragma once
#include <optional>
#include <string>

#include "placement.h"
#include "platform.h"
#include "tiling.h"

namespace ge::ascend {

struct PlacementChoice {
  Engine engine = Engine::AiCpu;
  std::string reason;                 ///< ascend_reason: "cube: 1843 cycles est. (3.8 us) vs aicpu 2.1 ms", ...
  std::optional<CubeTiling> cube;     ///< set when engine == Cube
  std::optional<VectorTiling> vector; ///< set when engine == Vector
  double aicore_us = -1, aicpu_us = -1;  ///< estimates (-1: not estimated)
};

/// Chooses the engine and, for AI Core, the tiling of `n` on `p`.
PlacementChoice place(const Node& n, const Platform& p);

/// The Vector and AI CPU estimates above (cycles without launch; microseconds with launch).
double vector_cycles(const VectorTiling& t, double ops_per_element, bool fp32, const Platform& p);
double aicpu_us(double flops, const Platform& p);
/// The AI CPU estimate of a data-movement op (move_ops.h): its bytes at aicpu.gbps, with launch.
double aicpu_move_us(const Node& n, const Platform& p);

}  // namespace ge::ascend
