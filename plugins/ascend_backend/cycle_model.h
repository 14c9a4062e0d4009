// plugins/ascend_backend/cycle_model.h — how many AI Core clock cycles one task of the offline
// model takes (every formula with its source in docs/ascend.md, "Cycle model").
//
// A Da Vinci core runs independent pipes that synchronize through flags (Ascend C programming
// guide: pipes M = Cube, V = Vector, MTE1 = L1→L0A/L0B, MTE2 = global memory→L1/UB, MTE3 = UB→
// global memory). Per tile each pipe needs:
//   Cube (M)  ⌈m/16⌉·⌈n/16⌉·⌈k/16⌉ cycles per K-step (one 16×16×16 fractal MAC per cycle, [HC31])
//   Vector(V) elements · ops / lanes (lanes = vector.fp16_lanes for fp16, half for fp32)
//   path p    bytes / bandwidth.p (bytes per cycle per core)
// With double buffering a tile costs the slowest pipe's time (the next tile's loads overlap the
// current tile's compute), plus one pipeline fill (first loads) and drain (last store) per core;
// without it, the sum of all pipes. Core b of block_dim runs the tiles CubeTiling::core_tile gives
// it (tiling.h: round-robin b, b + block_dim, …, or its contiguous block under a block
// partition); the task ends when its slowest core does. Split-K (tiling.h version 4): each core
// walks its K range and writes fp32 partial sums; after the slowest has (a barrier) each combines
// its share (partials read back, added, epilogue, output written). A task adds launch.aicore_us (in cycles).
// AI CPU tasks: max(FLOPs / aicpu.gflops, bytes / aicpu.gbps) + launch.aicpu_us, in AI Core
// cycles (× clock_ghz). The launch constants and aicpu.gflops are the ones placement uses
// (placement_cost.h), so placement and timing price a task alike.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"
#include "platform.h"
#include "task.h"
#include "tiling.h"

