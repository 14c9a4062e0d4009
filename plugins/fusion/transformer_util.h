// plugins/fusion/transformer_util.h — small helpers shared by the transformer fusion rules
// (matmul_add, gemm_act, gelu, bias_gelu, layer_norm, add_layernorm, attention) and
// squeeze_excitation (replace_match).
#pragma once
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ge/sdk/pass.h"

namespace ge::fusion::trf {

/// The single float value of a constant (any shape with one element), or nullopt.
inline std::optional<double> scalar_of(const Value* v) {
  if (!v || !v->data || v->data->numel() != 1) return std::nullopt;
  return v->data->to_double_vector()[0];
}
/// True when v is a one-element constant within a relative 1e-6 of `want` (exporters print
/// 1/√2 and √2 as 0.70710677 / 1.4142135, float32's nearest values).
inline bool scalar_is(const Value* v, double want) {
  auto s = scalar_of(v);
  return s && std::abs(*s - want) <= 1e-6 * std::abs(want);
}
/// Is `n` in the fused-op domain with this op type.
inline bool is_ge(const Node& n, const char* op) { return n.domain() == "ge" && n.op_type() == op; }

/// Replaces every captured node of `m` by one node `op_type` (domain "ge") that writes the
/// root's output value (so graph output names survive) and reads `inputs`. Interior values
/// are removed; interior_is_private must have been checked. Returns the new node.
inline Node* replace_match(Graph& g, PassContext& ctx, const Match& m, const std::string& root,
                           const std::string& op_type, std::vector<Value*> inputs, Attributes attrs) {
  if (g.opset("ge") < 1) g.opsets["ge"] = 1;
  Node* r = m.node(root);
  Value* out = r->output(0);
  const std::string name = r->name();
  std::vector<Value*> interior;
  for (auto& [cap, n] : m.nodes)
    if (n != r)
      for (Value* o : n->outputs()) interior.push_back(o);
  for (auto& [cap, n] : m.nodes) g.remove_node(n);
  for (Value* v : interior)
    if (v && v->uses().empty() && !v->is_graph_output() && !v->is_graph_input()) g.remove_value(v);
  Node* f = g.add_node(op_type, g.find_node(name) ? "" : name, std::move(inputs), {out}, std::move(attrs), "ge");
  ctx.infer_shapes(*f);
  return f;
}

/// Normalized, sorted reduce axes of a ReduceMean (attribute before opset 18, constant input
/// from 18), or nullopt when not known at compile time. Empty = all axes.
inline std::optional<std::vector<int64_t>> reduce_axes(const Node& n) {
  const int64_t rank = static_cast<int64_t>(n.input(0)->shape.rank());
  std::vector<int64_t> axes;
  if (n.attrs.has("axes")) axes = n.attrs.get_ints("axes");
  else if (n.input(1)) {
    if (!n.input(1)->data) return std::nullopt;
    axes = n.input(1)->data->to_int64_vector();
  }
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

/// A bias that broadcasts only along the last dim of `out`: numel == last dim and every other
/// dim 1, with rank ≤ out's rank (so the Add keeps the GEMM's output shape).
inline bool is_last_dim_bias(const Value* bias, const Shape& out) {
  if (!bias || out.rank() == 0 || bias->shape.rank() > out.rank()) return false;
  const auto& d = bias->shape.dims();
  if (d.empty()) return false;
  for (size_t i = 0; i + 1 < d.size(); ++i)
    if (d[i] != 1) return false;
  return d.back() == out[out.rank() - 1];
}

}  // namespace ge::fusion::trf
