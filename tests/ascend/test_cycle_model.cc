// The cycle model and the timeline (docs/ascend.md "Cycle model", "Timeline") on hand-built
// tilings of the Ascend910A platform file: a large Cube task at its analytic Cube bound, a
// GM-bound MatMul at its MTE2 bound, a memory-bound Vector task at its data-movement bound, two
// streams that overlap and an event that serializes them, AI Cores shared between streams, the
// Chrome trace's tracks, and the schedule stage's estimate = the simulated latency.
#include <set>

#include <nlohmann/json.hpp>

#include "ascend_harness.h"
#include "cycle_test_util.h"
#include "cycle_model.h"
#include "device_model.h"
#include "platform.h"
#include "task.h"
#include "tiling.h"
#include "tiling_choose.h"
#include "timeline.h"

namespace ge::ascend {
namespace {

using test::matmul_work;
using test::p910;

// One panel of A (256 × K) stays in L1 (k_l1 = K) and every core streams B tiles 128 wide: per
// tile the Cube needs 16·8·(640/16) = 5120 cycles and MTE2 reads 640·128·2 B at 32 B/cycle = 5120
// cycles — balanced (on this platform's 32 B/cycle no MatMul tiling does better: the streamed
// tile is at most 256 wide), so the task runs at the Cube bound M·N·K / 4096 / block_dim plus
// the first tile's A panel (10240 cycles) and the last tile's drain, amortized over 64 tiles.
TEST(AscendCycleModel, LargeMatMulRunsAtTheCubeBound) {
  const Platform p = p910();
  CubeTiling t;
  t.M = 256, t.N = 262144, t.K = 640;
  t.m_tile = 256, t.n_tile = 128, t.k_tile = 64, t.k_l1 = 640, t.double_buffer = true, t.block_dim = 32;
  const TaskCycles c = task_cycles(matmul_work(t), p);
  const double bound = 256.0 * 262144 * 640 / 4096 / 32;  // 327680 cycles
  const double cycles = c.total - c.launch;
  std::printf("MatMul 256x262144x640 on 32 cores: %.0f cycles, Cube bound %.0f (%.1f%% over), bound by %s\n", cycles, bound,
              100 * (cycles / bound - 1), c.bound.c_str());
  EXPECT_GE(cycles, bound);
  EXPECT_LE(cycles, 1.10 * bound);
  EXPECT_EQ(c.core_pipes[0].cube, 64 * 5120.0);  // 64 tiles per core, exact
  EXPECT_DOUBLE_EQ(c.launch, 5000);  // launch.aicore_us 5 µs at 1 GHz
}

// 1024³ on 32 cores, one 256 × 128 tile per core: no panel is reused, so MTE2 reads
// (256 + 128)·1024·2 B = 786432 B per core at 32 B/cycle = 24576 cycles while the Cube needs
// 8192: the platform's global-memory rate makes it MTE2-bound at 3× the Cube bound.
TEST(AscendCycleModel, MatMul1024CubedIsBoundByGlobalMemory) {
  const Platform p = p910();
  CubeTiling t;
  t.M = t.N = t.K = 1024;
  t.m_tile = 256, t.n_tile = 128, t.k_tile = 64, t.k_l1 = 64, t.double_buffer = true, t.block_dim = 32;
  const TaskCycles c = task_cycles(matmul_work(t), p);
  const double cube_bound = 1024.0 * 1024 * 1024 / 4096 / 32, mte2_bound = 786432.0 / 32;
  const double cycles = c.total - c.launch;
  std::printf("MatMul 1024^3 on 32 cores: %.0f cycles, Cube bound %.0f, MTE2 bound %.0f, bound by %s\n", cycles, cube_bound,
              mte2_bound, c.bound.c_str());
  EXPECT_EQ(c.bound, "mte2");
  EXPECT_GE(cycles, mte2_bound);
  EXPECT_LE(cycles, 1.10 * mte2_bound);
  EXPECT_DOUBLE_EQ(c.core_pipes[5].cube, cube_bound);
  // Without double buffering the pipes add up.
  t.double_buffer = false;
  const TaskCycles s = task_cycles(matmul_work(t), p);
  EXPECT_DOUBLE_EQ(s.core_cycles[0], s.core_pipes[0].cube + s.core_pipes[0].vector + s.core_pipes[0].movement());
}

// A fused Add's residual (and the bias) are epilogue operands: the V pipe adds them to the tile
// after L0C→UB, so MTE2 reads them from global memory into UB with the tile's last K-step. The
// 1024³ MatMul of the previous test with a 1024 × 1024 fp16 residual: every core reads its
// 256 × 128 share, 65536 B = 2048 cycles at 32 B/cycle more on MTE2, and the task (MTE2-bound)
// takes at least those cycles longer.
TEST(AscendCycleModel, TheResidualOfAFusedAddIsReadOnMte2) {
  const Platform p = p910();
  CubeTiling t;
  t.M = t.N = t.K = 1024;
  t.m_tile = 256, t.n_tile = 128, t.k_tile = 64, t.k_l1 = 64, t.double_buffer = true, t.block_dim = 32;
  TaskWork plain = matmul_work(t);
  TaskWork fused = plain;
  fused.op_type = "ge.FusedMatMul";
  fused.epilogue_bytes = 2.0 * 1024 * 1024;
  fused.input_bytes += fused.epilogue_bytes;
  const TaskCycles a = task_cycles(plain, p), b = task_cycles(fused, p);
  for (size_t core = 0; core < 32; ++core)
    EXPECT_DOUBLE_EQ(b.core_pipes[core].mte2 - a.core_pipes[core].mte2, 2048.0) << "core " << core;
  EXPECT_EQ(b.bound, "mte2");
  EXPECT_GE(b.total - a.total, 2048.0);
}

// A 3×3 convolution's im2col A operand is 9× its feature map (load3d builds it on the way
// L1→L0A), so with 512-row tiles (L0A: 512·32·2·2 B = 64 KiB) a tile's Cube time 32·4·144 =
// 18432 cycles exceeds its MTE2 time (512·2304·2/9 + 2304·64·2)/32 = 17408: Cube-bound.
TEST(AscendCycleModel, Conv3x3IsCubeBound) {
  const Platform p = p910();
  CubeTiling t;  // N=32, C=O=256, 14×14, 3×3: M = 32·196, K = 256·9, N = 256
  t.M = 32 * 196, t.N = 256, t.K = 2304;
  t.m_tile = 512, t.n_tile = 64, t.k_tile = 32, t.k_l1 = 64, t.double_buffer = true, t.block_dim = 32;
  TaskWork w = matmul_work(t);
  w.op_type = "Conv";
  w.input0_bytes = 2.0 * 32 * 256 * 196;  // the NC1HWC0 fp16 feature map
  const TaskCycles c = task_cycles(w, p);
  // 13 m tiles × 4 n tiles = 52 tiles: core 0 takes tiles 0 and 32, both 512 rows.
  const double per_tile = 32.0 * 4 * (2304 / 16);
  const double cycles = c.total - c.launch;
  std::printf("Conv 3x3 256->256 14x14 batch 32: %.0f cycles, Cube bound of the slowest core %.0f, bound by %s\n", cycles,
              2 * per_tile, c.bound.c_str());
  EXPECT_EQ(c.bound, "cube");
  EXPECT_DOUBLE_EQ(c.core_pipes[0].cube, 2 * per_tile);
  EXPECT_GE(cycles, 2 * per_tile);
  EXPECT_LE(cycles, 1.10 * 2 * per_tile);
}

// Add of two fp16 tensors of 4 Mi elements on 32 cores: MTE2 reads 16 MiB at 32 B/cycle per core
// = 16384 cycles per core; the Vector unit needs 4 Mi / 128 / 32 = 1024 and MTE3 4096.
TEST(AscendCycleModel, ElementwiseAddRunsAtItsDataMovementBound) {
  const Platform p = p910();
  VectorTiling t;
  t.units = 4 << 20, t.unit_elements = 1, t.ub_bytes_per_unit = 6, t.tile_units = 8192, t.double_buffer = true, t.block_dim = 32;
  TaskWork w;
  w.op_type = "Add", w.engine = "vector", w.tiling = encode(t), w.block_dim = 32, w.who = "test Add";
  w.input_bytes = 2.0 * 2 * (4 << 20), w.input0_bytes = 2.0 * (4 << 20), w.output_bytes = 2.0 * (4 << 20);
  const TaskCycles c = task_cycles(w, p);
  const double bound = w.input_bytes / 32 / 32;  // 16384
  const double cycles = c.total - c.launch;
  std::printf("Add fp16 4Mi elements on 32 cores: %.0f cycles, data-movement bound %.0f, bound by %s\n", cycles, bound,
              c.bound.c_str());
  EXPECT_EQ(c.bound, "mte2");
  EXPECT_GE(cycles, bound);
  EXPECT_LE(cycles, 1.10 * bound);
  EXPECT_DOUBLE_EQ(c.core_pipes[0].vector, 16 * 8192.0 / 128);
}

/// The cycle model written out step by step (docs/ascend.md "Cycle model"): every K-step of every
/// tile of core `b` through the five pipes, one item at a time — what cube_cycles computes with
/// runs of identical steps.
double reference_core(const CubeTiling& t, const TaskWork& w, int64_t b) {
  const int64_t K16 = (t.K + 15) / 16 * 16;
  const double e = std::max(1.0, t.batch * t.M * K16 * 2.0 / w.input0_bytes);
  const double out_elem = w.output_bytes / (double(t.batch) * t.M * t.N);
  std::vector<double> f(5, 0);
  int64_t pb = -1, pm = -1, pn = -1;
  for (int64_t tile = b; tile < t.output_tiles(); tile += t.block_dim) {
    int64_t bi, mi, ni;
    t.tile_indices(tile, bi, mi, ni);
    const int64_t m = std::min(t.m_tile, t.M - mi * t.m_tile), n = std::min(t.n_tile, t.N - ni * t.n_tile);
    const double m16 = double((m + 15) / 16 * 16), n16 = double((n + 15) / 16 * 16);
    const bool ra = t.k_l1 >= K16 && bi == pb && mi == pm, rb = t.k_l1 >= K16 && bi == pb && ni == pn;
    pb = bi, pm = mi, pn = ni;
    for (int64_t k0 = 0; k0 < K16; k0 += t.k_tile) {
      const double k = double(std::min(t.k_tile, K16 - k0)), chunk = double(std::min(t.k_l1, K16 - k0));
      const bool last = k0 + t.k_tile >= K16;
      const double d[5] = {k0 % t.k_l1 == 0 ? ((ra ? 0 : m16 * chunk * 2 / e) + (rb ? 0 : chunk * n16 * 2)) / 32 : 0,
                           m16 * k * 2 / 512 + k * n16 * 2 / 256, (m16 / 16) * (n16 / 16) * (k / 16),
                           last ? m16 * n16 * 4 / 256 + m16 * n16 / 128 : 0, last ? m * n * out_elem / 64 : 0};
      double prev = 0;
      for (int s = 0; s < 5; ++s) prev = f[s] = std::max(f[s], prev) + d[s];
    }
  }
  return f[4];
}

// cube_cycles passes a chunk's identical K-steps through the flow shop as one run (closed form);
// it equals the step-by-step walk for partial tiles, K chunks, resident panels and both orders.
TEST(AscendCycleModel, RunsOfIdenticalStepsEqualTheStepByStepFlowShop) {
  const Platform p = p910();
  for (auto [m, n, k, kl1, order] : {std::tuple{48, 32, 64, 192, CubeOrder::MN}, std::tuple{48, 32, 64, 576, CubeOrder::MN},
                                     std::tuple{48, 32, 64, 576, CubeOrder::NM}, std::tuple{112, 64, 96, 96, CubeOrder::NM},
                                     std::tuple{16, 16, 16, 32, CubeOrder::MN}}) {
    CubeTiling t;
    t.M = 300, t.N = 100, t.K = 570;  // K₁₆ = 576; the last m and n tiles are partial
    t.m_tile = m, t.n_tile = n, t.k_tile = k, t.k_l1 = kl1, t.order = order;
    t.block_dim = std::min<int64_t>(5, t.output_tiles());
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " l1 " + std::to_string(kl1));
    TaskWork w = matmul_work(t);
    w.input0_bytes /= 4;  // an im2col expansion of 4 (a Conv's feature map)
    const TaskCycles c = cube_cycles(t, w, p);
    for (int64_t b = 0; b < t.block_dim; ++b) {
      EXPECT_NEAR(c.core_cycles[size_t(b)], reference_core(t, w, b), 1e-9 * c.core_cycles[size_t(b)]) << "core " << b;
      EXPECT_DOUBLE_EQ(cube_core_cycles(t, w, p, b), c.core_cycles[size_t(b)]);
    }
  }
}

// The tile order decides which resident panel a core's next tile shares (tiling.h). A 1×1-conv
// like MatMul M 6272, K 1024 with 112×128 tiles (56 m tiles; L1 (112+128)·1024·2·2 = 983040 B, so
// both panels stay resident), A panel 112·1024·2/32 = 7168 cycles, B panel 1024·128·2/32 = 8192:
//  * N 512 (4 n tiles, 224 tiles, 7 per core): in MN core b's tiles b + 32j keep n = b mod 4
//    (4 divides 32), so B loads once per core: MTE2 = 224·A + 32·B. In NM (m fastest, 56 per n)
//    a core's n index changes as it crosses multiples of 56: more B loads — MN is cheaper.
//  * N 384 (3 n tiles, 168 tiles): in MN n = t mod 3 changes every tile (32 mod 3 = 2) and so
//    does m: nothing is reused, MTE2 = 168·(A + B); in NM a core reloads B only when t / 56
//    changes — NM is cheaper.
TEST(AscendCycleModel, TheTileOrderDecidesWhichPanelIsReused) {
  const Platform p = p910();
  const double a_panel = 112.0 * 1024 * 2 / 32, b_panel = 1024.0 * 128 * 2 / 32;
  auto mte2 = [](const TaskCycles& c) {
    double s = 0;
    for (const PipeCycles& x : c.core_pipes) s += x.mte2;
    return s;
  };
  for (int64_t N : {512, 384}) {
    SCOPED_TRACE(N);
    CubeTiling t;
    t.M = 6272, t.N = N, t.K = 1024;
    t.m_tile = 112, t.n_tile = 128, t.k_tile = 64, t.k_l1 = 1024, t.block_dim = 32;
    const TaskWork w = matmul_work(t);
    const int64_t tiles = t.output_tiles();
    t.order = CubeOrder::MN;
    const TaskCycles mn = cube_cycles(t, w, p);
    t.order = CubeOrder::NM;
    const TaskCycles nm = cube_cycles(t, w, p);
    int64_t nm_b_loads = 0;  // NM: tile i has n index i / 56; a core reloads B when it changes
    for (int64_t b = 0; b < 32; ++b)
      for (int64_t i = b; i < tiles; i += 32) nm_b_loads += i == b || i / 56 != (i - 32) / 56;
    EXPECT_DOUBLE_EQ(mte2(nm), double(tiles) * a_panel + double(nm_b_loads) * b_panel);
    if (N == 512) {
      EXPECT_DOUBLE_EQ(mte2(mn), 224 * a_panel + 32 * b_panel);
      EXPECT_LT(mn.total, nm.total);
    } else {
      EXPECT_DOUBLE_EQ(mte2(mn), 168 * (a_panel + b_panel));
      EXPECT_LT(nm.total, mn.total);
    }
  }
}

// A 64 × 64 × 64 MatMul in 16 × 16 tiles (4 × 4 tiles), k_tile = k_l1 = 64 (one K-step per
// tile, whole-K panels resident), 4 cores. Per tile: A panel 16·64·2/32 = 64 cycles of MTE2,
// B panel 64·16·2/32 = 64, MTE1 16·64·2/512 + 64·16·2/256 = 12, Cube 1·1·4 = 4, V 16·16·4/256
// + 256/128 = 6, MTE3 256·2/64 = 8. Flow shop: stage s finishes at max(its previous finish,
// stage s−1's finish) + d_s.
//  * Round-robin MN: core b takes tiles b, b+4, b+8, b+12 = m tiles 0..3 of n tile b: B loads
//    once, A every tile — MTE2 128, 64, 64, 64 (320 per core, 1280 in all). MTE2 bounds the
//    shop: the last load ends at 320, then 12 + 4 + 6 + 8: 350 cycles per core.
//  * Block partition 2 × 2 (single_core_m = single_core_n = 32), NM: core b walks m tiles
//    (m0, m0+1) of n tile n0, then of n0+1; its two A panels stay in L1 ((2·16 + 2·16)·64·2 =
//    8 KiB ≤ 1 MiB), so the loads are A+B, A, B, none = 128, 64, 64, 0 (256 per core, 1024 in
//    all). Tile 4 starts MTE1 at 268 (MTE1 of tile 3 ends there): 280, 284, 290, 298 cycles.
//    Order MN loads A+B, B, A, none: the same 298.
TEST(AscendCycleModel, ABlockPartitionKeepsItsPanelsInL1) {
  const Platform p = p910();
  CubeTiling t;
  t.M = t.N = t.K = 64;
  t.m_tile = t.n_tile = 16, t.k_tile = t.k_l1 = 64, t.block_dim = 4;
  const TaskWork w = matmul_work(t);
  auto mte2 = [](const TaskCycles& c) {
    double s = 0;
    for (const PipeCycles& x : c.core_pipes) s += x.mte2;
    return s;
  };
  const TaskCycles rr = cube_cycles(t, w, p);
  EXPECT_DOUBLE_EQ(mte2(rr), 1280);
  for (double c : rr.core_cycles) EXPECT_DOUBLE_EQ(c, 350);
  t.single_core_m = t.single_core_n = 32;
  for (CubeOrder o : {CubeOrder::NM, CubeOrder::MN}) {
    t.order = o;
    TaskWork wb = matmul_work(t);
    const TaskCycles blk = task_cycles(wb, p);
    EXPECT_DOUBLE_EQ(mte2(blk), 1024) << int(o);
    for (double c : blk.core_cycles) EXPECT_DOUBLE_EQ(c, 298) << int(o);
    EXPECT_DOUBLE_EQ(blk.total - blk.launch, 298);
  }
  // A partition the load check refuses names the task.
  t.single_core_m = 16;  // 4 × 2 = 8 blocks on block_dim 4
  TaskWork bad = matmul_work(t);
  try {
    task_cycles(bad, p);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("test MatMul: tiling block partition 16 x 32 cuts the output into 8 blocks"), std::string::npos)
        << e.what();
  }
}

