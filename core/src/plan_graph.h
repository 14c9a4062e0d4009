// Internal: the optimized graph to and from the plan header (protobuf), weights kept apart.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge_plan.pb.h"

namespace ge::core {
class Environment;
}

namespace ge::core::plan_detail {

/// Fills the graph part of `h` (values, nodes, inputs, outputs, opsets, arena, kernel bindings
/// to `backend`) and appends each distinct constant's bytes to `weights`, 64-byte aligned.
/// With `dedupe` (several graphs into one weights section: the gears of a dynamic plan), a
/// constant whose bytes are already stored (same XXH3-64 and byte-equal) points at them instead.
struct WeightDedupe {
  std::unordered_multimap<uint64_t, std::pair<uint64_t, uint64_t>> stored;  // hash → (offset, size)
  uint64_t saved_bytes = 0;
};
/// Appends n bytes at the next aligned offset of `weights` and returns it; with `dedupe`, the
/// offset of byte-equal bytes stored before instead (XXH3-64, then compared).
uint64_t store_weight_bytes(const uint8_t* p, uint64_t n, std::vector<uint8_t>& weights, WeightDedupe* dedupe);
void graph_to_header(const Graph& g, const std::string& backend, planfile::Header& h, std::vector<uint8_t>& weights,
                     WeightDedupe* dedupe = nullptr);

/// Rebuilds the graph. Constants become views of [weights, weights + weights_size) held alive by
/// `keepalive`. Throws ge::Error (without the file name; the caller adds it) on anything
/// inconsistent: indices, dtypes, shapes, byte counts, offsets, arena bounds, node order.
std::shared_ptr<Graph> header_to_graph(const planfile::Header& h, const uint8_t* weights, uint64_t weights_size,
                                       const std::shared_ptr<void>& keepalive);

/// Re-checks what the compiler guarantees and the runtime relies on (plan_invariants.cc): each
/// node's required operands are present and none exceeds its definition; operands share arena
/// bytes only as views, in-place outputs or in-place Concat inputs. Throws ge::Error.
void check_invariants(const Graph& g, const Environment& env);

// ---- backend sections (plan_sections.cc; ge/sdk/plan_section.h)

/// Appends to `h.sections` the bytes of every plan section `env` registered for `backend`,
/// written for `g`; `h` already holds the graph (its values give the weights ranges).
/// Throws ge::Error naming the section when its writer fails.
void write_sections(const Graph& g, const Environment& env, const std::string& backend, planfile::Header& h,
                    uint64_t weights_bytes);
/// Validates every section of `h` against the loaded graph `g`. Throws ge::Error (without the
/// file name) for a section no plugin of `env` registered, a section registered for the plan's
/// backend that the plan lacks, a duplicated section, or the validator's refusal.
void validate_sections(const Graph& g, const Environment& env, const planfile::Header& h, uint64_t weights_bytes);

}  // namespace ge::core::plan_detail
