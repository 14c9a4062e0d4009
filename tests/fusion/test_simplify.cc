// The simplify passes (plugins/fusion: remove_identity, constant_folding, merge_transposes,
// transpose_to_reshape, merge_reshapes, remove_noop, common_subexpression_elimination, dead_code_elimination): the
// graph before and after each pass, equal outputs on random inputs, and the cases they must leave
// alone (graph outputs, the fold size limit). test_simplify_models.cc runs them on the shared models.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ge/sdk/error.h"
#include "pass_harness.h"

namespace {

class Simplify : public ::testing::Test {
 protected:
  ge::test::PassHarness h;

  /// Runs `pass` on `before`; checks the printed result (constants of at most `max_const`
  /// elements show values) and that both graphs compute the same outputs (f32 constants random
  /// unless the test wrote them: `randomize` false).
  void check(const std::string& pass, const std::string& before, const std::string& after, int max_const = 8,
             bool randomize = true) {
    std::unique_ptr<ge::Graph> g = h.parse(before);
    if (randomize) ge::test::PassHarness::randomize_constants(*g);
    std::unique_ptr<ge::Graph> original = g->clone();
    h.run(*g, {pass}, ge::OptLevel::O1);
    EXPECT_EQ(ge::print_graph(*g, {.show_node_names = false, .max_const_elements = max_const}), after);
    h.expect_same_outputs(*original, *g, 0);
  }
};

TEST_F(Simplify, RemoveIdentityKeepsTheOneThatIsAGraphOutput) {
  check("remove_identity", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  %a: f32[2,3] = Identity(%x)
  %b: f32[2,3] = Relu(%a)
  %y: f32[2,3] = Identity(%b)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  %b: f32[2,3] = Relu(%x)
  %y: f32[2,3] = Identity(%b)
  output %y
}
)");
}

TEST_F(Simplify, RemoveIdentityTurnsDropoutMaskIntoAllTrueConstant) {
  check("remove_identity", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,2]
  %d: f32[2,2], %m: bool[2,2] = Dropout(%x)
  %y: f32[2,2] = Relu(%d)
  output %y
  output %m
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,2]
  const %m: bool[2,2] = [1,1,1,1]
  %y: f32[2,2] = Relu(%x)
  output %y
  output %m
}
)");
}

TEST_F(Simplify, RemoveIdentityMakesAnOutputDropoutAnIdentity) {
  check("remove_identity", R"(graph g opset(ai.onnx=13) {
  input %x: f32[4]
  %y: f32[4] = Dropout(%x)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[4]
  %y: f32[4] = Identity(%x)
  output %y
}
)");
}

TEST_F(Simplify, ConstantFoldingFoldsChainsAndGraphOutputs) {
  check("constant_folding", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  const %a: f32[2,3]
  const %b: f32[3]
  %c: f32[2,3] = Add(%a, %b)
  %d: f32[2,3] = Relu(%c)
  %y: f32[2,3] = Mul(%x, %d)
  %z: f32[3] = Sigmoid(%b)
  output %y
  output %z
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  const %d: f32[2,3]
  const %z: f32[3]
  %y: f32[2,3] = Mul(%x, %d)
  output %y
  output %z
}
)",
        0);
}

TEST_F(Simplify, ConstantFoldingRemovesShapeSubgraphs) {
  check("constant_folding", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,4]
  const %zero: i64[] = [0]
  const %axes: i64[1] = [0]
  const %rest: i64[1] = [-1]
  %s: i64[3] = Shape(%x)
  %n: i64[] = Gather(%s, %zero) {axis=0}
  %u: i64[1] = Unsqueeze(%n, %axes)
  %shape: i64[2] = Concat(%u, %rest) {axis=0}
  %y: f32[2,12] = Reshape(%x, %shape)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,4]
  const %shape: i64[2] = [2,-1]
  %y: f32[2,12] = Reshape(%x, %shape)
  output %y
}
)");
}

