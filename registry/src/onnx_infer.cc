// registry/src/onnx_infer.cc — shape and type inference of ai.onnx ops by ONNX's own functions:
// an adapter from a GE node to onnx::InferenceContext (ONNX Runtime does the same in
// onnxruntime/core/graph/graph.cc, InferenceContextImpl). Constant inputs are visible to the
// inference function (getInputData), so Reshape/Expand/ConstantOfShape/Range/Tile with folded
// shape inputs infer static shapes.
#include <cmath>
#include <unordered_map>

#include "ge/sdk/error.h"
#include "infer_util.h"
#include "onnx_proto.h"

namespace ge::registry::detail {
namespace {

/// Constant inputs larger than this are not converted for the inference function: shape inputs
/// are small, and copying every weight tensor into a TensorProto would cost import time.
constexpr int64_t kMaxDataElements = 1 << 16;

class NodeInferenceContext final : public onnx::InferenceContext {
 public:
  NodeInferenceContext(const Node& n, const onnx::OpSchema& schema) : n_(n) {
    for (auto& [name, v] : n.attrs.all()) {
      auto it = schema.attributes().find(name);
      const auto type = it != schema.attributes().end() ? it->second.type : onnx::AttributeProto::UNDEFINED;
      attrs_.emplace(name, attr_to_proto(name, v, type));
    }
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      const Value* v = n.input(i);
      in_types_.push_back(v ? tensor_type_proto(v->dtype, v->shape) : onnx::TypeProto());
      if (v && v->data && v->data->numel() <= kMaxDataElements && v->dtype != DataType::String)
        in_data_.push_back(std::make_unique<onnx::TensorProto>(tensor_to_proto(*v->data, v->name())));
      else
        in_data_.push_back(nullptr);
    }
    out_types_.resize(n.num_outputs());
  }
  const onnx::AttributeProto* getAttribute(const std::string& name) const override {
    auto it = attrs_.find(name);
    return it == attrs_.end() ? nullptr : &it->second;
  }
  size_t getNumInputs() const override { return n_.num_inputs(); }
  const onnx::TypeProto* getInputType(size_t i) const override {
    return i < in_types_.size() && n_.input(i) ? &in_types_[i] : nullptr;
  }
  const onnx::TensorProto* getInputData(size_t i) const override { return i < in_data_.size() ? in_data_[i].get() : nullptr; }
  size_t getNumOutputs() const override { return n_.num_outputs(); }
  onnx::TypeProto* getOutputType(size_t i) override { return &out_types_.at(i); }
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override { return nullptr; }
  const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
  const onnx::TensorShapeProto* getSymbolicInput(size_t) const override { return nullptr; }

  const onnx::TypeProto& output_type(size_t i) const { return out_types_[i]; }

