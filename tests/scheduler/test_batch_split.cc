// tests/scheduler/test_batch_split.cc — the batch_split pass: the graph before and after in the
// text IR, the same outputs as the whole batch, the nodes that keep a graph whole, option errors.
#include <gtest/gtest.h>

#include "ge/sdk/error.h"
#include "pass_harness.h"

namespace ge {
namespace {

class BatchSplit : public ::testing::Test {
 protected:
  void SetUp() override { set("mode", "\"on\""); }
  void set(const std::string& key, const std::string& toml) {
    h.env().manifest.sections["batch_split"][key] = {toml, "test"};
  }
  /// The pass alone at `threads` threads per kernel.
  core::CompileResult run(Graph& g, int threads = 1) { return h.run(g, {"batch_split"}, OptLevel::O2, false, threads); }
  static std::string ir(const Graph& g) { return print_graph(g, {.show_node_names = false}); }
  test::PassHarness h;
};

// A small CNN at batch 4: conv, activation, pool, a Reshape whose target names the batch, a
// classifier Gemm, a residual Add with a per-channel constant.
const char* kCnn = R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,3,8,8]
  const %w: f32[8,3,3,3]
  const %b: f32[8]
  const %c: f32[1,8,1,1]
  const %shape: i64[2] = [4,128]
  const %fc: f32[128,10]
  const %fcb: f32[10]
  %y: f32[4,8,8,8] = Conv(%x, %w, %b) {pads=[1,1,1,1]}
  %r: f32[4,8,8,8] = Relu(%y)
  %a: f32[4,8,8,8] = Add(%r, %c)
  %p: f32[4,8,4,4] = MaxPool(%a) {kernel_shape=[2,2], strides=[2,2]}
  %f: f32[4,128] = Reshape(%p, %shape)
  %z: f32[4,10] = Gemm(%f, %fc, %fcb)
  output %z
}
)";

