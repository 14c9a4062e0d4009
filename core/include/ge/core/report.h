// ge/core/report.h — the figures of a compilation that reports show (docs/report.md): fusion
// counts and the memory stage's arena figures, read from CompileResult::counters. `gec`'s report
// and the Python module (python/) both take them from here, so they always agree.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ge/core/pipeline.h"

namespace ge::core {

/// Applications per fusion rule: counters "fusion.<rule>" → { rule: count }.
std::map<std::string, int64_t> fusion_counts(const CompileResult& r);

/// The memory stage's figures (bytes; absent when no memory pass ran): counters
/// "memory.arena_bytes", "memory.lower_bound_bytes", "memory.no_reuse_bytes", and the planner and
/// level names that travel as counters "memory.planner.<name>" / "memory.level.<name>".
struct MemoryFigures {
  std::string planner, level;  ///< "" when not reported
  std::optional<int64_t> arena_bytes, lower_bound_bytes, no_reuse_bytes;
  /// Copies the plan makes unnecessary: Split/Slice outputs placed inside their input, Pad
  /// and Concat inputs written into their output ("memory.part_views", "memory.pad_in_place",
  /// "memory.concat_in_place"; 0 if none).
  int64_t part_views = 0, pad_in_place = 0, concat_in_place = 0;
};
MemoryFigures memory_figures(const CompileResult& r);

}  // namespace ge::core
