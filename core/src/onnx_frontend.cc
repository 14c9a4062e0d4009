// The ONNX frontend: ModelProto → ge::Graph. Shapes of intermediate values are left to the
// host's propagation (importer.cc); declared and ONNX-inferred types seed it and are cross-checked.
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include "ge/core/file_io.h"
#include "ge/core/onnx_frontend.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"
#include "onnx_tensor.h"

namespace ge::core {

namespace fs = std::filesystem;

namespace {

std::string normalize_domain(const std::string& d) { return d == "ai.onnx" ? "" : d; }

// The ai.onnx opsets GE's registry defines (registry/include/ge/registry/standard_ops.h).
constexpr int64_t kMinOpset = 7, kMaxOpset = 17;

int64_t onnx_opset(const onnx::ModelProto& m) {
  for (auto& op : m.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") return op.version();
  return 1;  // onnx/docs/IR.md: a model without an ai.onnx import uses no ai.onnx op
}

/// A model outside opsets 7–17 is brought into range by onnx's version converter when it can
/// be (onnx/docs/VersionConverter.md), which is said on stderr; otherwise refused.
void bring_into_opset_range(onnx::ModelProto& model, const std::string& path) {
  const int64_t v = onnx_opset(model);
  bool uses_onnx = false;
  for (auto& n : model.graph().node()) uses_onnx |= n.domain().empty() || n.domain() == "ai.onnx";
  if ((v >= kMinOpset && v <= kMaxOpset) || !uses_onnx) return;
  const int64_t target = v < kMinOpset ? kMinOpset : kMaxOpset;
  const std::string range = "GE supports ai.onnx opsets " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset);
  if (v > kMaxOpset)
    throw UnsupportedError("model file '" + path + "' uses ai.onnx opset " + std::to_string(v) + "; " + range +
                           " (onnx 1.12's version converter cannot convert down from a newer opset)");
  // The converter first builds onnx's IR of the model (ImportModelProto, onnx/common/
  // ir_pb_converter.cc), which returns no graph below ir_version 2 and writes through a null value
  // for a graph output that nothing defines (initializers define values from ir_version 4 on);
  // the converter then dereferences both, and indexes a node's inputs by its schema's count.
  // Refused here as GE's import below would refuse them.
  if (model.ir_version() < 2)
    throw InvalidGraphError("model file '" + path + "' has ir_version " + std::to_string(model.ir_version()) +
                            "; onnx's version converter (needed for opset " + std::to_string(v) + ") reads 2 and later");
  std::set<std::string> defined;
  for (auto& vi : model.graph().input()) defined.insert(vi.name());
  if (model.ir_version() >= 4)
    for (auto& t : model.graph().initializer()) defined.insert(t.name());
  for (auto& n : model.graph().node()) defined.insert(n.output().begin(), n.output().end());
  for (auto& vi : model.graph().output())
    if (!defined.count(vi.name()))
      throw InvalidGraphError("model file '" + path + "': graph output '" + vi.name() + "' is not produced by any node");
  if (const std::string bad = node_outside_its_arity(model); !bad.empty())
    throw InvalidGraphError("model file '" + path + "': " + bad);
  // The converter's adapters read the shapes of the old opset's nodes without checking them
  // (Gemm_6_7 indexes A's two dims): the model must pass onnx's checker and its shape inference
  // at the old opset, failing on any node's inconsistency, before the converter sees it.
  try {
    onnx::checker::check_model(model);
    onnx::ModelProto checked = model;
    std::string unsafe;
    if (!onnx_inference_is_safe(checked, &unsafe)) throw InvalidGraphError(unsafe);
    onnx::shape_inference::InferShapes(checked, guarded_onnx_schemas(),
                                       onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1));
    // Gemm_6_7 reads dims 0 and 1 of A and B whatever their rank (Gemm-1's inference does not
    // check it): both must be known matrices.
    // The converter's IR keeps one shape per name, from whichever declaration it read last: a
    // name declared with two ranks (a graph output reusing a graph input's name with another
    // shape) reached Gemm_6_7 with the wrong one, rank 0, and it read dims 0 and 1 of it.
    std::map<std::string, std::pair<int, const char*>> rank;
    auto note = [&](const onnx::ValueInfoProto& vi, const char* where) {
      if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
      const int r = vi.type().tensor_type().shape().dim_size();
      auto [it, fresh] = rank.emplace(vi.name(), std::make_pair(r, where));
      if (!fresh && it->second.first != r)
        throw InvalidGraphError("value '" + vi.name() + "' is declared with rank " + std::to_string(it->second.first) + " (" +
                                it->second.second + ") and rank " + std::to_string(r) + " (" + where + ")");
    };
    for (const auto& vi : checked.graph().input()) note(vi, "graph input");
    for (const auto& vi : checked.graph().value_info()) note(vi, "value_info");
    for (const auto& vi : checked.graph().output()) note(vi, "graph output");
    for (const auto& t : checked.graph().initializer()) rank[t.name()] = {t.dims_size(), "initializer"};
    for (int k = 0; k < checked.graph().node_size(); ++k) {
      const onnx::NodeProto& n = checked.graph().node(k);
      if (n.op_type() != "Gemm" || !(n.domain().empty() || n.domain() == "ai.onnx")) continue;
      for (int i = 0; i < 2 && i < n.input_size(); ++i) {
        auto r = rank.find(n.input(i));
        if (r == rank.end() || r->second.first != 2)
          throw InvalidGraphError("node '" + (n.name().empty() ? "#" + std::to_string(k) : n.name()) + "' (Gemm): input " + std::string(i == 0 ? "A" : "B") + " '" +
                                  n.input(i) + "' must be a matrix of known shape (rank " +
                                  (r == rank.end() ? std::string("unknown") : std::to_string(r->second.first)) + ")");
      }
    }
  } catch (const std::exception& e) {
    // onnx's checker puts its context on further lines ("\n\n==> Context: ..."): one line here.
    std::string why = e.what();
    for (size_t i = why.find('\n'); i != std::string::npos; i = why.find('\n', i)) {
      const size_t j = why.find_first_not_of('\n', i);
      why.replace(i, (j == std::string::npos ? why.size() : j) - i, "; ");
    }
    throw InvalidGraphError("model file '" + path + "' uses ai.onnx opset " + std::to_string(v) +
                            "; before onnx's version converter may convert it, " + why);
  }
  try {
    model = onnx::version_conversion::ConvertVersion(model, static_cast<int>(target));
  } catch (const std::exception& e) {
    throw UnsupportedError("model file '" + path + "' uses ai.onnx opset " + std::to_string(v) + "; " + range +
                           ", and onnx's version converter could not convert it to opset " + std::to_string(target) +
                           ": " + e.what());
  }
  log(LogLevel::Warn, "model file '" + path + "': converted from ai.onnx opset " + std::to_string(v) + " to opset " +
                          std::to_string(target) + " by onnx's version converter (" + range + ")");
}

/// dtype and shape of a graph input/output from its TypeProto; refuses non-tensor types.
std::pair<DataType, std::optional<Shape>> tensor_type(const onnx::ValueInfoProto& vi, const std::string& where,
                                                      const std::map<std::string, std::vector<int64_t>>& overrides,
                                                      bool allow_unknown_dims = false) {
  const onnx::TypeProto& tp = vi.type();
  if (tp.has_sequence_type()) throw UnsupportedError(where + " '" + vi.name() + "': sequence types are not supported");
  if (tp.has_optional_type()) throw UnsupportedError(where + " '" + vi.name() + "': optional types are not supported");
  if (tp.has_map_type()) throw UnsupportedError(where + " '" + vi.name() + "': map types are not supported");
  if (tp.has_sparse_tensor_type()) throw UnsupportedError(where + " '" + vi.name() + "': sparse tensors are not supported");
  if (!tp.has_tensor_type()) return {DataType::Undefined, std::nullopt};
  DataType dt = static_cast<DataType>(tp.tensor_type().elem_type());
  if (auto it = overrides.find(vi.name()); it != overrides.end()) return {dt, Shape(it->second)};
  if (!tp.tensor_type().has_shape()) return {dt, std::nullopt};
  std::vector<int64_t> dims;
  for (auto& d : tp.tensor_type().shape().dim()) {
    if (!d.has_dim_value()) {
      if (allow_unknown_dims) return {dt, std::nullopt};
      std::string sym = d.has_dim_param() ? "'" + d.dim_param() + "'" : "unknown";
      throw UnsupportedError(where + " '" + vi.name() + "' has a symbolic dimension " + sym +
                             "; give a static shape with --input-shape " + vi.name() + ":D0,D1,...");
    }
    if (d.dim_value() < 0)  // IR.md: a dim_value is a non-negative integer
      throw InvalidGraphError(where + " '" + vi.name() + "' has a dimension of " + std::to_string(d.dim_value()));
    dims.push_back(d.dim_value());
  }
  try {
    Shape(dims).numel();  // refuses a product of dims past 2^59 before anything sizes a buffer
  } catch (const Error& e) {
    throw InvalidGraphError(where + " '" + vi.name() + "': " + e.what());
  }
  return {dt, Shape(dims)};
}

AttrValue convert_attr(const onnx::AttributeProto& a, const std::string& node_desc, const std::string& base_dir) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: return static_cast<int64_t>(a.i());
    case A::FLOAT: return a.f();
    case A::STRING: return a.s();
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
    case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case A::TENSOR: return tensor_from_proto(a.t(), base_dir, node_desc + " attribute '" + a.name() + "'");
    case A::GRAPH:
    case A::GRAPHS:
      throw UnsupportedError(node_desc + ": attribute '" + a.name() + "' is a subgraph; control flow is not supported");
    case A::SPARSE_TENSOR:
    case A::SPARSE_TENSORS:
      throw UnsupportedError(node_desc + ": attribute '" + a.name() + "' is a sparse tensor; not supported");
    case A::TYPE_PROTO:
    case A::TYPE_PROTOS:
      throw UnsupportedError(node_desc + ": attribute '" + a.name() + "' is a type proto; not supported");
    default:
      throw InvalidGraphError(node_desc + ": attribute '" + a.name() + "' has no type");
  }
}

