// plugins/ascend_backend/cycle_model.cc — the per-task cycle model (cycle_model.h, docs/ascend.md
// "Cycle model").
#include "cycle_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <variant>

#include "ge/sdk/cost_model.h"
#include "ops_info.h"
#include "ge/sdk/error.h"
#include "util.h"

namespace ge::ascend {
namespace {

int64_t round16(int64_t v) { return round_up(v, 16); }

std::string busiest(const PipeCycles& c) {
  std::pair<double, const char*> best{c.cube, "cube"};
  for (auto p : {std::pair{c.vector + c.l0c_ub, "vector"}, {c.mte1, "mte1"}, {c.mte2, "mte2"}, {c.mte3, "mte3"}})
    if (p.first > best.first) best = p;
  return best.second;
}

void finish(TaskCycles& r, const Platform& p) {
  r.launch = us_to_cycles(p.get("launch.aicore_us"), p);
  size_t slow = 0;
  for (size_t b = 0; b < r.core_cycles.size(); ++b)
    if (r.core_cycles[b] > r.core_cycles[slow]) slow = b;
  r.total = r.launch + (r.core_cycles.empty() ? 0 : r.core_cycles[slow]);
  r.bound = r.core_pipes.empty() ? "launch" : busiest(r.core_pipes[slow]);
}

}  // namespace

PipeCycles& PipeCycles::operator+=(const PipeCycles& o) {
  cube += o.cube, vector += o.vector, l0c_ub += o.l0c_ub, mte1 += o.mte1, mte2 += o.mte2, mte3 += o.mte3;
  return *this;
}

double cycles_to_us(double cycles, const Platform& p) { return cycles / (p.get("clock_ghz") * 1e3); }
double us_to_cycles(double us, const Platform& p) { return us * p.get("clock_ghz") * 1e3; }

double vector_ops_per_element(const Node& n) {
  // The op information library's count (ops_info.toml vector_ops; moves count 0: MTE2 in, MTE3
  // out); 1 for an op without an entry (a Cube op's epilogue, an AI CPU op).
  const OpInfo* info = find_op_info(n);
  return info ? op_info_vector_ops(*info, n) : 1;
}

TaskWork task_work(const Task& t, const Node& n) {
  TaskWork w;
  w.op_type = t.op_type;
  w.engine = t.engine;
  w.tiling = t.tiling;
  w.block_dim = t.block_dim;
  for (const TaskOperand& o : t.outputs) w.output_bytes += static_cast<double>(o.bytes);
  // Gather and Slice read only the rows they return from input 0 (an embedding table is not
  // streamed whole): as many bytes as they write.
  const OpInfo* info = find_op_info(n);
  const bool reads_output_only = info && info->reads_output_only;
  for (size_t i = 0; i < t.inputs.size(); ++i) {
    const double b = static_cast<double>(t.inputs[i].bytes);
    w.input_bytes += i == 0 && reads_output_only ? std::min(b, w.output_bytes) : b;
    if (i == 0) w.input0_bytes = b;
    if (i >= 2) w.epilogue_bytes += b;
  }
  w.vector_ops = vector_ops_per_element(n);
  w.flops = node_flops(n);
  w.who = "node '" + t.node + "' (" + t.op_type + ")";
  return w;
}

namespace {

/// The pipes of one core as a flow shop (docs/ascend.md "Cycle model"): work items pass the
/// stages in order; with double buffering stage s starts item i when it finished item i−1 and
/// stage s−1 finished item i (the stages overlap, a tile costs its slowest pipe, and the first
/// loads and the last store are the fill and drain); without it the items and stages run one
/// after another (the sum).
class FlowShop {
 public:
  FlowShop(size_t stages, bool overlap) : finish_(stages, 0), overlap_(overlap) {}
  void item(const std::vector<double>& d) {
    double prev = 0;
    for (size_t s = 0; s < finish_.size(); ++s) {
      if (overlap_) {
        finish_[s] = std::max(finish_[s], prev) + d[s];
        prev = finish_[s];
      } else {
        serial_ += d[s];
      }
    }
  }
  /// `r` identical items at once: the same finish times as r calls of item(d). Stage s of the
  /// last item ends at max over j ≤ s of (finish_j + Σ_{t=j..s} d_t + (r−1)·max_{t=j..s} d_t) —
  /// the longest path through the (item, stage) grid puts the r−1 extra cells on the slowest
  /// stage it crosses (the classic permutation flow shop recurrence, unrolled).
  void items(const std::vector<double>& d, int64_t r) {
    if (r <= 0) return;
    if (r == 1 || !overlap_ || finish_.size() > 8) {
      if (!overlap_) {
        for (double v : d) serial_ += v * static_cast<double>(r);
      } else {
        for (int64_t i = 0; i < r; ++i) item(d);
      }
      return;
    }
    const double extra = static_cast<double>(r - 1);
    double next[8];  // at most 5 stages (Cube tasks)
    for (size_t s = 0; s < finish_.size(); ++s) {
      double best = 0, sum = 0, mx = 0;
      for (size_t j = s + 1; j-- > 0;) {
        sum += d[j], mx = std::max(mx, d[j]);
        best = std::max(best, finish_[j] + sum + extra * mx);
      }
      next[s] = best;
    }
    std::copy(next, next + finish_.size(), finish_.begin());
  }
  double makespan() const { return overlap_ ? finish_.back() : serial_; }

