// Internal: the optimized graph to and from the plan header (protobuf), weights kept apart.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge_plan.pb.h"

namespace ge::core::plan_detail {

/// Fills the graph part of `h` (values, nodes, inputs, outputs, opsets, arena, kernel bindings
/// to `backend`) and appends each distinct constant's bytes to `weights`, 64-byte aligned.
void graph_to_header(const Graph& g, const std::string& backend, planfile::Header& h, std::vector<uint8_t>& weights);

/// Rebuilds the graph. Constants become views of [weights, weights + weights_size) held alive by
/// `keepalive`. Throws ge::Error (without the file name; the caller adds it) on anything
/// inconsistent: indices, dtypes, shapes, byte counts, offsets, arena bounds, node order.
std::shared_ptr<Graph> header_to_graph(const planfile::Header& h, const uint8_t* weights, uint64_t weights_size,
                                       const std::shared_ptr<void>& keepalive);

}  // namespace ge::core::plan_detail
