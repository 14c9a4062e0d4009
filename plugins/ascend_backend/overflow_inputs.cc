// plugins/ascend_backend/overflow_inputs.cc — reading DIR/input_K.pb (overflow_inputs.h). Field
// meanings: onnx/onnx.proto, message TensorProto.
#include "overflow_inputs.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include <onnx/onnx_pb.h>

#include "ge/sdk/error.h"

namespace ge::ascend {

namespace {

template <class Dst, class Field>
void copy_field(Tensor& t, const Field& f, const std::string& file) {
  if (static_cast<int64_t>(f.size()) != t.numel())
    throw ConfigError("ascend.overflow_check_inputs: '" + file + "' holds " + std::to_string(f.size()) + " elements, " +
                      t.shape().str() + " needs " + std::to_string(t.numel()));
  Dst* d = t.data_as<Dst>();
  for (int i = 0; i < f.size(); ++i) d[i] = static_cast<Dst>(f.Get(i));
}

Tensor read_one(const std::string& file, const Value& v) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError("ascend.overflow_check_inputs: cannot read '" + file + "' (input '" + v.name() + "')");
  onnx::TensorProto p;
  if (!p.ParseFromIstream(&in)) throw ConfigError("ascend.overflow_check_inputs: '" + file + "' is not a serialized onnx.TensorProto");
  const auto dt = static_cast<DataType>(p.data_type());
  const Shape shape(std::vector<int64_t>(p.dims().begin(), p.dims().end()));
  if (dt != v.dtype || shape != v.shape)
    throw ConfigError("ascend.overflow_check_inputs: '" + file + "' holds " + std::string(dtype_name(dt)) + shape.str() + ", input '" +
                      v.name() + "' is " + std::string(dtype_name(v.dtype)) + v.shape.str());
  Tensor t = Tensor::allocate(dt, shape);
  if (!p.raw_data().empty()) {
    if (p.raw_data().size() != t.nbytes())
      throw ConfigError("ascend.overflow_check_inputs: '" + file + "' raw_data has " + std::to_string(p.raw_data().size()) + " bytes, " +
                        std::to_string(t.nbytes()) + " expected");
    std::memcpy(t.data(), p.raw_data().data(), t.nbytes());
  } else if (dt == DataType::Float32) {
    copy_field<float>(t, p.float_data(), file);
  } else if (dt == DataType::Int64) {
    copy_field<int64_t>(t, p.int64_data(), file);
  } else if (dt == DataType::Int32) {
    copy_field<int32_t>(t, p.int32_data(), file);
  } else if (t.numel() > 0) {
    throw ConfigError("ascend.overflow_check_inputs: '" + file + "': " + std::string(dtype_name(dt)) +
                      " data outside raw_data is not read here");
  }
  return t;
}

}  // namespace

std::vector<Tensor> read_input_dir(const std::string& dir, const std::vector<const Value*>& inputs) {
  if (!std::filesystem::is_directory(dir)) throw ConfigError("ascend.overflow_check_inputs: '" + dir + "' is not a directory");
  std::vector<Tensor> out;
  for (size_t k = 0; k < inputs.size(); ++k)
    out.push_back(read_one((std::filesystem::path(dir) / ("input_" + std::to_string(k) + ".pb")).string(), *inputs[k]));
  return out;
}

}  // namespace ge::ascend