// The chooser's pruned search returns the cycle model's minimum over its candidates: checked
// against pricing every (m_tile, n_tile) with the largest fitting k_tile and k_l1, both orders.
TEST(AscendCycleModel, TheChosenCubeTilingHasTheFewestCycles) {
  const Platform p = p910();
  CubeTiling prob;
  prob.M = 1568, prob.N = 256, prob.K = 1152;  // a 3×3 stride-2 conv 128 → 256 channels, 28×28 → 14×14, batch 8
  TaskWork w = matmul_work(prob);
  w.input0_bytes = 2.0 * 8 * 128 * 28 * 28;  // its feature map: im2col e = 1568·1152 / (8·128·784) = 2.25
  const CubeTiling best = choose_cube_tiling(prob, w, p, "test");
  w.tiling = encode(best), w.block_dim = best.block_dim;
  const double chosen = cube_cycles(best, w, p).total;
  int priced = 0;
  for (int64_t n = 16; n <= 256; n += 16)
    for (int64_t m = 16; m <= 1568; m += 16) {
      CubeTiling t = prob;
      t.m_tile = m, t.n_tile = n;
      if (t.l0c_bytes() > p.get_int("buffers.l0c")) break;
      bool fits = false;
      for (int64_t k = 1152; k >= 16 && !fits; k -= 16) {
        t.k_tile = t.k_l1 = k;
        fits = t.l0a_bytes() <= 65536 && t.l0b_bytes() <= 65536 && t.l1_bytes() <= 1048576;
      }
      if (!fits) continue;
      while (t.k_l1 + t.k_tile <= (1152 + t.k_tile - 1) / t.k_tile * t.k_tile) {
        CubeTiling c = t;
        c.k_l1 += t.k_tile;
        if (c.l1_bytes() > 1048576) break;
        t = c;
      }
      t.block_dim = std::min<int64_t>(32, t.output_tiles());
      for (CubeOrder o : {CubeOrder::MN, CubeOrder::NM}) {
        t.order = o;
        ++priced;
        EXPECT_LE(chosen, cube_cycles(t, w, p).total) << m << "x" << n << " order " << int(o);
        TaskWork tw = w;
        tw.tiling = encode(t), tw.block_dim = t.block_dim;
        EXPECT_LE(task_lower_bound(tw, p), cube_cycles(t, w, p).total) << m << "x" << n << " order " << int(o);
      }
    }
  EXPECT_LE(task_lower_bound(w, p), chosen);
  std::printf("chosen %lldx%lldx%lld k_l1 %lld order %d: %.0f cycles (%d tilings priced)\n", (long long)best.m_tile,
              (long long)best.n_tile, (long long)best.k_tile, (long long)best.k_l1, int(best.order), chosen, priced);
  EXPECT_GT(priced, 300);
}

