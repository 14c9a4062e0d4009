// registry/src/tensor.cc — shape inference for data movement (Flatten, Reshape, Transpose,
// Concat, Split, Slice, Gather, Squeeze, Unsqueeze, Identity) and the compile-time ops Shape and
// Constant, which set their output data so that shape subgraphs fold
// (onnx/docs/Operators.md).
#include <algorithm>
#include <limits>

#include "infer_util.h"

namespace ge::registry::detail {
namespace {

Tensor int64_tensor(const std::vector<int64_t>& v, bool scalar = false) {
  Tensor t = Tensor::allocate(DataType::Int64,
                              scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data_as<int64_t>());
  return t;
}

void infer_identity(InferContext& ctx) {
  require_input(ctx, 0, "input");
  ctx.set_output(0, ctx.input_type(0), ctx.input_shape(0));
}

// Operators.md#Flatten: axis in [-r, r]; output [prod(d[:axis]), prod(d[axis:])].
void infer_flatten(InferContext& ctx) {
  require_input(ctx, 0, "input");
  const Shape& x = ctx.input_shape(0);
  const auto r = static_cast<int64_t>(x.rank());
  int64_t axis = int_attr(ctx, "axis", 1);
  if (axis < -r || axis > r)
    ctx.fail("axis " + std::to_string(axis) + " is out of range [-" + std::to_string(r) + ", " +
             std::to_string(r) + "]");
  if (axis < 0) axis += r;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? outer : inner) *= x[i];
  ctx.set_output(0, ctx.input_type(0), Shape{outer, inner});
}

// Operators.md#Reshape: 0 copies the input dim (unless allowzero=1, Reshape-14), one -1 is
// inferred from the element count.
void infer_reshape(InferContext& ctx) {
  require_input(ctx, 0, "data");
  const Shape& x = ctx.input_shape(0);
  const std::vector<int64_t> spec = const_ints(ctx, 1, "shape");
  const bool allowzero = int_attr(ctx, "allowzero", 0) != 0;
  Shape y(spec);
  int64_t infer_at = -1, known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i] == -1) {
      if (infer_at >= 0) ctx.fail("shape [" + join(spec) + "] has more than one -1");
      infer_at = static_cast<int64_t>(i);
      continue;
    }
    if (spec[i] < -1) ctx.fail("shape [" + join(spec) + "] has a negative dim");
    if (spec[i] == 0 && !allowzero) {
      if (i >= x.rank())
        ctx.fail("shape [" + join(spec) + "] copies dim " + std::to_string(i) + " of " + x.str());
      y[i] = x[i];
    }
    // Shape's own bound (sdk/src/types.cc: at most 2^59 elements), checked before it overflows.
    if (__builtin_mul_overflow(known, y[i], &known) || known > (int64_t{1} << 59))
      ctx.fail("shape [" + join(spec) + "] has more than 2^59 elements");
  }
  if (infer_at >= 0) {
    if (allowzero && std::find(spec.begin(), spec.end(), 0) != spec.end())
      ctx.fail("shape [" + join(spec) + "] mixes 0 and -1 with allowzero=1");
    if (known == 0 || x.numel() % known != 0)
      ctx.fail("cannot infer -1 in [" + join(spec) + "] for " + x.str());
    y[static_cast<size_t>(infer_at)] = x.numel() / known;
  }
  if (y.numel() != x.numel())
    ctx.fail("cannot reshape " + x.str() + " to " + y.str() + " (from [" + join(spec) + "])");
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#Transpose: perm defaults to reversing the axes.
void infer_transpose(InferContext& ctx) {
  require_input(ctx, 0, "data");
  const Shape& x = ctx.input_shape(0);
  const auto r = static_cast<int64_t>(x.rank());
  std::vector<int64_t> perm = ints_attr(ctx, "perm");
  if (!ctx.has_attr("perm"))
    for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < r || i < static_cast<int64_t>(sorted.size()); ++i)
    if (i >= r || i >= static_cast<int64_t>(sorted.size()) || sorted[i] != i)
      ctx.fail("perm [" + join(perm) + "] is not a permutation of the " + std::to_string(r) +
               " axes of " + x.str());
  Shape y = x;
  for (int64_t i = 0; i < r; ++i) y[i] = x[perm[i]];
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#Concat: equal ranks, equal dims except on axis.
void infer_concat(InferContext& ctx) {
  if (ctx.num_inputs() == 0) ctx.fail("Concat needs at least one input");
  if (!ctx.has_attr("axis")) ctx.fail("missing required attribute axis");
  require_input(ctx, 0, "inputs");
  Shape y = ctx.input_shape(0);
  const int64_t axis = axis_in(ctx, ctx.attr_int("axis"), static_cast<int64_t>(y.rank()), "axis");
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    require_input(ctx, i, "inputs");
    const Shape& s = ctx.input_shape(i);
    if (ctx.input_type(i) != ctx.input_type(0)) ctx.fail("inputs have different element types");
    bool ok = s.rank() == y.rank();
    for (size_t d = 0; ok && d < s.rank(); ++d)
      ok = static_cast<int64_t>(d) == axis || s[d] == y[d];
    if (!ok)
      ctx.fail("input " + std::to_string(i) + " " + s.str() + " does not match " +
               ctx.input_shape(0).str() + " outside axis " + std::to_string(axis));
    y[axis] += s[axis];
  }
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#Split: sizes from `split` (attribute before opset 13, constant input from 13),
// which must add up to the axis; without it the axis divides into equal parts, one per output.
void infer_split(InferContext& ctx) {
  require_input(ctx, 0, "input");
  const Shape& x = ctx.input_shape(0);
  const int64_t axis = axis_in(ctx, int_attr(ctx, "axis", 0), static_cast<int64_t>(x.rank()), "axis");
  const auto n = static_cast<int64_t>(ctx.num_outputs());
  if (n == 0) ctx.fail("Split needs at least one output");
  std::vector<int64_t> split;
  if (ctx.opset() >= 13) {
    if (ctx.num_inputs() > 1 && ctx.has_input(1)) split = const_ints(ctx, 1, "split");
  } else if (ctx.has_attr("split")) {
    split = ints_attr(ctx, "split");
  }
  if (split.empty()) {
    if (x[axis] % n != 0)
      ctx.fail("axis " + std::to_string(axis) + " of " + x.str() + " does not divide into " + std::to_string(n) +
               " equal parts");
    split.assign(n, x[axis] / n);
  }
  if (static_cast<int64_t>(split.size()) != n)
    ctx.fail("split has " + std::to_string(split.size()) + " sizes for " + std::to_string(n) + " outputs");
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0) ctx.fail("negative split size " + std::to_string(s));
    total += s;
  }
  if (total != x[axis])
    ctx.fail("split [" + join(split) + "] does not add up to " + std::to_string(x[axis]) + " on axis " +
             std::to_string(axis));
  for (int64_t i = 0; i < n; ++i) {
    Shape y = x;
    y[axis] = split[i];
    if (has_output(ctx, i)) ctx.set_output(i, ctx.input_type(0), y);
  }
}

