// plugins/ascend_backend/tiling.cc — attribute codec and capacity checks of tiling.h.
#include "tiling.h"

#include <algorithm>

#include "ge/sdk/error.h"

namespace ge::ascend {
namespace {

constexpr int64_t kCube = 1, kVector = 2;
constexpr int64_t kCubeVersion = 4, kVectorVersion = 1;  // cube versions 1 (no order), 2 (no blocks), 3 (one k_l1, no split-K) are still read

void expect(const std::vector<int64_t>& v, int64_t kind, size_t len, const std::string& who) {
  const char* name = kind == kCube ? "cube" : "vector";
  if (v.size() < 2 || v[0] != kind)
    throw Error(who + ": attribute " + kAttrTiling + " is not a " + name + " tiling (kind " +
                (v.empty() ? std::string("missing") : std::to_string(v[0])) + ")");
  const bool known = kind == kCube ? v[1] >= 1 && v[1] <= kCubeVersion : v[1] == kVectorVersion;
  if (!known)
    throw Error(who + ": attribute " + kAttrTiling + " has version " + std::to_string(v[1]) + "; this plugin reads version " +
                (kind == kCube ? std::string("1 to 4") : std::to_string(kVectorVersion)));
  if (v.size() != len)
    throw Error(who + ": attribute " + kAttrTiling + " has " + std::to_string(v.size()) + " values; a " + name + " tiling has " +
                std::to_string(len));
}

void positive(int64_t v, const char* field, const std::string& who) {
  if (v <= 0) throw Error(who + ": tiling field " + field + " = " + std::to_string(v) + " must be positive");
}

void fits(int64_t need, const Platform& p, const char* buffer, const std::string& who) {
  const int64_t cap = p.get_int(std::string("buffers.") + buffer);
  if (need > cap)
    throw Error(who + ": tiling needs " + std::to_string(need) + " bytes of " + buffer + " but " + p.name + " has " +
                std::to_string(cap));
}

void block_dim_ok(int64_t block_dim, int64_t tiles, const Platform& p, const std::string& who) {
  const int64_t cores = p.get_int("ai_cores");
  if (block_dim < 1 || block_dim > cores || block_dim > tiles)
    throw Error(who + ": tiling block_dim " + std::to_string(block_dim) + " outside 1.." +
                std::to_string(std::min(cores, tiles)) + " (" + std::to_string(cores) + " AI Cores on " + p.name + ", " +
                std::to_string(tiles) + " tiles)");
}

}  // namespace

std::vector<int64_t> encode(const CubeTiling& t) {
  return {kCube, kCubeVersion, t.batch, t.M, t.N, t.K, t.m_tile, t.n_tile, t.k_tile, t.k_l1, t.double_buffer ? 1 : 0, t.block_dim,
          static_cast<int64_t>(t.order), t.single_core_m, t.single_core_n, t.kl1_b(), t.single_core_k};
}

std::vector<int64_t> encode(const VectorTiling& t) {
  return {kVector, kVectorVersion, t.units, t.unit_elements, t.ub_bytes_per_unit, t.tile_units, t.double_buffer ? 1 : 0, t.block_dim};
}

CubeTiling decode_cube(const std::vector<int64_t>& v, const std::string& who) {
  static constexpr size_t kLength[] = {0, 12, 13, 15, 17};  // per version
  expect(v, kCube, v.size() >= 2 && v[1] >= 1 && v[1] <= kCubeVersion ? kLength[v[1]] : 0, who);
  CubeTiling t;
  t.batch = v[2], t.M = v[3], t.N = v[4], t.K = v[5];
  t.m_tile = v[6], t.n_tile = v[7], t.k_tile = v[8], t.k_l1 = v[9];
  if (v[10] != 0 && v[10] != 1) throw Error(who + ": tiling field double_buffer = " + std::to_string(v[10]) + " must be 0 or 1");
  t.double_buffer = v[10] == 1;
  t.block_dim = v[11];
  if (v.size() >= 13) {
    if (v[12] != 0 && v[12] != 1) throw Error(who + ": tiling field order = " + std::to_string(v[12]) + " must be 0 (MN) or 1 (NM)");
    t.order = static_cast<CubeOrder>(v[12]);
  }
  if (v.size() >= 15) t.single_core_m = v[13], t.single_core_n = v[14];
  if (v.size() >= 17) t.k_l1_b = v[15], t.single_core_k = v[16];
  return t;
}

VectorTiling decode_vector(const std::vector<int64_t>& v, const std::string& who) {
  expect(v, kVector, 8, who);
  VectorTiling t;
  t.units = v[2], t.unit_elements = v[3], t.ub_bytes_per_unit = v[4], t.tile_units = v[5];
  if (v[6] != 0 && v[6] != 1) throw Error(who + ": tiling field double_buffer = " + std::to_string(v[6]) + " must be 0 or 1");
  t.double_buffer = v[6] == 1;
  t.block_dim = v[7];
  return t;
}

void check(const CubeTiling& t, const Platform& p, const std::string& who) {
  positive(t.batch, "batch", who), positive(t.M, "M", who), positive(t.N, "N", who), positive(t.K, "K", who);
  positive(t.m_tile, "m_tile", who), positive(t.n_tile, "n_tile", who), positive(t.k_tile, "k_tile", who);
  positive(t.k_l1, "k_l1", who);
  if (t.k_l1_b < 0) positive(t.k_l1_b, "k_l1_b", who);
  for (auto [v, f] : {std::pair{t.m_tile, "m_tile"}, {t.n_tile, "n_tile"}, {t.k_tile, "k_tile"}})
    if (v % 16) throw Error(who + ": tiling field " + f + " = " + std::to_string(v) + " is not a multiple of 16 (one fractal)");
  if (t.k_l1 % t.k_tile)
    throw Error(who + ": tiling k_l1 = " + std::to_string(t.k_l1) + " is not a multiple of k_tile = " + std::to_string(t.k_tile));
  if (t.kl1_b() % t.k_tile)
    throw Error(who + ": tiling k_l1_b = " + std::to_string(t.kl1_b()) + " is not a multiple of k_tile = " + std::to_string(t.k_tile));
  if (t.k_l1 % t.kl1_b() && t.kl1_b() % t.k_l1)
    throw Error(who + ": tiling k_l1 = " + std::to_string(t.k_l1) + " (A) and k_l1_b = " + std::to_string(t.kl1_b()) +
                " (B) are not multiples of one another (CANN's stepKa / stepKb)");
  // 16 × 16 fp16 fractals are 512 B: every L0A / L0B tile is a whole number of fractals, hence aligned.
  fits(t.l0a_bytes(), p, "l0a", who);
  fits(t.l0b_bytes(), p, "l0b", who);
  fits(t.l0c_bytes(), p, "l0c", who);
  fits(t.l1_bytes(), p, "l1", who);
  if (t.single_core_k != 0 && (t.single_core_k < 0 || t.single_core_k % t.k_tile || t.single_core_k >= t.k16()))
    throw Error(who + ": tiling field single_core_k = " + std::to_string(t.single_core_k) + " is not a positive multiple of k_tile = " +
                std::to_string(t.k_tile) + " below K rounded up to 16 = " + std::to_string(t.k16()) + " (0 = all of K)");
  if (t.single_core_k != 0 && !t.blocked())
    throw Error(who + ": tiling splits K (single_core_k = " + std::to_string(t.single_core_k) +
                ") without a block partition (single_core_m, single_core_n)");
  block_dim_ok(t.block_dim, t.output_tiles() * t.blocks_k(), p, who);  // split-K: a core per K block too
  if (t.single_core_m == 0 && t.single_core_n == 0) return;  // round-robin
  auto block_field = [&](int64_t v, int64_t tile, int64_t extent, const char* f, const char* tf) {
    const int64_t limit = (extent + tile - 1) / tile * tile;
    if (v <= 0 || v % tile || v > limit)
      throw Error(who + ": tiling field " + f + " = " + std::to_string(v) + " is not a positive multiple of " + tf + " = " +
                  std::to_string(tile) + " up to " + std::to_string(limit) + " (0 and 0 = round-robin tiles)");
  };
  block_field(t.single_core_m, t.m_tile, t.M, "single_core_m", "m_tile");
  block_field(t.single_core_n, t.n_tile, t.N, "single_core_n", "n_tile");
  if (t.blocks() != t.block_dim)
    throw Error(who + ": tiling block partition " + std::to_string(t.single_core_m) + " x " + std::to_string(t.single_core_n) +
                (t.split_k() ? " x K " + std::to_string(t.single_core_k) : std::string()) + " cuts the output into " +
                std::to_string(t.blocks()) + " blocks (" + std::to_string(t.batch) + " batch x " + std::to_string(t.blocks_m()) +
                " x " + std::to_string(t.blocks_n()) + (t.split_k() ? " x " + std::to_string(t.blocks_k()) : std::string()) +
                ") but block_dim is " +
                std::to_string(t.block_dim) + ": every block needs its own AI Core and every core one block");
}

void check(const VectorTiling& t, const Platform& p, const std::string& who) {
  positive(t.units, "units", who), positive(t.unit_elements, "unit_elements", who);
  positive(t.ub_bytes_per_unit, "ub_bytes_per_unit", who), positive(t.tile_units, "tile_units", who);
  const int64_t align = p.get_int("alignment.ub");
  if ((t.tile_units * t.ub_bytes_per_unit) % align)
    throw Error(who + ": tiling UB tile of " + std::to_string(t.tile_units * t.ub_bytes_per_unit) + " bytes is not " +
                std::to_string(align) + "-byte aligned");
  fits(t.ub_bytes(), p, "ub", who);
  block_dim_ok(t.block_dim, t.tiles(), p, who);
}

}  // namespace ge::ascend
