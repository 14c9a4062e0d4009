// tests/fusion/test_patch_conv_matmul.cc — patch_conv_matmul: a Conv with kernel = stride and no
// padding, read back as a sequence of patches (Reshape to [N, M, OH·OW], Transpose [0, 2, 1]),
// becomes a Transpose of the patches and one ge.FusedMatMul. The graph before and after (text
// IR), equal outputs on random inputs, and the forms the rule must leave alone.
#include <gtest/gtest.h>

#include "pass_harness.h"

namespace ge {
namespace {

using test::PassHarness;

std::string print(const Graph& g) { return print_graph(g, {.show_node_names = false}); }

/// Parses `text`, gives its float constants random values, runs patch_conv_matmul and checks the
/// outputs equal the graph's before.
std::unique_ptr<Graph> rewrite(PassHarness& h, const std::string& text) {
  auto g = h.parse(text);
  PassHarness::randomize_constants(*g);
  auto before = g->clone();
  h.run(*g, {"patch_conv_matmul"});
  h.expect_same_outputs(*before, *g, 1e-5);
  return g;
}

// ViT's patch embedding in small: 2 images of 3×8×12 cut into 4×4 patches (2×3 of them), 5
// features per patch.
const char* kPatches = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,8,12]
  const %w: f32[5,3,4,4]
  const %b: f32[5]
  const %seq: i64[3] = [2,5,6]
  %c: f32[2,5,2,3] = Conv(%x, %w, %b) {kernel_shape=[4,4], strides=[4,4]}
  %r: f32[2,5,6] = Reshape(%c, %seq)
  %y: f32[2,6,5] = Transpose(%r) {perm=[0,2,1]}
  output %y
}
)";

TEST(PatchConvMatMul, PatchEmbeddingBecomesOneGemm) {
  PassHarness h;
  auto g = rewrite(h, kPatches);
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,3,8,12]
  const %b: f32[5]
  const %w_patches_T: f32[48,5]
  const %y_patch_grid_shape: i64[6]
  const %y_patches_shape: i64[3]
  %y_patch_grid: f32[2,3,2,4,3,4] = Reshape(%x, %y_patch_grid_shape)
  %y_patches_6d: f32[2,2,3,3,4,4] = Transpose(%y_patch_grid) {perm=[0,2,4,1,3,5]}
  %y_patches: f32[2,6,48] = Reshape(%y_patches_6d, %y_patches_shape)
  %y: f32[2,6,5] = ge.FusedMatMul(%y_patches, %w_patches_T, %b) {activation=""}
  output %y
}
)");
  EXPECT_EQ(g->find_value("y_patch_grid_shape")->data->to_int64_vector(), (std::vector<int64_t>{2, 3, 2, 4, 3, 4}));
  EXPECT_EQ(g->find_value("y_patches_shape")->data->to_int64_vector(), (std::vector<int64_t>{2, 6, 48}));
}

TEST(PatchConvMatMul, WithoutABiasAPlainMatMul) {
  PassHarness h;
  auto g =
      rewrite(h, PassHarness::edited(kPatches, {{"  const %b: f32[5]\n", ""}, {"Conv(%x, %w, %b)", "Conv(%x, %w)"}}));
  const std::string p = print(*g);
  EXPECT_NE(p.find("%y: f32[2,6,5] = MatMul(%y_patches, %w_patches_T)"), std::string::npos) << p;
  EXPECT_EQ(p.find("Conv"), std::string::npos) << p;
}

// Left alone: the windows overlap (stride 3 < kernel 4) or are padded — both with the patch
// grid's output shape, so only the attribute checks refuse them — a remainder the Conv drops
// (H = 10 with kernel 4), two groups, the sequence read in another order, and a Conv output
// someone else reads too.
TEST(PatchConvMatMul, LeavesWhatIsNotAPatchSequence) {
  using Edits = std::vector<std::pair<std::string, std::string>>;
  const std::vector<Edits> cases = {
      {{"strides=[4,4]", "strides=[3,3]"}},
      {{"strides=[4,4]}", "strides=[4,4], pads=[1,1,1,1]}"}},
      {{"input %x: f32[2,3,8,12]", "input %x: f32[2,3,10,12]"}},
      {{"f32[2,3,8,12]", "f32[2,4,8,12]"},
       {"f32[5,3,4,4]", "f32[6,2,4,4]"},
       {"const %b: f32[5]", "const %b: f32[6]"},
       {"[2,5,6]", "[2,6,6]"},
       {"f32[2,5,2,3]", "f32[2,6,2,3]"},
       {"strides=[4,4]}", "strides=[4,4], group=2}"},
       {"%r: f32[2,5,6]", "%r: f32[2,6,6]"},
       {"%y: f32[2,6,5]", "%y: f32[2,6,6]"}},
      {{"perm=[0,2,1]", "perm=[1,0,2]"}, {"%y: f32[2,6,5]", "%y: f32[5,2,6]"}},
      {{"  output %y\n", "  output %y\n  output %c\n"}},
  };
  for (const Edits& edits : cases)
    PassHarness().expect_unchanged(PassHarness::edited(kPatches, edits), {"patch_conv_matmul"}, edits[0].second);
}

}  // namespace
}  // namespace ge
