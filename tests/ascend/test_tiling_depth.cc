// The Cube tiling's version-4 freedoms (tiling.h; docs/ascend.md "Tiling", "Cycle model"):
// separately sized L1 chunks for A and B (CANN's stepKa / stepKb) and split-K across cores
// (CANN's singleCoreK) — the cycle model's price of each (exact cycles derived in the comments),
// the chooser picking them where they are cheaper, the emulator computing with them, check()
// refusing the ones that do not fit, and version 3 still decoding.
#include <cmath>
#include <cstdio>
#include <random>
#include <tuple>
#include <vector>

#include "ascend_harness.h"
#include "cycle_test_util.h"
#include "cube.h"
#include "cycle_model.h"
#include "platform.h"
#include "tensor_io.h"
#include "tiling.h"
#include "tiling_choose.h"

namespace ge::ascend {
namespace {

using test::matmul_work;
using test::p910;

double mte2(const TaskCycles& c) {
  double s = 0;
  for (const PipeCycles& x : c.core_pipes) s += x.mte2;
  return s;
}

std::vector<float> fp16_values(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = round_fp16(u(rng));
  return v;
}

// MatMul 64 × 16 × 128 in 16 × 16 tiles (4 m tiles, 1 n tile), k_tile 32, one core, order MN:
// every tile shares the one B panel. Per K-step: MTE1 16·32·2/512 + 32·16·2/256 = 2 + 4 = 6,
// Cube 1·1·2 = 2; per tile's last step V 16·16·4/256 + 256/128 = 6, MTE3 256·2/64 = 8.
//  * k_l1 = k_l1_b = 32 (both chunked): every step loads A 16·32·2/32 = 32 and B 32·16·2/32 = 32
//    cycles: MTE2 16 steps × 64 = 1024; it bounds the shop, then the last step's 6 + 2 + 6 + 8:
//    1046 cycles.
//  * k_l1 = 32, k_l1_b = 128 (B's whole K resident, A streamed): B loads once (128·16·2/32 =
//    128), A 32 per step: MTE2 160 + 15 × 32 = 640, makespan 640 + 22 = 662 — as with both whole
//    K (k_l1 = k_l1_b = 128: A 16·128·2/32 = 128 per tile, the same 640), in an L1 of
//    (16·32 + 16·128)·2·2 = 10240 B instead of (16 + 16)·128·2·2 = 16384 B.
TEST(AscendTilingDepth, AResidentWeightPanelLoadsOnceWhileAStreams) {
  const Platform p = p910();
  CubeTiling t;
  t.M = 64, t.N = 16, t.K = 128;
  t.m_tile = t.n_tile = 16, t.k_tile = 32, t.k_l1 = 32, t.block_dim = 1;
  const TaskWork w = matmul_work(t);
  const TaskCycles both_chunked = cube_cycles(t, w, p);
  EXPECT_DOUBLE_EQ(mte2(both_chunked), 1024);
  EXPECT_DOUBLE_EQ(both_chunked.total - both_chunked.launch, 1046);
  t.k_l1_b = 128;
  EXPECT_EQ(t.l1_bytes(), 10240);
  const TaskCycles b_resident = task_cycles(matmul_work(t), p);  // through the v4 encoding
  EXPECT_DOUBLE_EQ(mte2(b_resident), 640);
  EXPECT_DOUBLE_EQ(b_resident.total - b_resident.launch, 662);
  EXPECT_EQ(b_resident.bound, "mte2");
  t.k_l1 = t.k_l1_b = 128;
  EXPECT_EQ(t.l1_bytes(), 16384);
  EXPECT_DOUBLE_EQ(mte2(cube_cycles(t, w, p)), 640);
  // The reverse (A's whole K resident, B streamed) reuses nothing here: no two tiles share A.
  t.k_l1_b = 32;
  EXPECT_DOUBLE_EQ(mte2(cube_cycles(t, w, p)), 4 * 128 + 16 * 32);
}

// A block partition holds its inner operand's panels when that operand alone is resident.
// MatMul 64 × 32 × 128, 16 × 16 tiles, one 64 × 32 block (4 m × 2 n tiles) on one core, order NM
// (n outer, m inner: A is the inner operand), k_tile 32, A's whole K resident (k_l1 128), B in
// chunks of 32. The 4 A panels fit L1 beside B's double-buffered chunk: 4·16·128·2 + 2·16·32·2
// = 18432 B ≤ 1 MiB, so they load on the first pass only: A 4 × 16·128·2/32 = 512 cycles; B is
// streamed every tile, 8 tiles × 4 chunks × 32·16·2/32 = 1024: MTE2 1536, then the last step's
// MTE1 6 + Cube 2 + V 6 + MTE3 8: 1558 cycles. With A in chunks of 32 too, A reloads every tile:
// MTE2 2048, 2070 cycles.
TEST(AscendTilingDepth, ABlockHoldsItsResidentInnerPanelsWhileTheOtherStreams) {
  const Platform p = p910();
  CubeTiling t;
  t.M = 64, t.N = 32, t.K = 128;
  t.m_tile = t.n_tile = 16, t.k_tile = 32, t.k_l1 = 128, t.k_l1_b = 32, t.order = CubeOrder::NM;
  t.single_core_m = 64, t.single_core_n = 32, t.block_dim = 1;
  const TaskCycles held = task_cycles(matmul_work(t), p);
  EXPECT_DOUBLE_EQ(mte2(held), 1536);
  EXPECT_DOUBLE_EQ(held.total - held.launch, 1558);
  t.k_l1 = 32;
  const TaskCycles streamed = task_cycles(matmul_work(t), p);
  EXPECT_DOUBLE_EQ(mte2(streamed), 2048);
  EXPECT_DOUBLE_EQ(streamed.total - streamed.launch, 2070);
}

// MatMul 16 × 16 × 128, one 16 × 16 tile, k_tile 32.
//  * Whole K on one core (k_l1 128): steps [MTE2 A 16·128·2/32 + B 128·16·2/32 = 256, MTE1 6,
//    Cube 2, V 0, MTE3 0], two middle steps [0, 6, 2, 0, 0], the last [0, 6, 2, 6, 8]: MTE1 ends
//    at 262, 268, 274, 280, the Cube at 282, V 288, MTE3 296 cycles.
//  * Split-K: single_core_k 64 → 2 K blocks, block 16 × 16, block_dim 2, k_l1 = k_l1_b = 64.
//    Each core: [A 16·64·2/32 + B 64·16·2/32 = 128, 6, 2, 0, 0], then its last step writes the
//    fp32 partial sums — V only L0C→UB 16·16·4/256 = 4 (no epilogue), MTE3 256·4 B/64 = 16:
//    MTE2 128, MTE1 134 → 140, Cube 136 → 142, V 146, MTE3 162. Then the combine: core j takes
//    8 of the 16 rows (128 elements): MTE2 reads 2 fp32 partials, 128·8/32 = 32; V one fp32 add
//    at 64 lanes + one epilogue op at 128: 128/64 + 128/128 = 3; MTE3 the fp16 output 128·2/64 =
//    4 (one UB chunk): 32, 35, 39. Each core: 162 + 39 = 201 cycles; MTE2 128 + 32 = 160 per core
//    (the partial-sum traffic: 16 MTE3 + 32 MTE2 cycles per core).
TEST(AscendTilingDepth, SplitKHalvesTheOperandTrafficAndPaysForThePartialSums) {
  const Platform p = p910();
  CubeTiling t;
  t.M = 16, t.N = 16, t.K = 128;
  t.m_tile = t.n_tile = 16, t.k_tile = 32, t.k_l1 = 128, t.block_dim = 1;
  const TaskCycles whole = cube_cycles(t, matmul_work(t), p);
  EXPECT_DOUBLE_EQ(whole.total - whole.launch, 296);
  t.single_core_m = t.single_core_n = 16, t.single_core_k = 64, t.k_l1 = 64, t.block_dim = 2;
  ASSERT_EQ(t.blocks_k(), 2);
  const TaskCycles split = task_cycles(matmul_work(t), p);
  ASSERT_EQ(split.core_cycles.size(), 2u);
  for (size_t b = 0; b < 2; ++b) {
    EXPECT_DOUBLE_EQ(split.core_cycles[b], 201) << b;
    EXPECT_DOUBLE_EQ(split.core_pipes[b].mte2, 160) << b;
    EXPECT_DOUBLE_EQ(split.core_pipes[b].mte3, 16 + 4) << b;
    EXPECT_DOUBLE_EQ(split.core_pipes[b].vector, 3) << b;
    EXPECT_DOUBLE_EQ(split.core_pipes[b].l0c_ub, 4) << b;
  }
  EXPECT_DOUBLE_EQ(split.total - split.launch, 201);
  // The core → K block mapping: K blocks innermost.
  int64_t lo, hi;
  EXPECT_EQ(t.k_block(1, lo, hi), 1);
  EXPECT_EQ(std::pair(lo, hi), std::pair(int64_t{64}, int64_t{128}));
}

// For a 3×3 conv (M 6272, N 128, K 1152, e 2.25) the chooser keeps one operand's whole K (1152)
// in L1 and streams the other in chunks, at a tile whose A and B panels do not fit L1 together:
// its price is below every tiling with one L1 depth for both operands (each (m_tile, n_tile)
// with the largest fitting k_tile and common k_l1, both orders, round-robin). (It picks 224 × 16
// tiles in 224 × 128 blocks: A's 224 × 1152 im2col panel resident — L1 (224·1152 + 16·192)·2·2 = 1044480 B —
// while the block's 8 B column panels stream in chunks of 192, each loaded once.)
TEST(AscendTilingDepth, TheChooserKeepsOnePanelResidentWhereThatIsCheaper) {
  const Platform p = p910();
  CubeTiling prob;
  prob.M = 6272, prob.N = 128, prob.K = 1152;  // 3×3 stride 2, 128 → 128 channels, 56×56 → 28×28, batch 8
  TaskWork w = matmul_work(prob);
  w.op_type = "Conv";
  w.input0_bytes = 2.0 * 8 * 128 * 56 * 56;  // its fp16 feature map: e = 6272·1152·2 / 6422528 = 2.25
  w.input_bytes = w.input0_bytes + 2.0 * 1152 * 128;
  const CubeTiling best = choose_cube_tiling(prob, w, p, "test");
  std::printf("chosen %lldx%lldx%lld k_l1 %lld k_l1_b %lld order %d block %lldx%lld K %lld\n", (long long)best.m_tile,
              (long long)best.n_tile, (long long)best.k_tile, (long long)best.k_l1, (long long)best.kl1_b(), int(best.order),
              (long long)best.single_core_m, (long long)best.single_core_n, (long long)best.single_core_k);
  EXPECT_NE(best.k_l1, best.kl1_b());
  EXPECT_EQ(std::max(best.k_l1, best.kl1_b()), 1152);  // one operand's whole K
  EXPECT_FALSE(best.k_l1 >= 1152 && best.kl1_b() >= 1152);
  EXPECT_LE(best.l1_bytes(), p.get_int("buffers.l1"));
  const double chosen = cube_cycles(best, w, p).total;
  double common = 1e30;
  for (int64_t n = 16; n <= 128; n += 16)
    for (int64_t m = 16; m <= 6272; m += 16) {
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
        common = std::min(common, cube_cycles(t, w, p).total);
      }
    }
  std::printf("separate depths %.0f cycles, best common depth %.0f\n", chosen, common);
  EXPECT_LT(chosen, common);
}

// A small-M, deep-K MatMul (M 64, N 64, K 8192 — a batch-64 classifier head): whole K per core
// leaves at most 16 of the 32 cores busy (4 × 4 tiles of 16) and each reads its K-deep panels;
// the chooser splits K and its price is below every round-robin tiling's.
TEST(AscendTilingDepth, TheChooserSplitsKForASmallOutputWithADeepK) {
  const Platform p = p910();
  CubeTiling prob;
  prob.M = 64, prob.N = 64, prob.K = 8192;
  const TaskWork w = matmul_work(prob);
  const CubeTiling best = choose_cube_tiling(prob, p, "test");
  std::printf("chosen %lldx%lldx%lld k_l1 %lld block %lldx%lld K %lld (%lld K blocks) on %lld cores\n", (long long)best.m_tile,
              (long long)best.n_tile, (long long)best.k_tile, (long long)best.k_l1, (long long)best.single_core_m,
              (long long)best.single_core_n, (long long)best.single_core_k, (long long)best.blocks_k(), (long long)best.block_dim);
  ASSERT_TRUE(best.split_k());
  EXPECT_GT(best.blocks_k(), 1);
  const double chosen = cube_cycles(best, w, p).total;
  double whole = 1e30;
  for (int64_t n = 16; n <= 64; n += 16)
    for (int64_t m = 16; m <= 64; m += 16)
      for (int64_t k = 16; k <= 8192; k *= 2) {
        CubeTiling t = prob;
        t.m_tile = m, t.n_tile = n, t.k_tile = k;
        if (t.l0a_bytes() > 65536 || t.l0b_bytes() > 65536) break;
        for (int64_t kl1 = k; kl1 <= 8192; kl1 *= 2) {
          t.k_l1 = kl1;
          if (t.l1_bytes() > 1048576) break;
          t.block_dim = std::min<int64_t>(32, t.output_tiles());
          whole = std::min(whole, cube_cycles(t, w, p).total);
        }
      }
  std::printf("split-K %.0f cycles, best whole-K round-robin %.0f\n", chosen, whole);
  EXPECT_LT(chosen, whole);
}

// task_lower_bound (cycle_model.h) holds for split-K tilings too: every block shape, K block and
// tile order of this deep-K MatMul that check() accepts costs at least the bound, and so does a
// 1×1-conv-like problem (e = 1, with a fused residual) whose chooser splits nothing.
TEST(AscendTilingDepth, NoSplitKTilingBeatsTheLowerBound) {
  const Platform p = p910();
  for (const auto& [M, N, K, epilogue] : std::vector<std::tuple<int64_t, int64_t, int64_t, bool>>{
           {64, 64, 8192, false}, {1568, 512, 4608, true}}) {
    CubeTiling prob;
    prob.M = M, prob.N = N, prob.K = K;
    TaskWork w = matmul_work(prob);
    if (epilogue) w.epilogue_bytes = 2.0 * M * N, w.input_bytes += w.epilogue_bytes;
    const double bound = task_lower_bound(w, p);
    int priced = 0;
    for (int64_t tile : {16, 32, 64})
      for (int64_t sm = tile; sm <= M; sm *= 2)
        for (int64_t sn = tile; sn <= N; sn *= 2)
          for (int64_t sk = 64; sk < K; sk *= 2)
            for (CubeOrder order : {CubeOrder::MN, CubeOrder::NM}) {
              CubeTiling t = prob;
              t.m_tile = t.n_tile = tile, t.k_tile = 64, t.k_l1 = t.k_l1_b = 64, t.order = order;
              t.single_core_m = sm, t.single_core_n = sn, t.single_core_k = sk;
              t.block_dim = t.blocks_m() * t.blocks_n() * t.blocks_k();
              if (t.block_dim > 32) continue;
              TaskWork tw = w;
              tw.tiling = encode(t), tw.block_dim = t.block_dim;
              ++priced;
              EXPECT_LE(bound, task_cycles(tw, p).total) << M << "x" << N << "x" << K << " block " << sm << "x" << sn << "x" << sk;
            }
    std::printf("%lldx%lldx%lld: bound %.0f cycles, %d split-K tilings priced\n", (long long)M, (long long)N, (long long)K, bound,
                priced);
    EXPECT_GT(priced, 20);
  }
}

// The emulator: separate L1 depths move data only (bit-identical to the whole-tensor Cube);
// split-K sums the same 16-wide fractal partials (single_core_k is a multiple of k_tile, hence of
// 16: no fractal straddles two K blocks), but associated differently: whole-tensor init + p_0 +
// p_1 + … in one fp32 accumulator; split-K each K block's p_f from zero, then init + block 0 +
// block 1 + … . Recursive fp32 summation of n terms is within (n − 1)·u·Σ|terms| of the exact sum
// (u = 2⁻²⁴, first order; Higham, Accuracy and Stability of Numerical Algorithms, §4.2), and
// Σ|p_f| ≤ (1 + 16u)·Σ_k |a_k·b_k| (a fractal partial is itself a 16-term recursive sum of exact
// products), so the two results differ by at most 2·(⌈K/16⌉ + blocks_k + 1)·u·(|init| +
// Σ_k |a_k·b_k|) (a small margin added for the second-order terms): the tolerance per element.
TEST(AscendTilingDepth, TheEmulatorComputesWithSeparateDepthsAndSplitK) {
  const int64_t M = 37, N = 45, K = 300;  // K not a multiple of 16: the last K block is ragged
  const auto A = fp16_values(M * K, 11, -8, 8), B = fp16_values(K * N, 12, -8, 8), init = fp16_values(N, 13);
  const std::vector<float> want = gemm(A, B, init, M, N, K, 16);
  auto run = [&](const CubeTiling& c) {
    std::vector<float> got(static_cast<size_t>(M * N));
    cube_batch_tiles(A.data(), B.data(), init.data(), got.data(), c, 0);
    return got;
  };
  CubeTiling c;
  c.M = M, c.N = N, c.K = K, c.m_tile = 16, c.n_tile = 32, c.k_tile = 32, c.k_l1 = 64, c.k_l1_b = 320;
  EXPECT_EQ(run(c), want);  // B's whole K in L1, A in chunks: the same bits
  c.k_l1 = 320, c.k_l1_b = 32;
  EXPECT_EQ(run(c), want);
  const double u = std::ldexp(1.0, -24);
  for (auto [sk, sm, sn, order] : {std::tuple{64, 16, 32, CubeOrder::MN}, std::tuple{128, 48, 64, CubeOrder::NM},
                                   std::tuple{160, 32, 32, CubeOrder::MN}, std::tuple{32, 48, 64, CubeOrder::MN}}) {
    CubeTiling s = c;
    s.k_l1 = s.k_l1_b = sk, s.single_core_k = sk, s.single_core_m = sm, s.single_core_n = sn, s.order = order;
    s.block_dim = s.blocks();
    check(s, p910(), "test");
    SCOPED_TRACE("single_core_k " + std::to_string(sk) + ", " + std::to_string(s.blocks_k()) + " K blocks, block " +
                 std::to_string(sm) + "x" + std::to_string(sn));
    const std::vector<float> got = run(s);
    int differ = 0;
    double worst = 0;  // largest error as a fraction of its bound
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double mag = std::fabs(init[n]);
        for (int64_t k = 0; k < K; ++k) mag += std::fabs(double(A[m * K + k]) * B[k * N + n]);
        const double tol = 2.0 * double((K + 15) / 16 + s.blocks_k() + 1) * u * mag * 1.001;
        const double err = std::fabs(double(got[m * N + n]) - want[m * N + n]);
        EXPECT_LE(err, tol) << m << "," << n;
        differ += got[m * N + n] != want[m * N + n];
        worst = std::max(worst, err / tol);
      }
    std::printf("split-K %lld blocks: %d of %lld elements differ from the whole-K bits, worst error %.3f of the bound\n",
                (long long)s.blocks_k(), differ, (long long)(M * N), worst);
  }
}

