#include "ge/sdk/text_ir.h"

#include <cstring>
#include <sstream>

#include "text_ir_syntax.h"

namespace ge {

namespace {
std::string type_str(const Value& v) {
  std::string s = std::string(dtype_name(v.dtype)) + (v.symbolic_dims() ? dims_str(*v.symbolic_dims()) : v.shape.str());
  if (v.format != Format::ND && v.format != Format::NCHW) s += "@" + std::string(format_name(v.format));
  return s;
}

// bfloat16 is the upper half of a float32 (no helper in tensor.h).
float bf16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Elements in their own precision's shortest exact text, so that the parser rebuilds the very
// same bits (the old double-with-6-digits form lost float precision).
std::string const_elements(const Tensor& t, int64_t max) {
  if (t.numel() > max || t.dtype() == DataType::String || t.data() == nullptr) return "";
  const bool via_int64 = !dtype_is_float(t.dtype()) && t.dtype() != DataType::UInt64;
  const std::vector<int64_t> ints = via_int64 ? t.to_int64_vector() : std::vector<int64_t>{};
  std::string s = " = [";
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (i) s += ",";
    switch (t.dtype()) {
      case DataType::Float32: s += text_ir::shortest(t.data_as<float>()[i]); break;
      case DataType::Float64: s += text_ir::shortest(t.data_as<double>()[i]); break;
      case DataType::Float16: s += text_ir::shortest(half_to_float(t.data_as<uint16_t>()[i])); break;
      case DataType::BFloat16: s += text_ir::shortest(bf16_to_float(t.data_as<uint16_t>()[i])); break;
      case DataType::UInt64: s += std::to_string(t.data_as<uint64_t>()[i]); break;
      default: s += std::to_string(ints[static_cast<size_t>(i)]); break;
    }
  }
  return s + "]";
}
}  // namespace

std::string print_graph(const Graph& g, const TextIrOptions& opts) {
  std::ostringstream os;
  os << "graph " << text_ir::name(g.name);
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
  for (Value* v : g.inputs()) os << "  input %" << text_ir::name(v->name()) << ": " << type_str(*v) << "\n";
  for (Value* v : g.values()) {
    if (v->is_constant() && !v->is_graph_input())
      os << "  const %" << text_ir::name(v->name()) << ": " << type_str(*v) << const_elements(*v->data, opts.max_const_elements) << "\n";
  }
  for (Node* n : g.nodes()) {
    os << "  ";
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      Value* o = n->output(i);
      os << (i ? ", " : "");
      if (o) os << "%" << text_ir::name(o->name()) << ": " << type_str(*o);
      else os << "_";
    }
    os << " = ";
    if (!n->domain().empty()) os << n->domain() << ".";
    os << n->op_type() << "(";
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      Value* v = n->input(i);
      os << (i ? ", " : "") << (v ? "%" + text_ir::name(v->name()) : std::string("_"));
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
    if (opts.show_node_names) os << "  # " << text_ir::node_name(n->name());
    os << "\n";
  }
  for (Value* v : g.outputs()) os << "  output %" << text_ir::name(v->name()) << "\n";
  os << "}\n";
  return os.str();
}

}  // namespace ge
