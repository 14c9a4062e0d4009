// onnx.TensorProto ⇄ ge::Tensor. Field meanings: onnx/onnx.proto, message TensorProto.
#include "onnx_tensor.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "ge/core/file_io.h"
#include "ge/core/onnx_frontend.h"
#include "ge/sdk/error.h"

namespace ge::core {

namespace fs = std::filesystem;

namespace {

template <class Dst, class Src>
void copy_field(Tensor& t, const Src& field, const std::string& what) {
  if (static_cast<int64_t>(field.size()) != t.numel())
    throw Error(what + ": has " + std::to_string(field.size()) + " elements, shape " + t.shape().str() + " needs " +
                std::to_string(t.numel()));
  Dst* d = t.data_as<Dst>();
  for (int i = 0; i < field.size(); ++i) d[i] = static_cast<Dst>(field.Get(i));
}

/// Non-negative decimal integer (external-data offset and length), or an error naming the key.
int64_t parse_size(const std::string& s, const std::string& key, const std::string& what) {
  int64_t v = 0;
  bool ok = !s.empty() && s.size() <= 18;
  for (char c : s) ok = ok && c >= '0' && c <= '9';
  if (ok) v = std::stoll(s);
  if (!ok) throw Error(what + ": external data " + key + " '" + s + "' is not a non-negative integer below 10^18");
  return v;
}

struct ExternalData {
  fs::path file;
  int64_t offset = 0, length = -1;
};

/// The external data of `p`, resolved and checked: the location is relative and stays inside
/// the model's folder after symlinks (as ONNX Runtime requires), the file is a regular file and
/// offset + bytes lie inside it.
ExternalData resolve_external(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what,
                              uint64_t bytes) {
  ExternalData e;
  std::string location;
  for (auto& kv : p.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") e.offset = parse_size(kv.value(), "offset", what);
    else if (kv.key() == "length") e.length = parse_size(kv.value(), "length", what);
  }
  if (location.empty()) throw Error(what + ": external data without a location");
  const fs::path loc(location);
  if (loc.is_absolute() || loc.has_root_name() || location.find('\0') != std::string::npos)
    throw Error(what + ": external data location '" + location + "' must be a path relative to the model's folder");
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::absolute(base_dir.empty() ? "." : base_dir, ec), ec);
  const fs::path file = fs::weakly_canonical(base / loc, ec);
  if (ec) throw Error(what + ": external data location '" + location + "' cannot be resolved: " + ec.message());
  auto [b, f] = std::mismatch(base.begin(), base.end(), file.begin(), file.end());
  if (b != base.end() || f == file.end())
    throw Error(what + ": external data location '" + location + "' resolves outside the model's folder '" +
                base.string() + "'");
  e.file = file;
  const uint64_t size = require_regular_file(file.string(), what + ": external data file", UINT64_MAX);
  if (e.length >= 0 && static_cast<uint64_t>(e.length) != bytes)
    throw Error(what + ": external data length " + std::to_string(e.length) + " does not match " +
                std::to_string(bytes) + " bytes");
  if (static_cast<uint64_t>(e.offset) > size || bytes > size - static_cast<uint64_t>(e.offset))
    throw Error(what + ": external data offset " + std::to_string(e.offset) + " + " + std::to_string(bytes) +
                " bytes lies past the end of '" + file.string() + "' (" + std::to_string(size) + " bytes)");
  return e;
}

void read_external(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what, Tensor& t) {
  const ExternalData e = resolve_external(p, base_dir, what, t.nbytes());
  std::ifstream in(e.file, std::ios::binary);
  if (!in) throw Error(what + ": external data file '" + e.file.string() + "' cannot be opened");
  in.seekg(e.offset);
  in.read(static_cast<char*>(t.data()), static_cast<std::streamsize>(t.nbytes()));
  if (static_cast<size_t>(in.gcount()) != t.nbytes())
    throw Error(what + ": external data file '" + e.file.string() + "' is too short");
}

/// Elements stored in the typed field that holds dtype t (onnx.proto, TensorProto field docs).
int64_t typed_field_size(const onnx::TensorProto& p, DataType t) {
  switch (t) {
    case DataType::Float32: return p.float_data_size();
    case DataType::Float64: return p.double_data_size();
    case DataType::Int64: return p.int64_data_size();
    case DataType::UInt32: case DataType::UInt64: return p.uint64_data_size();
    default: return p.int32_data_size();
  }
}

/// One TensorProto checked the way tensor_from_proto reads it, without allocating its data.
void validate_tensor(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what) {
  if (!onnx::TensorProto_DataType_IsValid(p.data_type()) || p.data_type() == onnx::TensorProto::UNDEFINED)
    throw Error(what + ": tensor data type " + std::to_string(p.data_type()) + " is not an ONNX data type");
  const DataType dt = static_cast<DataType>(p.data_type());
  if (dt == DataType::String) throw UnsupportedError(what + ": string tensors are not supported");
  if (dtype_size(dt) == 0)
    throw UnsupportedError(what + ": tensor data type " + std::to_string(p.data_type()) + " is not supported");
  if (p.has_segment()) throw UnsupportedError(what + ": segmented tensors are not supported");
  std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  for (auto d : dims)
    if (d < 0) throw Error(what + ": negative dimension in " + Shape(dims).str());
  const uint64_t bytes = static_cast<uint64_t>(Shape(dims).numel()) * dtype_size(dt);  // numel refuses > 2^59
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    if (p.has_raw_data()) throw Error(what + ": external data and raw_data both given");
    resolve_external(p, base_dir, what, bytes);
  } else if (p.has_raw_data()) {
    if (p.raw_data().size() != bytes)
      throw Error(what + ": raw_data has " + std::to_string(p.raw_data().size()) + " bytes, shape " +
                  Shape(dims).str() + " of " + std::string(dtype_name(dt)) + " needs " + std::to_string(bytes));
  } else if (typed_field_size(p, dt) != Shape(dims).numel()) {
    throw Error(what + ": has " + std::to_string(typed_field_size(p, dt)) + " elements, shape " + Shape(dims).str() +
                " needs " + std::to_string(Shape(dims).numel()));
  }
}

