// Conversions between onnx.TensorProto and ge::Tensor (core-internal).
#pragma once
#include <onnx/onnx_pb.h>

#include <string>

#include "ge/sdk/tensor.h"

namespace ge::core {

/// `base_dir` resolves external data locations; `what` names the tensor in errors.
Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what);
void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* p);

}  // namespace ge::core
