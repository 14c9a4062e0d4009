// onnx.TensorProto ⇄ ge::Tensor. Field meanings: onnx/onnx.proto, message TensorProto.
#include "onnx_tensor.h"

#include <filesystem>
#include <fstream>

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

void read_external(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what, Tensor& t) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (auto& kv : p.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = std::stoll(kv.value());
    else if (kv.key() == "length") length = std::stoll(kv.value());
  }
  if (location.empty()) throw Error(what + ": external data without a location");
  fs::path file = fs::path(base_dir) / location;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(what + ": external data file '" + file.string() + "' cannot be opened");
  size_t need = t.nbytes();
  if (length >= 0 && static_cast<size_t>(length) != need)
    throw Error(what + ": external data length " + std::to_string(length) + " does not match " + std::to_string(need) + " bytes");
  in.seekg(offset);
  in.read(static_cast<char*>(t.data()), static_cast<std::streamsize>(need));
  if (static_cast<size_t>(in.gcount()) != need)
    throw Error(what + ": external data file '" + file.string() + "' is too short");
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what) {
  DataType dt = static_cast<DataType>(p.data_type());
  if (dt == DataType::String) throw UnsupportedError(what + ": string tensors are not supported");
  if (dtype_size(dt) == 0)
    throw UnsupportedError(what + ": tensor data type " + std::to_string(p.data_type()) + " is not supported");
  if (p.has_segment()) throw UnsupportedError(what + ": segmented tensors are not supported");
  std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  for (auto d : dims)
    if (d < 0) throw Error(what + ": negative dimension in " + Shape(dims).str());
  Tensor t = Tensor::allocate(dt, Shape(dims));
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    read_external(p, base_dir, what, t);
    return t;
  }
  if (p.has_raw_data()) {
    if (p.raw_data().size() != t.nbytes())
      throw Error(what + ": raw_data has " + std::to_string(p.raw_data().size()) + " bytes, shape " + t.shape().str() +
                  " of " + std::string(dtype_name(dt)) + " needs " + std::to_string(t.nbytes()));
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("tensor file '" + path + "' cannot be opened");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::TensorProto p;
  if (!p.ParseFromString(bytes)) throw Error("tensor file '" + path + "' is not a serialized onnx.TensorProto");
  if (name_out) *name_out = p.name();
  return tensor_from_proto(p, fs::path(path).parent_path().string(), "tensor file '" + path + "'");
}

void write_tensor_file(const Tensor& t, const std::string& name, const std::string& path) {
  onnx::TensorProto p;
  tensor_to_proto(t, name, &p);
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !p.SerializeToOstream(&out)) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw Error("cannot write tensor file '" + path + "'");
    }
  }
  fs::rename(tmp, path);
}

}  // namespace ge::core