void validate_graph_tensors(const onnx::GraphProto& g, const std::string& base_dir, const std::string& where);

void validate_attribute(const onnx::AttributeProto& a, const std::string& base_dir, const std::string& node) {
  const std::string what = node + " attribute '" + a.name() + "'";
  if (a.has_t()) validate_tensor(a.t(), base_dir, what);
  for (const auto& t : a.tensors()) validate_tensor(t, base_dir, what);
  if (a.has_g()) validate_graph_tensors(a.g(), base_dir, what);
  for (const auto& g : a.graphs()) validate_graph_tensors(g, base_dir, what);
}

void validate_graph_tensors(const onnx::GraphProto& g, const std::string& base_dir, const std::string& where) {
  for (const auto& init : g.initializer()) validate_tensor(init, base_dir, where + "initializer '" + init.name() + "'");
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const std::string desc =
        where + "node '" + (n.name().empty() ? "#" + std::to_string(i) : n.name()) + "' (" + n.op_type() + ")";
    for (const auto& a : n.attribute()) validate_attribute(a, base_dir, desc);
  }
}

}  // namespace

void validate_model_tensors(const onnx::ModelProto& m, const std::string& base_dir, const std::string& path) {
  validate_graph_tensors(m.graph(), base_dir, "model file '" + path + "': ");
}