 private:
  const Node& n_;
  std::unordered_map<std::string, onnx::AttributeProto> attrs_;
  std::vector<onnx::TypeProto> in_types_;
  std::vector<std::unique_ptr<onnx::TensorProto>> in_data_;
  std::vector<onnx::TypeProto> out_types_;
};

/// The cases where an onnx 1.12 inference function indexes out of bounds instead of failing
/// (onnx/defs/nn/defs.cc; found by fuzzing): refused here by name, with the shapes. core's
/// whole-model inference guards the same functions (core/src/onnx_tensor.cc).
void check_before_onnx_inference(InferContext& ctx) {
  const Node& n = ctx.node();
  if (!(n.domain().empty() || n.domain() == "ai.onnx")) return;
  const std::string& op = n.op_type();
  // convPoolShapeInference (Conv, ConvInteger, QLinearConv) and convTransposeShapeInference take
  // the kernel shape from W's dims past the second and index X's spatial dims and pads by it.
  if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv" || op == "ConvTranspose") {
    const size_t w = op == "QLinearConv" ? 3 : 1;
    if (ctx.has_input(0) && ctx.has_input(w) && ctx.input_shape(0).rank() != ctx.input_shape(w).rank())
      ctx.fail("W " + ctx.input_shape(w).str() + " must have the rank of X " + ctx.input_shape(0).str());
  }
  // maxUnpoolShapeInference reads dim 1 of I unchecked when output_shape is absent.
  if (op == "MaxUnpool" && !(n.num_inputs() > 2 && n.input(2)) && ctx.has_input(1) && ctx.input_shape(1).rank() < 2)
    ctx.fail("I " + ctx.input_shape(1).str() + " must have X's rank (>= 2)");
  // onnx's getShapeInput makes one output dimension per element of a shape input whose values
  // are unknown: a graph input of 2^31 elements made 2^31 Dimension messages (19 GB).
  if (op == "ConstantOfShape" || op == "Expand" || op == "Reshape") {
    const size_t i = op == "ConstantOfShape" ? 0 : 1;
    if (ctx.has_input(i) && ctx.input_shape(i).rank() == 1 && ctx.input_shape(i)[0] > 4096)
      ctx.fail("the shape input " + ctx.input_shape(i).str() + " would make an output of " +
               std::to_string(ctx.input_shape(i)[0]) + " dimensions");
  }
  // Range's element count max(ceil((limit - start) / delta), 0) (Operators.md) is not a number
  // for a non-finite operand; onnx's inference casts it to int64 regardless (an empty output).
  if (op == "Range")
    for (size_t i = 0; i < 3 && i < n.num_inputs(); ++i)
      if (const Tensor* t = ctx.input_data(i); t && t->numel() == 1 && dtype_is_float(t->dtype()) &&
                                                !std::isfinite(t->to_double_vector()[0]))
        ctx.fail(std::string(i == 0 ? "start" : i == 1 ? "limit" : "delta") + " is " +
                 std::to_string(t->to_double_vector()[0]) + "; Range needs finite operands");
  // ...and casts a count past int64's range (limit 2^63 from start 0, delta 1) just as blindly
  // (the cpu kernel's cast of it was UB: fuzz finding). A Shape holds at most 2^59 elements
  // (sdk/src/types.cc), so a larger count is refused here, naming it.
  if (op == "Range" && n.num_inputs() == 3) {
    const Tensor *s = ctx.input_data(0), *l = ctx.input_data(1), *d = ctx.input_data(2);
    if (s && l && d && s->numel() == 1 && l->numel() == 1 && d->numel() == 1) {
      const double start = s->to_double_vector()[0], limit = l->to_double_vector()[0], delta = d->to_double_vector()[0];
      const double count = delta != 0 ? std::ceil((limit - start) / delta) : 0;
      if (count > static_cast<double>(int64_t{1} << 59))
        ctx.fail("Range from " + std::to_string(start) + " to " + std::to_string(limit) + " by " + std::to_string(delta) +
                 " yields " + std::to_string(count) + " elements, more than a tensor holds (2^59)");
    }
  }
  // Gemm's old forms read dims 0 and 1 of A and B unchecked.
  if (op == "Gemm")
    for (size_t i = 0; i < 2; ++i)
      if (ctx.has_input(i) && ctx.input_shape(i).rank() != 2)
        ctx.fail(std::string(i == 0 ? "A " : "B ") + ctx.input_shape(i).str() + " must have rank 2");
  // STFT's inference reads the signal's dims 0-2 and the window's dim 0 unchecked.
  if (op == "STFT") {
    if (ctx.has_input(0) && ctx.input_shape(0).rank() != 3)
      ctx.fail("signal " + ctx.input_shape(0).str() + " must have rank 3 ([batch_size, signal_length, 1 or 2])");
    if (ctx.has_input(2) && ctx.input_shape(2).rank() != 1)
      ctx.fail("window " + ctx.input_shape(2).str() + " must have rank 1");
  }
  // The opset-1 RNN/GRU/LSTM inference reads X's dims 0 and 1 unchecked.
  if ((op == "RNN" || op == "GRU" || op == "LSTM") && ctx.has_input(0) && ctx.input_shape(0).rank() != 3)
    ctx.fail("X " + ctx.input_shape(0).str() + " must have rank 3 ([seq_length, batch_size, input_size])");
  // DepthToSpace's inference takes C modulo blocksize² (a blocksize of 2^32 squares to 0 in
  // int64: SIGFPE; fuzz finding), SpaceToDepth's multiplies C by it.
  if (op == "DepthToSpace" || op == "SpaceToDepth") {
    const int64_t b = n.attrs.get_int("blocksize", 0);
    if (b < 1 || b >= (int64_t{1} << 31)) ctx.fail("blocksize must be in [1, 2^31), got " + std::to_string(b));
  }
  // LayerNormalization's inference indexes X's dims by `axis` unchecked.
  if (op == "LayerNormalization" && ctx.has_input(0)) {
    const int64_t r = static_cast<int64_t>(ctx.input_shape(0).rank());
    const int64_t axis = n.attrs.get_int("axis", -1);
    if (axis < -r || axis >= r)
      ctx.fail("axis " + std::to_string(axis) + " is outside [-" + std::to_string(r) + ", " + std::to_string(r) +
               ") for X " + ctx.input_shape(0).str());
  }
}

}  // namespace

