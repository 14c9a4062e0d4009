// tests/fusion/test_split_concat.cc — the split_concat rule (plugins/fusion/split_concat.cc):
// text IR before and after, equal outputs, negatives; and the Split op (registry + CPU kernel).
#include "pass_harness.h"

namespace ge {
namespace {

using test::PassHarness;
const TextIrOptions kNoNames{.show_node_names = false};

const char* kSplitConcat = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,6,3]
  const %parts: i64[3] = [1,2,3]
  %a: f32[2,1,3], %b: f32[2,2,3], %c: f32[2,3,3] = Split(%x, %parts) {axis=1}
  %y: f32[2,6,3] = Concat(%a, %b, %c) {axis=-2}
  %z: f32[2,6,3] = Relu(%y)
  output %z
}
)";

TEST(SplitConcat, SplitThenConcatInOrderIsRemoved) {
  PassHarness h;
  auto g = h.parse(kSplitConcat);
  auto before = g->clone();
  h.run(*g, {"split_concat"});
  EXPECT_EQ(print_graph(*g, kNoNames), R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,6,3]
  const %parts: i64[3]
  %z: f32[2,6,3] = Relu(%x)
  output %z
}
)");
  h.expect_same_outputs(*before, *g, 0.0);
}

TEST(SplitConcat, PiecesOutOfOrderAreKept) {
  PassHarness h;
  // Pieces reordered: not the identity, so nothing changes.
  std::string text = kSplitConcat;
  text.replace(text.find("Concat(%a, %b, %c)"), 18, "Concat(%b, %a, %c)");
  auto g = h.parse(text);
  const std::string before = print_graph(*g, kNoNames);
  h.run(*g, {"split_concat"});
  EXPECT_EQ(print_graph(*g, kNoNames), before);
}

TEST(SplitConcat, ConcatGraphOutputIsKept) {
  PassHarness h;
  std::string text = kSplitConcat;
  text.replace(text.find("  output %z"), 0, "  output %y\n");
  auto g = h.parse(text);
  h.run(*g, {"split_concat"});
  EXPECT_NE(print_graph(*g, kNoNames).find("Concat("), std::string::npos);
}

TEST(SplitConcat, PiecesWithOtherReadersKeepTheSplit) {
  PassHarness h;
  std::string text = kSplitConcat;
  text.replace(text.find("  output %z"), 0, "  %w: f32[2,1,3] = Sigmoid(%a)\n  output %w\n");
  auto g = h.parse(text);
  auto before = g->clone();
  h.run(*g, {"split_concat"});
  const std::string after = print_graph(*g, kNoNames);
  EXPECT_EQ(after.find("Concat("), std::string::npos) << after;
  EXPECT_NE(after.find("Split("), std::string::npos) << after;
  EXPECT_NE(after.find("Relu(%x)"), std::string::npos) << after;
  h.expect_same_outputs(*before, *g, 0.0);
}

const char* kNested = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  input %y: f32[2,4]
  input %z: f32[2,5]
  %i: f32[2,7] = Concat(%x, %y) {axis=1}
  %o: f32[2,12] = Concat(%z, %i) {axis=-1}
  output %o
}
)";

TEST(SplitConcat, NestedConcatOnOneAxisMerges) {
  PassHarness h;
  auto g = h.parse(kNested);
  auto before = g->clone();
  h.run(*g, {"split_concat"});
  EXPECT_EQ(print_graph(*g, kNoNames), R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  input %y: f32[2,4]
  input %z: f32[2,5]
  %o: f32[2,12] = Concat(%z, %x, %y) {axis=-1}
  output %o
}
)");
  h.expect_same_outputs(*before, *g, 0.0);
}

TEST(SplitConcat, NestedConcatNegatives) {
  PassHarness h;
  // Inner result is also a graph output; then: inner has a second reader; then: disabled.
  std::string shared = kNested;
  shared.replace(shared.find("  output %o"), 0, "  output %i\n");
  std::string second = kNested;
  second.replace(second.find("  output %o"), 0, "  %r: f32[2,7] = Relu(%i)\n  output %r\n");
  for (const std::string& text : {shared, second}) {
    auto g = h.parse(text);
    const std::string before = print_graph(*g, kNoNames);
    h.run(*g, {"split_concat"});
    EXPECT_EQ(print_graph(*g, kNoNames), before);
  }
  auto g = h.parse(kNested);
  core::CompileOptions o;
  o.disabled = {"split_concat"};
  o.fail_on_pass_error = true;
  core::compile_graph(*g, h.env(), o);
  size_t concats = 0;
  for (const Node* n : g->nodes()) concats += n->op_type() == "Concat";
  EXPECT_EQ(concats, 2u);
}

TEST(SplitConcat, SplitKernelMatchesSlices) {
  PassHarness h;
  auto g = h.parse(R"(graph g opset(ai.onnx=11) {
  input %x: f32[2,5,3]
  %a: f32[2,5,1], %b: f32[2,5,2] = Split(%x) {axis=-1, split=[1,2]}
  output %a
  output %b
}
)");
  auto in = PassHarness::random_inputs(*g);
  auto out = h.execute(std::shared_ptr<const Graph>(g->clone()), in);
  ASSERT_EQ(out.size(), 2u);
  const float* x = in[0].data_as<float>();
  for (int64_t r = 0; r < 10; ++r) {
    EXPECT_EQ(out[0].data_as<float>()[r], x[r * 3]);
    EXPECT_EQ(out[1].data_as<float>()[r * 2], x[r * 3 + 1]);
    EXPECT_EQ(out[1].data_as<float>()[r * 2 + 1], x[r * 3 + 2]);
  }
}

}  // namespace
}  // namespace ge