namespace {

/// The rank of input i's tensor type when inference knows it, else -1.
int known_rank(onnx::InferenceContext& ctx, size_t i) {
  const onnx::TypeProto* t = ctx.getNumInputs() > i ? ctx.getInputType(i) : nullptr;
  if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return -1;
  return t->tensor_type().shape().dim_size();
}

using Guard = void (*)(onnx::InferenceContext&);

/// Conv, ConvInteger, QLinearConv, ConvTranspose (W at `w`): convPoolShapeInference and
/// convTransposeShapeInference read X's dims by W's rank (and ConvTranspose W's dim 1).
template <size_t w>
void same_rank_as_x(onnx::InferenceContext& ctx) {
  const int x = known_rank(ctx, 0), k = known_rank(ctx, w);
  if (x >= 0 && k >= 0 && x != k) fail_shape_inference("W has rank ", k, ", X rank ", x, "; they must be equal");
}

/// Conv, ConvInteger, QLinearConv, ConvTranspose and the pools (AveragePool, MaxPool, LpPool):
/// onnx 1.12's convPoolShapeInference divides by each stride unchecked (AveragePool with
/// strides [0, 2] raised SIGFPE; fuzz finding) and computes the window extent in int64. The
/// same bounds as GE's own inference (registry/src/nn.cc window_output): kernel_shape, strides
/// and dilations in [1, 2^31), pads in [0, 2^59]; and no auto_pad remainder loop that would run
/// for minutes (below).
void window_attributes_in_range(onnx::InferenceContext& ctx) {
  constexpr int64_t kMaxWindow = (int64_t{1} << 31) - 1, kMaxPad = int64_t{1} << 59;
  for (const char* name : {"kernel_shape", "strides", "dilations"})
    if (const onnx::AttributeProto* a = ctx.getAttribute(name))
      for (int64_t v : a->ints())
        if (v < 1 || v > kMaxWindow) fail_shape_inference(name, " must be in [1, 2^31), got ", v);
  if (const onnx::AttributeProto* a = ctx.getAttribute("pads"))
    for (int64_t v : a->ints())
      if (v < 0 || v > kMaxPad) fail_shape_inference("pads must be in [0, 2^59], got ", v);
  // Without pads and with an auto_pad attribute whose string is not "VALID" (NOTSET, SAME_*, or
  // an attribute of another type, whose string is empty), onnx 1.12 takes each spatial dim
  // modulo its stride by repeated subtraction: dim / stride iterations (a MaxPool over a dim of
  // 2^40 with stride 2 ran for hours; fuzz finding). Past 2^24 iterations onnx's inference
  // stops here and GE's gives the shape.
  const onnx::AttributeProto* auto_pad = ctx.getAttribute("auto_pad");
  const onnx::TypeProto* x = ctx.getNumInputs() > 0 ? ctx.getInputType(0) : nullptr;
  if (!auto_pad || auto_pad->s() == "VALID" || ctx.getAttribute("pads") || !x || !x->has_tensor_type() ||
      !x->tensor_type().has_shape())
    return;
  const onnx::AttributeProto* strides = ctx.getAttribute("strides");
  const auto& dims = x->tensor_type().shape().dim();
  for (int i = 2; i < dims.size(); ++i) {
    const int64_t stride = strides && i - 2 < strides->ints_size() ? strides->ints(i - 2) : 1;
    if (dims[i].has_dim_value() && stride > 1 && dims[i].dim_value() / stride > (int64_t{1} << 24))
      fail_shape_inference("spatial dim ", dims[i].dim_value(), " with stride ", stride, " under auto_pad '", auto_pad->s(),
                           "' (left to GE's inference)");
  }
}

/// The convolutions: both checks above.
template <size_t w>
void conv_operands_and_window(onnx::InferenceContext& ctx) {
  same_rank_as_x<w>(ctx);
  window_attributes_in_range(ctx);
}

/// MaxUnpool without output_shape takes the channels from I's dim 1 unchecked.
void indices_of_rank_two(onnx::InferenceContext& ctx) {
  const bool output_shape = ctx.getNumInputs() > 2 && ctx.getInputType(2);
  if (output_shape || known_rank(ctx, 0) < 0) return;
  if (known_rank(ctx, 1) < 2) fail_shape_inference("I must have a known shape of rank >= 2 (X's)");
}

/// LayerNormalization's inference indexes X's dims by `axis` unchecked.
void axis_within_rank(onnx::InferenceContext& ctx) {
  const int r = known_rank(ctx, 0);
  if (r < 0) return;
  const onnx::AttributeProto* a = ctx.getAttribute("axis");
  const int64_t axis = a ? a->i() : -1;
  if (axis < -r || axis >= r) fail_shape_inference("axis ", axis, " is outside [-", r, ", ", r, ") for X of rank ", r);
}

/// RNN, GRU and LSTM: onnx 1.12's inference of the opset 1 forms (RNNShapeInference1,
/// defs/rnn/old.cc) reads X's dims 0 and 1 unchecked; X is [seq_length, batch_size, input_size].
void x_of_rank_three(onnx::InferenceContext& ctx) {
  const int r = known_rank(ctx, 0);
  if (r >= 0 && r != 3) fail_shape_inference("X must have rank 3 ([seq_length, batch_size, input_size]), not ", r);
}

/// STFT: onnx 1.12's inference reads the signal's dims 0-2 and the window's dim 0 unchecked
/// (Operators.md#STFT: signal [batch_size, signal_length, 1 or 2], window rank 1).
void stft_operand_ranks(onnx::InferenceContext& ctx) {
  const int signal = known_rank(ctx, 0), window = known_rank(ctx, 2);
  if (signal >= 0 && signal != 3) fail_shape_inference("signal must have rank 3 ([batch_size, signal_length, 1 or 2]), not ", signal);
  if (window >= 0 && window != 1) fail_shape_inference("window must have rank 1, not ", window);
}

/// ConstantOfShape (input 0), Expand and Reshape (input 1): onnx's getShapeInput makes one
/// output dimension per element of the shape input when only its length is known — a graph
/// input of 2^31 elements made 2^31 Dimension messages (19 GB; fuzz finding). No model has a
/// tensor of more than a few dozen dims; past 4096, onnx's inference stops (GE's decides).
template <size_t shape_input>
void shape_input_of_sane_length(onnx::InferenceContext& ctx) {
  const onnx::TypeProto* t = ctx.getNumInputs() > shape_input ? ctx.getInputType(shape_input) : nullptr;
  if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return;
  const auto& shape = t->tensor_type().shape();
  if (shape.dim_size() == 1 && shape.dim(0).has_dim_value() && shape.dim(0).dim_value() > 4096)
    fail_shape_inference("the shape input has ", shape.dim(0).dim_value(), " elements: an output of that rank");
}

/// Gemm: the inference of its old forms (opsets 1-6) reads dims 0 and 1 of A and B unchecked.
void gemm_operands_are_matrices(onnx::InferenceContext& ctx) {
  for (size_t i = 0; i < 2; ++i) {
    const int r = known_rank(ctx, i);
    if (r >= 0 && r != 2) fail_shape_inference(i == 0 ? "A" : "B", " must have rank 2, not ", r);
  }
}

/// DepthToSpace takes C modulo blocksize² (a blocksize of 2^32 squares to 0 in int64: SIGFPE;
/// fuzz finding) and SpaceToDepth multiplies C by it.
void blocksize_in_range(onnx::InferenceContext& ctx) {
  const onnx::AttributeProto* a = ctx.getAttribute("blocksize");
  const int64_t b = a ? a->i() : 0;
  if (b < 1 || b >= (int64_t{1} << 31)) fail_shape_inference("blocksize must be in [1, 2^31), got ", b);
}

/// Einsum's inference in implicit mode (no "->") corrupts the heap when the equation has an
/// upper-case label (onnx 1.12; "IJ" aborts in free(); fuzz finding). Operators.md allows both
/// cases; GE's own inference (the registry's) gives the output shape instead.
void einsum_implicit_lower_case(onnx::InferenceContext& ctx) {
  const onnx::AttributeProto* a = ctx.getAttribute("equation");
  if (!a) return;
  const std::string& eq = a->s();
  if (eq.find("->") != std::string::npos) return;
  for (unsigned char c : eq)
    if (c >= 'A' && c <= 'Z') fail_shape_inference("implicit-output equation '", eq, "' has upper-case labels (left to GE's inference)");
}

class GuardedSchemas final : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int max_version, const std::string& domain) const override {
    const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(key, max_version, domain);
    const Guard guard = guard_for(key, domain);
    if (!s || !guard || !s->has_type_and_shape_inference_function()) return s;
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<onnx::OpSchema>& copy = copies_[s];
    if (!copy) {
      copy = std::make_unique<onnx::OpSchema>(*s);
      copy->TypeAndShapeInferenceFunction([inner = s->GetTypeAndShapeInferenceFunction(), guard](onnx::InferenceContext& ctx) {
        guard(ctx);
        inner(ctx);
      });
    }
    return copy.get();
  }

 private:
  /// The check to run before the op's onnx 1.12 inference function, or null.
  static Guard guard_for(const std::string& op, const std::string& domain) {
    if (!domain.empty() && domain != "ai.onnx") return nullptr;
    if (op == "Conv" || op == "ConvInteger" || op == "ConvTranspose") return conv_operands_and_window<1>;
    if (op == "QLinearConv") return conv_operands_and_window<3>;
    if (op == "AveragePool" || op == "MaxPool" || op == "LpPool") return window_attributes_in_range;
    if (op == "MaxUnpool") return indices_of_rank_two;
    if (op == "LayerNormalization") return axis_within_rank;
    if (op == "RNN" || op == "GRU" || op == "LSTM") return x_of_rank_three;
    if (op == "STFT") return stft_operand_ranks;
    if (op == "Gemm") return gemm_operands_are_matrices;
    if (op == "DepthToSpace" || op == "SpaceToDepth") return blocksize_in_range;
    if (op == "Einsum") return einsum_implicit_lower_case;
    if (op == "ConstantOfShape") return shape_input_of_sane_length<0>;
    if (op == "Expand" || op == "Reshape") return shape_input_of_sane_length<1>;
    return nullptr;
  }
  mutable std::mutex mu_;
  mutable std::map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> copies_;
};

}  // namespace

