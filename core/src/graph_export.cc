#include "ge/core/graph_export.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <sstream>

#include "ge/sdk/layout.h"
#include "onnx_tensor.h"

namespace ge::core {

namespace {

std::string dot_quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o + "\"";
}

std::string type_str(const Value& v) { return std::string(dtype_name(v.dtype)) + v.shape.str(); }

void set_type(onnx::ValueInfoProto* vi, const Value& v) {
  vi->set_name(v.name());
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(v.dtype));  // ge::DataType uses ONNX's numbering
  auto* shape = tt->mutable_shape();
  for (int64_t d : v.shape.dims()) shape->add_dim()->set_dim_value(d);
}

void set_attr(onnx::AttributeProto* a, const std::string& name, const AttrValue& v) {
  using A = onnx::AttributeProto;
  a->set_name(name);
  if (auto* i = std::get_if<int64_t>(&v)) {
    a->set_type(A::INT);
    a->set_i(*i);
  } else if (auto* f = std::get_if<float>(&v)) {
    a->set_type(A::FLOAT);
    a->set_f(*f);
  } else if (auto* s = std::get_if<std::string>(&v)) {
    a->set_type(A::STRING);
    a->set_s(*s);
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&v)) {
    a->set_type(A::INTS);
    for (int64_t x : *is) a->add_ints(x);
  } else if (auto* fs = std::get_if<std::vector<float>>(&v)) {
    a->set_type(A::FLOATS);
    for (float x : *fs) a->add_floats(x);
  } else if (auto* ss = std::get_if<std::vector<std::string>>(&v)) {
    a->set_type(A::STRINGS);
    for (const auto& x : *ss) a->add_strings(x);
  } else if (auto* t = std::get_if<Tensor>(&v)) {
    a->set_type(A::TENSOR);
    tensor_to_proto(*t, name, a->mutable_t());
  }
}

}  // namespace

std::string to_dot(const Graph& g) {
  std::ostringstream os;
  os << "digraph " << dot_quote(g.name) << " {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", "
     << "fillcolor=white, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=9];\n";
  std::vector<Node*> nodes = g.nodes();
  std::map<const Node*, size_t> id;
  for (size_t i = 0; i < nodes.size(); ++i) id[nodes[i]] = i;
  for (size_t i = 0; i < g.inputs().size(); ++i)
    os << "  in" << i << " [shape=ellipse, fillcolor=\"#e8f0fe\", label="
       << dot_quote(g.inputs()[i]->name() + "\n" + type_str(*g.inputs()[i])) << "];\n";
  for (size_t i = 0; i < g.outputs().size(); ++i)
    os << "  out" << i << " [shape=ellipse, fillcolor=\"#e8f0fe\", label="
       << dot_quote(g.outputs()[i]->name() + "\n" + type_str(*g.outputs()[i])) << "];\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = *nodes[i];
    bool fused = !n.domain().empty();
    size_t weights = 0;
    for (const Value* v : n.inputs()) weights += v && v->is_constant();
    std::string label = (fused ? n.domain() + "." : "") + n.op_type() + "\n" + n.name();
    if (weights) label += "\n(" + std::to_string(weights) + " const)";
    os << "  n" << i << " [label=" << dot_quote(label) << (fused ? ", fillcolor=\"#ffd8a8\"" : "") << "];\n";
  }
  auto source = [&](const Value* v) -> std::string {
    if (v->producer()) return "n" + std::to_string(id.at(v->producer()));
    for (size_t i = 0; i < g.inputs().size(); ++i)
      if (g.inputs()[i] == v) return "in" + std::to_string(i);
    return "";
  };
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const Value* v : nodes[i]->inputs()) {
      if (!v) continue;
      std::string src = source(v);
      if (!src.empty()) os << "  " << src << " -> n" << i << " [label=" << dot_quote(type_str(*v)) << "];\n";
    }
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    std::string src = source(g.outputs()[i]);
    if (!src.empty()) os << "  " << src << " -> out" << i << " [label=" << dot_quote(type_str(*g.outputs()[i])) << "];\n";
  }
  os << "}\n";
  return os.str();
}

std::string to_onnx(const Graph& g) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ge");
  m.set_producer_version("gec inspect");
  std::map<std::string, int64_t> opsets = g.opsets;
  for (const Node* n : g.nodes())
    if (!opsets.count(n->domain())) opsets[n->domain()] = 1;  // a fused op's domain without a version: 1
  for (auto& [domain, version] : opsets) {
    auto* op = m.add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
  }
  onnx::GraphProto* gp = m.mutable_graph();
  gp->set_name(g.name);
  for (const Value* v : g.values())
    if (v->is_constant() && !v->is_graph_input())
      tensor_to_proto(format_is_blocked(v->data->format()) ? convert_format(*v->data, Format::NCHW) : *v->data,
                      v->name(), gp->add_initializer());
  for (const Value* v : g.inputs()) set_type(gp->add_input(), *v);
  for (const Value* v : g.outputs()) set_type(gp->add_output(), *v);
  // ONNX requires nodes in topological order; the graph's list need not be (fusion appends).
  for (const Node* n : g.topological_order()) {
    onnx::NodeProto* np = gp->add_node();
    np->set_name(n->name());
    // Formats are dropped (every value is plain in the export), so a TransData — a logical
    // identity: shapes are logical, docs/layout.md — becomes an ONNX Identity.
    const bool transdata = n->domain() == "ge" && n->op_type() == "TransData";
    np->set_op_type(transdata ? "Identity" : n->op_type());
    np->set_domain(transdata ? "" : n->domain());
    for (const Value* v : n->inputs()) np->add_input(v ? v->name() : "");
    for (const Value* v : n->outputs()) np->add_output(v ? v->name() : "");
    if (!transdata)
      for (auto& [name, value] : n->attrs.all()) set_attr(np->add_attribute(), name, value);
    for (const Value* v : n->outputs())
      if (v && !v->is_graph_output() && v->dtype != DataType::Undefined) set_type(gp->add_value_info(), *v);
  }
  return m.SerializeAsString();
}

}  // namespace ge::core
