// The per-op rules of the symbolic inference: shape-computing ops' values, ONNX spatial formulas.
#include "symbolic_rules.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "ge/sdk/error.h"

namespace ge::core::symbolic_detail {

bool is_int_type(DataType t) {
  switch (t) {
    case DataType::Int64:
    case DataType::Int32:
    case DataType::Int16:
    case DataType::Int8:
    case DataType::UInt8:
    case DataType::UInt16:
    case DataType::UInt32:
    case DataType::Bool: return true;
    default: return false;
  }
}

Tensor int_tensor(DataType dt, const Shape& shape, const std::vector<int64_t>& v) {
  Tensor t = Tensor::allocate(dt, shape);
  for (size_t i = 0; i < v.size(); ++i) {
    switch (dt) {
      case DataType::Int64: t.data_as<int64_t>()[i] = v[i]; break;
      case DataType::Int32: t.data_as<int32_t>()[i] = static_cast<int32_t>(v[i]); break;
      case DataType::Int16: t.data_as<int16_t>()[i] = static_cast<int16_t>(v[i]); break;
      case DataType::Int8: t.data_as<int8_t>()[i] = static_cast<int8_t>(v[i]); break;
      case DataType::UInt8:
      case DataType::Bool: t.data_as<uint8_t>()[i] = static_cast<uint8_t>(v[i]); break;
      case DataType::UInt16: t.data_as<uint16_t>()[i] = static_cast<uint16_t>(v[i]); break;
      case DataType::UInt32: t.data_as<uint32_t>()[i] = static_cast<uint32_t>(v[i]); break;
      default: throw Error("int_tensor: not an integer type");
    }
  }
  return t;
}

namespace {

bool dtype_is_integer(const Node* n) {
  Value* o = n->output(0);
  return o && is_int_type(o->dtype);
}

std::optional<DimExpr> binary(const std::string& op, const DimExpr& x, const DimExpr& y, const Node* n) {
  if (op == "Add") return x + y;
  if (op == "Sub") return x - y;
  if (op == "Mul") return x * y;
  const bool nonneg = x.is_constant() ? x.constant() >= 0 : x.is_positive();
  if (op == "Div") {
    // Integer Div truncates (onnx/docs/Operators.md, Div); that is the floor for x >= 0.
    if (x == y && x.is_positive()) return DimExpr(1);
    if (!y.is_constant() || y.constant() <= 0 || !nonneg || !dtype_is_integer(n)) return std::nullopt;
    return DimExpr::floor_div(x, y.constant());
  }
  if (op == "Mod") {
    if (!y.is_constant() || y.constant() <= 0 || !nonneg || n->attrs.get_int("fmod", 0) != 0) return std::nullopt;
    return DimExpr::mod(x, y.constant());
  }
  const DimExpr diff = x - y;
  if (op == "Equal") {
    if (diff.is_constant()) return DimExpr(diff.constant() == 0 ? 1 : 0);
    // A positive expression is never a constant <= 0 (torch's `Where(Equal(shape, -1), ...)`).
    if (y.is_constant() && y.constant() <= 0 && x.is_positive()) return DimExpr(0);
    if (x.is_constant() && x.constant() <= 0 && y.is_positive()) return DimExpr(0);
    return std::nullopt;
  }
  if (op == "Max" || op == "Min") {
    int sign = 0;
    if (diff.is_constant()) sign = diff.constant() >= 0 ? 1 : -1;
    else if (diff.is_positive()) sign = 1;
    else if ((-diff).is_positive()) sign = -1;
    if (!sign) return std::nullopt;
    return (op == "Max") == (sign > 0) ? x : y;
  }
  return std::nullopt;
}

/// The elements of a small integer value: tracked expressions, or constant data.
std::optional<Dims> known(const Value* v, const TrackedValue& tracked) {
  if (!v) return std::nullopt;
  if (const Dims* t = tracked(v)) return *t;
  if (v->data && is_int_type(v->dtype) && v->data->numel() <= 64 && v->shape.rank() <= 1 && !v->symbolic_dims()) {
    Dims d;
    for (int64_t x : v->data->to_int64_vector()) d.emplace_back(x);
    return d;
  }
  return std::nullopt;
}

}  // namespace

// ---- the value of shape-computing ops (element expressions of a rank <= 1 integer output)
std::optional<Dims> value_rule(const Node* n, int64_t opset, const TrackedValue& tracked) {
  if (!n->domain().empty() || n->num_outputs() < 1 || !n->output(0)) return std::nullopt;
  const std::string& op = n->op_type();
  auto in = [&](size_t i) { return known(n->input(i), tracked); };
  if (op == "Shape") {
    Value* x = n->input(0);
    if (!x) return std::nullopt;
    Dims d = x->dim_exprs();
    const int64_t r = static_cast<int64_t>(d.size());
    int64_t start = opset >= 15 ? n->attrs.get_int("start", 0) : 0, end = opset >= 15 ? n->attrs.get_int("end", r) : r;
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<int64_t>(start, 0, r);
    end = std::clamp<int64_t>(end, 0, r);
    if (end <= start) return Dims{};
    return Dims(d.begin() + start, d.begin() + end);
  }
  if (op == "Size") {
    Value* x = n->input(0);
    if (!x) return std::nullopt;
    DimExpr p(1);
    for (const DimExpr& e : x->dim_exprs()) p = p * e;
    return Dims{p};
  }
  if (op == "Gather") {
    auto data = in(0);
    Value* iv = n->input(1);
    if (!data || !iv || !iv->data || !is_int_type(iv->dtype) || n->input(0)->shape.rank() != 1) return std::nullopt;
    if (n->attrs.get_int("axis", 0) != 0 && n->attrs.get_int("axis", 0) != -1) return std::nullopt;
    Dims r;
    const int64_t len = static_cast<int64_t>(data->size());
    for (int64_t k : iv->data->to_int64_vector()) {
      if (k < 0) k += len;
      if (k < 0 || k >= len) return std::nullopt;
      r.push_back((*data)[static_cast<size_t>(k)]);
    }
    return r;
  }
  if (op == "Slice" && opset >= 10) {
    auto data = in(0);
    if (!data || n->input(0)->shape.rank() != 1) return std::nullopt;
    auto constant = [&](size_t i) -> std::optional<std::vector<int64_t>> {
      Value* v = n->input(i);
      if (!v) return std::vector<int64_t>{};
      if (!v->data || !is_int_type(v->dtype)) return std::nullopt;
      return v->data->to_int64_vector();
    };
    auto starts = constant(1), ends = constant(2), axes = constant(3), steps = constant(4);
    if (!starts || !ends || !axes || !steps || starts->size() != 1 || ends->size() != 1) return std::nullopt;
    if (!axes->empty() && (*axes)[0] != 0 && (*axes)[0] != -1) return std::nullopt;
    const int64_t step = steps->empty() ? 1 : (*steps)[0];
    const int64_t len = static_cast<int64_t>(data->size());
    if (step == 0) return std::nullopt;
    int64_t s = (*starts)[0], e = (*ends)[0];
    if (s < 0) s += len;
    if (e < 0) e += len;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, len);
      e = std::clamp<int64_t>(e, 0, len);
    } else {
      s = std::clamp<int64_t>(s, 0, len - 1);
      e = std::clamp<int64_t>(e, -1, len - 1);
    }
    Dims r;
    for (int64_t k = s; step > 0 ? k < e : k > e; k += step) r.push_back((*data)[static_cast<size_t>(k)]);
    return r;
  }
  if (op == "Concat") {
    Dims r;
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      auto v = in(i);
      if (!v || n->input(i)->shape.rank() != 1) return std::nullopt;
      r.insert(r.end(), v->begin(), v->end());
    }
    return r;
  }
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" || op == "Identity" || op == "Flatten") return in(0);
  if (op == "Cast") {
    const int64_t to = n->attrs.get_int("to", 0);
    if (!is_int_type(static_cast<DataType>(to)) || static_cast<DataType>(to) == DataType::Bool) return std::nullopt;
    return in(0);
  }
  if (op == "Neg") {
    auto a = in(0);
    if (!a) return std::nullopt;
    for (DimExpr& e : *a) e = -e;
    return a;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" || op == "Max" || op == "Min" || op == "Equal") {
    if (n->num_inputs() != 2) return std::nullopt;
    auto a = in(0), b = in(1);
    if (!a || !b || a->empty() || b->empty()) return std::nullopt;
    if (a->size() != b->size() && a->size() != 1 && b->size() != 1) return std::nullopt;
    const size_t len = std::max(a->size(), b->size());
    Dims r;
    for (size_t k = 0; k < len; ++k) {
      const DimExpr& x = (*a)[a->size() == 1 ? 0 : k];
      const DimExpr& y = (*b)[b->size() == 1 ? 0 : k];
      std::optional<DimExpr> z = binary(op, x, y, n);
      if (!z) return std::nullopt;
      r.push_back(*z);
    }
    return r;
  }
  if (op == "Where") {
    Value* cv = n->input(0);
    auto x = in(1), y = in(2);
    if (!cv || !cv->data || !x || !y) return std::nullopt;
    std::vector<int64_t> c = cv->data->to_int64_vector();
    const size_t len = std::max({c.size(), x->size(), y->size()});
    for (size_t s : {c.size(), x->size(), y->size()})
      if (s != len && s != 1) return std::nullopt;
    Dims r;
    for (size_t k = 0; k < len; ++k)
      r.push_back(c[c.size() == 1 ? 0 : k] ? (*x)[x->size() == 1 ? 0 : k] : (*y)[y->size() == 1 ? 0 : k]);
    return r;
  }
  return std::nullopt;
}

