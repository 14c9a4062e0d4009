// plugins/cpu_backend/tensor_misc.cc — ops whose output is known at build time: Shape and
// Constant. The kernel computes the bytes once and copies them on every run.
#include <algorithm>
#include <cstring>
#include <vector>

#include "elementwise_common.h"

namespace ge::cpu {
namespace {

/// Writes a tensor fixed at build time into output 0.
class ConstantKernel final : public Kernel {
 public:
  ConstantKernel(Tensor value, std::string name) : value_(std::move(value)), name_(std::move(name)) {}
  void run(KernelIO& io) override {
    Tensor& out = io.outputs[0];
    if (out.nbytes() != value_.nbytes()) throw Error(name_ + ": output buffer has the wrong size");
    if (value_.nbytes()) std::memcpy(out.data(), value_.data(), value_.nbytes());
  }
  std::string impl_name() const override { return "cpu:" + name_; }

 private:
  Tensor value_;
  std::string name_;
};

/// Shape-15: the input's dims [start, end) as int64; start/end are clamped to [0, rank] after
/// adding rank to negative values, and an empty range gives an empty tensor.
std::unique_ptr<Kernel> make_shape(const KernelBuildContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const int64_t r = static_cast<int64_t>(in.rank());
  int64_t start = 0, end = r;
  if (ctx.opset >= 15) {
    start = ctx.node.attrs.get_int("start", 0);
    end = ctx.node.attrs.get_int("end", r);
  }
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  const int64_t n = std::max<int64_t>(end - start, 0);
  if (ctx.output_type(0) != DataType::Int64 || ctx.output_shape(0) != Shape{n}) {
    throw InvalidGraphError(ctx.node.describe() + ": Shape gives i64[" + std::to_string(n) + "] but the output is " +
                            std::string(dtype_name(ctx.output_type(0))) + ctx.output_shape(0).str());
  }
  Tensor v = Tensor::allocate(DataType::Int64, Shape{n});
  std::copy(in.dims().begin() + start, in.dims().begin() + start + n, v.data_as<int64_t>());
  return std::make_unique<ConstantKernel>(std::move(v), "Shape");
}

/// Constant-13: exactly one of value (tensor), value_float, value_floats, value_int,
/// value_ints. String values and sparse_value have no fixed-size dtype here.
std::unique_ptr<Kernel> make_constant(const KernelBuildContext& ctx) {
  const Attributes& a = ctx.node.attrs;
  Tensor v;
  if (a.has("value")) {
    v = a.get_tensor("value");
  } else if (a.has("value_float")) {
    v = Tensor::allocate(DataType::Float32, Shape{});
    v.data_as<float>()[0] = a.get_float("value_float", 0.0f);
  } else if (a.has("value_floats")) {
    const std::vector<float> f = a.get_floats("value_floats");
    v = Tensor::allocate(DataType::Float32, Shape{static_cast<int64_t>(f.size())});
    std::copy(f.begin(), f.end(), v.data_as<float>());
  } else if (a.has("value_int")) {
    v = Tensor::allocate(DataType::Int64, Shape{});
    v.data_as<int64_t>()[0] = a.get_int("value_int", 0);
  } else if (a.has("value_ints")) {
    const std::vector<int64_t> i = a.get_ints("value_ints");
    v = Tensor::allocate(DataType::Int64, Shape{static_cast<int64_t>(i.size())});
    std::copy(i.begin(), i.end(), v.data_as<int64_t>());
  } else if (a.has("value_string") || a.has("value_strings")) {
    throw UnsupportedError("Constant: dtype string not supported");
  } else {
    throw UnsupportedError(ctx.node.describe() + ": Constant without a value, value_float(s) or value_int(s) attribute "
                           "(sparse_value is not supported)");
  }
  if (dtype_size(v.dtype()) == 0) unsupported_dtype("Constant", v.dtype());
  if (v.dtype() != ctx.output_type(0) || v.shape() != ctx.output_shape(0)) {
    throw InvalidGraphError(ctx.node.describe() + ": value is " + std::string(dtype_name(v.dtype())) + v.shape().str() +
                            " but the output is " + std::string(dtype_name(ctx.output_type(0))) +
                            ctx.output_shape(0).str());
  }
  return std::make_unique<ConstantKernel>(v.clone(), "Constant");
}

}  // namespace

void register_misc_tensor_kernels(Registrar& r) {
  add_cpu_kernel(r, "Shape", make_shape);
  add_cpu_kernel(r, "Constant", make_constant);
}

}  // namespace ge::cpu
