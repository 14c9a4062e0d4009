// plugins/ascend_backend/tiling_problem_move.cc — the geometry and Vector problem of the
// data-movement ops Transpose, Slice, Gather (move_ops.h; the UB accounting is described there).
#include <algorithm>

#include "move_ops.h"
#include "ops_info.h"
#include "tiling_choose.h"
#include "util.h"

namespace ge::ascend {
namespace {




std::vector<int64_t> strides_of(const std::vector<int64_t>& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

/// The values of constant input i (empty when absent); nullopt when present but not constant.
std::optional<std::vector<int64_t>> const_ints(const Node& n, size_t i) {
  if (n.num_inputs() <= i || !n.input(i)) return std::vector<int64_t>{};
  const Value* v = n.input(i);
  if (!v->is_constant()) return std::nullopt;
  return v->data->to_int64_vector();
}

}  // namespace

bool is_move_op(const Node& n) {
  const OpInfo* info = find_op_info(n);
  return info && info->problem == Problem::Move;
}

bool MoveGeometry::contiguous_row() const {
  if (kind == Kind::Gather) return inner > 1 || row == 1;
  return row == 1 || stride.back() == 1;
}

bool MoveGeometry::rows_aligned(int64_t elem_bytes, int64_t align) const {
  if (kind == Kind::Gather) return (row * elem_bytes) % align == 0;  // rows start at multiples of row (inner is one)
  if ((base * elem_bytes) % align) return false;
  for (size_t d = 0; d + 1 < stride.size(); ++d)
    if (out[d] > 1 && (stride[d] * elem_bytes) % align) return false;
  return true;
}

int64_t MoveGeometry::affine_src(int64_t u, int64_t k) const {
  int64_t src = base, rem = u;
  const size_t r = out.size();
  if (r == 0) return src;
  src += k * stride[r - 1];
  for (size_t d = r - 1; d-- > 0;) src += (rem % out[d]) * stride[d], rem /= out[d];
  return src;
}

std::optional<MoveGeometry> move_geometry(const Node& n, std::string* why) {
  if (!is_move_op(n)) return no(why, n.op_type() + " is not a data-movement op");
  const Value* x = n.input(0);
  const Value* y = n.num_outputs() ? n.output(0) : nullptr;
  if (!x || !y) return no(why, "missing operands");
  MoveGeometry g;
  g.out = y->shape.dims();
  const std::vector<int64_t> in = x->shape.dims();
  const std::vector<int64_t> ist = strides_of(in);
  const int64_t r = static_cast<int64_t>(in.size());
  const std::string op = n.op_type();
  if (op == "Transpose") {
    std::vector<int64_t> perm = n.attrs.get_ints("perm");
    if (perm.empty())
      for (int64_t d = r; d-- > 0;) perm.push_back(d);
    if (static_cast<int64_t>(perm.size()) != r || g.out.size() != perm.size()) return no(why, "perm has the wrong length");
    std::vector<bool> seen(static_cast<size_t>(r), false);
    for (size_t d = 0; d < perm.size(); ++d) {
      const int64_t p = perm[d];
      if (p < 0 || p >= r || seen[static_cast<size_t>(p)] || g.out[d] != in[static_cast<size_t>(p)])
        return no(why, "perm is not a permutation of the input's axes matching the output shape");
      seen[static_cast<size_t>(p)] = true;
      g.stride.push_back(ist[static_cast<size_t>(p)]);
    }
  } else if (op == "Slice") {
    const auto starts = const_ints(n, 1), ends = const_ints(n, 2);
    auto axes = const_ints(n, 3), steps = const_ints(n, 4);
    if (!starts || !ends || !axes || !steps) return no(why, "starts / ends / axes / steps are not constant");
    if (starts->size() != ends->size()) return no(why, "starts and ends differ in length");
    if (axes->empty())
      for (size_t k = 0; k < starts->size(); ++k) axes->push_back(static_cast<int64_t>(k));
    if (steps->empty()) steps->assign(starts->size(), 1);
    if (axes->size() != starts->size() || steps->size() != starts->size()) return no(why, "axes / steps differ in length from starts");
    if (g.out.size() != in.size()) return no(why, "output rank differs from the input's");
    std::vector<int64_t> start(static_cast<size_t>(r), 0), step(static_cast<size_t>(r), 1);
    for (size_t k = 0; k < starts->size(); ++k) {
      const int64_t a = (*axes)[k] < 0 ? (*axes)[k] + r : (*axes)[k];
      if (a < 0 || a >= r || (*steps)[k] == 0) return no(why, "axis out of range or step 0");
      const int64_t dim = in[static_cast<size_t>(a)];
      int64_t s = (*starts)[k] < 0 ? (*starts)[k] + dim : (*starts)[k];
      s = (*steps)[k] > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, std::max<int64_t>(dim - 1, 0));
      start[static_cast<size_t>(a)] = s, step[static_cast<size_t>(a)] = (*steps)[k];
    }
    for (size_t d = 0; d < in.size(); ++d) {
      g.base += start[d] * ist[d];
      g.stride.push_back(step[d] * ist[d]);
    }
  } else {  // Gather
    g.kind = MoveGeometry::Kind::Gather;
    const Value* ind = n.num_inputs() > 1 ? n.input(1) : nullptr;
    if (!ind) return no(why, "missing indices");
    if (ind->dtype != DataType::Int64 && ind->dtype != DataType::Int32) return no(why, "indices are not int32 / int64");
    g.index_bytes = dtype_size(ind->dtype);
    int64_t axis = n.attrs.get_int("axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return no(why, "axis out of range");
    g.dim = in[static_cast<size_t>(axis)];
    for (int64_t d = axis + 1; d < r; ++d) g.inner *= in[static_cast<size_t>(d)];
    g.nidx = ind->shape.numel();
  }
  g.row = g.out.empty() ? 1 : g.out.back();
  int64_t numel = 1;
  for (int64_t d : g.out) numel *= d;
  g.units = g.row > 0 ? numel / g.row : 0;
  return g;
}

std::optional<VectorTiling> move_problem(const Node& n, int64_t ub_align, std::string* why) {
  const Value* x = n.input(0);
  const Value* y = n.num_outputs() ? n.output(0) : nullptr;
  if (!x || !y) return no(why, "missing operands");
  if (!dtype_is_float(x->dtype)) return no(why, "non-float input " + x->name());
  if (!plain(x)) return no(why, "input " + x->name() + " in " + std::string(format_name(x->format)) + " (the data-movement kernels read plain layouts)");
  if (!plain(y)) return no(why, "output in " + std::string(format_name(y->format)));
  const auto g = move_geometry(n, why);
  if (!g) return std::nullopt;
  const int64_t in_size = static_cast<int64_t>(dtype_size(x->dtype)), out_size = static_cast<int64_t>(dtype_size(y->dtype));
  VectorTiling t;
  t.units = g->units, t.unit_elements = g->row;
  const bool contiguous = g->contiguous_row();
  int64_t in_bytes = contiguous ? round_up(g->row * in_size, ub_align) + (g->rows_aligned(in_size, ub_align) ? 0 : ub_align)
                                : g->row * ub_align;
  if (g->kind == MoveGeometry::Kind::Gather)
    in_bytes += round_up((contiguous ? 1 : g->row) * static_cast<int64_t>(g->index_bytes), ub_align);
  t.ub_bytes_per_unit = in_bytes + round_up(g->row * out_size, ub_align);
  if (t.units <= 0 || t.unit_elements <= 0) return no(why, "empty output");
  return t;
}

}  // namespace ge::ascend