// Operators.md#Slice: negative starts/ends count from the end; then starts/ends are clamped to
// [0, dim] for positive steps and to [0, dim-1] / [-1, dim-1] for negative steps.
void infer_slice(InferContext& ctx) {
  require_input(ctx, 0, "data");
  const Shape& x = ctx.input_shape(0);
  const auto r = static_cast<int64_t>(x.rank());
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.def().since_version < 10) {
    starts = ints_attr(ctx, "starts");
    ends = ints_attr(ctx, "ends");
    axes = ints_attr(ctx, "axes");
  } else {
    starts = const_ints(ctx, 1, "starts");
    ends = const_ints(ctx, 2, "ends");
    if (ctx.has_input(3)) axes = const_ints(ctx, 3, "axes");
    if (ctx.has_input(4)) steps = const_ints(ctx, 4, "steps");
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    ctx.fail("starts, ends, axes and steps must have equal lengths");
  axes = axes_in(ctx, axes, r, "axes");
  Shape y = x;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t dim = x[axes[i]], step = steps[i];
    if (step == 0) ctx.fail("steps must not be 0");
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;  // dim >= 0, so INT64_MIN + dim cannot overflow
    if (e < 0) e += dim;
    int64_t len;
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      len = e > b ? (e - b - 1) / step + 1 : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      len = b > e ? (b - e - 1) / -step + 1 : 0;
      if (dim == 0) len = 0;
    }
    y[axes[i]] = len;
  }
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#Gather: output = data.shape[:axis] + indices.shape + data.shape[axis+1:].
void infer_gather(InferContext& ctx) {
  require_input(ctx, 0, "data");
  require_input(ctx, 1, "indices");
  const Shape& x = ctx.input_shape(0);
  const Shape& idx = ctx.input_shape(1);
  if (x.rank() == 0) ctx.fail("data must have rank >= 1");
  const auto r = static_cast<int64_t>(x.rank());
  const int64_t axis = axis_in(ctx, int_attr(ctx, "axis", 0), r, "axis");
  if (const Tensor* t = ctx.input_data(1))  // constant indices: catch out-of-range early
    for (int64_t i : t->to_int64_vector())
      if (i < -x[axis] || i >= x[axis])
        ctx.fail("index " + std::to_string(i) + " is out of range for axis " +
                 std::to_string(axis) + " of " + x.str());
  Shape y;
  for (int64_t i = 0; i < axis; ++i) y.dims().push_back(x[i]);
  for (int64_t d : idx.dims()) y.dims().push_back(d);
  for (int64_t i = axis + 1; i < r; ++i) y.dims().push_back(x[i]);
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#Unsqueeze: axes (attribute before opset 13, input from 13) index the output.
void infer_unsqueeze(InferContext& ctx) {
  require_input(ctx, 0, "data");
  const Shape& x = ctx.input_shape(0);
  std::vector<int64_t> axes;
  if (ctx.def().since_version < 13) {
    if (!ctx.has_attr("axes")) ctx.fail("missing required attribute axes");
    axes = ctx.attr_ints("axes");
  } else {
    axes = const_ints(ctx, 1, "axes");
  }
  const auto out_rank = static_cast<int64_t>(x.rank() + axes.size());
  axes = axes_in(ctx, axes, out_rank, "axes");
  const std::vector<char> inserted = axes_mask(axes, out_rank);
  Shape y;
  size_t src = 0;
  for (int64_t i = 0; i < out_rank; ++i) y.dims().push_back(inserted[static_cast<size_t>(i)] ? 1 : x[src++]);
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#Squeeze: remove the given size-1 axes, or every size-1 axis when none given.
void infer_squeeze(InferContext& ctx) {
  require_input(ctx, 0, "data");
  const Shape& x = ctx.input_shape(0);
  const auto r = static_cast<int64_t>(x.rank());
  std::vector<int64_t> axes;
  if (ctx.def().since_version < 13) axes = ints_attr(ctx, "axes");
  else if (ctx.has_input(1)) axes = const_ints(ctx, 1, "axes");
  axes = axes_in(ctx, axes, r, "axes");
  const std::vector<char> mask = axes_mask(axes, r);
  Shape y;
  for (int64_t i = 0; i < r; ++i) {
    const bool listed = mask[static_cast<size_t>(i)];
    if (listed && x[i] != 1)
      ctx.fail("cannot squeeze axis " + std::to_string(i) + " of " + x.str() + " (not 1)");
    if (listed || (axes.empty() && x[i] == 1)) continue;
    y.dims().push_back(x[i]);
  }
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#Shape: dims[start:end] (Shape-15), negative values count from the end and are
// clamped to [0, rank]. The data is set so constant folding can fold shape subgraphs.
void infer_shape(InferContext& ctx) {
  require_input(ctx, 0, "data");
  const auto& dims = ctx.input_shape(0).dims();
  const auto r = static_cast<int64_t>(dims.size());
  auto clamp_index = [r](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + r : i, 0, r); };
  const int64_t start = clamp_index(int_attr(ctx, "start", 0));
  const int64_t end = clamp_index(int_attr(ctx, "end", r));
  std::vector<int64_t> v;
  for (int64_t i = start; i < end; ++i) v.push_back(dims[i]);
  ctx.set_output_data(0, int64_tensor(v));
}

// Operators.md#Size: the element count as an int64 scalar. Known from the shape alone, like
// Shape's output, so that what follows folds (ConstantOfShape(Unsqueeze(Size(x)))).
void infer_size(InferContext& ctx) {
  require_input(ctx, 0, "data");
  ctx.set_output_data(0, int64_tensor({ctx.input_shape(0).numel()}, true));
}

// Operators.md#Constant: exactly one of value, sparse_value, value_float(s), value_int(s),
// value_string(s).
void infer_constant(InferContext& ctx) {
  static const char* const kKeys[] = {"value",     "sparse_value", "value_float", "value_floats",
                                      "value_int", "value_ints",   "value_string", "value_strings"};
  const char* key = nullptr;
  for (const char* k : kKeys)
    if (ctx.has_attr(k)) {
      if (key) ctx.fail(std::string("has both ") + key + " and " + k + "; exactly one is allowed");
      key = k;
    }
  if (!key) ctx.fail("needs one of the value attributes");
  const std::string k = key;
  const Attributes& a = ctx.node().attrs;
  if (k == "sparse_value") ctx.unsupported("Constant sparse_value not supported");
  if (k == "value_string" || k == "value_strings") ctx.unsupported("string constants not supported");
  if (k == "value") {
    const Tensor& t = a.get_tensor("value");
    if (t.dtype() == DataType::String || dtype_size(t.dtype()) == 0)
      ctx.unsupported("Constant of element type " + std::string(dtype_name(t.dtype())));
    ctx.set_output_data(0, t);
  } else if (k == "value_int") {
    ctx.set_output_data(0, int64_tensor({a.get_int(k, 0)}, /*scalar=*/true));
  } else if (k == "value_ints") {
    ctx.set_output_data(0, int64_tensor(a.get_ints(k)));
  } else {
    std::vector<float> v =
        k == "value_float" ? std::vector<float>{a.get_float(k, 0)} : a.get_floats(k);
    Tensor t = Tensor::allocate(DataType::Float32, k == "value_float"
                                                       ? Shape{}
                                                       : Shape{static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), t.data_as<float>());
    ctx.set_output_data(0, t);
  }
}

}  // namespace

/// SpaceToDepth-1/13 and DepthToSpace-1/11/13 (onnx/docs/Operators.md): [N, C, H, W] ->
/// [N, C·b², H/b, W/b] and back. The spec's shapes hold only when H and W (SpaceToDepth) or C
/// (DepthToSpace, b²) divide by the blocksize b; ONNX's own inference truncates the division, so
/// a model the kernel cannot run would pass import. Refused here, naming the dims. A blocksize
/// of 2^31 or more is refused too: b² and C·b² must fit int64.
void infer_space_to_depth(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const int64_t b = int_attr(ctx, "blocksize", 0);
  if (x.rank() != 4) ctx.fail("input must be 4-D [N, C, H, W], got " + x.str());
  if (b < 1 || b >= (int64_t{1} << 31)) ctx.fail("blocksize must be in [1, 2^31), got " + std::to_string(b));
  if (x[2] % b != 0 || x[3] % b != 0)
    ctx.fail("H and W of input " + x.str() + " must divide by blocksize " + std::to_string(b));
  if (x[1] > std::numeric_limits<int64_t>::max() / (b * b))
    ctx.fail("C·blocksize² of input " + x.str() + " and blocksize " + std::to_string(b) + " exceeds int64");
  ctx.set_output(0, ctx.input_type(0), Shape{x[0], x[1] * b * b, x[2] / b, x[3] / b});
}

void infer_depth_to_space(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const int64_t b = int_attr(ctx, "blocksize", 0);
  if (x.rank() != 4) ctx.fail("input must be 4-D [N, C, H, W], got " + x.str());
  if (b < 1 || b >= (int64_t{1} << 31)) ctx.fail("blocksize must be in [1, 2^31), got " + std::to_string(b));
  if (x[1] % (b * b) != 0)
    ctx.fail("C of input " + x.str() + " must divide by blocksize² = " + std::to_string(b * b));
  const std::string mode = string_attr(ctx, "mode", "DCR");
  if (mode != "DCR" && mode != "CRD") ctx.fail("mode must be \"DCR\" or \"CRD\", got \"" + mode + "\"");
  ctx.set_output(0, ctx.input_type(0), Shape{x[0], x[1] / (b * b), x[2] * b, x[3] * b});
}

InferTable tensor_infer_fns() {
  return {
      {"Identity", infer_identity},   {"Flatten", infer_flatten},   {"Reshape", infer_reshape},
      {"Transpose", infer_transpose}, {"Concat", infer_concat},     {"Slice", infer_slice},
      {"Split", infer_split},
      {"Gather", infer_gather},       {"Unsqueeze", infer_unsqueeze}, {"Squeeze", infer_squeeze},
      {"Shape", infer_shape},         {"Size", infer_size},         {"Constant", infer_constant},
      {"SpaceToDepth", infer_space_to_depth}, {"DepthToSpace", infer_depth_to_space},
  };
}

}  // namespace ge::registry::detail
