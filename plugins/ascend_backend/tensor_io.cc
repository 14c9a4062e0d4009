// plugins/ascend_backend/tensor_io.cc — reading and writing operands (tensor_io.h).
#include "tensor_io.h"

#include <cmath>
#include <cstring>

#include "ge/sdk/error.h"
#include "ge/sdk/layout.h"
#include "util.h"

namespace ge::ascend {

float round_fp16(float x) { return half_to_float(float_to_half(x)); }

std::string who(const Node& n) { return n.describe(); }

void require_float(const KernelBuildContext& ctx, size_t input) {
  const DataType t = ctx.input_type(input);
  if (t != DataType::Float16 && t != DataType::Float32)
    throw UnsupportedError(ctx.node.op_type() + ": dtype " + std::string(dtype_name(t)) +
                           " not supported by the ascend emulator (float16, float32) in " + who(ctx.node));
}

std::vector<float> read_plain(const Tensor& t) {
  Tensor tmp;
  const Tensor* p = &t;
  if (!plain(t.format())) {
    tmp = convert_format(t, Format::NCHW);
    p = &tmp;
  }
  const size_t n = static_cast<size_t>(p->numel());
  std::vector<float> out(n);
  if (p->dtype() == DataType::Float32) {
    if (n) std::memcpy(out.data(), p->data(), n * sizeof(float));
  } else if (p->dtype() == DataType::Float16) {
    const uint16_t* h = p->data_as<uint16_t>();
    for (size_t i = 0; i < n; ++i) out[i] = half_to_float(h[i]);
  } else {
    throw UnsupportedError("ascend: reading dtype " + std::string(dtype_name(p->dtype())) + " as float");
  }
  return out;
}

void write_plain(Tensor& out, const std::vector<float>& v, const std::string& whom) {
  if (static_cast<int64_t>(v.size()) != out.numel())
    throw Error("ascend: " + whom + " produced " + std::to_string(v.size()) + " values for an output of " +
                std::to_string(out.numel()));
  const bool direct = plain(out.format());
  Tensor tmp;
  Tensor* dst = &out;
  if (!direct) {
    tmp = Tensor::allocate(out.dtype(), out.shape(), Format::NCHW);
    dst = &tmp;
  }
  const size_t n = v.size();
  if (out.dtype() == DataType::Float32) {
    if (n) std::memcpy(dst->data(), v.data(), n * sizeof(float));
  } else if (out.dtype() == DataType::Float16) {
    uint16_t* h = dst->data_as<uint16_t>();
    for (size_t i = 0; i < n; ++i) {
      h[i] = float_to_half(v[i]);
      if ((h[i] & 0x7c00u) == 0x7c00u && std::isfinite(v[i]))
        throw Error("ascend: fp16 overflow in " + whom + ": value " + std::to_string(v[i]) + " at element " +
                    std::to_string(i) + " exceeds 65504 (keep the node in fp32 with ascend.keep_dtype; ascend.overflow_check = \"error\" lists every overflowing node at compile time; or precision_mode must_keep_origin_dtype)");
    }
  } else {
    throw UnsupportedError("ascend: writing dtype " + std::string(dtype_name(out.dtype())) + " in " + whom);
  }
  if (!direct) convert_format_into(tmp, out);
}

}  // namespace ge::ascend
