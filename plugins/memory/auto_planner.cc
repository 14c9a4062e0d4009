// plugins/memory/auto_planner.cc — `auto`: runs the other planners and keeps the smallest arena
// (no single greedy order wins on every graph; Pisarchyk & Lee 2020 §5 report the same).
#include "planners.h"
#include "registration.h"

namespace ge::memory {
namespace {

class AutoPlanner final : public MemoryPlanner {
 public:
  std::string name() const override { return "auto"; }
  ArenaPlan plan(const MemoryProblem& p) const override {
    ArenaPlan best;
    bool have = false;
    for (auto make : {make_greedy_by_size_planner, make_greedy_by_breadth_planner, make_naive_planner}) {
      ArenaPlan c = make()->plan(p);
      if (!have || c.arena_bytes < best.arena_bytes) best = std::move(c), have = true;
    }
    return best;  // planner names the winner, e.g. "greedy_by_size"
  }
};

}  // namespace

std::shared_ptr<MemoryPlanner> make_auto_planner() { return std::make_shared<AutoPlanner>(); }
GE_MEMORY_PLANNER(make_auto_planner);

}  // namespace ge::memory
