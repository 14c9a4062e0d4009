// ge/sdk/layout.h — format conversion (TransData's semantics) and backend format preferences.
//
// Formats and the shape convention are defined in types.h (Value::shape is the logical NCHW /
// OIHW shape, Value::format the physical layout). docs/layout.md describes the layout pass that
// uses the preferences below.
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/tensor.h"

namespace ge {

/// True when convert_format supports src -> dst: identity, NCHW/ND <-> NC1HWC0 / NC1HWC0_C04 and
/// NCHW/ND <-> a weight format (FRACTAL_Z, FRACTAL_Z_C04, OIhw16i16o, Ohwi16o, Goihw16g), for rank-4 logical
/// shapes; ND/NCHW <-> FRACTAL_NZ for rank >= 2. Two blocked formats convert through NCHW (two
/// TransData / two calls).
bool can_convert_format(Format src, Format dst, size_t rank);

/// Copies `src` into `dst`, which has the same dtype and logical shape and is already allocated
/// in its own format (dst.nbytes() bytes). Elements move per the index formulas of types.h;
/// padding elements of a blocked dst are written as zeros. Any dtype (elements are moved as
/// dtype_size(dtype) bytes). Throws ge::UnsupportedError naming both formats when
/// !can_convert_format, ge::InvalidGraphError when dtypes or shapes differ.
void convert_format_into(const Tensor& src, Tensor& dst);

/// A new tensor holding `src` in format `dst` (see convert_format_into).
Tensor convert_format(const Tensor& src, Format dst);

/// What a backend's kernel for one node accepts (answer of a FormatPreferenceFn).
struct NodeFormats {
  /// Format each input slot must have (inputs.size() == node.num_inputs()); ND or NCHW = plain.
  /// A constant input asked in another format is converted at compile time (no TransData).
  std::vector<Format> inputs;
  /// Format each output will have when the inputs are as asked.
  std::vector<Format> outputs;
  /// false: an anchor — a compute-heavy op (Conv, pooling) worth converting its inputs for.
  /// true: layout-agnostic (elementwise): the pass runs it blocked only when that removes a
  /// TransData (its blocked inputs arrive from conversions it can absorb), never converts for it.
  bool follows = false;
};

/// A backend's answer for one node: the formats its kernel can run in when blocked layouts are
/// wanted, or std::nullopt when its kernel takes plain layouts only. Called by the layout pass
/// with the node's current (plain) value formats and static shapes.
using FormatPreferenceFn = std::function<std::optional<NodeFormats>(const Node& node)>;

}  // namespace ge
