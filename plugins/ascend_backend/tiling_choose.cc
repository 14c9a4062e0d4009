// plugins/ascend_backend/tiling_choose.cc — the tiling rules of tiling_choose.h: the Cube tiling
// with the smallest estimated time among those that fit L0A/L0B/L0C/L1 double-buffered, and
// the Vector tiling with the largest UB tile that still gives every AI Core work.
#include <algorithm>

#include "ge/sdk/error.h"
#include "placement_cost.h"
#include "tiling_choose.h"

namespace ge::ascend {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

}  // namespace

CubeTiling choose_cube_tiling(const CubeTiling& problem, const Platform& p, const std::string& who) {
  const int64_t cores = p.get_int("ai_cores");
  const int64_t l0a = p.get_int("buffers.l0a"), l0b = p.get_int("buffers.l0b");
  const int64_t l0c = p.get_int("buffers.l0c"), l1 = p.get_int("buffers.l1");
  const int64_t m_max = round_up(problem.M, 16), n_max = round_up(problem.N, 16), k_max = round_up(problem.K, 16);
  bool found = false;
  CubeTiling best = problem;
  double best_work = 0;
  for (int64_t n_tile = 16; n_tile <= n_max; n_tile += 16)
    for (int64_t m_tile = 16; m_tile <= m_max; m_tile += 16) {
      CubeTiling t = problem;
      t.double_buffer = true;
      t.m_tile = m_tile, t.n_tile = n_tile;
      if (t.l0c_bytes() > l0c) break;  // grows with m_tile
      // k_tile: the largest multiple of 16 whose A and B tiles fit L0A / L0B (and one step fits L1).
      t.k_tile = 0;
      for (int64_t k = k_max; k >= 16; k -= 16) {
        CubeTiling c = t;
        c.k_tile = c.k_l1 = k;
        if (c.l0a_bytes() <= l0a && c.l0b_bytes() <= l0b && c.l1_bytes() <= l1) {
          t.k_tile = k;
          break;
        }
      }
      if (t.k_tile == 0) continue;
      // k_l1: the largest multiple of k_tile (up to K rounded to k_tile) whose panels fit L1.
      const int64_t steps_max = ceil_div(k_max, t.k_tile);
      t.k_l1 = t.k_tile;
      for (int64_t s = steps_max; s >= 1; --s) {
        CubeTiling c = t;
        c.k_l1 = s * t.k_tile;
        if (c.l1_bytes() <= l1) {
          t.k_l1 = c.k_l1;
          break;
        }
      }
      t.block_dim = std::min(cores, t.output_tiles());
      const double work = cube_cycles(t, p);
      const int64_t area = m_tile * n_tile, best_area = best.m_tile * best.n_tile;
      if (!found || work < best_work || (work == best_work && (area > best_area || (area == best_area && n_tile > best.n_tile)))) {
        best = t, best_work = work, found = true;
      }
    }
  if (!found)
    throw Error(who + ": no Cube tiling fits " + p.name + "'s buffers (not even 16 x 16 x 16 double-buffered)");
  best.block_dim = std::min(cores, best.output_tiles());
  check(best, p, who);
  return best;
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