 private:
  std::vector<double> finish_;
  double serial_ = 0;
  bool overlap_;
};

}  // namespace

namespace {

/// One core's walk of a Cube task (core b of block_dim): its tiles' K-steps — over its K range
/// under split-K (tiling.h) — through the pipes. Returns the core's makespan; `sum` gets its busy
/// cycles per pipe.
double cube_core(const CubeTiling& t, const TaskWork& w, const Platform& p, int64_t b, PipeCycles& sum) {
  const double gm = p.get("bandwidth.gm_to_l1"), l0a = p.get("bandwidth.l1_to_l0a"), l0b = p.get("bandwidth.l1_to_l0b");
  const double l0c = p.get("bandwidth.l0c_to_ub"), out_bw = p.get("bandwidth.ub_to_gm");
  const double lanes = p.get("vector.fp16_lanes");
  const int64_t K16 = round16(t.K);
  // A convolution's A operand is the im2col matrix, built on the way L1→L0A (load3d) from the
  // feature map: global memory carries the feature map, expansion = im2col bytes / feature-map
  // bytes (1 for MatMul). B (FRACTAL_Z / NZ weights) is loaded as stored.
  const double a_full = static_cast<double>(t.batch) * static_cast<double>(t.M) * static_cast<double>(K16) * 2;
  const double expansion = w.input0_bytes > 0 ? std::max(1.0, a_full / w.input0_bytes) : 1.0;
  // Output element size in global memory (fp16 2 B, fp32 4 B; channel padding included).
  const double outputs = static_cast<double>(t.batch) * static_cast<double>(t.M) * static_cast<double>(t.N);
  const double out_elem = std::clamp(w.output_bytes / outputs, 1.0, 4.0);
  // Epilogue operands (bias, a fused Add's residual): their bytes per output element, read into UB
  // on MTE2 with the tile's last K-step (under split-K by the combine instead, cube_combine).
  const double epi_elem = w.epilogue_bytes / outputs;
  // The core's K range, in fractals: all of K₁₆, or its K block under split-K.
  int64_t k_lo, k_hi;
  t.k_block(b, k_lo, k_hi);
  const int64_t span = round16(k_hi) - k_lo;
  const bool split = t.split_k();
  // An operand's panel stays in L1 when its chunk (k_l1 for A, k_l1_b for B) covers the core's
  // K range: the core's next tile reuses it when it shares the panel (same batch and m index for
  // A, same batch and n index for B).
  const int64_t kl1_a = t.k_l1, kl1_b = t.kl1_b();
  const bool resident_a = kl1_a >= span, resident_b = kl1_b >= span;
  // Block partition (tiling.h): the core walks its block with one operand's panels in the inner
  // loop (NM: the block's A rows, MN: its B columns). When that operand is resident and all of
  // its block's panels fit L1 next to the outer operand's double-buffered chunk (fp16, A at
  // im2col size), they stay: each is loaded from global memory once per block, on the first pass.
  const int64_t count = t.core_tile_count(b);
  bool hold_inner = false;
  int64_t inner = 1;  // tiles of the inner loop
  if (t.blocked() && count > 0) {
    int64_t bi0, m_lo, n_lo, rows, cols;
    t.block_of(b, bi0, m_lo, n_lo, rows, cols);
    const bool nm = t.order == CubeOrder::NM;
    inner = nm ? rows : cols;
    if (nm ? resident_a : resident_b) {
      const int64_t outer_chunk = std::min(nm ? kl1_b : kl1_a, span);
      const int64_t bytes = (nm ? rows * t.m_tile : cols * t.n_tile) * span * 2 + 2 * (nm ? t.n_tile : t.m_tile) * outer_chunk * 2;
      hold_inner = bytes <= p.get_int("buffers.l1");
    }
  }
  const int64_t steps = ceil_div(span, t.k_tile), per_a = kl1_a / t.k_tile, per_b = kl1_b / t.k_tile;
  const int64_t per_chunk = std::min(per_a, per_b);  // loads happen at multiples of it (one divides the other)
  std::vector<double> d(5);  // stages: MTE2, MTE1, Cube, V (L0C→UB + epilogue), MTE3
  int64_t prev_batch = -1, prev_m = -1, prev_n = -1;
  FlowShop shop(5, t.double_buffer);
  for (int64_t i = 0; i < count; ++i) {
    int64_t bi, mi, ni;
    t.core_tile(b, i, bi, mi, ni);
    const int64_t m = std::min(t.m_tile, t.M - mi * t.m_tile), n = std::min(t.n_tile, t.N - ni * t.n_tile);
    const double m16 = static_cast<double>(round16(m)), n16 = static_cast<double>(round16(n));
    const bool held = hold_inner && i >= inner;  // the inner operand's panel was loaded on the first pass
    const bool reuse_a = (resident_a && bi == prev_batch && mi == prev_m) || (held && t.order == CubeOrder::NM);
    const bool reuse_b = (resident_b && bi == prev_batch && ni == prev_n) || (held && t.order == CubeOrder::MN);
    prev_batch = bi, prev_m = mi, prev_n = ni;
    // Work items: the K-steps of the tile. MTE2 stages a k_l1 chunk of A into L1 at every per_a-th
    // step and a k_l1_b chunk of B at every per_b-th; MTE1 moves the step's A and B blocks into
    // L0A / L0B; the Cube runs ⌈m/16⌉·⌈n/16⌉·⌈k/16⌉ fractal steps; after the last step the V pipe
    // moves the fp32 sums L0C→UB and applies one epilogue op per element, MTE3 writes the tile
    // out (split-K: the fp32 partial sums, no epilogue). The steps in the middle of a chunk are
    // identical: they pass the flow shop as one run.
    auto step = [&](int64_t s, int64_t count) __attribute__((always_inline)) {
      const int64_t k0 = s * t.k_tile;
      const double k = static_cast<double>(std::min(t.k_tile, span - k0));
      d[0] = 0;
      if (s % per_a == 0 && !reuse_a) d[0] += m16 * static_cast<double>(std::min(kl1_a, span - k0)) * 2 / expansion / gm;
      if (s % per_b == 0 && !reuse_b) d[0] += static_cast<double>(std::min(kl1_b, span - k0)) * n16 * 2 / gm;
      const bool last = s == steps - 1;
      if (last && !split) d[0] += static_cast<double>(m * n) * epi_elem / gm;
      d[1] = m16 * k * 2 / l0a + k * n16 * 2 / l0b;
      d[2] = (m16 / 16) * (n16 / 16) * (k / 16);
      const double l0c_ub = last ? m16 * n16 * 4 / l0c : 0, epilogue = last && !split ? m16 * n16 / lanes : 0;
      d[3] = l0c_ub + epilogue;
      d[4] = last ? static_cast<double>(m * n) * (split ? 4.0 : out_elem) / out_bw : 0;
      shop.items(d, count);
      const double c = static_cast<double>(count);
      sum.mte2 += d[0] * c, sum.mte1 += d[1] * c, sum.cube += d[2] * c, sum.l0c_ub += l0c_ub * c, sum.vector += epilogue * c;
      sum.mte3 += d[4] * c;
    };
    for (int64_t s0 = 0; s0 < steps; s0 += per_chunk) {
      const int64_t s1 = std::min(steps, s0 + per_chunk);
      step(s0, 1);                                        // the chunk's first step (MTE2)
      const int64_t mid_end = s1 == steps ? s1 - 1 : s1;  // the tile's last step is its own item
      if (mid_end > s0 + 1) step(s0 + 1, mid_end - s0 - 1);
      if (s1 == steps && s1 - 1 > s0) step(s1 - 1, 1);
    }
  }
  return shop.makespan();
}

/// Split-K (tiling.h): core b's share of the combine, which starts when every core has written its
/// partial sums. The blocks_k cores of an output block take ⌈rows/blocks_k⌉ of its element rows
/// each (in K-block index order). Per element MTE2 reads blocks_k fp32 partials and the epilogue
/// operands into UB, V adds them ((blocks_k − 1) fp32 adds at fp16_lanes / 2 lanes) and applies
/// the epilogue op (fp16_lanes), MTE3 writes the output element; UB chunks of the most elements
/// (a multiple of 16) whose double-buffered inputs and output fit the UB pass a 3-stage flow shop.
double cube_combine(const CubeTiling& t, const TaskWork& w, const Platform& p, int64_t b, PipeCycles& sum) {
  if (!t.split_k()) return 0;
  const double gm = p.get("bandwidth.gm_to_l1"), out_bw = p.get("bandwidth.ub_to_gm"), lanes = p.get("vector.fp16_lanes");
  const double outputs = static_cast<double>(t.batch) * static_cast<double>(t.M) * static_cast<double>(t.N);
  const double out_elem = std::clamp(w.output_bytes / outputs, 1.0, 4.0), epi_elem = w.epilogue_bytes / outputs;
  const int64_t bk = t.blocks_k();
  int64_t k_lo, k_hi, bi, m_lo, n_lo, rows, cols;
  const int64_t j = t.k_block(b, k_lo, k_hi);
  t.block_of(b, bi, m_lo, n_lo, rows, cols);
  const int64_t rows_e = std::min(rows * t.m_tile, t.M - m_lo * t.m_tile), cols_e = std::min(cols * t.n_tile, t.N - n_lo * t.n_tile);
  const int64_t share = ceil_div(rows_e, bk), mine = std::clamp<int64_t>(rows_e - j * share, 0, share);
  const int64_t elems = mine * cols_e;
  if (elems == 0) return 0;
  const double in_elem = 4.0 * static_cast<double>(bk) + epi_elem;
  const int64_t chunk = std::max<int64_t>(16, static_cast<int64_t>(static_cast<double>(p.get_int("buffers.ub")) /
                                                                   (2 * (in_elem + out_elem)) / 16) * 16);
  FlowShop shop(3, t.double_buffer);
  auto run = [&](int64_t e, int64_t r) {
    const double x = static_cast<double>(e), c = static_cast<double>(r);
    const std::vector<double> d = {x * in_elem / gm, x * static_cast<double>(bk - 1) / (lanes / 2) + x / lanes, x * out_elem / out_bw};
    shop.items(d, r);
    sum.mte2 += d[0] * c, sum.vector += d[1] * c, sum.mte3 += d[2] * c;
  };
  run(chunk, elems / chunk);
  if (elems % chunk) run(elems % chunk, 1);
  return shop.makespan();
}

}  // namespace

double cube_core_cycles(const CubeTiling& t, const TaskWork& w, const Platform& p, int64_t core) {
  check(t, p, w.who);
  PipeCycles sum;
  return core >= 0 && core < t.block_dim ? cube_core(t, w, p, core, sum) + cube_combine(t, w, p, core, sum) : 0;
}

TaskCycles cube_cycles(const CubeTiling& t, const TaskWork& w, const Platform& p) {
  check(t, p, w.who);
  TaskCycles r;
  r.engine = "cube";
  r.block_dim = t.block_dim;
  r.core_cycles.assign(static_cast<size_t>(t.block_dim), 0);
  r.core_pipes.assign(static_cast<size_t>(t.block_dim), {});
  // Under a block partition cores whose blocks have the same shape (tiles, whether they hold the
  // last, possibly partial, m / n tile, K range length) walk identically: walked once each.
  std::vector<std::pair<std::array<int64_t, 5>, int64_t>> walked;
  for (int64_t b = 0; b < t.block_dim; ++b) {
    const size_t i = static_cast<size_t>(b);
    std::array<int64_t, 5> key{-1, 0, 0, 0, 0};
    if (t.blocked()) {
      int64_t bi, m_lo, n_lo, rows, cols, k_lo, k_hi;
      t.block_of(b, bi, m_lo, n_lo, rows, cols);
      t.k_block(b, k_lo, k_hi);
      key = {rows, cols, m_lo + rows == t.m_tiles(), n_lo + cols == t.n_tiles(), k_hi - k_lo};
      auto same = std::find_if(walked.begin(), walked.end(), [&](const auto& e) { return e.first == key; });
      if (same != walked.end()) {
        r.core_cycles[i] = r.core_cycles[static_cast<size_t>(same->second)];
        r.core_pipes[i] = r.core_pipes[static_cast<size_t>(same->second)];
        continue;
      }
      walked.emplace_back(key, b);
    }
    r.core_cycles[i] = cube_core(t, w, p, b, r.core_pipes[i]);
  }
  if (t.split_k()) {  // every core waits for the slowest one's partial sums, then combines its share
    const double all = *std::max_element(r.core_cycles.begin(), r.core_cycles.end());
    for (int64_t b = 0; b < t.block_dim; ++b)
      r.core_cycles[static_cast<size_t>(b)] = all + cube_combine(t, w, p, b, r.core_pipes[static_cast<size_t>(b)]);
  }
  finish(r, p);
  return r;
}

TaskCycles vector_cycles(const VectorTiling& t, const TaskWork& w, const Platform& p) {
  check(t, p, w.who);
  const double gm = p.get("bandwidth.gm_to_l1"), out_bw = p.get("bandwidth.ub_to_gm");
  const double elements = static_cast<double>(t.units) * static_cast<double>(t.unit_elements);
  // fp16 fills vector.fp16_lanes lanes, fp32 half as many (the 2048-bit vector unit).
  const double elem_bytes = elements > 0 ? w.output_bytes / elements : 2;
  const double lanes = p.get("vector.fp16_lanes") / (elem_bytes > 2.5 ? 2 : 1);
  const double in_per_unit = w.input_bytes / static_cast<double>(t.units);
  const double out_per_unit = w.output_bytes / static_cast<double>(t.units);
  const int64_t tiles = t.tiles();

  TaskCycles r;
  r.engine = "vector";
  r.block_dim = t.block_dim;
  r.core_cycles.assign(static_cast<size_t>(t.block_dim), 0);
  r.core_pipes.assign(static_cast<size_t>(t.block_dim), {});
  std::vector<double> d(3);  // stages: MTE2 (global memory → UB), V, MTE3 (UB → global memory)
  for (int64_t b = 0; b < t.block_dim; ++b) {
    PipeCycles sum;
    FlowShop shop(3, t.double_buffer);
    for (int64_t tile = b; tile < tiles; tile += t.block_dim) {
      const double u = static_cast<double>(std::min(t.tile_units, t.units - tile * t.tile_units));
      d[0] = u * in_per_unit / gm;  // global memory → UB on MTE2, at the global-memory read rate
      d[1] = std::ceil(u * static_cast<double>(t.unit_elements) * w.vector_ops / lanes);
      d[2] = u * out_per_unit / out_bw;
      shop.item(d);
      sum.mte2 += d[0], sum.vector += d[1], sum.mte3 += d[2];
    }
    r.core_cycles[static_cast<size_t>(b)] = shop.makespan();
    r.core_pipes[static_cast<size_t>(b)] = sum;
  }
  finish(r, p);
  return r;
}

TaskCycles aicpu_cycles(const TaskWork& w, const Platform& p) {
  TaskCycles r;
  r.engine = "aicpu";
  r.block_dim = 1;
  // GFLOP/s = FLOP/ns and GB/s = B/ns: ns × clock_ghz = AI Core cycles.
  const double ns = std::max(w.flops / p.get("aicpu.gflops"), (w.input_bytes + w.output_bytes) / p.get("aicpu.gbps"));
  r.core_cycles = {ns * p.get("clock_ghz")};
  r.core_pipes = {PipeCycles{}};
  r.launch = us_to_cycles(p.get("launch.aicpu_us"), p);
  r.total = r.launch + r.core_cycles[0];
  r.bound = w.flops / p.get("aicpu.gflops") >= (w.input_bytes + w.output_bytes) / p.get("aicpu.gbps") ? "aicpu_compute"
                                                                                                       : "aicpu_memory";
  return r;
}

namespace {

void same_block_dim(int64_t tiling, const TaskWork& w) {
  if (tiling != w.block_dim)
    throw Error(w.who + ": attribute " + kAttrBlockDim + " = " + std::to_string(w.block_dim) + " but its tiling says block_dim " +
                std::to_string(tiling));
}

TaskCycles price(const TaskWork& w, const Platform& p) {
  if (w.engine == "cube") {
    if (w.tiling.empty()) throw Error(w.who + ": engine cube but no attribute " + kAttrTiling + " (run the ascend_tiling pass)");
    const CubeTiling t = decode_cube(w.tiling, w.who);
    same_block_dim(t.block_dim, w);
    return cube_cycles(t, w, p);
  }
  if (w.engine == "vector") {
    if (w.tiling.empty()) throw Error(w.who + ": engine vector but no attribute " + kAttrTiling + " (run the ascend_tiling pass)");
    const VectorTiling t = decode_vector(w.tiling, w.who);
    same_block_dim(t.block_dim, w);
    return vector_cycles(t, w, p);
  }
  if (w.engine == "aicpu") return aicpu_cycles(w, p);
  throw Error(w.who + ": attribute " + kAttrEngine + " = '" + w.engine + "' (known: cube, vector, aicpu)");
}

}  // namespace

double task_lower_bound(const TaskWork& w, const Platform& p) {
  const double cores = p.get("ai_cores"), launch = us_to_cycles(p.get("launch.aicore_us"), p);
  const double gm = p.get("bandwidth.gm_to_l1"), out_bw = p.get("bandwidth.ub_to_gm");
  if (w.engine == "cube") {
    if (w.tiling.empty()) throw Error(w.who + ": engine cube but no attribute " + kAttrTiling + " (run the ascend_tiling pass)");
    const CubeTiling t = decode_cube(w.tiling, w.who);
    const double l0a = p.get("bandwidth.l1_to_l0a"), l0b = p.get("bandwidth.l1_to_l0b"), l0c = p.get("bandwidth.l0c_to_ub");
    const double lanes = p.get("vector.fp16_lanes");
    const double rows = static_cast<double>(t.batch) * static_cast<double>(t.M), N = static_cast<double>(t.N);
    const double K16 = static_cast<double>(round16(t.K));
    const double cube = static_cast<double>(t.batch) * static_cast<double>(ceil_div(t.M, 16)) *
                        static_cast<double>(ceil_div(t.N, 16)) * (K16 / 16) / cores;
    const double e = w.input0_bytes > 0 ? std::max(1.0, rows * K16 * 2 / w.input0_bytes) : 1.0;
    const double outputs = rows * N, vol = outputs * K16 / cores;  // the busiest core's MACs, at least
    const double out_avg = w.output_bytes / cores / out_bw, epi_avg = w.epilogue_bytes / cores / gm;
    // The busiest core's block: r rows × c columns × a K range k (k < K₁₆: split-K), r·c·k = vol.
    // Its operand reads are least over r·c = area, area/N ≤ r ≤ rows, of r·a + c·b at
    // r = √(area·b/a), clamped. Without split-K it also reads its epilogue share and writes its
    // outputs; under split-K it writes area fp32 partial sums, and after the barrier the combine
    // needs at least the cores' average of reading ⌈K₁₆/k⌉ partials per output (+ the epilogue
    // operands), adding them and writing the outputs. Terms of other cores enter as averages.
    double best = std::numeric_limits<double>::infinity();
    for (double k = K16; k >= 16; k -= 16) {
      const double area = vol / k;
      if (area > outputs) break;  // k < K₁₆ / cores: more outputs than there are
      auto block_min = [&](double a, double b) {
        const double r = std::clamp(std::sqrt(area * b / a), std::min(rows, area / N), rows);
        return r * a + area / r * b;
      };
      const bool split = k < K16;
      const double mte2 = (block_min(k * 2 / e, k * 2) + (split ? 0 : w.epilogue_bytes / cores)) / gm;
      const double mte1 = block_min(k * 2 / l0a, k * 2 / l0b);
      const double v = area * 4 / l0c + (split ? 0 : area / lanes), mte3 = split ? area * 4 / out_bw : out_avg;
      double walk = std::max({cube, mte2, mte1, v, mte3, epi_avg}), combine = 0;
      if (split) {
        const double blocks = std::ceil(K16 / k);
        combine = std::max({outputs * blocks * 4 / cores / gm + epi_avg, out_avg,
                            outputs / cores * ((blocks - 1) / (lanes / 2) + 1 / lanes)});
      }
      best = std::min(best, walk + combine);
    }
    return launch + best;
  }
  if (w.engine == "vector") {
    if (w.tiling.empty()) throw Error(w.who + ": engine vector but no attribute " + kAttrTiling + " (run the ascend_tiling pass)");
    const VectorTiling t = decode_vector(w.tiling, w.who);
    const double elements = static_cast<double>(t.units) * static_cast<double>(t.unit_elements);
    const double elem_bytes = elements > 0 ? w.output_bytes / elements : 2;
    const double lanes = p.get("vector.fp16_lanes") / (elem_bytes > 2.5 ? 2 : 1);
    return launch + std::max({w.input_bytes / gm, w.output_bytes / out_bw, std::ceil(elements * w.vector_ops / lanes)}) / cores;
  }
  return task_cycles(w, p).total;
}

TaskCycles task_cycles(const TaskWork& w, const Platform& p) {
  // The schedulers price the same node many times (ranks, candidates): results are memoized by
  // everything they depend on (bounded; cleared when full).
  // The platform's numbers are part of the key, not only its file: a platform adjusted in memory
  // (a test, a tuning run) must not get the prices of the file's numbers.
  std::string key = p.file;
  for (const auto& [name, num] : p.numbers) {
    char nb[48];
    std::snprintf(nb, sizeof nb, "=%.17g;", num.value);
    key += name;
    key += nb;
  }
  key += "|" + w.engine + "|" + w.op_type + "|";
  for (int64_t v : w.tiling) key += std::to_string(v) + ",";
  char buf[160];
  std::snprintf(buf, sizeof buf, "|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%lld", w.input_bytes, w.input0_bytes, w.epilogue_bytes,
                w.output_bytes, w.vector_ops, w.flops, static_cast<long long>(w.block_dim));
  key += buf;
  static std::mutex mu;
  static std::unordered_map<std::string, TaskCycles> memo;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
  }
  TaskCycles r = price(w, p);
  std::lock_guard<std::mutex> lock(mu);
  if (memo.size() > 20000) memo.clear();
  memo.emplace(std::move(key), r);
  return r;
}

}  // namespace ge::ascend
