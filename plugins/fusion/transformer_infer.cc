// plugins/fusion/transformer_infer.cc — shape inference of the fused transformer ops
// (ops/transformer.toml): ge.FusedMatMul, ge.Gelu, ge.LayerNormalization, ge.Attention.
#include <string>
#include <vector>

#include "conv_fusion_util.h"
#include "registration.h"

namespace ge::fusion {
namespace {

/// numpy.matmul shape of A · B' (B' = Bᵀ on the last two dims when transB), batch dims
/// broadcast (onnx/docs/Operators.md#MatMul); both operands of rank ≥ 2.
void infer_fused_matmul(InferContext& ctx) {
  std::vector<int64_t> a = ctx.input_shape(0).dims(), b = ctx.input_shape(1).dims();
  if (a.size() < 2 || b.size() < 2) ctx.fail("A and B must have rank >= 2");
  if (ctx.attr_int("transB") != 0) std::swap(b[b.size() - 1], b[b.size() - 2]);
  const int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  if (b[b.size() - 2] != K) ctx.fail("inner dims differ: " + ctx.input_shape(0).str() + " · " + ctx.input_shape(1).str());
  Shape batch_a(std::vector<int64_t>(a.begin(), a.end() - 2)), batch_b(std::vector<int64_t>(b.begin(), b.end() - 2));
  Shape y = broadcast_shapes(batch_a, batch_b, "FusedMatMul batch dims");
  y.dims().push_back(M);
  y.dims().push_back(N);
  if (ctx.has_input(2) && ctx.input_shape(2).numel() != N) ctx.fail("bias must have N = " + std::to_string(N) + " elements");
  check_fused_activation(ctx, true);
  ctx.set_output(0, ctx.input_type(0), y);
}

void infer_gelu(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (ctx.has_input(1) && (x.rank() == 0 || ctx.input_shape(1).numel() != x[x.rank() - 1]))
    ctx.fail("bias must have as many elements as X's last dim");
  ctx.set_output(0, ctx.input_type(0), x);
}

void infer_layer_norm(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const int64_t rank = static_cast<int64_t>(x.rank());
  int64_t axis = ctx.attr_int("axis");
  if (axis < -rank || axis >= rank) ctx.fail("axis " + std::to_string(axis) + " out of range");
  if (axis < 0) axis += rank;
  int64_t norm = 1;
  for (int64_t i = axis; i < rank; ++i) norm *= x[i];
  if (ctx.input_shape(1).numel() != norm) ctx.fail("Scale must have the normalized size " + std::to_string(norm));
  if (ctx.has_input(2) && ctx.input_shape(2).numel() != norm) ctx.fail("B must have the normalized size " + std::to_string(norm));
  if (ctx.num_inputs() > 3 && ctx.has_input(3) && ctx.input_shape(3) != x) ctx.fail("Skip must have X's shape " + x.str());
  ctx.set_output(0, ctx.input_type(0), x);
}

/// Q [.., S, d], Kt [.., d, S2], V [.., S2, dv] with equal batch dims → Y [.., S, dv]; the mask
/// (float) and the fill condition (bool) must broadcast to the scores [.., S, S2].
void infer_attention(InferContext& ctx) {
  const Shape &q = ctx.input_shape(0), &k = ctx.input_shape(1), &v = ctx.input_shape(2);
  const size_t r = q.rank();
  if (r < 2 || k.rank() != r || v.rank() != r) ctx.fail("Q, Kt and V must have one rank >= 2");
  for (size_t i = 0; i + 2 < r; ++i)
    if (q[i] != k[i] || q[i] != v[i]) ctx.fail("batch dims of Q, Kt, V differ");
  if (k[r - 2] != q[r - 1] || v[r - 2] != k[r - 1]) ctx.fail("Q·Kt·V dims do not chain");
  Shape scores = q;
  scores[r - 1] = k[r - 1];
  for (size_t in : {size_t{3}, size_t{4}}) {
    if (ctx.num_inputs() <= in || !ctx.has_input(in)) continue;
    const std::string what = in == 3 ? "mask " : "fill condition ";
    const Shape& m = ctx.input_shape(in);
    if (m.rank() > r) ctx.fail(what + m.str() + " has a rank above the scores' " + scores.str());
    for (size_t i = 0; i < m.rank(); ++i) {
      const int64_t d = m[m.rank() - 1 - i], s = scores[r - 1 - i];
      if (d != 1 && d != s) ctx.fail(what + m.str() + " does not broadcast to scores " + scores.str());
    }
  }
  if (ctx.num_inputs() > 4 && ctx.has_input(4) && ctx.input_type(4) != DataType::Bool)
    ctx.fail("the fill condition (input 4) must be bool");
  Shape y = q;
  y[r - 1] = v[r - 1];
  ctx.set_output(0, ctx.input_type(0), y);
}

GE_FUSION_INFER("ge", "FusedMatMul", infer_fused_matmul);
GE_FUSION_INFER("ge", "Gelu", infer_gelu);
GE_FUSION_INFER("ge", "LayerNormalization", infer_layer_norm);
GE_FUSION_INFER("ge", "Attention", infer_attention);

}  // namespace
}  // namespace ge::fusion
