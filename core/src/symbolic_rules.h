// Internal to libge_core: the per-op rules of the symbolic inference (symbolic.cc).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "ge/sdk/ir.h"

namespace ge::core::symbolic_detail {

using Dims = std::vector<DimExpr>;
/// What the rules read of the inference's state: the tracked value of a small integer value
/// (its elements as expressions, recorded when it was inferred), or nullptr.
using TrackedValue = std::function<const Dims*(const Value*)>;

/// The integer types (and Bool) a tracked value may have.
bool is_int_type(DataType t);
/// A tensor of integer type `dt` and `shape` holding `v`; throws ge::Error for another type.
Tensor int_tensor(DataType dt, const Shape& shape, const std::vector<int64_t>& v);

/// The value of a shape-computing op's output 0 (Shape, Size, Gather, Slice, Concat, Unsqueeze,
/// Squeeze, Reshape, Identity, Flatten, Cast, Neg, Add, Sub, Mul, Div, Mod, Max, Min, Equal,
/// Where) as element expressions, from its inputs' dims, tracked values and constant data;
/// nullopt where no rule applies.
std::optional<Dims> value_rule(const Node* n, int64_t opset, const TrackedValue& tracked);

/// The ONNX formulas for the spatial dims of output `out` (of rank `rank`) of Conv, ConvInteger,
/// MaxPool, AveragePool, LpPool, and of Resize / Upsample with constant scales: one entry per
/// axis (nullopt: no formula for that axis), or empty when the rule does not apply.
std::vector<std::optional<DimExpr>> spatial_rule(const Node* n, size_t out, size_t rank);

/// dtype and dims (-1 = a fresh symbol) of an output whose shape depends on run-time values, for
/// the ops whose rank does not (onnx/docs/Operators.md); nullopt for the others.
std::optional<std::pair<DataType, Dims>> data_dependent_type(const Node* n, size_t out);

}  // namespace ge::core::symbolic_detail
