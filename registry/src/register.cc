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
  std::vector<OpDef> defs = detail::onnx_schema_defs(kMinOpset, kMaxOpset);
  std::set<std::string> op_types;
  for (const OpDef& d : defs) op_types.insert(d.op_type);
  // GE's metadata: every entry must name a defined op type (a typo is an error, not a no-op).
  for (const auto& file : detail::embedded_op_files()) {
    if (!parse_op_defs_toml(file.text, file.origin).empty())
      throw Error(std::string(file.origin) + ": the standard registry takes [[meta]] entries only; ai.onnx "
                  "definitions come from ONNX's schemas");
    for (const OpMeta& m : parse_op_meta_toml(file.text, file.origin)) {
      for (const std::string& op : m.op_types)
        if (!m.domain.empty() || !op_types.count(op))
          throw Error(m.origin + ": metadata for op type '" + op + "', which ONNX's schemas do not define");
      for (OpDef& d : defs)
        if (std::find(m.op_types.begin(), m.op_types.end(), d.op_type) != m.op_types.end()) apply_meta_to(d, m);
    }
  }
  for (OpDef& d : defs) r.add_op(std::move(d));
  // Shape inference: GE's own where it knows more (compile-time data of Shape/Constant, clearer
  // refusals of what the kernels do not run), ONNX's inference functions for every other op.
  std::map<std::string, ShapeInferenceFn> own;
  for (auto table : {detail::nn_infer_fns(), detail::math_infer_fns(), detail::tensor_infer_fns(), detail::value_infer_fns()})
    for (auto& [op, fn] : table) {
      if (!own.emplace(op, fn).second) throw Error("registry: two shape-inference functions for op type '" + op + "'");
      if (!op_types.count(op)) throw Error("registry: shape inference for op type '" + op + "' which ONNX does not define");
    }
  for (const std::string& op : op_types) {
    auto it = own.find(op);
    r.set_shape_inference("", op, it != own.end() ? it->second : ShapeInferenceFn(detail::infer_with_onnx_schema));
    if (detail::onnx_op_has_function(op)) r.add_function_expander("", op, detail::onnx_function_expander(op));
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
  std::vector<char> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), 0);  // linear, not |axes|²
  for (int64_t a : axes) {
    int64_t n = axis_in(ctx, a, rank, what);
    if (seen[static_cast<size_t>(n)])
      ctx.fail(what + " [" + join(axes) + "] repeats axis " + std::to_string(n));
    seen[static_cast<size_t>(n)] = 1;
    out.push_back(n);
  }
  return out;
}

std::vector<char> axes_mask(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<char> mask(static_cast<size_t>(std::max<int64_t>(rank, 0)), 0);
  for (int64_t a : axes) mask.at(static_cast<size_t>(a)) = 1;
  return mask;
}

std::string join(const std::vector<int64_t>& v) {
  std::ostringstream os;
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  return os.str();
}

}  // namespace ge::registry::detail