// The lower bound of the 1024³ MatMul (task_lower_bound, docs "Lower bound"): a core's share is
// 1024² / 32 = 32768 outputs; its operand bytes r·2048 + c·2048 with r·c = 32768 are least at
// r = c = 181.02: 741455 B at 32 B/cycle = 23170.5 cycles, above the Cube's 8192, MTE1's
// 256·4 + 128·8 = 2048 (r = 256 there), V's 768 and MTE3's 1024: 5000 + 23170.5. The chosen
// 256 × 128 tiles (27008 + 5000) are 14 % above it: no 1024-deep tile is square enough.
TEST(AscendCycleModel, TheLowerBoundOfAMatMulIsItsBestSplitsOperandTraffic) {
  const Platform p = p910();
  CubeTiling t;
  t.M = t.N = t.K = 1024;
  t.m_tile = 256, t.n_tile = 128, t.k_tile = 64, t.k_l1 = 64, t.double_buffer = true, t.block_dim = 32;
  const TaskWork w = matmul_work(t);
  const double bound = task_lower_bound(w, p);
  EXPECT_NEAR(bound, 5000 + 2 * std::sqrt(32768.0) * 2048 / 32, 1e-6);
  EXPECT_GE(task_cycles(w, p).total, bound);
  // A Vector task: 2 × 4 Mi fp16 elements in, 4 Mi out (the Add below): MTE2 16 MiB / 32 cores /
  // 32 B = 16384 cycles, over MTE3's 8 MiB / 32 / 64 B = 4096 and V's 4 Mi / 128 / 32 = 1024.
  VectorTiling v;
  v.units = 4 << 20, v.unit_elements = 1, v.ub_bytes_per_unit = 6, v.tile_units = 8192, v.double_buffer = true, v.block_dim = 32;
  TaskWork vw;
  vw.op_type = "Add", vw.engine = "vector", vw.tiling = encode(v), vw.block_dim = 32, vw.who = "test Add";
  vw.input_bytes = 2.0 * 2 * (4 << 20), vw.output_bytes = 2.0 * (4 << 20), vw.vector_ops = 1;
  EXPECT_DOUBLE_EQ(task_lower_bound(vw, p), 5000 + 16384);
  EXPECT_GE(task_cycles(vw, p).total, task_lower_bound(vw, p));
}