void infer_with_onnx_schema(InferContext& ctx) {
  const Node& n = ctx.node();
  const onnx::OpSchema* s = schema_for(n.domain(), n.op_type(), ctx.opset());
  if (!s) ctx.fail("ONNX has no schema of " + n.op_type() + " at opset " + std::to_string(ctx.opset()));
  if (s->Deprecated())
    ctx.fail(n.op_type() + " is deprecated since opset " + std::to_string(s->since_version()) +
             " (onnx/docs/Changelog.md); the model at opset " + std::to_string(ctx.opset()) + " may not use it");
  check_before_onnx_inference(ctx);
  NodeInferenceContext ic(n, *s);
  try {
    s->CheckInputOutputType(ic);
    if (s->has_type_and_shape_inference_function()) s->GetTypeAndShapeInferenceFunction()(ic);
  } catch (const std::exception& e) {
    ctx.fail(std::string("ONNX shape inference: ") + e.what());
  }
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    const Value* o = n.output(i);
    if (!o) continue;
    const onnx::TypeProto& t = ic.output_type(i);
    if (t.value_case() != onnx::TypeProto::kTensorType && t.value_case() != onnx::TypeProto::VALUE_NOT_SET)
      ctx.unsupported("output '" + o->name() + "' is not a tensor (sequence, optional and map types are not supported)");
    const DataType dt = static_cast<DataType>(t.tensor_type().elem_type());
    if (dt == DataType::Undefined)
      throw UnknownValueError(n.describe() + ": ONNX's inference leaves the element type of output '" + o->name() +
                              "' unknown");
    if (dtype_size(dt) == 0) ctx.unsupported("output '" + o->name() + "' is a string tensor; strings are not supported");
    if (!t.tensor_type().has_shape())
      throw UnknownValueError(n.describe() + ": the shape of output '" + o->name() +
                              "' depends on values known only at run time");
    std::vector<int64_t> dims;
    for (const auto& d : t.tensor_type().shape().dim()) {
      if (!d.has_dim_value())
        throw UnknownValueError(n.describe() + ": dimension " + std::to_string(dims.size()) + " of output '" +
                                o->name() + "' depends on values known only at run time");
      if (d.dim_value() < 0) ctx.fail("ONNX's inference gives output '" + o->name() + "' a negative dimension");
      dims.push_back(d.dim_value());
    }
    ctx.set_output(i, dt, Shape(std::move(dims)));
  }
}

}  // namespace ge::registry::detail
