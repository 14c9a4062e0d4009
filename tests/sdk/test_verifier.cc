#include <gtest/gtest.h>

#include "ge/sdk/error.h"
#include "ge/sdk/verifier.h"

using namespace ge;

TEST(Verifier, AcceptsAValidGraph) {
  Graph g;
  Value* x = g.add_input("x", DataType::Float32, {4});
  Value* y = g.add_value("y", DataType::Float32, {4});
  g.add_node("Relu", "r", {x}, {y});
  g.mark_output(y);
  EXPECT_TRUE(verify_graph(g).empty());
}

TEST(Verifier, CatchesACycle) {
  Graph g;
  Value* x = g.add_input("x", DataType::Float32, {4});
  Value* a = g.add_value("a", DataType::Float32, {4});
  Value* b = g.add_value("b", DataType::Float32, {4});
  Node* n1 = g.add_node("Add", "n1", {x, x}, {a});
  g.add_node("Relu", "n2", {a}, {b});
  g.set_input(n1, 1, b);  // n1 reads n2's output: a → b → a
  g.mark_output(b);
  auto problems = verify_graph(g);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("cycle"), std::string::npos) << problems[0];
  EXPECT_THROW(verify_graph_or_throw(g), InvalidGraphError);
}

TEST(Verifier, CatchesADanglingInput) {
  Graph g;
  Value* x = g.add_input("x", DataType::Float32, {4});
  Value* ghost = g.add_value("ghost", DataType::Float32, {4});  // never produced
  Value* y = g.add_value("y", DataType::Float32, {4});
  g.add_node("Add", "add", {x, ghost}, {y});
  g.mark_output(y);
  auto problems = verify_graph(g);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "node 'add' (Add): input 'ghost' is never produced (dangling input)");
}

TEST(Verifier, CatchesAnUnproducedOutput) {
  Graph g;
  g.add_input("x", DataType::Float32, {4});
  g.mark_output(g.add_value("nothing", DataType::Float32, {4}));
  auto problems = verify_graph(g);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "graph output 'nothing' is never produced");
}

namespace {
/// A registry with Relu, whose output takes its input's dtype and shape.
void add_relu(OpRegistry& reg) {
  OpDef relu;
  relu.op_type = "Relu";
  relu.infer = [](InferContext& c) { c.set_output(0, c.input_type(0), c.input_shape(0)); };
  reg.add(relu);
}
}  // namespace

TEST(Verifier, ChecksShapesAgainstTheRegistry) {
  OpRegistry reg;
  add_relu(reg);
  Graph g;
  g.opsets[""] = 13;
  Value* x = g.add_input("x", DataType::Float32, {4});
  Value* y = g.add_value("y", DataType::Float32, {5});  // wrong
  g.add_node("Relu", "r", {x}, {y});
  g.mark_output(y);
  auto problems = verify_graph(g, &reg);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "node 'r' (Relu): output 'y' is recorded as f32[5] but the op infers f32[4]");
}

// verify_graph on a mutable graph re-infers in place and puts every output back; the const form
// checks a copy. Both report the same problem at the node whose outputs disagree with its
// recorded inputs — once, not again downstream.
TEST(Verifier, InPlaceCheckLeavesTheGraphAsItWasAndReportsOnlyTheNodeAtFault) {
  OpRegistry reg;
  add_relu(reg);
  OpDef shape;
  shape.op_type = "Shape";
  shape.infer = [](InferContext& c) {
    Tensor t = Tensor::allocate(DataType::Int64, {1});
    static_cast<int64_t*>(t.data())[0] = static_cast<int64_t>(c.input_shape(0).rank());
    c.set_output_data(0, std::move(t));
  };
  reg.add(shape);
  Graph g;
  g.opsets[""] = 13;
  Value* x = g.add_input("x", DataType::Float32, {4});
  Value* a = g.add_value("a", DataType::Float32, {5});  // wrong: Relu of f32[4]
  Value* b = g.add_value("b", DataType::Float32, {5});  // consistent with a as recorded
  Value* s = g.add_value("s", DataType::Int64, {1});    // no data recorded
  g.add_node("Relu", "r1", {x}, {a});
  g.add_node("Relu", "r2", {a}, {b});
  g.add_node("Shape", "sh", {b}, {s});
  g.mark_output(b);
  g.mark_output(s);
  const std::vector<std::string> want = {"node 'r1' (Relu): output 'a' is recorded as f32[5] but the op infers f32[4]"};
  EXPECT_EQ(verify_graph(static_cast<const Graph&>(g), &reg), want);
  EXPECT_EQ(verify_graph(g, &reg), want);
  EXPECT_EQ(a->shape, Shape({5}));
  EXPECT_EQ(b->shape, Shape({5}));
  EXPECT_EQ(s->data, nullptr) << "the Shape node's inferred contents were put back (none were recorded)";
  EXPECT_THROW(verify_graph_or_throw(g, &reg), InvalidGraphError);
  a->shape = Shape({4});
  b->shape = Shape({4});
  EXPECT_TRUE(verify_graph(g, &reg).empty());
  EXPECT_EQ(s->data, nullptr);
}