TEST(AscendCycleModel, RefusesATilingThatDoesNotFitOrDoesNotDecode) {
  const Platform p = p910();
  CubeTiling t;
  t.M = t.N = t.K = 1024;
  t.m_tile = 512, t.n_tile = 128, t.k_tile = 64, t.k_l1 = 64, t.block_dim = 1;  // L0A 128 KiB > 64 KiB
  TaskWork w = matmul_work(t);
  try {
    task_cycles(w, p);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("l0a"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test MatMul"), std::string::npos) << e.what();
  }
  w.tiling = {9, 1};
  EXPECT_THROW(task_cycles(w, p), Error);
  w.engine = "tpu";
  EXPECT_THROW(task_cycles(w, p), Error);
}

// AI CPU: max(FLOPs / aicpu.gflops, bytes / aicpu.gbps) + launch.aicpu_us, in AI Core cycles.
TEST(AscendCycleModel, AiCpuTasksArePricedByTheirRateAndGatherReadsOnlyItsRows) {
  const Platform p = p910();
  TaskWork w;
  w.op_type = "Transpose", w.engine = "aicpu", w.who = "test Transpose";
  w.input_bytes = w.output_bytes = 4e6;  // 8 MB at 4 GB/s = 2000 µs
  TaskCycles c = task_cycles(w, p);
  EXPECT_DOUBLE_EQ(c.total, (2000 + 20) * 1e3);
  EXPECT_EQ(c.bound, "aicpu_memory");
  w.flops = 1e8;  // 100 MFLOP at 8 GFLOP/s = 12500 µs
  c = task_cycles(w, p);
  EXPECT_DOUBLE_EQ(c.total, (12500 + 20) * 1e3);
  EXPECT_EQ(c.bound, "aicpu_compute");

  auto g = parse_graph(R"(graph g opset(ai.onnx=13) {
  input %i: i64[4]
  const %table: f32[1000,256]
  %y: f32[4,256] = Gather(%table, %i)
  %z: f32[1024] = Reshape(%y, _)
  %r: f32[1024] = Relu(%z)
  output %r
})", "gather");
  auto env = test::ascend_env("force_fp16");
  g->ops = &env->ops;  // the view contract (OpDef::view) is registry data
  const Node& gather = *g->nodes()[0];
  const TaskWork gw = task_work(node_task(gather), gather);
  EXPECT_DOUBLE_EQ(gw.output_bytes, 4 * 256 * 4);
  EXPECT_DOUBLE_EQ(gw.input_bytes, 4 * 256 * 4 + 4 * 8);  // the 4 rows + the indices, not the 1 MB table
  // A view runs no kernel (task.h is_view_node: not a graph output, the memory plan will alias it):
  // 0 µs in the cost model; as a graph output it is a copy task priced by its bytes.
  AscendCostModel cm(std::make_shared<const Platform>(p));
  EXPECT_EQ(cm.node_us(*g->nodes()[1], 1), 0.0);
  EXPECT_DOUBLE_EQ(cm.node_us(gather, 1), 20 + (4 * 256 * 4 * 2 + 32) / 4e3);
  EXPECT_TRUE(is_view_node(*g->nodes()[1]));
  auto g2 = parse_graph(R"(graph g opset(ai.onnx=13) {
  input %y: f32[4,256]
  %z: f32[1024] = Reshape(%y, _)
  output %z
})", "graph_output_reshape");
  EXPECT_FALSE(is_view_node(*g2->nodes()[0]));
  EXPECT_DOUBLE_EQ(cm.node_us(*g2->nodes()[0], 1), 20 + 4 * 256 * 4 * 2 / 4e3);
}

