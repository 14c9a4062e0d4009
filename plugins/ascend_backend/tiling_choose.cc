// plugins/ascend_backend/tiling_choose.cc — the tiling rules of tiling_choose.h: the Cube tiling
// with the fewest cycles of the cycle model (cycle_model.h) among those that fit
// L0A/L0B/L0C/L1 double-buffered, and the Vector tiling with the largest UB tile that still gives
// every AI Core work.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <unordered_map>

#include "cycle_model.h"
#include "ge/sdk/error.h"
#include "tiling_choose.h"
#include "util.h"

namespace ge::ascend {
namespace {


/// A lower bound of cube_cycles(t) without the launch: the task's slowest core is busy at least
/// the average over its cores of every pipe's total (Cube, MTE1, V, MTE3 exact; MTE2 at least
/// the smaller of a tile's A and B panels per tile when panels may stay resident, else both).
/// The platform numbers the bound reads (looked up once per choice: the bound runs per candidate).
struct BoundPlatform {
  double gm, l0a, l0b, l0c, out_bw, lanes;
  int64_t l1;
  explicit BoundPlatform(const Platform& p)
      : gm(p.get("bandwidth.gm_to_l1")), l0a(p.get("bandwidth.l1_to_l0a")), l0b(p.get("bandwidth.l1_to_l0b")),
        l0c(p.get("bandwidth.l0c_to_ub")), out_bw(p.get("bandwidth.ub_to_gm")), lanes(p.get("vector.fp16_lanes")),
        l1(p.get_int("buffers.l1")) {}
};

double cycles_lower_bound(const CubeTiling& t, const TaskWork& w, const BoundPlatform& p) {
  const double gm = p.gm, l0a = p.l0a, l0b = p.l0b, l0c = p.l0c, out_bw = p.out_bw, lanes = p.lanes;
  const double batch = static_cast<double>(t.batch), K16 = static_cast<double>(round_up(t.K, 16));
  const double M16 = static_cast<double>(round_up(t.M, 16)), N16 = static_cast<double>(round_up(t.N, 16));
  const double mt = static_cast<double>(t.m_tiles()), nt = static_cast<double>(t.n_tiles());
  const double a_full = batch * static_cast<double>(t.M) * K16 * 2;
  const double e = w.input0_bytes > 0 ? std::max(1.0, a_full / w.input0_bytes) : 1.0;
  const double out_elem = std::clamp(w.output_bytes / (batch * static_cast<double>(t.M) * static_cast<double>(t.N)), 1.0, 4.0);
  const double cube = batch * (M16 / 16) * (N16 / 16) * (K16 / 16);
  const double mte1 = batch * K16 * 2 * (nt * M16 / l0a + mt * N16 / l0b);
  const double v = batch * M16 * N16 * (4 / l0c + 1 / lanes);
  const double mte3 = batch * static_cast<double>(t.M) * static_cast<double>(t.N) * out_elem / out_bw;
  // MTE2: sizes of the full and the last (partial) m and n tiles, rounded to 16.
  const double mf = static_cast<double>(t.m_tile), ml = static_cast<double>(round_up(t.M - (t.m_tiles() - 1) * t.m_tile, 16));
  const double nf = static_cast<double>(t.n_tile), nl = static_cast<double>(round_up(t.N - (t.n_tiles() - 1) * t.n_tile, 16));
  const bool res_a = t.k_l1 >= round_up(t.K, 16), res_b = t.kl1_b() >= round_up(t.K, 16);
  auto tile = [&](double m, double n) {  // a resident operand may be reused by the next tile, the other is loaded
    const double a = m * K16 * 2 / e, b = K16 * n * 2;
    return (res_a && res_b ? std::min(a, b) : res_a ? b : res_b ? a : a + b) / gm;
  };
  const double epi = w.epilogue_bytes / (batch * static_cast<double>(t.M) * static_cast<double>(t.N));  // per output element
  const double mte2 = batch * ((mt - 1) * (nt - 1) * tile(mf, nf) + (mt - 1) * tile(mf, nl) + (nt - 1) * tile(ml, nf) + tile(ml, nl)) +
                      w.epilogue_bytes / gm;
  if (!t.blocked()) return std::max({cube, mte1, v, mte3, mte2}) / static_cast<double>(t.block_dim);
  // Block partition: core 0's block is the largest; every pipe's busy cycles on it, exactly as
  // cycle_model.cc walks it (an operand's panels once per pass when resident and shared by
  // consecutive tiles or held as the block's inner panels, else once per tile), over core 0's K
  // range under split-K — plus, then, its share of the combine.
  int64_t bi, m_lo, n_lo, rows, cols, k_lo, k_hi;
  t.block_of(0, bi, m_lo, n_lo, rows, cols);
  t.k_block(0, k_lo, k_hi);
  const int64_t span_i = round_up(k_hi, 16) - k_lo;
  const double span = static_cast<double>(span_i);
  const bool split = t.split_k(), ra = t.k_l1 >= span_i, rb = t.kl1_b() >= span_i;
  const double bm = static_cast<double>(std::min(rows * t.m_tile, t.M)), bn = static_cast<double>(std::min(cols * t.n_tile, t.N));
  const double bm16 = static_cast<double>(round_up(static_cast<int64_t>(bm), 16)), bn16 = static_cast<double>(round_up(static_cast<int64_t>(bn), 16));
  const double r = static_cast<double>(rows), c = static_cast<double>(cols);
  const bool nm = t.order == CubeOrder::NM;
  bool hold = false;
  if (nm ? ra : rb)
    hold = (nm ? rows * t.m_tile : cols * t.n_tile) * span_i * 2 +
               2 * (nm ? t.n_tile : t.m_tile) * std::min(nm ? t.kl1_b() : t.k_l1, span_i) * 2 <=
           p.l1;
  double a_passes, b_passes;  // loads of the block's A rows / B columns
  if (nm) a_passes = hold || (rows == 1 && ra) ? 1 : c, b_passes = rb ? 1 : r;
  else b_passes = hold || (cols == 1 && rb) ? 1 : r, a_passes = ra ? 1 : c;
  const double phase1 =
      std::max({(bm16 / 16) * (bn16 / 16) * (span / 16), span * 2 * (c * bm16 / l0a + r * bn16 / l0b),
                bm16 * bn16 * (4 / l0c + (split ? 0 : 1 / lanes)), bm * bn * (split ? 4 : out_elem) / out_bw,
                (a_passes * bm16 * span * 2 / e + b_passes * span * bn16 * 2 + (split ? 0 : bm * bn * epi)) / gm});
  if (!split) return phase1;
  const double bk = static_cast<double>(t.blocks_k()), share = static_cast<double>(ceil_div(static_cast<int64_t>(bm), t.blocks_k())) * bn;
  return phase1 + share * std::max({(4 * bk + epi) / gm, (bk - 1) / (lanes / 2) + 1 / lanes, out_elem / out_bw});
}

struct Candidate {
  CubeTiling t;
  double bound = 0;
};

/// Prefer `a` over `b` at equal cycles: the larger tile, then the larger n_tile, the larger
/// k_l1 and k_tile and k_l1_b, then order MN, then round-robin, then the fewer K blocks.
bool preferred(const CubeTiling& a, const CubeTiling& b) {
  const int64_t aa = a.m_tile * a.n_tile, ba = b.m_tile * b.n_tile;
  if (aa != ba) return aa > ba;
  if (a.n_tile != b.n_tile) return a.n_tile > b.n_tile;
  if (a.k_l1 != b.k_l1) return a.k_l1 > b.k_l1;
  if (a.k_tile != b.k_tile) return a.k_tile > b.k_tile;
  if (a.kl1_b() != b.kl1_b()) return a.kl1_b() > b.kl1_b();
  if (a.order != b.order) return a.order == CubeOrder::MN;
  if (a.blocked() != b.blocked()) return !a.blocked();
  return a.single_core_k < b.single_core_k;  // no split-K (0) first
}

CubeTiling choose(const CubeTiling& problem, const TaskWork& work, const Platform& p, const std::string& who) {
  const int64_t cores = p.get_int("ai_cores");
  const int64_t l0a = p.get_int("buffers.l0a"), l0b = p.get_int("buffers.l0b");
  const int64_t l0c = p.get_int("buffers.l0c"), l1 = p.get_int("buffers.l1");
  const int64_t m_max = round_up(problem.M, 16), n_max = round_up(problem.N, 16), k_max = round_up(problem.K, 16);
  std::vector<Candidate> cands;
  const double launch_cycles = us_to_cycles(p.get("launch.aicore_us"), p);
  const BoundPlatform bp(p);
  auto add_orders = [&](CubeTiling t) {
    for (CubeOrder o : {CubeOrder::MN, CubeOrder::NM}) {
      if (o == CubeOrder::NM && (t.m_tiles() == 1 || t.n_tiles() == 1)) break;  // same walk as MN
      t.order = o;
      cands.push_back({t, cycles_lower_bound(t, work, bp) + launch_cycles});
    }
  };
  // An operand's whole K in L1: the tiles block partitions are tried with.
  std::vector<CubeTiling> resident_tiles, split_tiles;  // split-K: whole K blocks in L1
  auto add = [&](CubeTiling t) {
    t.single_core_m = t.single_core_n = 0;
    t.block_dim = std::min(cores, t.output_tiles());
    add_orders(t);
    if (t.k_l1 >= k_max || t.kl1_b() >= k_max) resident_tiles.push_back(t);
  };
  // Block partitions (CANN's singleCoreM × singleCoreN) of a tile: for each count of M blocks,
  // the most N blocks that keep batch · blocks ≤ cores, only shapes using more than half the
  // cores; per order the one with the smallest lower bound (core 0's exact pipe totals), and
  // only when that bound is below `limit`. Tried only with an operand's whole K (or, split-K,
  // the whole K block) in L1 (panels resident, cycle_model.h): otherwise a block walk reloads
  // every panel as the round-robin one does. Split-K: blocks_k cores per output block.
  auto add_blocks = [&](const CubeTiling& t, double limit, std::vector<Candidate>& out) {
    const int64_t mt = t.m_tiles(), nt = t.n_tiles(), per_batch = cores / (t.batch * t.blocks_k());
    int64_t last_sm = 0, last_sn = 0;
    Candidate keep[2];
    for (int64_t bm = 1; bm <= std::min(mt, per_batch); ++bm) {
      const int64_t sm = ceil_div(mt, bm), bn = std::min(nt, per_batch / ceil_div(mt, sm)), sn = ceil_div(nt, bn);
      if (sm == last_sm && sn == last_sn) continue;
      last_sm = sm, last_sn = sn;
      CubeTiling b = t;
      b.single_core_m = sm * t.m_tile, b.single_core_n = sn * t.n_tile;
      b.block_dim = b.blocks();
      if (b.block_dim * 2 <= std::min(cores, t.output_tiles() * t.blocks_k())) continue;
      for (CubeOrder o : {CubeOrder::MN, CubeOrder::NM}) {
        if (o == CubeOrder::NM && (mt == 1 || nt == 1)) break;  // same walk as MN
        b.order = o;
        Candidate& k = keep[static_cast<int>(o)];
        const double bound = cycles_lower_bound(b, work, bp) + launch_cycles;
        if (!k.t.blocked() || bound < k.bound) k = {b, bound};
      }
    }
    for (const Candidate& k : keep)
      if (k.t.blocked() && k.bound <= limit) out.push_back(k);
  };
  // Every loop below starts at the largest extent the buffers can hold, not at the problem's:
  // the search then takes the same few steps for a huge M, N or K (buffer bytes of tiling.h,
  // double-buffered fp16 operands, fp32 L0C).
  auto fit16 = [](int64_t bytes, int64_t per) { return std::max<int64_t>(16, bytes / std::max<int64_t>(per, 1) / 16 * 16); };
  for (int64_t n_tile = 16; n_tile <= n_max && 16 * n_tile * 4 * 2 <= l0c; n_tile += 16)
    for (int64_t m_tile = 16; m_tile <= m_max; m_tile += 16) {
      CubeTiling t = problem;
      t.double_buffer = true;
      t.m_tile = m_tile, t.n_tile = n_tile;
      if (t.l0c_bytes() > l0c) break;  // grows with m_tile
      // k_tile: the largest multiple of 16 whose A and B tiles fit L0A / L0B (and one step fits L1).
      int64_t k_fit = 0;
      const int64_t k_top = std::min({k_max, fit16(l0a, m_tile * 4), fit16(l0b, n_tile * 4)});
      for (int64_t k = k_top; k >= 16; k -= 16) {
        CubeTiling c = t;
        c.k_tile = c.k_l1 = k;
        if (c.l0a_bytes() <= l0a && c.l0b_bytes() <= l0b && c.l1_bytes() <= l1) {
          k_fit = k;
          break;
        }
      }
      if (k_fit == 0) continue;
      // (1) k_l1: the largest multiple of k_tile (up to K rounded to k_tile) whose panels fit L1.
      t.k_tile = k_fit;
      t.k_l1 = k_fit;
      const int64_t s_top = std::min(ceil_div(k_max, k_fit), std::max<int64_t>(1, l1 / ((m_tile + n_tile) * k_fit * 4)));
      for (int64_t s = s_top; s >= 1; --s) {
        CubeTiling c = t;
        c.k_l1 = s * k_fit;
        if (c.l1_bytes() <= l1) {
          t.k_l1 = c.k_l1;
          break;
        }
      }
      add(t);
      // (2) the whole K in L1 (panels resident across a core's tiles, cycle_model.h) when it fits
      // but K rounded up to k_fit does not: the largest k_tile ≤ k_fit dividing K₁₆.
      int64_t k_div = 16;
      for (int64_t k = k_fit; k >= 16; k -= 16)
        if (k_max % k == 0) {
          k_div = k;
          break;
        }
      if (t.k_l1 < k_max && (m_tile + n_tile) * k_max * 2 * 2 <= l1) {
        CubeTiling r = t;
        r.k_tile = k_div, r.k_l1 = k_max;
        add(r);
      } else if (t.k_l1 < k_max) {
        // (3) separate L1 depths (CANN's stepKa / stepKb): one operand's whole K₁₆ resident, the
        // other in the largest chunk (a divisor of K₁₆, multiple of k_tile) that fits beside it.
        for (bool a_whole : {true, false}) {
          const int64_t whole = (a_whole ? m_tile : n_tile) * k_max * 2 * 2, other = a_whole ? n_tile : m_tile;
          if (whole > l1) continue;
          const int64_t j_top = std::min(k_max / k_div - 1, (l1 - whole) / std::max<int64_t>(1, other * k_div * 4));
          for (int64_t j = j_top; j >= 1; --j) {
            if ((k_max / k_div) % j || whole + other * j * k_div * 2 * 2 > l1) continue;
            CubeTiling r = t;
            r.k_tile = k_div;
            r.k_l1 = a_whole ? k_max : j * k_div;
            r.k_l1_b = a_whole ? j * k_div : k_max;
            add(r);
            break;
          }
        }
      }
      // (4) split-K (CANN's singleCoreK): K cut into 2, 3, 4, 6 or 8 blocks of a multiple of
      // k_tile whose A and B panels fit L1 whole (resident within the block).
      for (int64_t parts : {2, 3, 4, 6, 8}) {
        if (problem.batch * parts > cores) break;
        CubeTiling r = t;
        r.single_core_k = round_up(ceil_div(k_max, parts), k_fit);
        if (r.single_core_k >= k_max || (m_tile + n_tile) * r.single_core_k * 2 * 2 > l1) continue;
        if (!split_tiles.empty() && split_tiles.back().m_tile == m_tile && split_tiles.back().n_tile == n_tile &&
            split_tiles.back().single_core_k == r.single_core_k)
          continue;  // the same K blocks as the previous count
        r.k_l1 = r.k_l1_b = r.single_core_k;
        split_tiles.push_back(r);
      }
    }
  if (cands.empty())
    throw Error(who + ": no Cube tiling fits " + p.name + "'s buffers (not even 16 x 16 x 16 double-buffered)");
  // Price the candidates with the cycle model, most promising first; stop when the lower bound
  // of the rest exceeds the best price found. First the round-robin tilings, then the block
  // partitions whose lower bound beats the best of those.
  TaskWork w = work;
  w.who = who;
  CubeTiling best;
  double best_cycles = -1;
  auto search = [&](std::vector<Candidate>& list) {
    std::stable_sort(list.begin(), list.end(), [](const Candidate& a, const Candidate& b) { return a.bound < b.bound; });
    for (const Candidate& c : list) {
      if (best_cycles >= 0 && c.bound > best_cycles * (1 + 1e-9)) break;
      // Core 0 first (it has the most tiles): a tight lower bound at 1/block_dim of the walk.
      if (best_cycles >= 0 && cube_core_cycles(c.t, w, p, 0) + launch_cycles > best_cycles * (1 + 1e-9)) continue;
      const double cycles = cube_cycles(c.t, w, p).total;
      if (best_cycles < 0 || cycles < best_cycles || (cycles == best_cycles && preferred(c.t, best))) best = c.t, best_cycles = cycles;
    }
  };
  search(cands);
  std::vector<Candidate> blocks;
  for (const CubeTiling& t : resident_tiles) add_blocks(t, best_cycles * (1 + 1e-9), blocks);
  // Split-K: a floor per K-block count before any block shape — the average core's share of the
  // Cube work plus of the combine (every output element combined once: blocks_k fp32 partials and
  // the epilogue operands in, the output out) — skips the counts that cannot beat the best price
  // (large outputs: the partial sums alone cost more).
  const double outputs = static_cast<double>(problem.batch * problem.M * problem.N);
  const double out_elem = std::clamp(work.output_bytes / outputs, 1.0, 4.0), epi_elem = work.epilogue_bytes / outputs;
  auto split_floor = [&](int64_t bk) {
    const double cube = static_cast<double>(problem.batch) * static_cast<double>(m_max / 16) * static_cast<double>(n_max / 16) *
                        static_cast<double>(k_max / 16);
    const double per_elem = std::max({(4.0 * static_cast<double>(bk) + epi_elem) / bp.gm,
                                      static_cast<double>(bk - 1) / (bp.lanes / 2) + 1 / bp.lanes, out_elem / bp.out_bw});
    return launch_cycles + (cube + outputs * per_elem) / static_cast<double>(cores);
  };
  for (const CubeTiling& t : split_tiles)
    if (split_floor(t.blocks_k()) <= best_cycles * (1 + 1e-9)) add_blocks(t, best_cycles * (1 + 1e-9), blocks);
  search(blocks);
  check(best, p, who);
  return best;
}

}  // namespace

CubeTiling choose_cube_tiling(const CubeTiling& problem, const TaskWork& work, const Platform& p, const std::string& who) {
  // Networks repeat their layer shapes: memoized by everything the choice depends on.
  char buf[256];
  std::snprintf(buf, sizeof buf, "|%lld,%lld,%lld,%lld|%.17g|%.17g|%.17g", static_cast<long long>(problem.batch),
                static_cast<long long>(problem.M), static_cast<long long>(problem.N), static_cast<long long>(problem.K),
                work.input0_bytes, work.epilogue_bytes, work.output_bytes);
  std::string key = p.file + "|" + p.name + buf;
  for (const auto& [name, number] : p.numbers) key += "|" + name + "=" + std::to_string(number.value);  // a test may edit them
  static std::mutex mu;
  static std::unordered_map<std::string, CubeTiling> memo;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
  }
  const CubeTiling t = choose(problem, work, p, who);
  std::lock_guard<std::mutex> lock(mu);
  if (memo.size() > 4096) memo.clear();
  memo.emplace(key, t);
  return t;
}

CubeTiling choose_cube_tiling(const CubeTiling& problem, const Platform& p, const std::string& who) {
  TaskWork w;
  w.op_type = "MatMul";
  w.engine = "cube";
  w.input0_bytes = 2.0 * static_cast<double>(problem.batch * problem.M * problem.K);
  w.output_bytes = 2.0 * static_cast<double>(problem.batch * problem.M * problem.N);
  return choose_cube_tiling(problem, w, p, who);
}

VectorTiling choose_vector_tiling(const VectorTiling& problem, const Platform& p, const std::string& who) {
  const int64_t cores = p.get_int("ai_cores"), ub = p.get_int("buffers.ub");
  VectorTiling t = problem;
  t.double_buffer = true;
  const int64_t fit = ub / (2 * t.ub_bytes_per_unit);
  if (fit < 1)
    throw Error(who + ": one Vector unit needs " + std::to_string(2 * t.ub_bytes_per_unit) + " bytes of UB double-buffered but " +
                p.name + " has " + std::to_string(ub));
  t.tile_units = std::max<int64_t>(1, std::min(fit, ceil_div(t.units, cores)));
  t.block_dim = std::min(cores, t.tiles());
  check(t, p, who);
  return t;
}

}  // namespace ge::ascend