class OnnxFrontend : public Frontend {
 public:
  std::string name() const override { return "onnx"; }

  bool accepts(const std::string& path, const std::string& head) const override {
    std::string ext = fs::path(path).extension().string();  // .onnx in any case (M.ONNX)
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext == ".onnx";
  }

  std::unique_ptr<Graph> load(const std::string& path, const FrontendOptions& opts) const override {
    std::string bytes = read_regular_file(path, "model file");
    return load_bytes(std::move(bytes), path, fs::path(path).parent_path().string(), opts);
  }

  std::unique_ptr<Graph> load_bytes(std::string bytes, const std::string& path, const std::string& base_dir,
                                    const FrontendOptions& opts) const {
    onnx::ModelProto model;
    if (bytes.empty() || !model.ParseFromString(bytes) || !model.has_graph())
      throw Error("model file '" + path + "' is not a valid ONNX model (protobuf parsing failed)");
    bytes.clear();
    bytes.shrink_to_fit();
    validate_model_tensors(model, base_dir, path);  // before onnx::shape_inference reads any tensor
    if (model.graph().node_size() == 0 && model.graph().output_size() == 0)
      throw Error("model file '" + path + "' holds an empty graph");
    for (auto& f : model.functions())
      throw UnsupportedError("model file '" + path + "': model-local functions ('" + f.name() + "') are not supported");
    bring_into_opset_range(model, path);
    // A shape given for a symbolic input is written into the model before ONNX's inference, so
    // that the value_info it infers is that of the static shape.
    for (auto& vi : *model.mutable_graph()->mutable_input()) {
      auto it = opts.input_shapes.find(vi.name());
      if (it == opts.input_shapes.end() || !vi.type().has_tensor_type()) continue;
      auto* shp = vi.mutable_type()->mutable_tensor_type()->mutable_shape();
      shp->clear_dim();
      for (int64_t d : it->second) shp->add_dim()->set_dim_value(d);
    }
    // ONNX's own shape inference fills value_info; GE's propagation is authoritative and is
    // checked against it.
    std::string unsafe;
    try {
      if (onnx_inference_is_safe(model, &unsafe)) onnx::shape_inference::InferShapes(model, guarded_onnx_schemas());
      else log(LogLevel::Debug, "model file '" + path + "': onnx shape inference skipped: " + unsafe);
    } catch (const std::exception&) {
      // Not fatal: GE's propagation decides; mismatches are reported there.
    }
    return convert(model, path, base_dir, opts);
  }

