// plugins/memory/greedy_by_breadth.cc — `greedy_by_breadth` (Pisarchyk & Lee 2020,
// arXiv:2001.03288 §4.2, "Greedy by Breadth"): operators in decreasing breadth (the bytes of all
// tensors live at that step); at each, its still-unplaced tensors largest first, each at the
// best-fitting offset (§4.3's offset search, since GE plans one arena, not shared objects).
#include <algorithm>
#include <numeric>

#include "planners.h"
#include "registration.h"

namespace ge::memory {
namespace {

class GreedyByBreadthPlanner final : public MemoryPlanner {
 public:
  std::string name() const override { return "greedy_by_breadth"; }
  ArenaPlan plan(const MemoryProblem& p) const override {
    const int steps = std::max(p.num_steps, 1);
    std::vector<uint64_t> breadth(steps, 0);
    std::vector<std::vector<int>> live(steps);
    for (int i = 0; i < static_cast<int>(p.buffers.size()); ++i) {
      const BufferRequest& r = p.buffers[i];
      for (int s = std::max(r.first_step, 0); s <= std::min(r.last_step, steps - 1); ++s) {
        breadth[s] += align_up(r.bytes, p.alignment);
        live[s].push_back(i);
      }
    }
    std::vector<int> by_breadth(steps);
    std::iota(by_breadth.begin(), by_breadth.end(), 0);
    std::stable_sort(by_breadth.begin(), by_breadth.end(), [&](int a, int b) { return breadth[a] > breadth[b]; });
    std::vector<int> order;
    std::vector<bool> taken(p.buffers.size(), false);
    for (int s : by_breadth) {
      std::vector<int>& here = live[s];
      std::stable_sort(here.begin(), here.end(), [&](int a, int b) { return p.buffers[a].bytes > p.buffers[b].bytes; });
      for (int i : here)
        if (!taken[i]) taken[i] = true, order.push_back(i);
    }
    for (int i = 0; i < static_cast<int>(p.buffers.size()); ++i)  // lifetimes outside [0, steps)
      if (!taken[i]) order.push_back(i);
    return place_in_order(p, order, name());
  }
};

}  // namespace

std::shared_ptr<MemoryPlanner> make_greedy_by_breadth_planner() {
  return std::make_shared<GreedyByBreadthPlanner>();
}
GE_MEMORY_PLANNER(make_greedy_by_breadth_planner);

}  // namespace ge::memory
