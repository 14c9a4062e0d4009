// Internal to libge_core: the candidate fitting of the symbolic inference (symbolic.cc).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ge/core/dynamic.h"
#include "ge/sdk/ir.h"
#include "symbolic_rules.h"

namespace ge::core::symbolic_detail {

/// Probe bindings: K assignments of every symbol to values in [7, 97) that are unrelated from
/// symbol to symbol (a fixed integer hash), so that no affine relation between two symbols holds
/// at every probe by chance. Small enough for models whose dims have an upper bound of their own
/// (a learned position table of 128 rows), large enough for five stride-2 stages.
/// Probe families (see Engine::infer): 0 = any values in [7, 97); 1 = multiples of 32 in
/// [96, 512); 2 = multiples of 256 in [4096, 12288) (a 1-D audio net's long strided input).
constexpr int kProbeFamilies = 3;
std::vector<Binding> probes(const std::set<std::string>& symbols, size_t k, int family);
/// The values of probe family 1 or 2, in words (for the constraint a node is reported with).
std::string family_text(int family);

using Candidates = std::vector<DimExpr>;
/// Expressions an output dim may be (up to an affine map): the inputs' dims, the elements of
/// their tracked values, products of consecutive dims, and per-axis sums over the inputs.
Candidates candidates(const Node* n, const TrackedValue& tracked);

/// Whether `e` is obs[j] at every binding bs[j] (false where it cannot be evaluated).
bool matches(const DimExpr& e, const std::vector<Binding>& bs, const std::vector<int64_t>& obs);

/// The expression an output dim observed as obs[j] at bs[j] is, in this order of preference: a
/// constant, a candidate, a*c + b for a candidate c, (a*c + b) / k; nullopt when none fits.
std::optional<DimExpr> fit(const Candidates& cands, const std::vector<Binding>& bs, const std::vector<int64_t>& obs);

}  // namespace ge::core::symbolic_detail