 private:
  std::unique_ptr<Graph> convert(const onnx::ModelProto& model, const std::string& path, const std::string& base_dir,
                                 const FrontendOptions& opts) const {
    const onnx::GraphProto& gp = model.graph();
    auto g = std::make_unique<Graph>(gp.name().empty() ? fs::path(path).stem().string() : gp.name());
    for (auto& op : model.opset_import()) g->opsets[normalize_domain(op.domain())] = op.version();
    if (!g->opsets.count("")) g->opsets[""] = 1;

    for (auto& init : gp.initializer())
      g->add_constant(init.name(), tensor_from_proto(init, base_dir, "initializer '" + init.name() + "'"));
    if (gp.sparse_initializer_size())
      throw UnsupportedError("model file '" + path + "': sparse initializers are not supported");

    for (auto& vi : gp.input()) {
      if (Value* c = g->find_value(vi.name())) {
        if (c->is_graph_input() || !c->is_constant())
          throw InvalidGraphError("model file '" + path + "': graph input '" + vi.name() + "' is listed twice");
        // Older IR versions list initializers as inputs as well: constants unless asked otherwise.
        if (opts.keep_initializer_inputs) {
          c->data.reset();
          g->mark_input(c);
        }
        continue;
      }
      auto [dt, shape] = tensor_type(vi, "graph input", opts.input_shapes);
      if (dt == DataType::Undefined) throw UnsupportedError("graph input '" + vi.name() + "' is not a tensor");
      if (!shape) throw UnsupportedError("graph input '" + vi.name() + "' has no shape; give one with --input-shape");
      g->add_input(vi.name(), dt, *shape);
    }
    for (auto& [name, dims] : opts.input_shapes) {
      Value* v = g->find_value(name);
      if (!v || !v->is_graph_input())
        throw Error("--input-shape names '" + name + "', which is not a graph input of '" + path + "'");
    }

    auto value = [&](const std::string& name) -> Value* {
      if (name.empty()) return nullptr;
      if (Value* v = g->find_value(name)) return v;
      return g->add_value(name);
    };
    for (int i = 0; i < gp.node_size(); ++i) {
      const onnx::NodeProto& np = gp.node(i);
      std::string desc = "node '" + (np.name().empty() ? "#" + std::to_string(i) : np.name()) + "' (" + np.op_type() + ")";
      Attributes attrs;
      for (auto& a : np.attribute()) {
        if (!a.ref_attr_name().empty()) throw UnsupportedError(desc + ": attribute references are not supported");
        attrs.set(a.name(), convert_attr(a, desc, base_dir));
      }
      std::vector<Value*> ins, outs;
      for (auto& n : np.input()) ins.push_back(value(n));
      for (auto& n : np.output()) {
        // A value has one definition (ONNX IR: SSA form); Graph::add_node refuses a graph input.
        if (Value* v = g->find_value(n); v && v->is_constant())
          throw InvalidGraphError(desc + ": output '" + n + "' is already defined as an initializer");
        outs.push_back(value(n));
      }
      g->add_node(np.op_type(), np.name(), ins, outs, std::move(attrs), normalize_domain(np.domain()));
    }
    for (auto& vi : gp.output()) {
      Value* v = g->find_value(vi.name());
      if (!v) throw InvalidGraphError("graph output '" + vi.name() + "' is not produced by any node");
      auto [dt, shape] = tensor_type(vi, "graph output", {}, true);  // refuses sequence/optional outputs
      if (!v->is_constant() && !v->is_graph_input() && shape) {
        v->dtype = dt;  // declared type: seeds propagation (see value_info below)
        v->shape = *shape;
      }
      g->mark_output(v);
    }
    // value_info from ONNX shape inference seeds intermediate types; the host's propagation
    // recomputes every one and warns where the two disagree.
    for (auto& vi : gp.value_info()) {
      Value* v = g->find_value(vi.name());
      if (!v || v->is_constant() || v->is_graph_input() || !vi.type().has_tensor_type()) continue;
      auto [dt, shape] = tensor_type(vi, "value", {}, true);
      if (!shape) continue;
      v->dtype = dt;
      v->shape = *shape;
    }
    g->sort_topologically();
    return g;
  }
};

}  // namespace

