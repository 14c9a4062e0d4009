// registry/src/math.cc — shape inference for elementwise math, Sum, Clip, MatMul, Gemm and
// ReduceMean (onnx/docs/Operators.md; broadcasting: onnx/docs/Broadcasting.md).
#include <algorithm>

#include "infer_util.h"

namespace ge::registry::detail {
namespace {

// Relu, Sigmoid, Sqrt, Erf, Identity-like: Y has X's type and shape.
void infer_unary(InferContext& ctx) {
  require_input(ctx, 0, "X");
  ctx.set_output(0, ctx.input_type(0), ctx.input_shape(0));
}

// Clip-11+: min and max are optional scalar inputs (Operators.md#Clip).
void infer_clip(InferContext& ctx) {
  require_input(ctx, 0, "input");
  for (size_t i = 1; i < 3; ++i)
    if (ctx.has_input(i) && ctx.input_shape(i).numel() != 1)
      ctx.fail(std::string(i == 1 ? "min" : "max") + " must be a scalar, got " +
               ctx.input_shape(i).str());
  ctx.set_output(0, ctx.input_type(0), ctx.input_shape(0));
}

// Add/Sub/Mul/Div/Pow: multidirectional (numpy) broadcasting; the result has A's type (for Pow
// the base's type; Operators.md#Pow).
void infer_binary(InferContext& ctx) {
  require_input(ctx, 0, "A");
  require_input(ctx, 1, "B");
  Shape y = broadcast_shapes(ctx.input_shape(0), ctx.input_shape(1), ctx.node().describe());
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#Sum: Sum-6 requires equal shapes, Sum-8 broadcasts all inputs together.
void infer_sum(InferContext& ctx) {
  if (ctx.num_inputs() == 0) ctx.fail("Sum needs at least one input");
  require_input(ctx, 0, "data_0");
  Shape y = ctx.input_shape(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    require_input(ctx, i, "data_i");
    if (ctx.input_type(i) != ctx.input_type(0)) ctx.fail("inputs have different element types");
    if (ctx.def().since_version < 8) {
      if (!(ctx.input_shape(i) == y))
        ctx.fail("Sum-6 inputs must have equal shapes: " + y.str() + " vs " +
                 ctx.input_shape(i).str());
    } else {
      y = broadcast_shapes(y, ctx.input_shape(i), ctx.node().describe());
    }
  }
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#MatMul (numpy.matmul): a 1-D A is [1, K] and a 1-D B is [K, 1], the added axis
// removed again from the result; leading (batch) axes broadcast.
void infer_matmul(InferContext& ctx) {
  require_input(ctx, 0, "A");
  require_input(ctx, 1, "B");
  Shape a = ctx.input_shape(0), b = ctx.input_shape(1);
  if (a.rank() == 0 || b.rank() == 0) ctx.fail("MatMul inputs must have rank >= 1");
  const bool a_vec = a.rank() == 1, b_vec = b.rank() == 1;
  if (a_vec) a = Shape{1, a[0]};
  if (b_vec) b = Shape{b[0], 1};
  const int64_t m = a[a.rank() - 2], k = a[a.rank() - 1];
  const int64_t kb = b[b.rank() - 2], n = b[b.rank() - 1];
  if (k != kb)
    ctx.fail("inner dimensions differ: " + ctx.input_shape(0).str() + " x " +
             ctx.input_shape(1).str());
  Shape batch_a(std::vector<int64_t>(a.dims().begin(), a.dims().end() - 2));
  Shape batch_b(std::vector<int64_t>(b.dims().begin(), b.dims().end() - 2));
  Shape y = broadcast_shapes(batch_a, batch_b, ctx.node().describe() + " batch axes");
  if (!a_vec) y.dims().push_back(m);
  if (!b_vec) y.dims().push_back(n);
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#Gemm: A [M,K] (or [K,M] with transA), B [K,N] (or [N,K] with transB); C is
// unidirectionally broadcastable to [M, N].
void infer_gemm(InferContext& ctx) {
  require_input(ctx, 0, "A");
  require_input(ctx, 1, "B");
  if (ctx.def().since_version < 11) require_input(ctx, 2, "C");
  const Shape& a = ctx.input_shape(0);
  const Shape& b = ctx.input_shape(1);
  if (a.rank() != 2 || b.rank() != 2)
    ctx.fail("A " + a.str() + " and B " + b.str() + " must be 2-D");
  const bool ta = int_attr(ctx, "transA", 0) != 0, tb = int_attr(ctx, "transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (k != kb)
    ctx.fail("inner dimensions differ: A " + a.str() + (ta ? "^T" : "") + " x B " + b.str() +
             (tb ? "^T" : ""));
  const Shape y{m, n};
  if (ctx.has_input(2)) {
    const Shape& c = ctx.input_shape(2);
    if (c.rank() > 2 || !(broadcast_shapes(c, y, ctx.node().describe()) == y))
      ctx.fail("C " + c.str() + " is not unidirectionally broadcastable to " + y.str());
  }
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#ReduceMean (opsets 1-17: axes is an attribute): reduce `axes` (all when absent),
// keeping them as 1 when keepdims.
void infer_reduce(InferContext& ctx) {
  require_input(ctx, 0, "data");
  const Shape& x = ctx.input_shape(0);
  const auto r = static_cast<int64_t>(x.rank());
  std::vector<int64_t> axes = axes_in(ctx, ints_attr(ctx, "axes"), r, "axes");
  if (axes.empty())  // absent or [] (ONNX's reduce shape inference treats both alike)
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  const bool keep = int_attr(ctx, "keepdims", 1) != 0;
  const std::vector<char> reduced = axes_mask(axes, r);
  Shape y;
  for (int64_t i = 0; i < r; ++i) {
    if (!reduced[static_cast<size_t>(i)]) y.dims().push_back(x[i]);
    else if (keep) y.dims().push_back(1);
  }
  ctx.set_output(0, ctx.input_type(0), y);
}

}  // namespace

InferTable math_infer_fns() {
  return {
      {"Relu", infer_unary},   {"Sigmoid", infer_unary}, {"Sqrt", infer_unary},
      {"Erf", infer_unary},    {"Clip", infer_clip},     {"Add", infer_binary},
      {"Sub", infer_binary},   {"Mul", infer_binary},    {"Div", infer_binary},
      {"Pow", infer_binary},   {"Sum", infer_sum},       {"MatMul", infer_matmul},
      {"Gemm", infer_gemm},    {"ReduceMean", infer_reduce},
  };
}

}  // namespace ge::registry::detail