// ---- timeline

/// Two fp32 Relus on their own inputs, each a Vector task over 16 AI Cores (one 8192-element tile
/// per core): MTE2 8192·4/32 = 1024, V 8192/64 = 128, MTE3 8192·4/64 = 512 cycles one after the
/// other (one tile: nothing to overlap) = 1664, + launch 5 µs = 5000 → 6664 cycles per task.
std::unique_ptr<Graph> two_relus(int64_t block_dim) {
  auto g = parse_graph(R"(graph g opset(ai.onnx=13) {
  input %a: f32[131072]
  input %b: f32[131072]
  %x: f32[131072] = Relu(%a)
  %y: f32[131072] = Relu(%b)
  output %x
  output %y
})", "two_relus");
  VectorTiling t;
  t.units = 131072, t.unit_elements = 1, t.ub_bytes_per_unit = 8, t.tile_units = 131072 / block_dim, t.block_dim = block_dim;
  int stream = 0;
  for (Node* n : g->nodes()) {
    n->attrs.set(kAttrEngine, std::string("vector"));
    n->attrs.set(kAttrBlockDim, block_dim);
    n->attrs.set(kAttrTiling, encode(t));
    n->stream = stream++;
  }
  g->schedule.scheduler = "test";
  g->schedule.streams = 2;
  return g;
}