std::shared_ptr<Frontend> make_onnx_frontend() { return std::make_shared<OnnxFrontend>(); }

std::unique_ptr<Graph> load_onnx_bytes(std::string bytes, const std::string& what, const std::string& base_dir,
                                       const FrontendOptions& opts) {
  return OnnxFrontend().load_bytes(std::move(bytes), what, base_dir, opts);
}

namespace {
SymbolicTensor symbolic_tensor(const onnx::ValueInfoProto& vi, size_t index, const std::string& what) {
  SymbolicTensor t;
  t.name = vi.name();
  const onnx::TypeProto& tp = vi.type();
  if (!tp.has_tensor_type()) throw UnsupportedError(what + " '" + vi.name() + "' is not a tensor");
  t.dtype = static_cast<DataType>(tp.tensor_type().elem_type());
  if (!tp.tensor_type().has_shape()) {
    t.has_shape = false;
    return t;
  }
  int k = 0;
  for (auto& d : tp.tensor_type().shape().dim()) {
    SymbolicDim sd;
    if (d.has_dim_value()) sd.value = d.dim_value();
    // An unnamed unknown dim is a symbol of its own (ONNX IR: dims without value or param are
    // unrelated to every other).
    else sd.param = d.has_dim_param() && !d.dim_param().empty() ? d.dim_param()
                                                                : "?" + vi.name() + ":" + std::to_string(k);
    t.dims.push_back(sd);
    ++k;
  }
  (void)index;
  return t;
}
}  // namespace

OnnxSignature onnx_signature(const std::string& bytes, const std::string& what) {
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes) || !model.has_graph())
    throw Error("model file '" + what + "' is not a valid ONNX model (protobuf parsing failed)");
  OnnxSignature s;
  std::set<std::string> inits;
  for (auto& i : model.graph().initializer()) inits.insert(i.name());
  size_t k = 0;
  for (auto& vi : model.graph().input())
    if (!inits.count(vi.name())) s.inputs.push_back(symbolic_tensor(vi, k++, "graph input"));
  k = 0;
  for (auto& vi : model.graph().output()) s.outputs.push_back(symbolic_tensor(vi, k++, "graph output"));
  for (auto& i : model.graph().initializer())
    if (i.data_location() == onnx::TensorProto::EXTERNAL) s.external_data = true;
  return s;
}

}  // namespace ge::core
