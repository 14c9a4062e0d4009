// plugins/memory/naive.cc — `naive`: no reuse, offsets are a prefix sum of the aligned sizes.
// The baseline ("memory before") and the plan for level "none".
#include "planners.h"
#include "registration.h"

namespace ge::memory {
namespace {

class NaivePlanner final : public MemoryPlanner {
 public:
  std::string name() const override { return "naive"; }
  ArenaPlan plan(const MemoryProblem& p) const override {
    ArenaPlan plan;
    plan.planner = name();
    for (const BufferRequest& r : p.buffers) {
      plan.offsets.push_back(plan.arena_bytes);
      plan.arena_bytes += align_up(r.bytes, p.alignment);
    }
    return plan;
  }
};

}  // namespace

std::shared_ptr<MemoryPlanner> make_naive_planner() { return std::make_shared<NaivePlanner>(); }
GE_MEMORY_PLANNER(make_naive_planner);

}  // namespace ge::memory
