#include <gtest/gtest.h>

#include "ge/sdk/text_ir.h"

using namespace ge;

TEST(TextIr, PrintsInputsConstantsNodesOutputs) {
  Graph g("tiny");
  g.opsets[""] = 13;
  Value* x = g.add_input("x", DataType::Float32, {1, 3, 8, 8});
  Value* w = g.add_constant("w", Tensor::allocate(DataType::Float32, {4, 3, 3, 3}));
  Value* y = g.add_value("y", DataType::Float32, {1, 4, 8, 8});
  Attributes a;
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  a.set("group", int64_t{1});
  g.add_node("Conv", "conv1", {x, w, nullptr}, {y}, a);
  g.mark_output(y);
  EXPECT_EQ(print_graph(g),
            "graph tiny opset(ai.onnx=13) {\n"
            "  input %x: f32[1,3,8,8]\n"
            "  const %w: f32[4,3,3,3]\n"
            "  %y: f32[1,4,8,8] = Conv(%x, %w, _) {group=1, pads=[1,1,1,1]}  # conv1\n"
            "  output %y\n"
            "}\n");
}

TEST(TextIr, ShowsBlockedFormatsAndSmallConstants) {
  Graph g("fmt");
  Tensor t = Tensor::allocate(DataType::Int64, {2});
  t.data_as<int64_t>()[0] = 1;
  t.data_as<int64_t>()[1] = -1;
  g.add_constant("shape", t);
  Value* x = g.add_input("x", DataType::Float32, {1, 1, 4, 4, 16});
  x->format = Format::NC1HWC0;
  TextIrOptions o;
  o.max_const_elements = 4;
  EXPECT_EQ(print_graph(g, o),
            "graph fmt {\n"
            "  input %x: f32[1,1,4,4,16]@NC1HWC0\n"
            "  const %shape: i64[2] = [1,-1]\n"
            "}\n");
}
