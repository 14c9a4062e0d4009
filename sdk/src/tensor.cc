#include "ge/sdk/tensor.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "ge/sdk/error.h"

namespace ge {

namespace {
// A 64-byte aligned block of `bytes` (at least 64), zero-filled when `zero`; the shared_ptr frees it.
std::shared_ptr<void> aligned_block(size_t bytes, bool zero) {
  size_t rounded = ((bytes + 63) / 64) * 64;
  if (rounded == 0) rounded = 64;
  // Zeroed through calloc, 64-byte aligned by hand: glibc serves large blocks with fresh pages
  // from the OS and skips the memset, so a big buffer (an activation arena) costs its pages only
  // when a kernel first writes them — a compile-only Executable never touches its arena. A block
  // about to be overwritten (clone) skips the zeroing: an allocator reusing a freed block would
  // otherwise clear it, or hand out fresh pages that fault in, before the copy writes it again.
  void* raw = rounded <= SIZE_MAX - 63 ? (zero ? std::calloc(rounded + 63, 1) : std::malloc(rounded + 63)) : nullptr;
  if (!raw) throw Error("out of memory allocating " + std::to_string(rounded) + " bytes");
  void* p = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(raw) + 63) & ~static_cast<uintptr_t>(63));
  return std::shared_ptr<void>(p, [raw](void*) { std::free(raw); });
}
}  // namespace

Tensor Tensor::allocate(DataType dtype, Shape shape, Format format) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.format_ = format;
  t.holder_ = aligned_block(t.nbytes(), true);
  t.data_ = t.holder_.get();
  return t;
}

Tensor Tensor::wrap(DataType dtype, Shape shape, void* data, std::shared_ptr<void> keepalive, Format format) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.format_ = format;
  t.data_ = data;
  t.holder_ = std::move(keepalive);
  return t;
}

Tensor Tensor::clone() const {
  Tensor t;
  t.dtype_ = dtype_;
  t.shape_ = shape_;
  t.format_ = format_;
  // Every byte is written below (an empty source gives zeros, as allocate() would).
  t.holder_ = aligned_block(nbytes(), !data_);
  t.data_ = t.holder_.get();
  if (data_ && nbytes()) std::memcpy(t.data_, data_, nbytes());
  return t;
}

Tensor Tensor::reshaped(Shape s) const {
  if (s.numel() != numel())
    throw Error("reshape of " + shape_.str() + " to " + s.str() + " changes the element count");
  Tensor t = *this;
  t.shape_ = std::move(s);
  return t;
}

namespace {
template <class F>
void visit_numeric(const Tensor& t, F&& f) {
  const void* p = t.data();
  switch (t.dtype()) {
    case DataType::Float32: f(static_cast<const float*>(p)); break;
    case DataType::Float64: f(static_cast<const double*>(p)); break;
    case DataType::Int8: f(static_cast<const int8_t*>(p)); break;
    case DataType::Int16: f(static_cast<const int16_t*>(p)); break;
    case DataType::Int32: f(static_cast<const int32_t*>(p)); break;
    case DataType::Int64: f(static_cast<const int64_t*>(p)); break;
    case DataType::UInt8: f(static_cast<const uint8_t*>(p)); break;
    case DataType::UInt16: f(static_cast<const uint16_t*>(p)); break;
    case DataType::UInt32: f(static_cast<const uint32_t*>(p)); break;
    case DataType::UInt64: f(static_cast<const uint64_t*>(p)); break;
    case DataType::Bool: f(static_cast<const bool*>(p)); break;
    default: throw Error("tensor of dtype " + std::string(dtype_name(t.dtype())) + " is not numeric here");
  }
}
}  // namespace

std::vector<int64_t> Tensor::to_int64_vector() const {
  if (dtype_is_float(dtype_)) throw Error("expected an integer tensor, got " + std::string(dtype_name(dtype_)));
  std::vector<int64_t> out(static_cast<size_t>(numel()));
  visit_numeric(*this, [&](auto* p) { for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(p[i]); });
  return out;
}

std::vector<double> Tensor::to_double_vector() const {
  std::vector<double> out(static_cast<size_t>(numel()));
  if (dtype_ == DataType::Float16) {
    auto* p = static_cast<const uint16_t*>(data_);
    for (size_t i = 0; i < out.size(); ++i) out[i] = half_to_float(p[i]);
    return out;
  }
  if (dtype_ == DataType::BFloat16) {  // the upper 16 bits of a float32
    auto* p = static_cast<const uint16_t*>(data_);
    for (size_t i = 0; i < out.size(); ++i) {
      const uint32_t bits = static_cast<uint32_t>(p[i]) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      out[i] = f;
    }
    return out;
  }
  visit_numeric(*this, [&](auto* p) { for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(p[i]); });
  return out;
}

// IEEE 754 binary16 conversions (IEEE 754-2008 §3.6), round to nearest even.
float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do { ++e; man <<= 1; } while ((man & 0x400u) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (man & 0x3ffu) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | man << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | man << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t man = x & 0x7fffffu;
  if (exp == 255) return static_cast<uint16_t>(sign | 0x7c00u | (man ? 0x200u : 0));
  int32_t e = static_cast<int32_t>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    man |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half_man = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_man & 1))) ++half_man;
    return static_cast<uint16_t>(sign | half_man);
  }
  uint32_t half = sign | static_cast<uint32_t>(e) << 10 | man >> 13;
  uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // may carry into exponent: correct
  return static_cast<uint16_t>(half);
}

}  // namespace ge