// conv2d_tiled under split-K (K 288 = 2 groups' 32 padded channels × 3×3) against conv2d's
// whole-tensor Cube, within the same bound.
TEST(AscendTilingDepth, ASplitKConvolutionMatchesTheWholeTensorCube) {
  ConvGeometry g{2, 40, 9, 7, 12, 3, 3, 9, 7, 2, 1, 1, 1, 1, 1, 1};  // 20 channels per group → K 32·9 = 288
  const auto x = fp16_values(2 * 40 * 9 * 7, 21), w = fp16_values(12 * 20 * 3 * 3, 22), b = fp16_values(12, 23);
  const std::vector<float> want = conv2d(x, w, b, g, true);
  CubeTiling t;
  t.batch = 2, t.M = 2 * 9 * 7, t.N = 6, t.K = 288;
  t.m_tile = 64, t.n_tile = 16, t.k_tile = 48, t.k_l1 = t.k_l1_b = 96, t.single_core_k = 96;
  t.single_core_m = 64, t.single_core_n = 16, t.order = CubeOrder::MN;
  t.block_dim = t.blocks();  // 2 groups × 2 M blocks × 1 × 3 K blocks = 12
  ASSERT_EQ(t.block_dim, 12);
  check(t, p910(), "test");
  const std::vector<float> got = conv2d_tiled(x, w, b, g, t);
  ASSERT_EQ(got.size(), want.size());
  // The bound of the previous test with |a|, |b| ≤ 1, |bias| ≤ 1 and at most 20·9 = 180 non-zero
  // products: 2·(18 + 3 + 1)·u·181.
  const double tol = 2.0 * 22 * std::ldexp(1.0, -24) * 181 * 1.001;
  for (size_t i = 0; i < got.size(); ++i) EXPECT_LE(std::fabs(double(got[i]) - want[i]), tol) << i;
}

