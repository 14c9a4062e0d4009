// tiny_cnn: the model the project builds itself (scripts/main's fallback when ../shared is absent).
// Conv(3→8, 3x3, pad 1, bias) → Relu → MaxPool(2x2, stride 2) → Flatten → Gemm(512→10, transB)
// on x: f32[1,3,16,16], with seeded weights. The reference output is computed here by direct
// loops in double precision, independently of GE's kernels.
#pragma once
#include <onnx/onnx_pb.h>

#include <string>

namespace ge::test {
/// Writes DIR/model.onnx and DIR/test_data_set_0/{input_0,output_0}.pb.
void write_tiny_cnn(const std::string& dir);
}  // namespace ge::test