TEST_F(Simplify, ConstantFoldingRespectsTheManifestSizeLimit) {
  // 24-byte results stay, 12-byte ones fold, with simplify.fold_limit_bytes = 16.
  h.env().manifest.sections["simplify"]["fold_limit_bytes"] = {"16", "test"};
  check("constant_folding", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  const %a: f32[2,3]
  const %b: f32[3]
  %big: f32[2,3] = Relu(%a)
  %small: f32[3] = Relu(%b)
  %p: f32[2,3] = Mul(%x, %big)
  %y: f32[2,3] = Add(%p, %small)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  const %a: f32[2,3]
  const %small: f32[3]
  %big: f32[2,3] = Relu(%a)
  %p: f32[2,3] = Mul(%x, %big)
  %y: f32[2,3] = Add(%p, %small)
  output %y
}
)",
        0);
}

TEST_F(Simplify, ConstantFoldingRefusesABadLimit) {
  h.env().manifest.sections["simplify"]["fold_limit_bytes"] = {"\"big\"", "test"};
  auto g = h.parse("graph g opset(ai.onnx=13) {\n input %x: f32[2]\n %y: f32[2] = Relu(%x)\n output %y\n}");
  EXPECT_THROW(h.run(*g, {"constant_folding"}, ge::OptLevel::O1), ge::Error);
}

TEST_F(Simplify, MergeTransposesComposesPerms) {
  // [1,2,0] then [1,0,2] = [2,1,0]; [1,2,0] then [2,0,1] = identity.
  check("merge_transposes", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,4]
  %t1: f32[3,4,2] = Transpose(%x) {perm=[1,2,0]}
  %t2: f32[4,3,2] = Transpose(%t1) {perm=[1,0,2]}
  %t3: f32[2,3,4] = Transpose(%t1) {perm=[2,0,1]}
  %r: f32[2,3,4] = Relu(%t3)
  output %t2
  output %r
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,4]
  %t2: f32[4,3,2] = Transpose(%x) {perm=[2,1,0]}
  %r: f32[2,3,4] = Relu(%x)
  output %t2
  output %r
}
)");
}

// [1,197,768] -> [197,1,768] (perm [1,0,2]) and [2,1,3,1] -> [2,1,1,3] keep the order of the
// axes longer than 1: Reshapes. [2,3,1] perm [1,0,2] swaps two long axes: stays. A Transpose
// writing a graph output stays (the output keeps its node). The replacement nodes are appended
// and the list sorted topologically again, hence the order.
TEST_F(Simplify, TransposeMovingOnlyUnitAxesBecomesReshape) {
  check("transpose_to_reshape", R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,197,8]
  input %z: f32[2,1,3,1]
  input %w: f32[2,3,1]
  %t: f32[197,1,8] = Transpose(%x) {perm=[1,0,2]}
  %a: f32[197,1,8] = Relu(%t)
  %u: f32[2,1,1,3] = Transpose(%z) {perm=[0,3,1,2]}
  %b: f32[2,1,1,3] = Relu(%u)
  %v: f32[3,2,1] = Transpose(%w) {perm=[1,0,2]}
  %c: f32[3,2,1] = Relu(%v)
  %o: f32[197,1,8] = Transpose(%x) {perm=[1,0,2]}
  output %a
  output %b
  output %c
  output %o
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,197,8]
  input %z: f32[2,1,3,1]
  input %w: f32[2,3,1]
  const %t_shape: i64[3] = [197,1,8]
  const %u_shape: i64[4] = [2,1,1,3]
  %u: f32[2,1,1,3] = Reshape(%z, %u_shape)
  %t: f32[197,1,8] = Reshape(%x, %t_shape)
  %o: f32[197,1,8] = Transpose(%x) {perm=[1,0,2]}
  %v: f32[3,2,1] = Transpose(%w) {perm=[1,0,2]}
  %c: f32[3,2,1] = Relu(%v)
  %b: f32[2,1,1,3] = Relu(%u)
  %a: f32[197,1,8] = Relu(%t)
  output %a
  output %b
  output %c
  output %o
}
)");
}

