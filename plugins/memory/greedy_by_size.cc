// plugins/memory/greedy_by_size.cc — `greedy_by_size` (Pisarchyk & Lee 2020, arXiv:2001.03288
// §4.3, "Greedy by Size for Offset Calculation"): buffers by size, largest first, each at the
// best-fitting gap among the already-placed buffers whose lifetimes intersect its own.
#include <algorithm>
#include <numeric>

#include "planners.h"
#include "registration.h"

namespace ge::memory {
namespace {

class GreedyBySizePlanner final : public MemoryPlanner {
 public:
  std::string name() const override { return "greedy_by_size"; }
  ArenaPlan plan(const MemoryProblem& p) const override {
    std::vector<int> order(p.buffers.size());
    std::iota(order.begin(), order.end(), 0);
    // Ties by earlier definition keep the result independent of the buffers' listing order.
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const BufferRequest &x = p.buffers[a], &y = p.buffers[b];
      if (x.bytes != y.bytes) return x.bytes > y.bytes;
      return x.first_step < y.first_step;
    });
    return place_in_order(p, order, name());
  }
};

}  // namespace

std::shared_ptr<MemoryPlanner> make_greedy_by_size_planner() { return std::make_shared<GreedyBySizePlanner>(); }
GE_MEMORY_PLANNER(make_greedy_by_size_planner);

}  // namespace ge::memory
