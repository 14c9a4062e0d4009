// plugins/scheduler/registration.cc — the lists the registration macros fill.
#include "registration.h"

namespace ge::sched {

std::vector<OptionDecl> batch_split_options();  // batch_split.cc

std::vector<std::function<std::shared_ptr<Scheduler>()>>& scheduler_entries() {
  static std::vector<std::function<std::shared_ptr<Scheduler>()>> v;
  return v;
}
std::vector<std::function<std::shared_ptr<Pass>()>>& pass_entries() {
  static std::vector<std::function<std::shared_ptr<Pass>()>> v;
  return v;
}
void register_all(Registrar& r) {
  OptionDecl name{"scheduler.name", OptionType::String, std::string("sequential"), {}, {}, {},
                  "the scheduler (docs/scheduling.md): sequential, parallel, pipeline, auto, or a plugin's", OptionPhase::Compile, ""};
  r.declare_option(name);
  for (const OptionDecl& d : batch_split_options()) r.declare_option(d);
  for (auto& make : scheduler_entries()) r.add_scheduler(make());
  for (auto& make : pass_entries()) r.add_pass(make());
}

}  // namespace ge::sched
