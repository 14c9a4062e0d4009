// plugins/ascend_backend/overflow_inputs.h — given inputs for the compile-time overflow check
// (`ascend.overflow_check_inputs = "DIR"`): DIR/input_K.pb, serialized onnx.TensorProto in the
// order of the graph's inputs that carry no data (the ONNX backend-test layout the shared models
// and `gec run --inputs` use).
#pragma once
#include <string>
#include <vector>

#include "ge/sdk/ir.h"

namespace ge::ascend {

/// One tensor per value of `inputs`, read from dir/input_K.pb. Refused (ge::ConfigError naming
/// the file): a missing or unparsable file, a dtype or shape other than the input's, a data type
/// stored in a field this reader does not take (raw_data, float_data, int32_data, int64_data are
/// read).
std::vector<Tensor> read_input_dir(const std::string& dir, const std::vector<const Value*>& inputs);

}  // namespace ge::ascend