const onnx::ISchemaRegistry* guarded_onnx_schemas() {
  static const GuardedSchemas registry;
  return &registry;
}

std::string node_outside_its_arity(const onnx::ModelProto& m) {
  int64_t opset = 0;
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  for (const auto& n : m.graph().node()) {
    if (!(n.domain().empty() || n.domain() == "ai.onnx")) continue;
    const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(opset), "");
    if (!s) continue;
    const int ins = n.input_size(), outs = n.output_size();
    if (ins < s->min_input() || ins > s->max_input() || outs < s->min_output() || outs > s->max_output())
      return "node '" + n.name() + "' (" + n.op_type() + ") has " + std::to_string(ins) + " inputs and " +
             std::to_string(outs) + " outputs; its schema at opset " + std::to_string(opset) + " takes " +
             std::to_string(s->min_input()) + " to " + std::to_string(s->max_input()) + " inputs and " +
             std::to_string(s->min_output()) + " to " + std::to_string(s->max_output()) + " outputs";
    // An empty name omits an input: only an optional one may be omitted (onnx/docs/IR.md).
    const auto& formal = s->inputs();
    for (int i = 0; i < ins && !formal.empty(); ++i) {
      const auto& f = formal[std::min<size_t>(static_cast<size_t>(i), formal.size() - 1)];
      if (n.input(i).empty() && f.GetOption() != onnx::OpSchema::Optional)
        return "node '" + n.name() + "' (" + n.op_type() + ") omits its input " + std::to_string(i) + " ('" + f.GetName() +
               "'), which is not optional";
    }
  }
  return "";
}

