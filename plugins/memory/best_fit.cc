// plugins/memory/best_fit.cc — the offset search the greedy planners share (Pisarchyk & Lee
// 2020, arXiv:2001.03288 §4.3, "offset calculation": best fit among lifetime-intersecting
// buffers).
#include <algorithm>
#include <limits>

#include "planners.h"

namespace ge::memory {

uint64_t best_fit_offset(const MemoryProblem& p, const std::vector<PlacedBuffer>& placed, uint64_t size, int i) {
  std::vector<const PlacedBuffer*> live;
  for (const PlacedBuffer& b : placed)
    if (buffers_conflict(p, b.index, i)) live.push_back(&b);
  std::sort(live.begin(), live.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  uint64_t prev_end = 0, best = std::numeric_limits<uint64_t>::max(), best_gap = best;
  for (const PlacedBuffer* b : live) {
    if (b->offset >= prev_end) {
      uint64_t gap = b->offset - prev_end;
      if (gap >= size && gap < best_gap) best_gap = gap, best = prev_end;
    }
    prev_end = std::max(prev_end, b->offset + b->size);
  }
  return best != std::numeric_limits<uint64_t>::max() ? best : prev_end;
}

ArenaPlan place_in_order(const MemoryProblem& p, const std::vector<int>& order, const std::string& name) {
  ArenaPlan plan;
  plan.planner = name;
  plan.offsets.assign(p.buffers.size(), 0);
  std::vector<PlacedBuffer> placed;
  placed.reserve(p.buffers.size());
  for (int i : order) {
    const BufferRequest& r = p.buffers[i];
    uint64_t size = align_up(r.bytes, p.alignment);
    uint64_t off = best_fit_offset(p, placed, size, i);
    plan.offsets[i] = off;
    placed.push_back({off, size, i});
    plan.arena_bytes = std::max(plan.arena_bytes, off + size);
  }
  return plan;
}

}  // namespace ge::memory
