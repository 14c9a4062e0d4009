// Edge cases of the simplify passes: opset-7 Dropout masks, shared links of a reshape chain,
// default Transpose perms, and CSE merges that cascade through readers.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pass_harness.h"

namespace {

class SimplifyEdges : public ::testing::Test {
 protected:
  ge::test::PassHarness h;

  /// Runs `pass` on `before`, checks the printed result and that outputs stay bitwise equal.
  void check(const std::string& pass, const std::string& before, const std::string& after) {
    std::unique_ptr<ge::Graph> g = h.parse(before);
    std::unique_ptr<ge::Graph> original = g->clone();
    h.run(*g, {pass}, ge::OptLevel::O1);
    EXPECT_EQ(ge::print_graph(*g, {.show_node_names = false, .max_const_elements = 8}), after);
    h.expect_same_outputs(*original, *g, 0);
  }
};

TEST_F(SimplifyEdges, Opset7DropoutMaskHasTheInputType) {
  check("remove_identity", R"(graph g opset(ai.onnx=7) {
  input %x: f32[2]
  %d: f32[2], %m: f32[2] = Dropout(%x)
  %y: f32[2] = Mul(%d, %m)
  output %y
})",
        R"(graph g opset(ai.onnx=7) {
  input %x: f32[2]
  const %m: f32[2] = [1,1]
  %y: f32[2] = Mul(%x, %m)
  output %y
}
)");
}

TEST_F(SimplifyEdges, MergeReshapesKeepsALinkOthersRead) {
  check("merge_reshapes", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,4]
  const %s: i64[1] = [24]
  %f: f32[2,12] = Flatten(%x) {axis=1}
  %r: f32[2,12] = Relu(%f)
  %y: f32[24] = Reshape(%f, %s)
  output %r
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,4]
  const %s: i64[1] = [24]
  %f: f32[2,12] = Flatten(%x) {axis=1}
  %r: f32[2,12] = Relu(%f)
  %y: f32[24] = Reshape(%x, %s)
  output %r
  output %y
}
)");
}

TEST_F(SimplifyEdges, TransposeWithoutPermReversesAxes) {
  // No perm: reversed axes, so rank 1 is a no-op and two rank-2 ones cancel.
  check("remove_noop", R"(graph g opset(ai.onnx=13) {
  input %x: f32[5]
  %t: f32[5] = Transpose(%x)
  %y: f32[5] = Relu(%t)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[5]
  %y: f32[5] = Relu(%x)
  output %y
}
)");
  check("merge_transposes", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  %a: f32[3,2] = Transpose(%x)
  %b: f32[2,3] = Transpose(%a)
  %y: f32[2,3] = Relu(%b)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  %y: f32[2,3] = Relu(%x)
  output %y
}
)");
}

TEST_F(SimplifyEdges, CseCascadesThroughReaders) {
  check("common_subexpression_elimination", R"(graph g opset(ai.onnx=13) {
  input %x: f32[4]
  %a1: f32[4] = Relu(%x)
  %a2: f32[4] = Relu(%x)
  %b1: f32[4] = Sigmoid(%a1)
  %b2: f32[4] = Sigmoid(%a2)
  %y: f32[4] = Add(%b1, %b2)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[4]
  %a1: f32[4] = Relu(%x)
  %b1: f32[4] = Sigmoid(%a1)
  %y: f32[4] = Add(%b1, %b1)
  output %y
}
)");
}

TEST_F(SimplifyEdges, CseComparesAttributesByValue) {
  // Equal attributes merge; a different float or a different list keeps both nodes.
  check("common_subexpression_elimination", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,2]
  %a1: f32[2,2] = LeakyRelu(%x) {alpha=0.5}
  %a2: f32[2,2] = LeakyRelu(%x) {alpha=0.5}
  %a3: f32[2,2] = LeakyRelu(%x) {alpha=0.25}
  %t1: f32[2,2] = Transpose(%x) {perm=[1,0]}
  %t2: f32[2,2] = Transpose(%x) {perm=[0,1]}
  %t3: f32[2,2] = Transpose(%x) {perm=[1,0]}
  %s1: f32[2,2] = Add(%a1, %a2)
  %s2: f32[2,2] = Add(%a3, %t1)
  %s3: f32[2,2] = Add(%t2, %t3)
  %y: f32[2,2] = Sum(%s1, %s2, %s3)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,2]
  %a1: f32[2,2] = LeakyRelu(%x) {alpha=0.5}
  %a3: f32[2,2] = LeakyRelu(%x) {alpha=0.25}
  %t1: f32[2,2] = Transpose(%x) {perm=[1,0]}
  %t2: f32[2,2] = Transpose(%x) {perm=[0,1]}
  %s1: f32[2,2] = Add(%a1, %a1)
  %s2: f32[2,2] = Add(%a3, %t1)
  %s3: f32[2,2] = Add(%t2, %t1)
  %y: f32[2,2] = Sum(%s1, %s2, %s3)
  output %y
}
)");
}

}  // namespace