TEST_F(BatchSplit, TwoCopiesAtMicroBatchTwo) {
  set("micro_batch", "2");
  auto g = h.parse(kCnn);
  test::PassHarness::randomize_constants(*g);
  auto before = g->clone();
  core::CompileResult res = run(*g);
  // Split of the input, each copy at batch 2 reading the shared weights (the Reshape target
  // rewritten to 2), Concat of the copies' outputs into the graph output.
  EXPECT_EQ(ir(*g), R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,3,8,8]
  const %w: f32[8,3,3,3]
  const %b: f32[8]
  const %c: f32[1,8,1,1]
  const %fc: f32[128,10]
  const %fcb: f32[10]
  const %x_split: i64[2]
  const %shape_b: i64[2]
  %x_b0: f32[2,3,8,8], %x_b1: f32[2,3,8,8] = Split(%x, %x_split) {axis=0}
  %y_b0: f32[2,8,8,8] = Conv(%x_b0, %w, %b) {pads=[1,1,1,1]}
  %r_b0: f32[2,8,8,8] = Relu(%y_b0)
  %a_b0: f32[2,8,8,8] = Add(%r_b0, %c)
  %p_b0: f32[2,8,4,4] = MaxPool(%a_b0) {kernel_shape=[2,2], strides=[2,2]}
  %f_b0: f32[2,128] = Reshape(%p_b0, %shape_b)
  %z_b0: f32[2,10] = Gemm(%f_b0, %fc, %fcb)
  %y_b1: f32[2,8,8,8] = Conv(%x_b1, %w, %b) {pads=[1,1,1,1]}
  %r_b1: f32[2,8,8,8] = Relu(%y_b1)
  %a_b1: f32[2,8,8,8] = Add(%r_b1, %c)
  %p_b1: f32[2,8,4,4] = MaxPool(%a_b1) {kernel_shape=[2,2], strides=[2,2]}
  %f_b1: f32[2,128] = Reshape(%p_b1, %shape_b)
  %z_b1: f32[2,10] = Gemm(%f_b1, %fc, %fcb)
  %z: f32[4,10] = Concat(%z_b0, %z_b1) {axis=0}
  output %z
}
)");
  EXPECT_EQ(g->find_value("x_split")->data->to_int64_vector(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(g->find_value("shape_b")->data->to_int64_vector(), (std::vector<int64_t>{2, 128}));
  EXPECT_EQ(res.counters["batch_split.copies"], 2);
  h.expect_same_outputs(*before, *g, 1e-6);
}

TEST_F(BatchSplit, OneImagePerCopyAndTheWholePipeline) {
  // micro_batch 1 gives four copies; compiled by every stage (layout, schedule, memory) the
  // outputs equal the unsplit graph's.
  set("micro_batch", "1");
  auto g = h.parse(kCnn);
  test::PassHarness::randomize_constants(*g);
  auto whole = g->clone();
  core::CompileOptions o;
  o.threads = 1;
  core::CompileResult res = core::compile_graph(*g, h.env(), o);
  EXPECT_EQ(res.counters["batch_split.copies"], 4);
  size_t convs = 0;
  for (const Node* n : g->nodes()) convs += n->op_type() == "Conv" || n->op_type() == "FusedConv";
  EXPECT_EQ(convs, 4u);
  set("mode", "\"off\"");
  core::compile_graph(*whole, h.env(), o);
  for (const Node* n : whole->nodes()) EXPECT_NE(n->op_type(), "Split");
  h.expect_same_outputs(*whole, *g, 1e-5);
}

TEST_F(BatchSplit, AutoSplitsOnlyAtOneThreadPerKernel) {
  set("mode", "\"auto\"");
  set("micro_batch", "2");
  auto g = h.parse(kCnn);
  const std::string before = ir(*g);
  run(*g, 2);
  EXPECT_EQ(ir(*g), before);
  run(*g, 1);
  EXPECT_NE(ir(*g).find("Split(%x, %x_split)"), std::string::npos);
}

TEST_F(BatchSplit, NodesThatMixImagesKeepTheGraphWhole) {
  set("micro_batch", "2");
  // Each graph computes something across dim 0 (or cannot be shown not to).
  const char* cases[] = {
      // Softmax along the batch
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,10]
  %y: f32[4,10] = Softmax(%x) {axis=0}
  output %y
})",
      // Gemm reading the batch as columns
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[6,4]
  const %w: f32[6,5]
  %y: f32[4,5] = Gemm(%x, %w) {transA=1}
  output %y
})",
      // a Reshape that folds the batch into another dim
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,3,2]
  const %s: i64[2] = [2,12]
  %y: f32[2,12] = Reshape(%x, %s)
  output %y
})",
      // a constant with its own dim 0 added to the batch
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,3]
  const %c: f32[4,3]
  %y: f32[4,3] = Add(%x, %c)
  output %y
})",
      // a reduction over every axis
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,3]
  %y: f32[] = ReduceSum(%x) {keepdims=0}
  output %y
})",
      // a batch-dependent C of rank 1 broadcast along Gemm's columns: row r reads every image's C
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,3]
  input %c: f32[4]
  const %w: f32[3,4]
  %y: f32[4,4] = Gemm(%x, %w, %c)
  output %y
})",
      // a Resize whose coordinate transformation moves dim 0 at a scale of 1: half a pixel ...
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,2,3,3]
  const %sc: f32[4] = [1,1,2,2]
  %y: f32[4,2,6,6] = Resize(%x, _, %sc) {mode="nearest", coordinate_transformation_mode="tf_half_pixel_for_nn", nearest_mode="ceil"}
  output %y
})",
      // ... or a crop of dim 0 by the roi
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,2,3,3]
  const %roi: f32[8] = [0.25,0,0,0,0.75,1,1,1]
  const %sc: f32[4] = [1,1,1,1]
  %y: f32[4,2,3,3] = Resize(%x, %roi, %sc) {mode="linear", coordinate_transformation_mode="tf_crop_and_resize"}
  output %y
})",
      // a Squeeze of every dim of 1 (dim 0 too in a one-image copy)
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,1,3]
  %y: f32[4,3] = Squeeze(%x)
  output %y
})",
      // MaxPool's Indices number elements across the batch
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,2,4,4]
  %y: f32[4,2,2,2], %i: i64[4,2,2,2] = MaxPool(%x) {kernel_shape=[2,2], strides=[2,2]}
  output %y
  output %i
})",
      // an op the pass does not know (Tile by ones is per-image, but Tile is not on its list)
      R"(graph g opset(ai.onnx=13) {
  input %x: f32[4,3]
  const %rep: i64[2] = [1,1]
  %y: f32[4,3] = Tile(%x, %rep)
  output %y
})",
  };
  for (const char* text : cases) {
    auto g = h.parse(text);
    const std::string before = ir(*g);
    core::CompileResult res = run(*g);
    EXPECT_EQ(ir(*g), before) << text;
    EXPECT_EQ(res.counters["batch_split.refused"], 1) << text;
  }
}

TEST_F(BatchSplit, AValueListedTwiceAsAGraphOutputGetsOneConcat) {
  set("micro_batch", "1");
  auto g = h.parse(R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  %y: f32[2,3] = Relu(%x)
  output %y
  output %y
})");
  auto before = g->clone();
  run(*g);
  EXPECT_EQ(ir(*g), R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3]
  const %x_split: i64[2]
  %x_b0: f32[1,3], %x_b1: f32[1,3] = Split(%x, %x_split) {axis=0}
  %y_b0: f32[1,3] = Relu(%x_b0)
  %y_b1: f32[1,3] = Relu(%x_b1)
  %y: f32[2,3] = Concat(%y_b0, %y_b1) {axis=0}
  output %y
  output %y
}
)");
  h.expect_same_outputs(*before, *g, 0);
}

TEST_F(BatchSplit, AMicroBatchThatDoesNotDivideTheBatchIsAnError) {
  set("micro_batch", "3");
  auto g = h.parse(kCnn);
  try {
    run(*g);
    FAIL() << "expected a ConfigError";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("batch_split.micro_batch = 3 does not divide the batch of 4"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ge
