// tests/memory/memory_env.h — environments of the default manifest with a chosen memory planner
// and level, and the combinations the tests sweep.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "ge/core/pipeline.h"

namespace ge::test {

inline std::unique_ptr<core::Environment> memory_env(const std::string& planner, const std::string& level) {
  core::Manifest m = core::load_manifest(core::default_manifest_path());
  core::apply_override(m, "memory.planner=\"" + planner + "\"");
  core::apply_override(m, "memory.level=\"" + level + "\"");
  return core::load_environment(m);
}

/// (planner, level): "none" ignores the planner (naive), so it appears once.
inline std::vector<std::pair<std::string, std::string>> memory_configs() {
  std::vector<std::pair<std::string, std::string>> c = {{"naive", "none"}};
  for (const char* level : {"basic", "aggressive"})
    for (const char* p : {"naive", "greedy_by_size", "greedy_by_breadth", "auto"}) c.emplace_back(p, level);
  return c;
}

/// Runs only plan_memory (after shape propagation) on a parsed graph.
inline core::CompileResult plan_only(Graph& g, core::Environment& env) {
  core::CompileOptions o;
  o.opt_level = OptLevel::O0;
  o.only = std::vector<std::string>{"plan_memory"};
  o.fail_on_pass_error = true;
  return core::compile_graph(g, env, o);
}

}  // namespace ge::test
