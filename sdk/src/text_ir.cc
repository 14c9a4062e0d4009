#include "ge/sdk/text_ir.h"

#include <sstream>

namespace ge {

namespace {
std::string type_str(const Value& v) {
  std::string s = std::string(dtype_name(v.dtype)) + v.shape.str();
  if (v.format != Format::ND && v.format != Format::NCHW) s += "@" + std::string(format_name(v.format));
  return s;
}

std::string const_elements(const Tensor& t, int64_t max) {
  if (t.numel() > max || t.dtype() == DataType::String) return "";
  std::ostringstream os;
  os << " = [";
  if (dtype_is_float(t.dtype())) {
    auto v = t.to_double_vector();
    for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  } else {
    auto v = t.to_int64_vector();
    for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  }
  os << "]";
  return os.str();
}
}  // namespace

std::string print_graph(const Graph& g, const TextIrOptions& opts) {
  std::ostringstream os;
  os << "graph " << g.name;
  if (!g.opsets.empty()) {
    os << " opset(";
    bool first = true;
    for (auto& [d, v] : g.opsets) {
      os << (first ? "" : ", ") << (d.empty() ? "ai.onnx" : d) << "=" << v;
      first = false;
    }
    os << ")";
  }
  os << " {\n";
  for (Value* v : g.inputs()) os << "  input %" << v->name() << ": " << type_str(*v) << "\n";
  for (Value* v : g.values()) {
    if (v->is_constant() && !v->is_graph_input())
      os << "  const %" << v->name() << ": " << type_str(*v) << const_elements(*v->data, opts.max_const_elements) << "\n";
  }
  for (Node* n : g.nodes()) {
    os << "  ";
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      Value* o = n->output(i);
      os << (i ? ", " : "");
      if (o) os << "%" << o->name() << ": " << type_str(*o);
      else os << "_";
    }
    os << " = ";
    if (!n->domain().empty()) os << n->domain() << ".";
    os << n->op_type() << "(";
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      Value* v = n->input(i);
      os << (i ? ", " : "") << (v ? "%" + v->name() : std::string("_"));
    }
    os << ")";
    if (n->attrs.size()) {
      os << " {";
      bool first = true;
      for (auto& [k, v] : n->attrs.all()) {
        os << (first ? "" : ", ") << k << "=" << attr_to_string(v);
        first = false;
      }
      os << "}";
    }
    if (opts.show_node_names) os << "  # " << n->name();
    os << "\n";
  }
  for (Value* v : g.outputs()) os << "  output %" << v->name() << "\n";
  os << "}\n";
  return os.str();
}

}  // namespace ge