bool onnx_inference_is_safe(const onnx::ModelProto& m, std::string* why) {
  // onnx 1.12 hands an op's inference function a null type for an input that no graph input,
  // initializer or earlier node defines, and some dereference it (EyeLike's propagateShape).
  // GE's import refuses such a graph itself; subgraphs (control flow, which GE refuses too) would
  // need the same walk with their outer scope.
  std::set<std::string> defined;
  for (const auto& vi : m.graph().input()) defined.insert(vi.name());
  for (const auto& t : m.graph().initializer()) defined.insert(t.name());
  for (const auto& n : m.graph().node()) {
    for (const auto& in : n.input()) {
      if (in.empty() || defined.count(in)) continue;
      if (why) *why = "node '" + n.name() + "' (" + n.op_type() + ") reads '" + in + "', which no graph input, initializer or earlier node defines";
      return false;
    }
    for (const auto& a : n.attribute()) {
      if (!a.has_g() && a.graphs_size() == 0) continue;
      if (why) *why = "node '" + n.name() + "' (" + n.op_type() + ") has a subgraph attribute '" + a.name() + "'";
      return false;
    }
    // ONNX graphs are in SSA form (IR.md, "Names Within a Graph"): onnx's inference, given a node
    // that writes a graph input or a name written before, mixes the two types and reads out of
    // range (STFT writing graph input X, then LayerNormalization reading it: SEGV; fuzz finding).
    for (const auto& out : n.output()) {
      if (out.empty() || !defined.count(out)) continue;
      if (why) *why = "node '" + n.name() + "' (" + n.op_type() + ") writes '" + out + "', which a graph input, initializer or earlier node already defines";
      return false;
    }
    defined.insert(n.output().begin(), n.output().end());
  }
  // propagateShape (EyeLike, and the functions that copy an input's type) dereferences the
  // tensor type of a graph input declared without one.
  for (const auto& vi : m.graph().input()) {
    if (vi.type().value_case() != onnx::TypeProto::VALUE_NOT_SET) continue;
    if (why) *why = "graph input '" + vi.name() + "' has no type";
    return false;
  }
  // A declared dim below 0 (IR.md: a dim_value is a non-negative integer) reaches the inference
  // functions as it is; GatherND's reads an index by the last dim of `indices` (dim -3: a read at
  // a bogus address, SEGV; fuzz finding). GE's import refuses such a type by name.
  for (const auto* infos : {&m.graph().input(), &m.graph().output(), &m.graph().value_info()})
    for (const auto& vi : *infos) {
      if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) continue;
      for (const auto& d : vi.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() >= 0) continue;
        if (why) *why = "'" + vi.name() + "' declares a dimension of " + std::to_string(d.dim_value());
        return false;
      }
    }
  if (const std::string bad = node_outside_its_arity(m); !bad.empty()) {
    if (why) *why = bad;
    return false;
  }
  // Some inference functions dereference a required attribute without looking (Scan's body):
  // a node missing one skips onnx's inference; GE's import refuses it by name.
  std::map<std::string, int64_t> opsets;
  for (const auto& o : m.opset_import()) opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
  for (const auto& n : m.graph().node()) {
    const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
    auto v = opsets.find(domain);
    if (v == opsets.end()) continue;
    const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(v->second), domain);
    if (!s) continue;
    for (const auto& [name, attr] : s->attributes()) {
      if (!attr.required) continue;
      bool present = false;
      for (const auto& a : n.attribute()) present = present || a.name() == name;
      if (present) continue;
      if (why) *why = "node '" + n.name() + "' (" + n.op_type() + ") lacks its required attribute '" + name + "'";
      return false;
    }
  }
  return true;
}

Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what) {
  validate_tensor(p, base_dir, what);  // dtype, dims, byte counts, external location: one set of checks
  const DataType dt = static_cast<DataType>(p.data_type());
  Tensor t = Tensor::allocate(dt, Shape(std::vector<int64_t>(p.dims().begin(), p.dims().end())));
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    read_external(p, base_dir, what, t);
    return t;
  }
  if (p.has_raw_data()) {
    if (t.nbytes()) std::memcpy(t.data(), p.raw_data().data(), t.nbytes());
    return t;
  }
  switch (dt) {
    case DataType::Float32: copy_field<float>(t, p.float_data(), what); break;
    case DataType::Float64: copy_field<double>(t, p.double_data(), what); break;
    case DataType::Int64: copy_field<int64_t>(t, p.int64_data(), what); break;
    case DataType::UInt32: copy_field<uint32_t>(t, p.uint64_data(), what); break;
    case DataType::UInt64: copy_field<uint64_t>(t, p.uint64_data(), what); break;
    case DataType::Int32: copy_field<int32_t>(t, p.int32_data(), what); break;
    case DataType::Int16: copy_field<int16_t>(t, p.int32_data(), what); break;
    case DataType::Int8: copy_field<int8_t>(t, p.int32_data(), what); break;
    case DataType::UInt16: copy_field<uint16_t>(t, p.int32_data(), what); break;
    case DataType::UInt8: copy_field<uint8_t>(t, p.int32_data(), what); break;
    case DataType::Bool: copy_field<bool>(t, p.int32_data(), what); break;
    case DataType::Float16: case DataType::BFloat16: copy_field<uint16_t>(t, p.int32_data(), what); break;
    default: throw UnsupportedError(what + ": data type " + std::string(dtype_name(dt)) + " is not supported");
  }
  return t;
}

void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* p) {
  p->set_name(name);
  p->set_data_type(static_cast<int32_t>(t.dtype()));
  for (auto d : t.shape().dims()) p->add_dims(d);
  p->set_raw_data(t.data(), t.nbytes());
}

Tensor read_tensor_file(const std::string& path, std::string* name_out) {
  const std::string bytes = read_regular_file(path, "tensor file");
  onnx::TensorProto p;
  if (!p.ParseFromString(bytes)) throw Error("tensor file '" + path + "' is not a serialized onnx.TensorProto");
  if (name_out) *name_out = p.name();
  return tensor_from_proto(p, fs::path(path).parent_path().string(), "tensor file '" + path + "'");
}

std::string tensor_file_bytes(const Tensor& t, const std::string& name) {
  onnx::TensorProto p;
  tensor_to_proto(t, name, &p);
  std::string bytes;
  if (!p.SerializeToString(&bytes))
    throw Error("tensor '" + name + "' of " + std::to_string(t.nbytes()) + " bytes cannot be serialized (over 2 GiB?)");
  return bytes;
}

void write_tensor_file(const Tensor& t, const std::string& name, const std::string& path) {
  write_file_atomically(path, tensor_file_bytes(t, name), "tensor file");
}

}  // namespace ge::core
