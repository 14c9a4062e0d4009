// Conversions between onnx.TensorProto and ge::Tensor (core-internal).
#pragma once
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <string>

#include "ge/sdk/tensor.h"

namespace ge::core {

/// `base_dir` resolves external data locations; `what` names the tensor in errors.
Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what);
/// Checks every TensorProto of the model (initializers and tensor attributes, in subgraphs too):
/// a known dtype, dims >= 0 whose product fits, raw_data or the typed field of exactly that
/// size, external data inside the model's folder and inside its file. Runs before any library
/// (onnx::shape_inference) reads the tensors; throws ge::Error naming the tensor.
void validate_model_tensors(const onnx::ModelProto& m, const std::string& base_dir, const std::string& path);
/// False (with the reason) when a node would reach an onnx 1.12 shape-inference function that
/// dereferences the null type of an input nothing defines before it, of a graph input declared
/// without a type, or a required attribute the node lacks (Scan's body), has more or fewer inputs
/// than its schema allows, or has a subgraph; the frontend then skips onnx::shape_inference, whose
/// results only seed GE's own propagation.
bool onnx_inference_is_safe(const onnx::ModelProto& m, std::string* why);
/// "" when every ai.onnx node has as many inputs and outputs as its schema at the model's opset
/// allows and omits (empty name) only optional inputs, else the first one that does not,
/// described. onnx's inference and version converter index a node's inputs by the schema
/// (BroadcastForwardCompatibility on a Sub of none, EyeLike's propagateShape of an omitted input).
std::string node_outside_its_arity(const onnx::ModelProto& m);
/// ONNX's schema registry for onnx::shape_inference::InferShapes, with the inference functions
/// that index out of bounds on inconsistent ranks wrapped by a rank check that fails inference
/// instead (onnx/defs/nn/defs.cc): Conv, ConvInteger, QLinearConv and ConvTranspose take their
/// kernel shape from W's dims past the second and index X's spatial dims and the pads by it
/// (convPoolShapeInference, convTransposeShapeInference), so a W whose rank differs from X's reads
/// past X's dims; MaxUnpool without output_shape reads dim 1 of I unchecked
/// (maxUnpoolShapeInference); LayerNormalization indexes X's dims by `axis` unchecked. The checks
/// run inside inference, where the ranks of intermediate values are known too.
const onnx::ISchemaRegistry* guarded_onnx_schemas();
void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* p);

}  // namespace ge::core
