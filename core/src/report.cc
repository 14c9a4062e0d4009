#include "ge/core/report.h"

namespace ge::core {

std::map<std::string, int64_t> fusion_counts(const CompileResult& r) {
  std::map<std::string, int64_t> out;
  for (auto& [k, v] : r.counters)
    if (k.rfind("fusion.", 0) == 0) out[k.substr(7)] = v;
  return out;
}

MemoryFigures memory_figures(const CompileResult& r) {
  MemoryFigures f;
  auto named = [&](const std::string& prefix) {
    std::string name;
    for (auto& [k, v] : r.counters)
      if (k.rfind(prefix, 0) == 0) name = k.substr(prefix.size());
    return name;
  };
  auto figure = [&](const std::string& key) -> std::optional<int64_t> {
    auto it = r.counters.find(key);
    if (it == r.counters.end()) return std::nullopt;
    return it->second;
  };
  f.planner = named("memory.planner.");
  f.level = named("memory.level.");
  f.arena_bytes = figure("memory.arena_bytes");
  f.lower_bound_bytes = figure("memory.lower_bound_bytes");
  f.no_reuse_bytes = figure("memory.no_reuse_bytes");
  f.part_views = figure("memory.part_views").value_or(0);
  f.pad_in_place = figure("memory.pad_in_place").value_or(0);
  f.concat_in_place = figure("memory.concat_in_place").value_or(0);
  return f;
}

}  // namespace ge::core
