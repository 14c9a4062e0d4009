// ge/sdk/text_ir.h — the text form of the IR.
//
//   graph NAME opset(ai.onnx=13) {
//     input %x: f32[1,3,224,224]
//     const %w: f32[64,3,7,7]
//     %y: f32[1,64,112,112] = Conv(%x, %w) {group=1, pads=[3,3,3,3], strides=[2,2]}  # conv1
//     output %y
//   }
//
// One line per input, constant, node and output, in graph order. Omitted optional inputs print
// as `_`; values in a non-default format print the format after the shape (`f32[1,4,7,7,16]@NC1HWC0`).
#pragma once
#include <string>

#include "ge/sdk/ir.h"

namespace ge {

struct TextIrOptions {
  bool show_node_names = true;
  /// Print small constants' elements (at most this many) instead of only their type.
  int64_t max_const_elements = 0;
};

std::string print_graph(const Graph& g, const TextIrOptions& opts = {});

}  // namespace ge
