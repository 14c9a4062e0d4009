// plugins/memory/registration.h — how this plugin's files register themselves (the fusion
// plugin's scheme: each file adds a factory; plugin.cc and the tests hand them to a registrar).
//
//   GE_MEMORY_PLANNER(make_naive_planner)
//   GE_MEMORY_PASS(PlanMemory)
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "ge/sdk/pass.h"
#include "ge/sdk/plugin.h"

namespace ge::memory {

std::vector<std::function<std::shared_ptr<MemoryPlanner>()>>& planner_entries();
std::vector<std::function<std::shared_ptr<Pass>()>>& pass_entries();
void register_all(Registrar& r);

struct AutoRegister {
  explicit AutoRegister(std::function<void()> f) { f(); }
};

}  // namespace ge::memory

#define GE_MEMORY_CONCAT2(a, b) a##b
#define GE_MEMORY_CONCAT(a, b) GE_MEMORY_CONCAT2(a, b)
#define GE_MEMORY_PLANNER(FACTORY)                                                      \
  static ::ge::memory::AutoRegister GE_MEMORY_CONCAT(ge_memory_reg_, __LINE__)(        \
      [] { ::ge::memory::planner_entries().push_back([] { return FACTORY(); }); })
#define GE_MEMORY_PASS(CLASS)                                                           \
  static ::ge::memory::AutoRegister GE_MEMORY_CONCAT(ge_memory_reg_, __LINE__)([] {    \
    ::ge::memory::pass_entries().push_back([] { return std::make_shared<CLASS>(); });  \
  })