namespace ge::ascend {

/// Busy cycles of one AI Core (or the whole task, summed) per pipe.
struct PipeCycles {
  double cube = 0;    ///< M pipe: fractal MACs
  double vector = 0;  ///< V pipe: vector ops
  double l0c_ub = 0;  ///< L0C→UB (a data movement the V pipe performs on the 910A)
  double mte1 = 0;    ///< L1→L0A + L1→L0B
  double mte2 = 0;    ///< global memory→L1 (Cube) or →UB (Vector)
  double mte3 = 0;    ///< UB→global memory
  double movement() const { return l0c_ub + mte1 + mte2 + mte3; }
  /// The busiest data-movement pipe's cycles: the pipes run concurrently, so a movement
  /// utilization is this over the elapsed cycles (≤ 100 %), not movement() (their sum).
  double busiest_movement() const { return std::max(std::max(l0c_ub, mte1), std::max(mte2, mte3)); }
  PipeCycles& operator+=(const PipeCycles& o);
};

/// The priced task.
struct TaskCycles {
  std::string engine;                  ///< "cube", "vector", "aicpu"
  int64_t block_dim = 1;               ///< AI Cores (kernel tasks) or 1 AI CPU
  double launch = 0;                   ///< launch overhead (cycles)
  std::vector<double> core_cycles;     ///< per core b < block_dim: cycles of its tiles (no launch)
  std::vector<PipeCycles> core_pipes;  ///< per core: busy cycles per pipe
  double total = 0;                    ///< launch + max(core_cycles): the task's duration
  std::string bound;                   ///< the pipe with the most busy cycles on the slowest core ("cube", "mte2", …)
};

/// What the cycle model needs to know of a task besides its tiling (from the node, the task's
/// operands). Bytes are the operands' stored sizes (device formats, padding included).
struct TaskWork {
  std::string op_type;                 ///< "Conv", "ge.FusedConv", "Add", …
  std::string engine = "aicpu";        ///< attribute ascend_engine
  std::vector<int64_t> tiling;         ///< attribute ascend_tiling
  int64_t block_dim = 1;
  double input_bytes = 0;              ///< all inputs
  double input0_bytes = 0;             ///< the activation input (Cube: the feature map / matrix A)
  /// Cube: the inputs after A and B (bias, the residual of a fused Add): the epilogue reads them
  /// global memory→UB on MTE2, per output tile its share (bytes / (batch·M·N) per element).
  double epilogue_bytes = 0;
  double output_bytes = 0;             ///< all outputs
  double vector_ops = 1;               ///< Vector ops per output element (vector_ops_per_element)
  double flops = 0;                    ///< node_flops (AI CPU tasks)
  std::string who;                     ///< node name for errors
};

/// The TaskWork of a kernel task and its node (the node supplies FLOPs and Vector op counts).
TaskWork task_work(const Task& t, const Node& n);
/// Vector ops per output element of a node (table in docs/ascend.md "Cycle model"): 1 for
/// Add/Sub/Mul/Relu/Cast/TransData/Concat…, Div/Clip/LeakyRelu 2, Pow 3, Sigmoid 4, Erf 8, Sum
/// inputs−1, Softmax 5, LayerNormalization 8, Gelu 5 (6 with bias), FusedElementwise its ops,
/// ReduceMean and the pools the elements reduced per output element; 0 for the data-movement ops
/// Transpose, Slice, Gather (their cost is their bytes on MTE2 / MTE3).
double vector_ops_per_element(const Node& n);

/// Prices a task; throws ge::Error naming w.who for a tiling that does not decode or does not fit
/// the platform (tiling.h check()).
TaskCycles task_cycles(const TaskWork& w, const Platform& p);
/// The two engines, for tests.
TaskCycles cube_cycles(const CubeTiling& t, const TaskWork& w, const Platform& p);
TaskCycles vector_cycles(const VectorTiling& t, const TaskWork& w, const Platform& p);
/// The cycles of one core `core` of a Cube task (its makespan, no launch; under split-K its walk
/// plus its combine, without waiting at the barrier): the task's cycles without launch are at
/// least the maximum over its cores, so this is a lower bound the tiling chooser prunes with
/// (core 0 has the most tiles).
double cube_core_cycles(const CubeTiling& t, const TaskWork& w, const Platform& p, int64_t core);
TaskCycles aicpu_cycles(const TaskWork& w, const Platform& p);

/// A lower bound of task_cycles(w).total (launch included) that no tiling, tile order or
/// partition over the platform's AI Cores can beat under this model (docs/ascend.md "Cycle model",
/// "Lower bound"): for a task on the AI Core, its launch plus the largest of its pipes' shares on
/// the busiest core with every core given an equal share and perfect reuse —
///   Cube   batch·⌈M/16⌉·⌈N/16⌉·K₁₆/16 / cores
///   MTE2   min over a core's output block r rows × c columns with r·c = batch·M·N / cores
///          (r ≤ batch·M, c ≤ N) of (r·K₁₆·2/e + c·K₁₆·2) + epilogue_bytes / cores, over gm_to_l1
///          (e the im2col expansion; minimal at r/e = c, clamped to the bounds)
///   MTE1   min over r of the same block's r·K₁₆·2 / l1_to_l0a + c·K₁₆·2 / l1_to_l0b
///   V      batch·M·N·(4 / l0c_to_ub + 1 / lanes) / cores;   MTE3  output_bytes / cores / ub_to_gm
/// (each term minimized on its own, so the bound holds for any tiling); a Vector task: its
/// launch plus max(input bytes / gm_to_l1, output bytes / ub_to_gm, ⌈elements·ops / lanes⌉) over
/// the cores; an AI CPU task: its priced cycles (the model has one price for it). Split-K: the
/// busiest core's K range k ≤ K₁₆ is free too (r·c·k = its share of the MACs; below K₁₆ it writes
/// r·c fp32 partial sums on MTE3 and its epilogue share is left to the averages), the bound is
/// the least over k of that core's terms, with the averages (Cube, V, output and epilogue bytes
/// per core) beside. Shapes come from the decoded tiling (M, N, K, batch; a tile size does not
/// enter). Throws like task_cycles.
double task_lower_bound(const TaskWork& w, const Platform& p);

/// Cycles ↔ µs at the platform's clock.
double cycles_to_us(double cycles, const Platform& p);
double us_to_cycles(double us, const Platform& p);

}  // namespace ge::ascend