TEST(AscendTilingDepth, CheckRefusesWhatDoesNotFitOrDoesNotCutK) {
  const Platform p = p910();
  CubeTiling t;
  t.M = 1568, t.N = 512, t.K = 4608;
  t.m_tile = 112, t.n_tile = 32, t.k_tile = 144, t.k_l1 = 288, t.k_l1_b = 4608, t.block_dim = 32;
  // (112·288 + 32·4608)·2·2 = 718848 B: fits the 1 MiB L1.
  EXPECT_NO_THROW(check(t, p, "ok"));
  auto refused = [&](const CubeTiling& c, const std::string& want) {
    try {
      check(c, p, "node 'x'");
      ADD_FAILURE() << "accepted; want " << want;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("node 'x'"), std::string::npos) << e.what();
    }
  };
  CubeTiling c = t;
  c.n_tile = 64;  // B's whole K for 64 columns: (112·288 + 64·4608)·2·2 = 1308672 B > 1048576
  refused(c, "tiling needs 1308672 bytes of l1 but Ascend910A has 1048576");
  c = t, c.k_l1_b = 4608 - 144;
  refused(c, "k_l1 = 288 (A) and k_l1_b = 4464 (B) are not multiples of one another");
  c = t, c.k_l1_b = 100;
  refused(c, "k_l1_b = 100 is not a multiple of k_tile = 144");
  c = t, c.single_core_k = 1152;  // split-K needs a block partition
  refused(c, "splits K (single_core_k = 1152) without a block partition");
  c.single_core_m = 784, c.single_core_n = 128;  // 2 × 4 blocks × 4 K blocks = 32
  EXPECT_NO_THROW(check(c, p, "ok"));
  c.single_core_k = 1000;
  refused(c, "single_core_k = 1000 is not a positive multiple of k_tile = 144 below K rounded up to 16 = 4608");
  c.single_core_k = 4608;
  refused(c, "single_core_k = 4608 is not a positive multiple");
  c.single_core_k = 576;  // 8 K blocks: 64 blocks on 32 cores
  refused(c, "cuts the output into 64 blocks (1 batch x 2 x 4 x 8) but block_dim is 32");
  c.block_dim = 64;
  refused(c, "block_dim 64 outside");
}

