// plugins/framework_ops/mapping_util.cc — helpers the families share (framework_ops.h).
#include <cstring>

#include "framework_ops.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"

namespace ge::framework_ops {

std::vector<int64_t> per_axis(const Node& n, const std::string& attr, std::vector<int64_t> v, size_t rank) {
  if (v.size() == 1) return std::vector<int64_t>(rank, v[0]);
  if (v.size() == rank) return v;
  throw InvalidGraphError(n.describe() + ": attribute '" + attr + "' has " + std::to_string(v.size()) +
                          " values; expected 1 or " + std::to_string(rank));
}

bool is_nhwc(const Node& n) {
  if (const AttrValue* a = n.attrs.find("data_format")) {
    const std::string f = std::get<std::string>(*a);
    if (f == "NHWC") return true;
    if (f == "NCHW") return false;
    throw InvalidGraphError(n.describe() + ": data_format '" + f + "': must be NCHW or NHWC");
  }
  return n.input(0) && n.input(0)->format == Format::NHWC;
}

Value* add_param(Graph& g, const Node& n, const std::string& what, Shape shape, std::vector<float> values,
                 const std::string& init) {
  Tensor t = Tensor::allocate(DataType::Float32, shape);
  std::memcpy(t.data(), values.data(), values.size() * sizeof(float));
  Value* v = g.add_constant(g.unique_value_name(n.name() + "." + what), std::move(t));
  log(LogLevel::Info, n.describe() + ": no " + what + " given; generated '" + v->name() + "' float32" + shape.str() +
                          " (" + init + ")");
  return v;
}

Value* add_ints(Graph& g, const std::string& hint, std::vector<int64_t> values) {
  Tensor t = Tensor::allocate(DataType::Int64, Shape{static_cast<int64_t>(values.size())});
  std::memcpy(t.data(), values.data(), values.size() * sizeof(int64_t));
  return g.add_constant(g.unique_value_name(hint), std::move(t));
}

Value* add_scalar(Graph& g, const std::string& hint, float value) {
  Tensor t = Tensor::allocate(DataType::Float32, Shape{});
  *t.data_as<float>() = value;
  return g.add_constant(g.unique_value_name(hint), std::move(t));
}

Node* add(Graph& g, const std::string& op, const std::string& name, std::vector<Value*> ins, std::vector<Value*> outs,
          Attributes attrs) {
  std::string unique = name;
  for (int k = 1; g.find_node(unique); ++k) unique = name + "_" + std::to_string(k);
  return g.add_node(op, unique, std::move(ins), std::move(outs), std::move(attrs));
}

Value* transpose(Graph& g, const std::string& name, Value* x, std::vector<int64_t> perm, std::vector<Node*>& made) {
  Value* y = g.add_value(g.unique_value_name(name));
  Attributes a;
  a.set("perm", std::move(perm));
  made.push_back(add(g, "Transpose", name, {x}, {y}, std::move(a)));
  return y;
}

}  // namespace ge::framework_ops
