// plugins/framework_ops/linear.cc — Linear (PyTorch torch.nn.Linear: Y = X W^T + B, W
// [out_features, in_features]) and MatMulV2 (CANN: Y = op(x1) op(x2) + bias, op = transpose of
// the last two axes when transpose_x1 / transpose_x2 = 1) -> ONNX MatMul + Add, which the
// matmul_add rule fuses.
#include <cstring>

#include "framework_ops.h"
#include "ge/sdk/error.h"

namespace ge::framework_ops {

namespace {
std::vector<int64_t> swap_last_two(size_t rank) {
  std::vector<int64_t> p;
  for (size_t i = 0; i < rank; ++i) p.push_back(static_cast<int64_t>(i));
  std::swap(p[rank - 1], p[rank - 2]);
  return p;
}
}  // namespace

std::vector<Node*> expand_linear(Node& n, int64_t) {
  Graph& g = *n.graph();
  const std::string who = n.describe();
  Value* x = n.input(0);
  Value* w = n.input(1);
  Value* b = n.input(2);
  if (x->shape.rank() < 1) throw InvalidGraphError(who + ": input '" + x->name() + "' is a scalar");
  const int64_t in = x->shape[x->shape.rank() - 1];
  if (n.attrs.has("in_features") && n.attrs.get_int("in_features", 0) != in)
    throw InvalidGraphError(who + ": in_features = " + std::to_string(n.attrs.get_int("in_features", 0)) + " but input '" +
                            x->name() + "' has " + std::to_string(in) + " features");
  int64_t out = n.attrs.get_int("out_features", -1);
  if (w) {
    if (w->shape.rank() != 2 || w->shape[1] != in)
      throw InvalidGraphError(who + ": weight '" + w->name() + "' has shape " + w->shape.str() + "; expected [out_features, " +
                              std::to_string(in) + "]");
    if (out >= 0 && out != w->shape[0])
      throw InvalidGraphError(who + ": out_features = " + std::to_string(out) + " but weight '" + w->name() + "' has " +
                              std::to_string(w->shape[0]) + " rows");
    out = w->shape[0];
  } else if (out < 1) {
    throw InvalidGraphError(who + ": no weight input and no out_features attribute: the weight's shape is unknown");
  }
  if (b && (b->shape.rank() != 1 || b->shape[0] != out))
    throw InvalidGraphError(who + ": bias '" + b->name() + "' has shape " + b->shape.str() + "; expected [" + std::to_string(out) + "]");
  const std::string init = "U(-1/sqrt(" + std::to_string(in) + "), +1/sqrt(" + std::to_string(in) + ")), PyTorch's Linear init";
  Value* wt = nullptr;  // W^T [in, out]
  if (!w || w->is_constant()) {
    std::vector<float> rows = w ? std::vector<float>(w->data->span<float>().begin(), w->data->span<float>().end())
                                : uniform_fan_in(g.name + "/" + n.name() + ".weight", out * in, in);
    std::vector<float> t(rows.size());
    for (int64_t o = 0; o < out; ++o)
      for (int64_t i = 0; i < in; ++i) t[i * out + o] = rows[o * in + i];
    if (w) {
      Tensor tt = Tensor::allocate(DataType::Float32, Shape{in, out});
      std::memcpy(tt.data(), t.data(), t.size() * sizeof(float));
      wt = g.add_constant(g.unique_value_name(w->name() + "_T"), std::move(tt));
    } else {
      wt = add_param(g, n, "weight_T", Shape{in, out}, std::move(t), init + ", stored transposed");
    }
  }
  if (!w && !b && n.attrs.get_int("bias", 1) != 0)
    b = add_param(g, n, "bias", Shape{out}, uniform_fan_in(g.name + "/" + n.name() + ".bias", out, in), init);
  const std::string name = n.name();
  Value* y = n.output(0);
  g.remove_node(&n);
  std::vector<Node*> made;
  if (!wt) wt = transpose(g, name + "/weight_T", w, {1, 0}, made);
  Value* mm = b ? g.add_value(g.unique_value_name(name + "/matmul")) : y;
  made.push_back(add(g, "MatMul", name, {x, wt}, {mm}));
  if (b) made.push_back(add(g, "Add", name + "/bias", {mm, b}, {y}));
  return made;
}

std::vector<Node*> expand_matmul_v2(Node& n, int64_t) {
  Graph& g = *n.graph();
  Value* a = n.input(0);
  Value* b = n.input(1);
  Value* bias = n.input(2);
  for (Value* v : {a, b})
    if (v->shape.rank() < 2)
      throw InvalidGraphError(n.describe() + ": input '" + v->name() + "' has shape " + v->shape.str() + "; MatMulV2 needs 2 or more dims");
  const bool ta = n.attrs.get_int("transpose_x1", 0) != 0, tb = n.attrs.get_int("transpose_x2", 0) != 0;
  const std::string name = n.name();
  Value* y = n.output(0);
  g.remove_node(&n);
  std::vector<Node*> made;
  if (ta) a = transpose(g, name + "/x1_T", a, swap_last_two(a->shape.rank()), made);
  if (tb) b = transpose(g, name + "/x2_T", b, swap_last_two(b->shape.rank()), made);
  Value* mm = bias ? g.add_value(g.unique_value_name(name + "/matmul")) : y;
  made.push_back(add(g, "MatMul", name, {a, b}, {mm}));
  if (bias) made.push_back(add(g, "Add", name + "/bias", {mm, bias}, {y}));
  return made;
}

}  // namespace ge::framework_ops
