// plugins/fusion/patch_conv_matmul.cc — patch_conv_matmul: a patch embedding (a Conv whose
// stride equals its kernel, no padding, read back as a sequence of patches) becomes one GEMM over
// the patches.
//
// Vision transformers cut the image into kh×kw patches with a Conv of kernel = stride and then
// read its [N, M, OH, OW] output as a sequence (torchvision ViT: conv_proj, reshape to
// [N, M, OH·OW], permute(0, 2, 1); Dosovitskiy et al., "An Image is Worth 16x16 Words", 2021,
// eq. 1: each patch flattened and multiplied by E). With strides = kernel_shape, no padding,
// unit dilations and one group, every output pixel reads its own patch, so
// (onnx/docs/Operators.md#Conv)
//   Transpose(Reshape(Conv(x, W, B), [N, M, OH·OW]), [0, 2, 1])
//     = Reshape(Transpose(Reshape(x, [N, C, OH, kh, OW, kw]), [0, 2, 4, 1, 3, 5]), [N, OH·OW, C·kh·kw])
//       · Wᵀ + B,   Wᵀ = Reshape(W, [M, C·kh·kw])ᵀ
// when H = OH·kh and W = OW·kw. The GEMM ([OH·OW, C·kh·kw] × [C·kh·kw, M], bias in its epilogue:
// ge.FusedMatMul) runs on oneDNN's brgemm matmul; the direct convolution it replaces reads a
// 3-channel NCHW image with a 16×16 window (vit_b16_l2's conv_proj: 1.16 ms at 199 GFLOP/s, one
// thread) and the Transpose after it moved the whole [M, OH·OW] output. ONNX Runtime's MLAS runs
// such a Conv as im2col + GEMM; OpenVINO reads it as a MatMul too.
// Numerics: the same products, summed in the GEMM's order (Reassociates).
#include <string>
#include <vector>

#include "registration.h"
#include "simplify_util.h"
#include "transformer_util.h"

namespace ge::fusion {
namespace {

using P = Pattern;

bool all_equal(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v)
    if (e != x) return false;
  return true;
}

class PatchConvMatMulRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"patch_conv_matmul", NumericsEffect::Reassociates, OptLevel::O2, 97,
            "Conv (kernel = stride, no padding) read as a patch sequence -> Transpose of the patches + ge.FusedMatMul"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Transpose"}; }

