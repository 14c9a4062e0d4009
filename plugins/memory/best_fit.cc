// plugins/memory/best_fit.cc — the offset search the greedy planners share (Pisarchyk & Lee
// 2020, arXiv:2001.03288 §4.3, "offset calculation": best fit among lifetime-intersecting
// buffers).
//
// Scanning every placed buffer for each new one is quadratic in the graph's size; the placed
// buffers are indexed instead, so each placement costs O(log n + k log k) for the k placed
// buffers it conflicts with (the buffers the best-fit search must look at anyway):
// - one stream: the placed buffers intersecting [first, last] are those live at `first` (a
//   stabbing query on a segment tree over the steps, each interval stored at its O(log n)
//   canonical nodes; de Berg et al., "Computational Geometry", 3rd ed., §10.3) and those
//   defined in (first, last] (an ordered set by definition step);
// - several streams: the problem's conflict list of the buffer, filtered by "placed".
#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include "planners.h"

namespace ge::memory {
namespace {

/// Best fit among `live` (the placed buffers that conflict with the new one): the smallest gap
/// between them that holds `size`, else just above the highest. Sizes and offsets are multiples
/// of the alignment, so the result is too.
uint64_t lowest_fit(std::vector<const PlacedBuffer*>& live, uint64_t size) {
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

/// The placed buffers of a one-stream problem, by lifetime.
class IntervalIndex {
 public:
  IntervalIndex(int lo, int hi) : lo_(lo) {
    const size_t n = static_cast<size_t>(hi - lo + 1);
    while (leaves_ < n) leaves_ *= 2;
    tree_.resize(2 * leaves_);
  }
  void insert(int first, int last, int placed) {
    // Bottom-up segment tree: the canonical nodes covering leaves [first, last].
    for (size_t l = leaf(first), r = leaf(last) + 1; l < r; l /= 2, r /= 2) {
      if (l & 1) tree_[l++].push_back(placed);
      if (r & 1) tree_[--r].push_back(placed);
    }
    by_first_.emplace(first, placed);
  }
  /// Appends the placed buffers whose lifetimes intersect [first, last].
  void intersecting(int first, int last, std::vector<int>& out) const {
    for (size_t v = leaf(first); v >= 1; v /= 2) out.insert(out.end(), tree_[v].begin(), tree_[v].end());
    for (auto it = by_first_.upper_bound({first, std::numeric_limits<int>::max()});
         it != by_first_.end() && it->first <= last; ++it)
      out.push_back(it->second);
  }

 private:
  size_t leaf(int step) const { return leaves_ + static_cast<size_t>(step - lo_); }
  int lo_;
  size_t leaves_ = 1;
  std::vector<std::vector<int>> tree_;
  std::set<std::pair<int, int>> by_first_;  // (first_step, placed index)
};

}  // namespace

ArenaPlan place_in_order(const MemoryProblem& p, const std::vector<int>& order, const std::string& name) {
  ArenaPlan plan;
  plan.planner = name;
  plan.offsets.assign(p.buffers.size(), 0);
  std::vector<PlacedBuffer> placed;
  placed.reserve(p.buffers.size());
  const bool by_lifetime = p.conflicts.empty();
  int lo = 0, hi = 0;
  for (const BufferRequest& r : p.buffers) {
    lo = std::min({lo, r.first_step, r.last_step});
    hi = std::max({hi, r.first_step, r.last_step});
  }
  IntervalIndex index(lo, by_lifetime ? hi : lo);
  std::vector<int> slot(p.buffers.size(), -1);  // buffer → its position in `placed`
  std::vector<int> hits;
  std::vector<const PlacedBuffer*> live;
  for (int i : order) {
    const BufferRequest& r = p.buffers[i];
    const uint64_t size = align_up(r.bytes, p.alignment);
    hits.clear();
    live.clear();
    if (by_lifetime) {
      // An interval [first, last] with last < first (never read) still occupies its step.
      const int first = std::min(r.first_step, r.last_step), last = std::max(r.first_step, r.last_step);
      index.intersecting(first, last, hits);
      for (int h : hits) {
        const PlacedBuffer& b = placed[static_cast<size_t>(h)];
        if (buffers_conflict(p, b.index, i)) live.push_back(&b);  // exact for last < first too
      }
    } else {
      for (int c : p.conflicts[static_cast<size_t>(i)])
        if (slot[static_cast<size_t>(c)] >= 0) live.push_back(&placed[static_cast<size_t>(slot[static_cast<size_t>(c)])]);
    }
    const uint64_t off = lowest_fit(live, size);
    plan.offsets[i] = off;
    slot[static_cast<size_t>(i)] = static_cast<int>(placed.size());
    placed.push_back({off, size, i});
    if (by_lifetime)
      index.insert(std::min(r.first_step, r.last_step), std::max(r.first_step, r.last_step), slot[static_cast<size_t>(i)]);
    plan.arena_bytes = std::max(plan.arena_bytes, off + size);
  }
  return plan;
}

}  // namespace ge::memory
