// ge/sdk/op_registry.h — operator definitions: signature, attributes, shape inference and the
// fusion metadata (pattern, fuse_flag, numerics) that passes consult.
//
// Definitions are data (registry/*.toml, parsed by ge::parse_op_defs_toml) plus a shape
// inference function registered by op type. Several definitions of one op type may exist with
// different `since_version`s; a model at opset N uses the newest definition with
// since_version <= N (ONNX's versioning rule, onnx/docs/Versioning.md).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/sdk/attribute.h"
#include "ge/sdk/ir.h"

namespace ge {

/// TVM's operator pattern ladder (TVM relay/op/op_attr_types.h, OpPatternKind), used to bound
/// fusion: elementwise < broadcast < injective < reduce < out_elementwise_fusable < opaque.
enum class OpPattern { Elementwise, Broadcast, Injective, Reduce, OutElementwiseFusable, Opaque };
/// What fusion may do across this op's boundary.
///  fusable: may be absorbed into / absorb neighbours; no_fuse_input: producers may not be fused
///  into it; no_fuse_output: consumers may not be fused into it; never: no fusion at all.
enum class FuseFlag { Fusable, NoFuseInput, NoFuseOutput, Never };
std::string_view op_pattern_name(OpPattern p);
std::string_view fuse_flag_name(FuseFlag f);
OpPattern op_pattern_from_name(std::string_view s);  ///< throws ge::Error on unknown
FuseFlag fuse_flag_from_name(std::string_view s);    ///< throws ge::Error on unknown

struct IoDef {
  std::string name;
  std::vector<DataType> types;  ///< allowed element types; empty = any
  bool optional = false;
  bool variadic = false;  ///< the last input/output may repeat (Concat, Sum)
};

struct AttrDef {
  std::string name;
  AttrType type = AttrType::Int;
  bool required = false;
  std::optional<AttrValue> default_value;
};

class InferContext;
/// Sets every output's dtype and shape from the inputs and attributes; throws
/// ge::InvalidGraphError / ge::UnsupportedError naming the problem.
using ShapeInferenceFn = std::function<void(InferContext&)>;

struct OpDef {
  std::string op_type;
  std::string domain;  ///< "" = ai.onnx; "ge" for GE's fused ops
  int since_version = 1;
  std::vector<IoDef> inputs, outputs;
  std::vector<AttrDef> attrs;
  OpPattern pattern = OpPattern::Opaque;
  FuseFlag fuse_flag = FuseFlag::Fusable;
  /// Free text: how a rewrite involving this op can change floating-point results.
  std::string numerics;
  /// May be evaluated at compile time when every input is constant (false for random ops).
  bool foldable = true;

  // Contracts other plugins rely on (ABI 1.6; registry/README.md "Contracts"). Kernels of every
  // backend registered for the op must honour them.

  /// Output 0 is input 0's bytes reinterpreted: same dtype and element count, a new shape only
  /// (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout at inference). The memory planner
  /// places the output on the input's bytes, and where it did the runtime runs no kernel.
  bool view = false;
  /// Inputs whose bytes output 0 may reuse (run in place) when that input has the output's
  /// dtype, shape and layout and is read by no later node: every kernel of the op reads element
  /// i of such an input before it writes element i of the output. kInplaceAnyInput = every
  /// input; empty = never in place.
  std::vector<int> inplace_inputs;
  static constexpr int kInplaceAnyInput = -1;
  bool may_run_inplace_on(size_t input) const;
  /// For a fused op whose kernels take a variable operand list (ge.FusedElementwise): the most
  /// operands (data inputs + program instructions) every backend's kernel accepts; 0 = no limit.
  int max_operands = 0;
  /// ge.FusedElementwise computes this op as one instruction of its program on every backend
  /// (plugins/fusion/ops/elementwise.toml lists the instruction set).
  bool elementwise_instruction = false;
  /// Class of the op for the cost model (ge/sdk/cost_model.h op_class): "gemm", "elementwise",
  /// "reduce", "data", "transdata" or "other"; "" = derived (views: "view"; elementwise and
  /// broadcast patterns: "elementwise"; else "other").
  std::string cost_class;
  /// Shape inference; set by the registering plugin (looked up by op_type).
  ShapeInferenceFn infer;
  std::string doc;
  /// Plugin that registered this definition (filled by the host).
  std::string source;

  const AttrDef* find_attr(const std::string& name) const;
};

/// Gives a shape-inference function the node's inputs and attributes and takes its outputs.
class InferContext {
 public:
  InferContext(Node& node, const OpDef& def, int64_t opset) : node_(node), def_(def), opset_(opset) {}
  Node& node() const { return node_; }
  const OpDef& def() const { return def_; }
  int64_t opset() const { return opset_; }

  size_t num_inputs() const { return node_.num_inputs(); }
  size_t num_outputs() const { return node_.num_outputs(); }
  /// False for an omitted optional input.
  bool has_input(size_t i) const { return node_.input(i) != nullptr; }
  DataType input_type(size_t i) const;
  const Shape& input_shape(size_t i) const;
  /// Compile-time contents of input i, or null when not known.
  const Tensor* input_data(size_t i) const;
  /// Like input_data but throws ge::UnsupportedError naming the input when unknown.
  const Tensor& require_input_data(size_t i) const;