// ---- ONNX formulas for spatial dims (onnx/defs/nn/defs.cc, convPoolShapeInference;
// onnx/defs/tensor/defs.cc, Resize): expressions where the input's spatial dims are symbolic.
std::vector<std::optional<DimExpr>> spatial_rule(const Node* n, size_t out, size_t rank) {
  const std::string& op = n->op_type();
  if (!n->domain().empty() || out != 0) return {};
  Value* x = n->input(0);
  if (!x || !x->symbolic_dims() || x->shape.rank() != rank || rank < 3) return {};
  const Dims d = x->dim_exprs();
  std::vector<std::optional<DimExpr>> r(rank);
  const size_t sp = rank - 2;
  if (op == "Conv" || op == "ConvInteger" || op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    std::vector<int64_t> kernel = n->attrs.get_ints("kernel_shape");
    if (kernel.empty() && (op == "Conv" || op == "ConvInteger")) {
      Value* w = n->input(1);
      if (!w || w->symbolic_dims() || w->shape.rank() != rank) return {};
      for (size_t i = 0; i < sp; ++i) kernel.push_back(w->shape[2 + i]);
    }
    if (kernel.size() != sp) return {};
    std::vector<int64_t> strides = n->attrs.get_ints("strides", std::vector<int64_t>(sp, 1));
    std::vector<int64_t> dil = n->attrs.get_ints("dilations", std::vector<int64_t>(sp, 1));
    std::vector<int64_t> pads = n->attrs.get_ints("pads", std::vector<int64_t>(2 * sp, 0));
    const std::string auto_pad = n->attrs.has("auto_pad") ? n->attrs.get_string("auto_pad", "NOTSET") : "NOTSET";
    const bool ceil_mode = n->attrs.get_int("ceil_mode", 0) != 0;
    if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) return {};
    for (size_t i = 0; i < sp; ++i) {
      if (d[2 + i].is_constant() || strides[i] <= 0) continue;
      if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        r[2 + i] = DimExpr::ceil_div(d[2 + i], strides[i]);
        continue;
      }
      const int64_t eff = (kernel[i] - 1) * dil[i] + 1;
      const DimExpr span = auto_pad == "VALID" ? d[2 + i] - DimExpr(eff) : d[2 + i] + DimExpr(pads[i] + pads[i + sp] - eff);
      r[2 + i] = (ceil_mode ? DimExpr::ceil_div(span, strides[i]) : DimExpr::floor_div(span, strides[i])) + DimExpr(1);
    }
    return r;
  }
  if (op == "Resize" || op == "Upsample") {
    // Scales as constants: output = floor(input * scale) with the scale a fraction p/q.
    Value* sv = op == "Resize" ? n->input(2) : n->input(1);
    if (!sv || !sv->data || sv->data->numel() != static_cast<int64_t>(rank)) return {};
    std::vector<double> scales = sv->data->to_double_vector();
    for (size_t i = 0; i < rank; ++i) {
      if (d[i].is_constant()) continue;
      for (int64_t q = 1; q <= 1024; ++q) {
        const double p = scales[i] * static_cast<double>(q);
        if (std::fabs(p - std::round(p)) < 1e-9 * q && std::round(p) >= 1) {
          r[i] = DimExpr::floor_div(d[i] * DimExpr(static_cast<int64_t>(std::round(p))), q);
          break;
        }
      }
    }
    return r;
  }
  return {};
}