const TimelineTask& task_of(const Timeline& t, const std::string& node) {
  for (const TimelineTask& k : t.kernels)
    if (k.node == node) return k;
  throw Error("no task " + node);
}

TEST(AscendTimeline, IndependentStreamsOverlapAndAnEventSerializesThem) {
  const Platform p = p910();
  auto g = two_relus(16);
  const std::string x = g->nodes()[0]->name(), y = g->nodes()[1]->name();
  Timeline t = simulate(*g, build_tasks(*g), p);
  EXPECT_DOUBLE_EQ(task_of(t, x).start, 0);
  EXPECT_DOUBLE_EQ(task_of(t, x).end, 6664);
  EXPECT_DOUBLE_EQ(task_of(t, y).start, 0);  // 16 + 16 cores: both run at once
  EXPECT_DOUBLE_EQ(task_of(t, y).end, 6664);
  EXPECT_DOUBLE_EQ(t.latency_cycles, 6664);
  EXPECT_EQ(task_of(t, x).units.size(), 16u);

  // y waits for x: it starts when x's record is seen, + launch.event_us (0.5 µs = 500 cycles).
  g->schedule.events.push_back(StreamEvent{x, y});
  t = simulate(*g, build_tasks(*g), p);
  EXPECT_DOUBLE_EQ(task_of(t, x).start, 0);
  EXPECT_DOUBLE_EQ(task_of(t, x).end, 6664);
  EXPECT_DOUBLE_EQ(task_of(t, y).start, 7164);
  EXPECT_DOUBLE_EQ(task_of(t, y).end, 13828);
  EXPECT_DOUBLE_EQ(t.latency_cycles, 13828);
  ASSERT_EQ(t.events.size(), 2u);  // x's record at 6664 on stream 0, y's wait released at 7164 on stream 1
  EXPECT_TRUE(t.events[0].record && t.events[0].stream == 0 && t.events[0].cycle == 6664);
  EXPECT_TRUE(!t.events[1].record && t.events[1].stream == 1 && t.events[1].cycle == 7164);
}