  void set_output(size_t i, DataType t, Shape s);
  /// Sets output i to a value known at compile time (dtype and shape from `t`). Shape, Size and
  /// Constant use this so that shape subgraphs fold even when their inputs are not constant.
  void set_output_data(size_t i, Tensor t);

  /// Attribute value, falling back to the OpDef's default; throws when required and absent.
  int64_t attr_int(const std::string& name) const;
  float attr_float(const std::string& name) const;
  std::string attr_string(const std::string& name) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;
  bool has_attr(const std::string& name) const { return node_.attrs.has(name); }

  /// ge::InvalidGraphError with the node described in front of `msg`.
  [[noreturn]] void fail(const std::string& msg) const;
  [[noreturn]] void unsupported(const std::string& msg) const;

 private:
  Node& node_;
  const OpDef& def_;
  int64_t opset_;
};

/// (ABI 1.5) Replaces a node by the body of its op's function (ONNX's FunctionProto: the op
/// defined as a subgraph of simpler ops, onnx/docs/IR.md "Functions"). The importer expands an op
/// this way when the target backend has no kernel for it (ONNX Runtime does the same).
struct FunctionExpander {
  /// True when the version of the op that a model at `opset` uses has a function body.
  std::function<bool(int64_t opset)> has_body;
  /// Removes `n` from its graph and adds the body's nodes reading n's inputs and writing n's
  /// outputs (internal values get fresh names starting with n's name); returns the new nodes in
  /// topological order, their shapes not yet inferred. The node's input dtypes and shapes must be
  /// known (some bodies depend on them). Throws ge::UnsupportedError naming the node when the
  /// body cannot be built for these inputs, leaving the graph unchanged.
  std::function<std::vector<Node*>(Node& n, int64_t opset)> expand;
  std::string source;  ///< registering plugin (filled by the host)
};

/// GE's metadata for op types defined elsewhere (ONNX's schemas): what ONNX does not say. Every
/// field left unset keeps the definition's value. Format: registry/README.md, `[[meta]]`.
struct OpMeta {
  std::string domain;                 ///< "" = ai.onnx
  std::vector<std::string> op_types;  ///< the op types this entry applies to
  int since_min = 0;                  ///< applies to definitions with since_version >= this
  std::optional<OpPattern> pattern;
  std::optional<FuseFlag> fuse_flag;
  std::optional<std::string> numerics;
  std::optional<bool> foldable;
  // (ABI 1.6) the contracts of OpDef
  std::optional<bool> view;
  std::optional<std::vector<int>> inplace_inputs;
  std::optional<int> max_operands;
  std::optional<bool> elementwise_instruction;
  std::optional<std::string> cost_class;
  std::string origin;                 ///< "file:line" for errors
};

/// All op definitions known to one environment.
class OpRegistry {
 public:
  /// Adds a definition. A second definition of the same (domain, op_type, since_version)
  /// throws ge::Error naming both sources.
  void add(OpDef def);
  /// Adds a definition, replacing an existing one of the same (domain, op_type, since_version)
  /// but keeping its shape inference when `def` has none — how a manifest's registry file changes
  /// an op's fusion metadata (pattern, fuse_flag) without code.
  void add_or_replace(OpDef def);
  /// Attaches shape inference to every definition of op_type in domain (any version).
  void set_infer(const std::string& domain, const std::string& op_type, ShapeInferenceFn fn);
  /// The definition a model at `opset` uses, or null.
  const OpDef* find(const std::string& domain, const std::string& op_type, int64_t opset) const;
  /// Any definition of the op type (newest), or null.
  const OpDef* find_any(const std::string& domain, const std::string& op_type) const;
  std::vector<const OpDef*> all() const;
  /// Removes every definition registered by `source` (rolls back a failed plugin).
  void remove_source(const std::string& source);
  /// (ABI 1.5) The function expander of an op type (any version), or null.
  void set_expander(const std::string& domain, const std::string& op_type, FunctionExpander fx);
  const FunctionExpander* expander(const std::string& domain, const std::string& op_type) const;
  /// (ABI 1.5) Applies `meta` to every definition of its op types; throws ge::Error naming
  /// meta.origin when an op type has no definition (a typo in registry data is an error).
  void apply_meta(const OpMeta& meta);

 private:
  // key: domain + "::" + op_type → definitions by since_version
  std::map<std::string, std::map<int, OpDef>> defs_;
  std::map<std::string, FunctionExpander> expanders_;
};

/// Parses op definitions from TOML text (format: registry/README.md). `origin` names the file
/// in errors. Throws ge::Error naming the file, the key and the line on a bad entry. A file may
/// also hold `[[meta]]` entries, which this function skips (see parse_op_meta_toml).
std::vector<OpDef> parse_op_defs_toml(const std::string& text, const std::string& origin);
/// (ABI 1.5) The `[[meta]]` entries of a registry file (registry/README.md), checked like
/// parse_op_defs_toml's.
std::vector<OpMeta> parse_op_meta_toml(const std::string& text, const std::string& origin);
/// Applies `m` to one definition when its since_version is in range (no op-type check).
void apply_meta_to(OpDef& def, const OpMeta& m);

/// Numpy-style broadcast of two shapes (ONNX docs/Broadcasting.md); throws
/// ge::InvalidGraphError naming `what` when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what);

}  // namespace ge
