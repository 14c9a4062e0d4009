// registry/src/schema_defs.cc — GE op definitions from onnx::OpSchemaRegistry: every ai.onnx op
// and since_version a model at opset 7–17 can select (onnx/docs/Versioning.md: a model at opset N
// uses the newest version <= N), with inputs, outputs, attributes, defaults and type constraints
// as ONNX states them. GE's own data (registry/ops/*.toml, [[meta]]) is applied afterwards.
#include <map>

#include "ge/sdk/error.h"
#include "infer_util.h"
#include "onnx_proto.h"

namespace ge::registry::detail {
namespace {

IoDef io_def(const onnx::OpSchema::FormalParameter& p) {
  IoDef d;
  d.name = p.GetName();
  d.optional = p.GetOption() == onnx::OpSchema::Optional;
  d.variadic = p.GetOption() == onnx::OpSchema::Variadic;
  // Tensor types only: sequence/optional/map types have no GE representation (the frontend
  // refuses such values, and inference refuses such outputs).
  for (const std::string* t : p.GetTypes()) {
    const DataType dt = dtype_from_onnx_type_str(*t);
    if (dt != DataType::Undefined) d.types.push_back(dt);
  }
  std::sort(d.types.begin(), d.types.end());
  return d;
}

OpDef op_def(const onnx::OpSchema& s) {
  OpDef d;
  d.op_type = s.Name();
  d.domain = "";
  d.since_version = s.since_version();
  for (auto& p : s.inputs()) d.inputs.push_back(io_def(p));
  for (auto& p : s.outputs()) d.outputs.push_back(io_def(p));
  for (auto& [name, a] : s.attributes()) {
    std::optional<AttrType> t = attr_type_from_onnx(a.type);
    if (!t) continue;  // graph and sparse attributes: control flow, refused by the frontend
    AttrDef ad;
    ad.name = name;
    ad.type = *t;
    ad.required = a.required;
    if (a.default_value.type() != onnx::AttributeProto::UNDEFINED)
      ad.default_value = attr_from_proto(a.default_value, d.op_type + " default");
    d.attrs.push_back(std::move(ad));
  }
  // Without GE metadata an op is opaque and never fused (registry/README.md); numerics unknown.
  d.pattern = OpPattern::Opaque;
  d.fuse_flag = FuseFlag::Never;
  d.numerics = "unknown (no GE metadata)";
  d.doc = "ONNX " + d.op_type + "-" + std::to_string(d.since_version) + " (onnx/docs/Operators.md#" + d.op_type + ")" +
          (s.Deprecated() ? "; deprecated" : "");
  return d;
}

}  // namespace

std::vector<OpDef> onnx_schema_defs(int min_opset, int max_opset) {
  // op type → since_version → schema, ai.onnx only.
  std::map<std::string, std::map<int, onnx::OpSchema>> by_op;
  for (const onnx::OpSchema& s : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    if (!s.domain().empty() && s.domain() != "ai.onnx") continue;
    if (s.since_version() > max_opset) continue;
    by_op[s.Name()].emplace(s.since_version(), s);
  }
  std::vector<OpDef> out;
  for (auto& [op, versions] : by_op) {
    // The version a model at min_opset selects, and every later one up to max_opset.
    auto first = versions.upper_bound(min_opset);
    if (first != versions.begin()) --first;
    for (auto it = first; it != versions.end(); ++it) out.push_back(op_def(it->second));
  }
  return out;
}

}  // namespace ge::registry::detail
