// registry/src/onnx_proto.cc — conversions between GE's IR and ONNX protobuf messages.
#include "onnx_proto.h"

#include <cstring>
#include <limits>

#include "ge/sdk/error.h"

namespace ge::registry::detail {

DataType dtype_from_onnx_type_str(const std::string& s) {
  static const std::pair<const char*, DataType> names[] = {
      {"tensor(float)", DataType::Float32},   {"tensor(double)", DataType::Float64},
      {"tensor(float16)", DataType::Float16}, {"tensor(bfloat16)", DataType::BFloat16},
      {"tensor(int8)", DataType::Int8},       {"tensor(int16)", DataType::Int16},
      {"tensor(int32)", DataType::Int32},     {"tensor(int64)", DataType::Int64},
      {"tensor(uint8)", DataType::UInt8},     {"tensor(uint16)", DataType::UInt16},
      {"tensor(uint32)", DataType::UInt32},   {"tensor(uint64)", DataType::UInt64},
      {"tensor(bool)", DataType::Bool},       {"tensor(string)", DataType::String}};
  for (auto& [n, t] : names)
    if (s == n) return t;
  return DataType::Undefined;
}

onnx::TensorProto tensor_to_proto(const Tensor& t, const std::string& name) {
  if (t.dtype() == DataType::String || dtype_size(t.dtype()) == 0)
    throw UnsupportedError("tensor '" + name + "' of dtype " + std::string(dtype_name(t.dtype())) +
                           " cannot be handed to ONNX's schema code");
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape().dims()) p.add_dims(d);
  p.set_raw_data(std::string(static_cast<const char*>(t.data()), static_cast<size_t>(t.numel()) * dtype_size(t.dtype())));
  return p;
}

Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& what) {
  const auto dt = static_cast<DataType>(p.data_type());
  const size_t es = dtype_size(dt);
  if (es == 0) throw UnsupportedError(what + ": tensor of ONNX data type " + std::to_string(p.data_type()) + " is not supported");
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    throw UnsupportedError(what + ": external tensor data is not supported here");
  std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) throw InvalidGraphError(what + ": negative dimension " + std::to_string(d));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      throw InvalidGraphError(what + ": dimensions overflow a 64-bit element count");
    n *= d;
  }
  Tensor t = Tensor::allocate(dt, Shape(dims));
  const size_t bytes = static_cast<size_t>(n) * es;
  if (p.has_raw_data()) {
    if (p.raw_data().size() != bytes)
      throw InvalidGraphError(what + ": raw_data holds " + std::to_string(p.raw_data().size()) + " bytes, dims " +
                              Shape(dims).str() + " need " + std::to_string(bytes));
    if (bytes) std::memcpy(t.data(), p.raw_data().data(), bytes);
    return t;
  }
  auto check = [&](int count) {
    if (static_cast<int64_t>(count) != n)
      throw InvalidGraphError(what + ": holds " + std::to_string(count) + " values, dims " + Shape(dims).str() +
                              " need " + std::to_string(n));
  };
  switch (dt) {
    case DataType::Float32:
      check(p.float_data_size());
      std::copy(p.float_data().begin(), p.float_data().end(), t.data_as<float>());
      break;
    case DataType::Float64:
      check(p.double_data_size());
      std::copy(p.double_data().begin(), p.double_data().end(), t.data_as<double>());
      break;
    case DataType::Int64:
      check(p.int64_data_size());
      std::copy(p.int64_data().begin(), p.int64_data().end(), t.data_as<int64_t>());
      break;
    case DataType::UInt32:
    case DataType::UInt64:
      check(p.uint64_data_size());
      for (int64_t i = 0; i < n; ++i) {
        if (dt == DataType::UInt32) t.data_as<uint32_t>()[i] = static_cast<uint32_t>(p.uint64_data(static_cast<int>(i)));
        else t.data_as<uint64_t>()[i] = p.uint64_data(static_cast<int>(i));
      }
      break;
    default: {  // int32_data holds every narrower type (and float16/bfloat16 bits), onnx.proto
      check(p.int32_data_size());
      for (int64_t i = 0; i < n; ++i) {
        const int32_t v = p.int32_data(static_cast<int>(i));
        switch (es) {
          case 1: t.data_as<uint8_t>()[i] = static_cast<uint8_t>(v); break;
          case 2: t.data_as<uint16_t>()[i] = static_cast<uint16_t>(v); break;
          default: t.data_as<int32_t>()[i] = v; break;
        }
      }
    }
  }
  return t;
}

onnx::AttributeProto attr_to_proto(const std::string& name, const AttrValue& v,
                                   onnx::AttributeProto::AttributeType type) {
  using A = onnx::AttributeProto;
  A a;
  a.set_name(name);
  if (type == A::FLOAT && std::holds_alternative<int64_t>(v)) {
    a.set_type(A::FLOAT);
    a.set_f(static_cast<float>(std::get<int64_t>(v)));
    return a;
  }
  if (type == A::FLOATS && std::holds_alternative<std::vector<int64_t>>(v)) {
    a.set_type(A::FLOATS);
    for (int64_t x : std::get<std::vector<int64_t>>(v)) a.add_floats(static_cast<float>(x));
    return a;
  }
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          a.set_type(A::INT);
          a.set_i(x);
        } else if constexpr (std::is_same_v<T, float>) {
          a.set_type(A::FLOAT);
          a.set_f(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          a.set_type(A::STRING);
          a.set_s(x);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          a.set_type(A::INTS);
          for (int64_t e : x) a.add_ints(e);
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          a.set_type(A::FLOATS);
          for (float e : x) a.add_floats(e);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          a.set_type(A::STRINGS);
          for (const auto& e : x) a.add_strings(e);
        } else {
          a.set_type(A::TENSOR);
          *a.mutable_t() = tensor_to_proto(x, name);
        }
      },
      v);
  return a;
}

std::optional<AttrType> attr_type_from_onnx(onnx::AttributeProto::AttributeType t) {
  using A = onnx::AttributeProto;
  switch (t) {
    case A::INT: return AttrType::Int;
    case A::FLOAT: return AttrType::Float;
    case A::STRING: return AttrType::String;
    case A::INTS: return AttrType::Ints;
    case A::FLOATS: return AttrType::Floats;
    case A::STRINGS: return AttrType::Strings;
    case A::TENSOR: return AttrType::Tensor;
    default: return std::nullopt;
  }
}

AttrValue attr_from_proto(const onnx::AttributeProto& a, const std::string& what) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: return static_cast<int64_t>(a.i());
    case A::FLOAT: return a.f();
    case A::STRING: return a.s();
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
    case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case A::TENSOR: return tensor_from_proto(a.t(), what + " attribute '" + a.name() + "'");
    default:
      throw UnsupportedError(what + ": attribute '" + a.name() + "' is of a kind GE does not represent (type " +
                             std::to_string(static_cast<int>(a.type())) + ")");
  }
}

onnx::TypeProto tensor_type_proto(DataType t, const Shape& s) {
  onnx::TypeProto tp;
  auto* tt = tp.mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(t));
  auto* sh = tt->mutable_shape();
  for (int64_t d : s.dims()) sh->add_dim()->set_dim_value(d);
  return tp;
}

const onnx::OpSchema* schema_for(const std::string& domain, const std::string& op_type, int64_t opset) {
  return onnx::OpSchemaRegistry::Schema(op_type, static_cast<int>(opset), domain);
}

}  // namespace ge::registry::detail