std::optional<std::pair<DataType, Dims>> data_dependent_type(const Node* n, size_t out) {
  if (!n->domain().empty()) return std::nullopt;
  const std::string& op = n->op_type();
  Value* x = n->input(0);
  auto unknown = [](size_t r) { return Dims(r, DimExpr(-1)); };
  // The declared length of a 1-D shape input: the output's rank. Its values are unknown here, so a
  // declared length is all that bounds it; above kMaxDataRank (numpy 2's NPY_MAXDIMS) the node is
  // refused rather than given that many unknown dims (a declared 2^31 took gigabytes).
  constexpr int64_t kMaxDataRank = 64;
  auto static_len = [&](size_t i) -> std::optional<size_t> {
    Value* v = n->input(i);
    if (!v || v->symbolic_dims() || v->shape.rank() != 1) return std::nullopt;
    if (v->shape[0] > kMaxDataRank)
      throw InvalidGraphError(n->describe() + ": shape input '" + v->name() + "' declares " + std::to_string(v->shape[0]) +
                              " elements, an output of that rank (at most " + std::to_string(kMaxDataRank) + " is supported)");
    return static_cast<size_t>(v->shape[0]);
  };
  if (!x) return std::nullopt;
  if (op == "NonZero" && out == 0) return std::make_pair(DataType::Int64, Dims{DimExpr(static_cast<int64_t>(x->shape.rank())), DimExpr(-1)});
  if (op == "Reshape" && out == 0) {
    if (auto k = static_len(1)) return std::make_pair(x->dtype, unknown(*k));
    return std::nullopt;
  }
  if (op == "Expand" && out == 0) {
    if (auto k = static_len(1)) return std::make_pair(x->dtype, unknown(std::max(*k, x->shape.rank())));
    return std::nullopt;
  }
  if (op == "ConstantOfShape" && out == 0) {
    DataType dt = DataType::Float32;
    if (n->attrs.has("value")) dt = n->attrs.get_tensor("value").dtype();
    if (auto k = static_len(0)) return std::make_pair(dt, unknown(*k));
    return std::nullopt;
  }
  if (op == "Range" && out == 0) return std::make_pair(x->dtype, unknown(1));
  if ((op == "Tile" || op == "Pad" || op == "Slice" || op == "Resize" || op == "Upsample") && out == 0)
    return std::make_pair(x->dtype, unknown(x->shape.rank()));
  if (op == "TopK" && out < 2) return std::make_pair(out == 0 ? x->dtype : DataType::Int64, unknown(x->shape.rank()));
  if (op == "OneHot" && out == 0 && n->input(2)) return std::make_pair(n->input(2)->dtype, unknown(x->shape.rank() + 1));
  return std::nullopt;
}

}  // namespace ge::core::symbolic_detail
