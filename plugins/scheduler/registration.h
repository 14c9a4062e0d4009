// plugins/scheduler/registration.h — how this plugin's files register themselves (the memory
// plugin's scheme: each file adds a factory; plugin.cc and the tests hand them to a registrar).
//
//   GE_SCHEDULER(SequentialScheduler)
//   GE_SCHEDULE_PASS(SchedulePass)
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "ge/sdk/pass.h"
#include "ge/sdk/plugin.h"
#include "ge/sdk/schedule.h"

namespace ge::sched {

std::vector<std::function<std::shared_ptr<Scheduler>()>>& scheduler_entries();
std::vector<std::function<std::shared_ptr<Pass>()>>& pass_entries();
void register_all(Registrar& r);

struct AutoRegister {
  explicit AutoRegister(std::function<void()> f) { f(); }
};

}  // namespace ge::sched

#define GE_SCHED_CONCAT2(a, b) a##b
#define GE_SCHED_CONCAT(a, b) GE_SCHED_CONCAT2(a, b)
#define GE_SCHEDULER(CLASS)                                                                  \
  static ::ge::sched::AutoRegister GE_SCHED_CONCAT(ge_sched_reg_, __LINE__)([] {            \
    ::ge::sched::scheduler_entries().push_back([] { return std::make_shared<CLASS>(); });   \
  })
#define GE_SCHEDULE_PASS(CLASS)                                                              \
  static ::ge::sched::AutoRegister GE_SCHED_CONCAT(ge_sched_reg_, __LINE__)([] {            \
    ::ge::sched::pass_entries().push_back([] { return std::make_shared<CLASS>(); });        \
  })
