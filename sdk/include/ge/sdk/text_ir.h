// ge/sdk/text_ir.h — the text form of the IR.
//
//   graph NAME opset(ai.onnx=13) {
//     input %x: f32[1,3,224,224]
//     const %w: f32[64,3,7,7]
//     %y: f32[1,64,112,112] = Conv(%x, %w) {group=1, pads=[3,3,3,3], strides=[2,2]}  # conv1
//     output %y
//   }
//
// One line per input, constant, node and output, in graph order. Omitted optional inputs and
// outputs print as `_`; values in a non-default format print the format after the shape
// (`f32[1,4,7,7,16]@NC1HWC0`; ND and NCHW print none). A node in another domain prints as
// `ge.FusedConv(...)`. Names made only of letters, digits and `_.:/-+$'` print bare, others
// quoted (`%"a b"`). Attributes: 3, -1 (int); 1.5, 1.0, 1e-05, inf, nan (float: shortest exact
// form, integral values keep ".0"); "s" (string, C escapes); [1,2]; [0.5,1.0]; ["a","b"];
// tensor<f32[2]> (tensor: type only). Constants print `= [1,-1]` (exact) when they have at most
// TextIrOptions::max_const_elements elements.
#pragma once
#include <memory>
#include <string>

#include "ge/sdk/ir.h"

namespace ge {

struct TextIrOptions {
  bool show_node_names = true;
  /// Print small constants' elements (at most this many) instead of only their type.
  int64_t max_const_elements = 0;
};

std::string print_graph(const Graph& g, const TextIrOptions& opts = {});

/// Parses the text form back into a graph; print_graph(*parse_graph(print_graph(g))) equals
/// print_graph(g). Beyond what the printer emits, for hand-written tests:
///  - a value may be used on a line before the line that defines it (it must be defined by the
///    end of the text); blank lines and lines starting with `#` are skipped;
///  - `@ND` / `@NCHW` are accepted after a type;
///  - a `const` without `= [...]` is zero-filled, and so is a `tensor<...>` attribute (the
///    printer shows neither's contents); a text zero-fills at most 2^30 bytes in all (past
///    that, an error names the line and the byte count: a shape alone cannot ask for memory);
///  - an empty list `[]` is an ints attribute (its element type is not in the text); a list with
///    any float element is a floats attribute;
///  - a node line without `# name` gets a generated name. The name is the rest of the line, or a
///    quoted string (`# "name\r"`, the escapes of string attributes), as the printer writes a
///    name holding a control character or starting with '"' or a space.
/// The printer does not keep: data of produced values (compile-time folded contents), data of
/// constants that are also graph inputs, and the NCHW format (it reads back as ND).
/// Errors throw ge::InvalidGraphError "ORIGIN:LINE:COLUMN: what was expected or is wrong".
std::unique_ptr<Graph> parse_graph(const std::string& text, const std::string& origin = "<text>");

}  // namespace ge
