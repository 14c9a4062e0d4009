// ge/core/onnx_frontend.h — the built-in ONNX frontend (libonnx / protobuf) and TensorProto I/O.
#pragma once
#include <memory>
#include <string>

#include "ge/sdk/frontend.h"
#include "ge/sdk/tensor.h"

namespace ge::core {

/// The ONNX frontend: opsets 7–17 as they occur in the shared models and onnx-node-tests,
/// initializers (also external data files, ONNX external_data: location/offset/length relative
/// to the model's folder), Constant nodes kept as nodes. Control flow (If, Loop, Scan: graph
/// attributes), sequence / optional / map types and sparse tensors are refused with
/// ge::UnsupportedError naming them.
std::shared_ptr<Frontend> make_onnx_frontend();

/// Reads a serialized onnx.TensorProto file (the input_K.pb / output_K.pb of ONNX test data).
/// `name_out`, when given, receives the proto's name. Throws ge::Error naming the file.
Tensor read_tensor_file(const std::string& path, std::string* name_out = nullptr);
/// Writes a tensor as an onnx.TensorProto file (written to a temporary then renamed, so a failure
/// never leaves a half-written file).
void write_tensor_file(const Tensor& t, const std::string& name, const std::string& path);
/// The bytes write_tensor_file writes (a serialized onnx.TensorProto), for multi-file writes.
std::string tensor_file_bytes(const Tensor& t, const std::string& name);

}  // namespace ge::core
