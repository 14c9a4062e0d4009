// ge/core/onnx_frontend.h — the built-in ONNX frontend (libonnx / protobuf) and TensorProto I/O.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ge/sdk/frontend.h"
#include "ge/sdk/tensor.h"

namespace ge::core {

/// The ONNX frontend: opsets 7–17 as they occur in the shared models and onnx-node-tests,
/// initializers (also external data files, ONNX external_data: location/offset/length relative
/// to the model's folder), Constant nodes kept as nodes. Control flow (If, Loop, Scan: graph
/// attributes), sequence / optional / map types and sparse tensors are refused with
/// ge::UnsupportedError naming them.
std::shared_ptr<Frontend> make_onnx_frontend();

/// The ONNX frontend on model bytes in memory (a dynamic plan keeps its source model so):
/// `what` names the model in messages, `base_dir` resolves external data.
std::unique_ptr<Graph> load_onnx_bytes(std::string bytes, const std::string& what, const std::string& base_dir,
                                       const FrontendOptions& opts);

/// One dimension of a graph input or output as an ONNX model declares it (onnx/docs/IR.md,
/// "Tensor shapes"): a fixed extent (`param` empty) or a symbol (`dim_param`). A dim with
/// neither is a symbol of its own, named "?NAME:K".
struct SymbolicDim {
  std::string param;
  int64_t value = -1;
  bool symbolic() const { return !param.empty(); }
};
struct SymbolicTensor {
  std::string name;
  DataType dtype = DataType::Undefined;
  bool has_shape = true;
  std::vector<SymbolicDim> dims;
  /// "[batch,sequence]", "[N,3,224,224]"
  std::string dims_str() const;
};
/// The graph inputs (initializers excluded) and outputs of an ONNX model, with their declared
/// dims. Throws ge::Error naming the model when the bytes are not an ONNX model.
struct OnnxSignature {
  std::vector<SymbolicTensor> inputs, outputs;
  bool external_data = false;  ///< some initializer lives in an external file
};
OnnxSignature onnx_signature(const std::string& bytes, const std::string& what);

/// Reads a serialized onnx.TensorProto file (the input_K.pb / output_K.pb of ONNX test data).
/// `name_out`, when given, receives the proto's name. Throws ge::Error naming the file.
Tensor read_tensor_file(const std::string& path, std::string* name_out = nullptr);
/// Writes a tensor as an onnx.TensorProto file (written to a temporary then renamed, so a failure
/// never leaves a half-written file).
void write_tensor_file(const Tensor& t, const std::string& name, const std::string& path);
/// The bytes write_tensor_file writes (a serialized onnx.TensorProto), for multi-file writes.
std::string tensor_file_bytes(const Tensor& t, const std::string& name);

}  // namespace ge::core