// Version 4 round-trips both fields; version 3 (15 values) still decodes with one L1 depth and no
// split-K.
TEST(AscendTilingDepth, Version3StillDecodes) {
  const CubeTiling v3 = decode_cube({1, 3, 1, 6272, 256, 2304, 48, 64, 256, 2304, 1, 30, 0, 432, 128}, "v3 plan");
  EXPECT_EQ(v3.kl1_b(), 2304);
  EXPECT_FALSE(v3.split_k());
  EXPECT_EQ(v3.blocks(), 30);
  EXPECT_EQ(encode(v3), (std::vector<int64_t>{1, 4, 1, 6272, 256, 2304, 48, 64, 256, 2304, 1, 30, 0, 432, 128, 2304, 0}));
  CubeTiling t = v3;
  t.k_l1 = 256, t.k_l1_b = 2304, t.single_core_k = 1152, t.single_core_m = 864, t.single_core_n = 256, t.block_dim = 16;
  const CubeTiling v4 = decode_cube(encode(t), "x");
  EXPECT_EQ(std::tuple(v4.k_l1, v4.kl1_b(), v4.single_core_k, v4.blocks_k(), v4.blocks()),
            std::tuple(int64_t{256}, int64_t{2304}, int64_t{1152}, int64_t{2}, int64_t{16}));
}

}  // namespace
}  // namespace ge::ascend