TEST(AscendTimeline, StreamsShareTheAICores) {
  const Platform p = p910();
  auto g = two_relus(32);  // each task needs all 32 cores: the second waits for them
  // One 4096-element tile per core: MTE2 512 + V 64 + MTE3 256 = 832 cycles, + launch 5000.
  Timeline t = simulate(*g, build_tasks(*g), p);
  const std::string x = g->nodes()[0]->name(), y = g->nodes()[1]->name();
  EXPECT_DOUBLE_EQ(task_of(t, x).start, 0);
  EXPECT_DOUBLE_EQ(task_of(t, x).end, 5832);
  EXPECT_DOUBLE_EQ(task_of(t, y).start, 5832);
  EXPECT_DOUBLE_EQ(task_of(t, y).end, 11664);
  // Every core did the MTE2 work of both tasks: 2 × 512 busy cycles of 11664. Movement
  // utilization is the busiest movement pipe's (MTE2: 1024 of 11664), not the pipes' sum.
  EXPECT_DOUBLE_EQ(t.core_busy[7].mte2, 1024);
  EXPECT_NEAR(t.movement_utilization(), 2 * 512 / 11664.0, 1e-12);
}

TEST(AscendTimeline, AnEventThatIsNeverRecordedIsADeadlock) {
  const Platform p = p910();
  auto g = two_relus(16);
  const std::string x = g->nodes()[0]->name(), y = g->nodes()[1]->name();
  g->schedule.events.push_back(StreamEvent{y, x});
  g->schedule.events.push_back(StreamEvent{x, y});
  try {
    simulate(*g, build_tasks(*g), p);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
  }
}

