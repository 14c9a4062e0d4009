// registry/src/onnx_proto.h — GE's IR values as ONNX protobuf messages and back, for the
// adapters that run ONNX's own schema code (shape inference, function bodies) on GE nodes.
#pragma once
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <string>

#include "ge/sdk/attribute.h"
#include "ge/sdk/op_registry.h"
#include "ge/sdk/tensor.h"

namespace ge::registry::detail {

/// "tensor(float)" → Float32 ...; Undefined for strings that name no tensor type GE represents
/// (sequences, optionals, maps, strings are reported by the caller).
DataType dtype_from_onnx_type_str(const std::string& s);

/// A TensorProto holding t's elements (raw_data; ND order). Strings are refused.
onnx::TensorProto tensor_to_proto(const Tensor& t, const std::string& name);
/// The tensor of a TensorProto whose sizes were checked (raw_data or typed fields; no external
/// data). Throws ge::InvalidGraphError naming `what` on a malformed proto.
Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& what);

/// An AttributeProto named `name` of ONNX type `type` (from the schema; an int value given for a
/// float attribute is converted, as GE's importer accepts it).
onnx::AttributeProto attr_to_proto(const std::string& name, const AttrValue& v,
                                   onnx::AttributeProto::AttributeType type);
/// The attribute types GE represents, or std::nullopt (graphs, sparse tensors, type protos).
std::optional<AttrType> attr_type_from_onnx(onnx::AttributeProto::AttributeType t);
/// The value of an AttributeProto; throws ge::UnsupportedError naming `what` for kinds GE does
/// not represent (graphs, sparse tensors, type protos).
AttrValue attr_from_proto(const onnx::AttributeProto& a, const std::string& what);

/// TypeProto of a tensor value with a static shape.
onnx::TypeProto tensor_type_proto(DataType t, const Shape& s);

/// The schema of the op a model at `opset` uses (domain "" = ai.onnx), or null.
const onnx::OpSchema* schema_for(const std::string& domain, const std::string& op_type, int64_t opset);

}  // namespace ge::registry::detail
