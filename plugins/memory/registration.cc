// plugins/memory/registration.cc — the lists the registration macros fill.
#include "registration.h"

namespace ge::memory {

std::vector<std::function<std::shared_ptr<MemoryPlanner>()>>& planner_entries() {
  static std::vector<std::function<std::shared_ptr<MemoryPlanner>()>> v;
  return v;
}
std::vector<std::function<std::shared_ptr<Pass>()>>& pass_entries() {
  static std::vector<std::function<std::shared_ptr<Pass>()>> v;
  return v;
}
std::vector<OptionDecl> memory_options();  // plan_memory.cc

void register_all(Registrar& r) {
  for (OptionDecl& d : memory_options()) r.declare_option(std::move(d));
  for (auto& make : planner_entries()) r.add_memory_planner(make());
  for (auto& make : pass_entries()) r.add_pass(make());
}

}  // namespace ge::memory
