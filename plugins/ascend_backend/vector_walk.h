// plugins/ascend_backend/vector_walk.h — how a Vector-unit kernel walks its work: on the AI Core
// tile by tile from the node's stored VectorTiling (verified at build, tiling_load.h), tile i on
// AI Core i mod block_dim (cores are independent: executing tiles in index order gives the same
// result as any interleaving); on the AI CPU (placed there by cost) in one pass. Operands are
// unpacked before and packed after the walk (tensor_io.h: the GM <-> UB moves are modelled
// whole); the arithmetic runs per tile.
#pragma once
#include <algorithm>
#include <optional>
#include <string>

#include "ge/sdk/kernel.h"
#include "tiling_load.h"

namespace ge::ascend {

class VectorWalk {
 public:
  VectorWalk(const KernelBuildContext& ctx, const std::string& platform_dir);

  bool aicore() const { return tiling_.has_value(); }
  const std::optional<VectorTiling>& tiling() const { return tiling_; }
  /// "aicore:vector:Op" or "aicpu:fp32:Op".
  std::string impl(const std::string& op) const { return (aicore() ? "aicore:vector:" : "aicpu:fp32:") + op; }

  /// Elementwise units (16 output elements of the output's storage): fn(i) for every logical
  /// output element i (row-major in the logical shape), tile by tile; NC1HWC0 channel padding is
  /// the device's work on zeros and has no logical element.
  template <class F>
  void elements(F&& fn) const {
    if (!aicore()) {
      for (int64_t i = 0; i < numel_; ++i) fn(i);
      return;
    }
    const VectorTiling& t = *tiling_;
    for (int64_t tile = 0; tile < t.tiles(); ++tile) {
      const int64_t s0 = tile * t.tile_units * t.unit_elements;
      const int64_t s1 = std::min(storage_numel_, s0 + t.tile_units * t.unit_elements);
      for (int64_t s = s0; s < s1; ++s) {
        const int64_t i = logical_of(s);
        if (i >= 0) fn(i);
      }
    }
  }

  /// Units the kernel defines (pools: output rows): fn(u) for u in [0, total), tile by tile.
  /// On the AI Core `total` must be the tiling's units (the load check recomputed them).
  template <class F>
  void units(int64_t total, F&& fn) const {
    const int64_t per = aicore() ? tiling_->tile_units : std::max<int64_t>(total, 1);
    for (int64_t u0 = 0; u0 < total; u0 += per)
      for (int64_t u = u0; u < std::min(total, u0 + per); ++u) fn(u);
  }

 private:
  /// Logical index of storage element s of the output (-1 for NC1HWC0 channel padding).
  int64_t logical_of(int64_t s) const;

  std::optional<VectorTiling> tiling_;
  bool nc1hwc0_ = false;
  int64_t numel_ = 0, storage_numel_ = 0;
  int64_t n_ = 1, c_ = 1, h_ = 1, w_ = 1;
};

}  // namespace ge::ascend