TEST_F(Simplify, MergeTransposesKeepsAnIdentityOutputAsIdentity) {
  check("merge_transposes", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  %t1: f32[3,2] = Transpose(%x)
  %y: f32[2,3] = Transpose(%t1) {perm=[1,0]}
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  %y: f32[2,3] = Identity(%x)
  output %y
}
)");
}

TEST_F(Simplify, MergeReshapesMakesOneReshape) {
  check("merge_reshapes", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,4]
  const %axes: i64[1] = [0]
  const %s: i64[2] = [4,6]
  %f: f32[2,12] = Flatten(%x) {axis=1}
  %u: f32[1,2,12] = Unsqueeze(%f, %axes)
  %y: f32[4,6] = Reshape(%u, %s)
  %q: f32[2,12] = Squeeze(%u, %axes)
  output %y
  output %q
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,4]
  const %s: i64[2] = [4,6]
  const %q_shape: i64[2] = [2,12]
  %y: f32[4,6] = Reshape(%x, %s)
  %q: f32[2,12] = Reshape(%x, %q_shape)
  output %y
  output %q
}
)");
}

TEST_F(Simplify, RemoveNoopBypassesButKeepsGraphOutputs) {
  check("remove_noop", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  const %s: i64[2] = [2,3]
  %r: f32[2,3] = Reshape(%x, %s)
  %t: f32[2,3] = Transpose(%r) {perm=[0,1]}
  %c: f32[2,3] = Concat(%t) {axis=0}
  %a: f32[2,3] = Relu(%c)
  %y: f32[2,3] = Reshape(%a, %s)
  output %y
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  const %s: i64[2] = [2,3]
  %a: f32[2,3] = Relu(%x)
  %y: f32[2,3] = Reshape(%a, %s)
  output %y
}
)");
}

TEST_F(Simplify, CseMergesNodesAndConstants) {
  check("common_subexpression_elimination", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  const %k1: f32[3] = [1.0,2.0,3.0]
  const %k2: f32[3] = [1.0,2.0,3.0]
  %a: f32[2,3] = Add(%x, %k1)
  %b: f32[2,3] = Add(%x, %k2)
  %ra: f32[2,3] = Relu(%a)
  %rb: f32[2,3] = Relu(%b)
  %y: f32[2,3] = Mul(%ra, %rb)
  %o1: f32[2,3] = Sigmoid(%x)
  %o2: f32[2,3] = Sigmoid(%x)
  output %y
  output %o1
  output %o2
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  const %k1: f32[3] = [1,2,3]
  %a: f32[2,3] = Add(%x, %k1)
  %ra: f32[2,3] = Relu(%a)
  %y: f32[2,3] = Mul(%ra, %ra)
  %o1: f32[2,3] = Sigmoid(%x)
  %o2: f32[2,3] = Sigmoid(%x)
  output %y
  output %o1
  output %o2
}
)",
        8, false);
}

TEST_F(Simplify, DceRemovesDeadChainsAndUnusedConstants) {
  check("dead_code_elimination", R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  input %unused: f32[1]
  const %k: f32[3]
  const %dead_k: f32[3]
  %d1: f32[2,3] = Add(%x, %dead_k)
  %d2: f32[2,3] = Relu(%d1)
  %y: f32[2,3] = Add(%x, %k)
  %z: f32[2,3] = Relu(%x)
  output %y
  output %z
})",
        R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  input %unused: f32[1]
  const %k: f32[3]
  %y: f32[2,3] = Add(%x, %k)
  %z: f32[2,3] = Relu(%x)
  output %y
  output %z
}
)",
        0);
}

}  // namespace