  bool match(Node& root, const PassContext& ctx, Match& m) const override {
    static const P pat =
        P::op("Transpose", {P::op("Reshape", {P::op("Conv").as("conv"), P::constant("shape")}).as("reshape")})
            .as("root");
    if (!match_pattern(pat, root, m)) return false;
    if (root.graph()->opset("") < 5) return false;  // Reshape's shape is an input from opset 5 on
    const Node* conv = m.node("conv");
    const Value* x = conv->input(0);
    const Value* w = conv->num_inputs() > 1 ? conv->input(1) : nullptr;
    const Value* b = conv->num_inputs() > 2 ? conv->input(2) : nullptr;
    const Value* y = conv->output(0);
    if (!x || !w || !w->is_constant() || !w->data || (b && (!b->is_constant() || !b->data))) return false;
    if (x->dtype != DataType::Float32 || w->dtype != DataType::Float32 || (b && b->dtype != DataType::Float32))
      return false;
    if (x->shape.rank() != 4 || w->shape.rank() != 4 || y->shape.rank() != 4) return false;
    if (x->format != Format::NCHW && x->format != Format::ND) return false;
    for (int64_t d : x->shape.dims())
      if (d <= 0) return false;  // a symbolic dim: the patch grid is not known
    const int64_t kh = w->shape[2], kw = w->shape[3];
    std::vector<int64_t> kernel = conv->attrs.get_ints("kernel_shape");
    if (!kernel.empty() && kernel != std::vector<int64_t>{kh, kw}) return false;
    if (conv->attrs.get_int("group", 1) != 1 || w->shape[1] != x->shape[1]) return false;
    if (conv->attrs.get_ints("strides") != std::vector<int64_t>{kh, kw}) return false;
    if (!all_equal(conv->attrs.get_ints("dilations"), 1) || !all_equal(conv->attrs.get_ints("pads"), 0)) return false;
    const std::string auto_pad = conv->attrs.get_string("auto_pad", "NOTSET");
    if (auto_pad != "NOTSET" && auto_pad != "VALID") return false;
    if (kh * kw <= 1) return false;  // a 1×1 conv is a GEMM already
    if (x->shape[2] % kh != 0 || x->shape[3] % kw != 0) return false;
    const int64_t N = x->shape[0], M = w->shape[0], OH = x->shape[2] / kh, OW = x->shape[3] / kw;
    if (y->shape != Shape{N, M, OH, OW}) return false;
    if (m.node("reshape")->output(0)->shape != Shape{N, M, OH * OW}) return false;
    if (!root.attrs.has("perm") || root.attrs.get_ints("perm") != std::vector<int64_t>{0, 2, 1}) return false;
    return interior_is_private(m, "root") && fuse_flags_allow(m, "root", ctx.ops(), *root.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    Node* conv = m.node("conv");
    Value* x = conv->input(0);
    Value* w = conv->input(1);
    const std::vector<Value*> dead = {w, m.value("shape")};  // unread once the rewrite is done
    Value* b = conv->num_inputs() > 2 ? conv->input(2) : nullptr;
    const int64_t N = x->shape[0], C = x->shape[1], kh = w->shape[2], kw = w->shape[3], M = w->shape[0];
    const int64_t OH = x->shape[2] / kh, OW = x->shape[3] / kw, K = C * kh * kw;
    const std::string base = m.node("root")->output(0)->name();

    // Wᵀ: [K, M] with Wᵀ[k, o] = W[o, k] (k = c·kh·kw + i·kw + j, W's own row-major order).
    Tensor wt = Tensor::allocate(DataType::Float32, Shape{K, M});
    const float* ws = w->data->data_as<float>();
    float* wd = wt.data_as<float>();
    for (int64_t o = 0; o < M; ++o)
      for (int64_t k = 0; k < K; ++k) wd[k * M + o] = ws[o * K + k];
    Value* w_t = g.add_constant(g.unique_value_name(w->name() + "_patches_T"), std::move(wt));

    Value* s6 = add_shape_constant(g, base + "_patch_grid", {N, C, OH, kh, OW, kw});
    Value* grid = g.add_value(g.unique_value_name(base + "_patch_grid"));
    ctx.infer_shapes(*g.add_node("Reshape", "", {x, s6}, {grid}));
    Value* moved = g.add_value(g.unique_value_name(base + "_patches_6d"));
    Attributes perm;
    perm.set("perm", std::vector<int64_t>{0, 2, 4, 1, 3, 5});
    ctx.infer_shapes(*g.add_node("Transpose", "", {grid}, {moved}, perm));
    Value* s3 = add_shape_constant(g, base + "_patches", {N, OH * OW, K});
    Value* patches = g.add_value(g.unique_value_name(base + "_patches"));
    ctx.infer_shapes(*g.add_node("Reshape", "", {moved, s3}, {patches}));

    std::vector<Value*> inputs = {patches, w_t};
    if (b) inputs.push_back(b);
    if (b) {
      Attributes at;
      at.set("activation", std::string());
      trf::replace_match(g, ctx, m, "root", "FusedMatMul", inputs, at);
    } else {
      Node* root = m.node("root");
      Value* out = root->output(0);
      const std::string name = root->name();
      std::vector<Node*> nodes = {root, m.node("reshape"), conv};
      std::vector<Value*> interior = {m.node("reshape")->output(0), conv->output(0)};
      for (Node* n : nodes) g.remove_node(n);
      for (Value* v : interior)
        if (v->uses().empty() && !v->is_graph_output()) g.remove_value(v);
      ctx.infer_shapes(*g.add_node("MatMul", g.find_node(name) ? "" : name, inputs, {out}));
    }
    for (Value* v : dead)
      if (is_orphan(v)) g.remove_value(v);
    restore_topological_order(g);
  }
};

}  // namespace

GE_FUSION_RULE(PatchConvMatMulRule);

}  // namespace ge::fusion
