// registry/src/onnx_functions.cc — expansion of an ai.onnx op into its ONNX function body
// (onnx/docs/IR.md "Functions"; onnx/defs/function.h), for ops a backend has no kernel for.
// Context-dependent bodies (built from the node's attributes and input types, e.g.
// LayerNormalization-17, CastLike-15) are built with FunctionBodyBuildContextImpl. Inlining
// follows ONNX Runtime's (onnxruntime/core/graph/function_utils.cc): formal inputs and outputs
// become the node's values, internal values get fresh names, an attribute reference
// (`ref_attr_name`) takes the caller's value or else the op's schema default.
#include <map>

#include "ge/sdk/error.h"
#include "infer_util.h"
#include "onnx_proto.h"

namespace ge::registry::detail {
namespace {

bool has_body(const onnx::OpSchema* s) { return s && (s->HasFunction() || s->HasContextDependentFunction()); }

onnx::FunctionProto body_of(const Node& n, const onnx::OpSchema& s) {
  if (s.HasFunction()) return *s.GetFunction();
  onnx::NodeProto np;
  np.set_op_type(n.op_type());
  np.set_name(n.name());
  for (const Value* v : n.inputs()) np.add_input(v ? v->name() : "");
  for (const Value* v : n.outputs()) np.add_output(v ? v->name() : "");
  std::vector<onnx::TypeProto> types;
  for (const Value* v : n.inputs()) types.push_back(v ? tensor_type_proto(v->dtype, v->shape) : onnx::TypeProto());
  for (auto& [name, v] : n.attrs.all()) {
    auto it = s.attributes().find(name);
    *np.add_attribute() = attr_to_proto(name, v, it != s.attributes().end() ? it->second.type : onnx::AttributeProto::UNDEFINED);
  }
  onnx::FunctionBodyBuildContextImpl ctx(np, types);
  onnx::FunctionProto f;
  bool built = false;
  try {
    built = s.BuildContextDependentFunction(ctx, f);
  } catch (const std::exception& e) {
    throw UnsupportedError(n.describe() + ": ONNX's function body of " + n.op_type() + "-" +
                           std::to_string(s.since_version()) + " cannot be built for these inputs: " + e.what());
  }
  if (!built)
    throw UnsupportedError(n.describe() + ": ONNX's function body of " + n.op_type() + "-" +
                           std::to_string(s.since_version()) + " cannot be built for these inputs");
  return f;
}

std::vector<Node*> expand(Node& n, int64_t opset) {
  const onnx::OpSchema* s = schema_for(n.domain(), n.op_type(), opset);
  if (!has_body(s)) throw UnsupportedError(n.describe() + ": " + n.op_type() + " has no ONNX function body at opset " + std::to_string(opset));
  const onnx::FunctionProto f = body_of(n, *s);
  Graph& g = *n.graph();
  for (const auto& imp : f.opset_import()) {
    const std::string dom = imp.domain() == "ai.onnx" ? "" : imp.domain();
    if (!g.opsets.count(dom))
      throw UnsupportedError(n.describe() + ": the function body of " + n.op_type() + " uses domain '" + dom +
                             "', which the model does not import");
  }
  // Attributes of the calling node, with the schema's defaults for the ones it omits.
  std::map<std::string, AttrValue> caller;
  for (auto& [name, a] : s->attributes())
    if (a.default_value.type() != onnx::AttributeProto::UNDEFINED) caller[name] = attr_from_proto(a.default_value, n.describe());
  for (auto& [name, v] : n.attrs.all()) caller[name] = v;

  // Build everything first, then change the graph: a failure leaves it as it was.
  struct NewNode {
    std::string op, domain, name;
    std::vector<std::string> ins, outs;
    Attributes attrs;
  };
  std::vector<NewNode> plan;
  for (int i = 0; i < f.node_size(); ++i) {
    const onnx::NodeProto& b = f.node(i);
    NewNode nn;
    nn.op = b.op_type();
    nn.domain = b.domain() == "ai.onnx" ? "" : b.domain();
    nn.name = n.name() + "/" + (b.name().empty() ? b.op_type() + "_" + std::to_string(i) : b.name());
    nn.ins.assign(b.input().begin(), b.input().end());
    nn.outs.assign(b.output().begin(), b.output().end());
    for (const auto& a : b.attribute()) {
      if (!a.ref_attr_name().empty()) {
        auto it = caller.find(a.ref_attr_name());
        if (it != caller.end()) nn.attrs.set(a.name(), it->second);
        continue;
      }
      nn.attrs.set(a.name(), attr_from_proto(a, n.describe() + " function body node '" + nn.name + "'"));
    }
    plan.push_back(std::move(nn));
  }

  std::map<std::string, Value*> names;  // body value name → GE value
  std::vector<Value*> ins(n.inputs().begin(), n.inputs().end()), outs(n.outputs().begin(), n.outputs().end());
  for (int i = 0; i < f.input_size(); ++i) names[f.input(i)] = i < static_cast<int>(ins.size()) ? ins[i] : nullptr;
  const std::string prefix = n.name().empty() ? n.op_type() : n.name();
  g.remove_node(&n);
  for (int i = 0; i < f.output_size(); ++i) {
    Value* v = i < static_cast<int>(outs.size()) ? outs[i] : nullptr;
    // An output the caller omitted is still computed by the body: give it an internal value.
    names[f.output(i)] = v ? v : g.add_value(g.unique_value_name(prefix + "/" + f.output(i)));
  }
  auto value = [&](const std::string& name) -> Value* {
    if (name.empty()) return nullptr;
    auto it = names.find(name);
    if (it != names.end()) return it->second;
    Value* v = g.add_value(g.unique_value_name(prefix + "/" + name));
    names[name] = v;
    return v;
  };
  std::vector<Node*> made;
  for (NewNode& nn : plan) {
    std::vector<Value*> vi, vo;
    for (auto& s : nn.ins) vi.push_back(value(s));
    for (auto& s : nn.outs) vo.push_back(value(s));
    std::string name = nn.name;
    for (int k = 1; g.find_node(name); ++k) name = nn.name + "_" + std::to_string(k);
    made.push_back(g.add_node(nn.op, name, std::move(vi), std::move(vo), std::move(nn.attrs), nn.domain));
  }
  return made;
}

}  // namespace

FunctionExpander onnx_function_expander(const std::string& op_type) {
  FunctionExpander fx;
  fx.has_body = [op_type](int64_t opset) { return has_body(schema_for("", op_type, opset)); };
  fx.expand = [](Node& n, int64_t opset) { return expand(n, opset); };
  return fx;
}

bool onnx_op_has_function(const std::string& op_type) {
  for (int v = 1; v <= 17; ++v)
    if (has_body(schema_for("", op_type, v))) return true;
  return false;
}

}  // namespace ge::registry::detail
