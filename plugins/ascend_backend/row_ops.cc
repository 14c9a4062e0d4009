// plugins/ascend_backend/row_ops.cc — row geometry of Softmax, ge.LayerNormalization and
// ReduceMean (row_ops.h).
#include "row_ops.h"
#include "util.h"

namespace ge::ascend {
namespace {

bool is(const Value* v) { return v != nullptr; }

}  // namespace

std::optional<RowGeometry> softmax_rows(const Node& n, int64_t opset, std::string* why) {
  if (!is(n.input(0))) return no(why, "missing input");
  const Shape& s = n.input(0)->shape;
  const int64_t r = static_cast<int64_t>(s.rank());
  int64_t axis = n.attrs.get_int("axis", opset >= 13 ? -1 : 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return no(why, "Softmax axis out of range");
  RowGeometry g;
  for (int64_t d = 0; d < axis; ++d) g.outer *= s[d];
  if (opset >= 13) {
    g.len = s[axis];
    for (int64_t d = axis + 1; d < r; ++d) g.inner *= s[d];
  } else {
    for (int64_t d = axis; d < r; ++d) g.len *= s[d];
  }
  return g;
}

std::optional<RowGeometry> layer_norm_rows(const Node& n, std::string* why) {
  if (!is(n.input(0)) || !is(n.input(1))) return no(why, "missing X or Scale");
  const Shape& s = n.input(0)->shape;
  const int64_t r = static_cast<int64_t>(s.rank());
  int64_t axis = n.attrs.get_int("axis", -1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return no(why, "LayerNormalization axis out of range");
  RowGeometry g;
  for (int64_t d = 0; d < axis; ++d) g.outer *= s[d];
  for (int64_t d = axis; d < r; ++d) g.len *= s[d];
  if (n.input(1)->shape.numel() != g.len) return no(why, "Scale is not one value per normalized element");
  if (n.num_inputs() > 2 && is(n.input(2)) && n.input(2)->shape.numel() != g.len)
    return no(why, "B is not one value per normalized element");
  if (n.num_inputs() > 3 && is(n.input(3)) && n.input(3)->shape != s) return no(why, "Skip does not have X's shape");
  return g;
}

std::optional<std::vector<bool>> reduce_mean_axes(const Node& n, int64_t opset, std::string* why) {
  if (!is(n.input(0))) return no(why, "missing input");
  const int64_t r = static_cast<int64_t>(n.input(0)->shape.rank());
  std::vector<int64_t> axes = n.attrs.get_ints("axes");
  if (opset >= 18 && n.num_inputs() > 1 && is(n.input(1))) {
    if (!n.input(1)->is_constant()) return no(why, "ReduceMean axes are not a constant");
    axes = n.input(1)->data->to_int64_vector();
  }
  std::vector<bool> red(static_cast<size_t>(r), axes.empty() && n.attrs.get_int("noop_with_empty_axes", 0) == 0);
  for (int64_t a : axes) {
    const int64_t k = a < 0 ? a + r : a;
    if (k < 0 || k >= r) return no(why, "ReduceMean axis " + std::to_string(a) + " out of range");
    red[static_cast<size_t>(k)] = true;
  }
  return red;
}

}  // namespace ge::ascend
