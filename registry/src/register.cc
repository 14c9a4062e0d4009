// registry/src/register.cc — register_standard_ops and the helpers of infer_util.h.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "ge/registry/standard_ops.h"
#include "ge/sdk/error.h"
#include "infer_util.h"

namespace ge::registry {

void register_standard_ops(Registrar& r) {
  std::set<std::string> op_types;
  for (const auto& file : detail::embedded_op_files()) {
    for (OpDef& def : parse_op_defs_toml(file.text, file.origin)) {
      op_types.insert(def.op_type);
      r.add_op(std::move(def));
    }
  }
  std::map<std::string, ShapeInferenceFn> fns;
  for (auto table : {detail::nn_infer_fns(), detail::math_infer_fns(), detail::tensor_infer_fns()})
    for (auto& [op, fn] : table) {
      if (!fns.emplace(op, fn).second)
        throw Error("registry: two shape-inference functions for op type '" + op + "'");
    }
  // A definition without shape inference (or the reverse) is a bug in this plugin: fail loading
  // rather than leave the core to discover it on the first model that uses the op.
  for (const auto& op : op_types)
    if (!fns.count(op)) throw Error("registry: op type '" + op + "' has no shape inference");
  for (auto& [op, fn] : fns) {
    if (!op_types.count(op))
      throw Error("registry: shape inference for op type '" + op + "' which has no definition");
    r.set_shape_inference("", op, fn);
  }
}

}  // namespace ge::registry

namespace ge::registry::detail {

int64_t int_attr(const InferContext& ctx, const std::string& name, int64_t dflt) {
  return ctx.node().attrs.get_int(name, dflt);
}
std::vector<int64_t> ints_attr(const InferContext& ctx, const std::string& name,
                               std::vector<int64_t> dflt) {
  return ctx.node().attrs.get_ints(name, std::move(dflt));
}
std::string string_attr(const InferContext& ctx, const std::string& name, const std::string& dflt) {
  return ctx.node().attrs.get_string(name, dflt);
}

bool has_output(const InferContext& ctx, size_t i) { return ctx.node().output(i) != nullptr; }

void set_optional_output(InferContext& ctx, size_t i, DataType t, Shape s) {
  if (has_output(ctx, i)) ctx.set_output(i, t, std::move(s));
}

void require_input(const InferContext& ctx, size_t i, const char* name) {
  if (!ctx.has_input(i)) ctx.fail(std::string("missing input '") + name + "'");
}

std::vector<int64_t> const_ints(const InferContext& ctx, size_t i, const char* name) {
  require_input(ctx, i, name);
  const Tensor& t = ctx.require_input_data(i);
  if (t.shape().rank() > 1)
    ctx.fail(std::string("input '") + name + "' must be 1-D, got shape " + t.shape().str());
  if (!dtype_is_integer(t.dtype()))
    ctx.fail(std::string("input '") + name + "' must be an integer tensor");
  return t.to_int64_vector();
}

int64_t axis_in(const InferContext& ctx, int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= rank)
    ctx.fail(what + " " + std::to_string(axis) + " is out of range for rank " +
             std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> axes_in(const InferContext& ctx, const std::vector<int64_t>& axes,
                             int64_t rank, const std::string& what) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    int64_t n = axis_in(ctx, a, rank, what);
    if (std::find(out.begin(), out.end(), n) != out.end())
      ctx.fail(what + " [" + join(axes) + "] repeats axis " + std::to_string(n));
    out.push_back(n);
  }
  return out;
}

std::string join(const std::vector<int64_t>& v) {
  std::ostringstream os;
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  return os.str();
}

}  // namespace ge::registry::detail