TEST(AscendTimeline, TraceHasAStreamTrackPerStreamAndACoreTrackPerCore) {
  const Platform p = p910();
  auto g = two_relus(16);
  const Timeline t = simulate(*g, build_tasks(*g), p);
  const nlohmann::json j = nlohmann::json::parse(chrome_trace(t, "test"));
  std::set<std::string> tracks;
  int core_spans = 0, stream_spans = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") tracks.insert(e.at("args").at("name").get<std::string>());
    if (e.at("ph") == "X") (e.at("pid") == 1 ? stream_spans : core_spans)++;
  }
  EXPECT_TRUE(tracks.count("stream 0") && tracks.count("stream 1"));
  for (int c = 0; c < 32; ++c) EXPECT_TRUE(tracks.count("AI Core " + std::to_string(c))) << c;
  EXPECT_EQ(stream_spans, 2);
  EXPECT_EQ(core_spans, 32);  // 16 cores per task
  // Per AI Core utilization: cores 0..15 ran one task (MTE2 1024 + MTE3 512 of 6664 cycles).
  const auto& cores = j.at("otherData").at("ai_cores");
  ASSERT_EQ(cores.size(), 32u);
  EXPECT_DOUBLE_EQ(cores[3].at("movement_cycles").get<double>(), 1536);
  EXPECT_DOUBLE_EQ(cores[3].at("movement_utilization").get<double>(), 1024 / 6664.0);  // the busiest pipe, MTE2
}

// ---- hooks: the schedule stage estimates with the device model when compiling for ascend

TEST(AscendTimeline, ScheduleEstimateIsTheSimulatedLatency) {
  auto env = test::ascend_env("force_fp16");
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,28,28]
  const %w: f32[32,16,3,3]
  const %w2: f32[32,16,1,1]
  %y: f32[1,32,28,28] = Conv(%x, %w) {pads=[1,1,1,1]}
  %z: f32[1,32,28,28] = Conv(%x, %w2)
  %s: f32[1,32,28,28] = Add(%y, %z)
  %r: f32[1,32,28,28] = Relu(%s)
  %out: f32[1,25088] = Flatten(%r) {axis=1}
  output %out
})";
  for (const std::string sched : {"sequential", "auto"}) {
    SCOPED_TRACE(sched);
    core::apply_override(env->manifest, "scheduler.name=\"" + sched + "\"");
    auto g = test::parse(*env, text);
    core::CompileOptions o = core::CompileOptions::from_manifest(env->manifest);
    o.backend = "ascend";
    o.fail_on_pass_error = true;
    core::compile_graph(*g, *env, o);
    const std::optional<DeviceSimulation> sim = env->simulate_device("ascend", *g);
    ASSERT_TRUE(sim.has_value());
    EXPECT_GT(sim->total_us, 0);
    EXPECT_NEAR(g->schedule.estimated_latency_ms, sim->total_us / 1000, 1e-9);
    // Every task carries its lower bound, at most its simulated time; the total is their sum.
    double bounds = 0;
    for (const SimulatedNode& n : sim->nodes) {
      EXPECT_GT(n.bound_us, 0) << n.node;
      EXPECT_LE(n.bound_us, n.us() * (1 + 1e-9)) << n.node;
      bounds += n.bound_us;
    }
    EXPECT_NEAR(sim->bound_us, bounds, 1e-9 * bounds);
    if (g->schedule.streams == 1) {
      // One stream: the cost model's node times add up to the same latency.
      const auto cm = env->cost_model_for("ascend");
      double sum = 0;
      for (const Node* n : g->nodes()) sum += cm->node_us(*n, 1);
      EXPECT_NEAR(sum, sim->total_us, 1e-6 * sim->total_us);
    }
    if (sched == "auto") {
      EXPECT_NE(g->schedule.reason.find("sequential"), std::string::npos) << g->schedule.reason;
    }
  }
}

}  // namespace
}  // namespace ge::ascend
