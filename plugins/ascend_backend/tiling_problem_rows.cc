// plugins/ascend_backend/tiling_problem_rows.cc — the Vector problems of the reducing and fused
// Vector ops (tiling_choose.h, row_vector_problem): what one unit of work is and the UB bytes it
// needs, each buffer rounded up to the UB alignment (32 B) per unit.
//
//   Softmax, ge.LayerNormalization: one unit = one row of len elements (row_ops.h) — the row is
//     reduced (max / sum, or mean / variance) before any output element can be written, so it
//     must be resident whole in UB. UB per unit: the input row (LayerNorm: + Skip row), the
//     output row, one fp32 work row (the values the reductions read), and for LayerNorm the Scale
//     and B rows (resident once per tile on the device; counted per unit here, which is
//     conservative). Plain layouts (ND / NCHW) only: a blocked row has another element order.
//   ReduceMean: one unit = one output element with its len reduced inputs; UB per unit: the len
//     input elements, the output element, an fp32 accumulator. Plain layouts only.
//   ge.Gelu, ge.FusedElementwise: elementwise units of 16 output elements (of the output's
//     storage) as the other elementwise ops; UB per unit: every input (Gelu: X and the bias;
//     FusedElementwise: all its inputs are resident while its program runs), the output, and one
//     fp32 16-element register per instruction (FusedElementwise) or the fp32 x (Gelu).
#include <algorithm>
#include <variant>

#include "ge/sdk/layout.h"
#include "ops_info.h"
#include "row_ops.h"
#include "tiling_choose.h"
#include "util.h"

namespace ge::ascend {
bool is_row_vector_op(const Node& n) {
  const OpInfo* info = find_op_info(n);
  return info && info->problem == Problem::Rows;
}

std::optional<VectorTiling> row_vector_problem(const Node& n, int64_t ub_align, std::string* why) {
  const std::string op = n.op_type();
  const Value* y = n.output(0);
  if (!y || !n.input(0)) return no(why, "missing operands");
  const int64_t opset = n.graph() ? n.graph()->opset() : 13;
  const int64_t in_size = static_cast<int64_t>(dtype_size(n.input(0)->dtype));
  const int64_t out_size = static_cast<int64_t>(dtype_size(y->dtype));
  auto ub = [&](int64_t elements, int64_t bytes_per) { return round_up(elements * bytes_per, ub_align); };
  VectorTiling t;
  if (op == "Softmax" || op == "LayerNormalization" || op == "ReduceMean") {
    for (const Value* v : n.inputs())
      if (!plain(v)) return no(why, "input " + v->name() + " in " + std::string(format_name(v->format)) + " (the row kernels read plain layouts)");
    if (!plain(y)) return no(why, "output in " + std::string(format_name(y->format)));
  }
  if (op == "Softmax") {
    const auto g = softmax_rows(n, opset, why);
    if (!g) return std::nullopt;
    t.units = g->rows(), t.unit_elements = g->len;
    t.ub_bytes_per_unit = ub(g->len, in_size) + ub(g->len, out_size) + ub(g->len, 4);
  } else if (op == "LayerNormalization") {
    const auto g = layer_norm_rows(n, why);
    if (!g) return std::nullopt;
    t.units = g->rows(), t.unit_elements = g->len;
    const bool skip = n.num_inputs() > 3 && n.input(3), bias = n.num_inputs() > 2 && n.input(2);
    const int64_t p_size = static_cast<int64_t>(dtype_size(n.input(1)->dtype));
    t.ub_bytes_per_unit = ub(g->len, in_size) * (skip ? 2 : 1) + ub(g->len, out_size) + ub(g->len, 4) +
                          ub(g->len, p_size) * (bias ? 2 : 1);
  } else if (op == "ReduceMean") {
    const auto red = reduce_mean_axes(n, opset, why);
    if (!red) return std::nullopt;
    const Shape& x = n.input(0)->shape;
    int64_t len = 1;
    for (size_t d = 0; d < x.rank(); ++d)
      if ((*red)[d]) len *= x[d];
    t.units = len ? x.numel() / len : 0, t.unit_elements = 1;
    t.ub_bytes_per_unit = ub(len, in_size) + ub(1, out_size) + ub(1, 4);
  } else if (op == "Gelu" || op == "FusedElementwise") {
    const int64_t numel = format_storage_numel(y->shape.dims(), y->format);
    t.units = ceil_div(numel, 16), t.unit_elements = 16;
    int64_t bytes = ub(16, out_size);
    for (const Value* v : n.inputs())
      if (v) bytes += ub(16, static_cast<int64_t>(dtype_size(v->dtype)));
    int64_t regs = 1;
    if (op == "FusedElementwise") {
      const AttrValue* ops = n.attrs.find("ops");
      if (!ops || !std::holds_alternative<std::vector<std::string>>(*ops)) return no(why, "no strings attribute 'ops'");
      regs = static_cast<int64_t>(std::get<std::vector<std::string>>(*ops).size());
    }
    t.ub_bytes_per_unit = bytes + regs * ub(16, 4);
  } else {
    return no(why, op + " has no Vector kernel");
  }
  if (t.units <= 0 || t.unit_elements <= 0) return no(why, "empty output");
  return t;
}

}  // namespace ge::ascend
