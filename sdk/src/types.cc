#include "ge/sdk/types.h"

#include <sstream>

#include "ge/sdk/error.h"

namespace ge {

size_t dtype_size(DataType t) {
  switch (t) {
    case DataType::Float32: case DataType::Int32: case DataType::UInt32: return 4;
    case DataType::UInt8: case DataType::Int8: case DataType::Bool: return 1;
    case DataType::UInt16: case DataType::Int16: case DataType::Float16: case DataType::BFloat16: return 2;
    case DataType::Int64: case DataType::Float64: case DataType::UInt64: return 8;
    default: return 0;
  }
}

namespace {
struct DtypeName { DataType t; std::string_view name; };
constexpr DtypeName kDtypeNames[] = {
    {DataType::Float32, "f32"}, {DataType::Float16, "f16"}, {DataType::BFloat16, "bf16"},
    {DataType::Float64, "f64"}, {DataType::Int8, "i8"},     {DataType::Int16, "i16"},
    {DataType::Int32, "i32"},   {DataType::Int64, "i64"},   {DataType::UInt8, "u8"},
    {DataType::UInt16, "u16"},  {DataType::UInt32, "u32"},  {DataType::UInt64, "u64"},
    {DataType::Bool, "bool"},   {DataType::String, "string"}, {DataType::Undefined, "undef"}};
constexpr std::string_view kFormatNames[] = {"ND", "NCHW", "NHWC", "NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ",
                                             "OIhw16i16o", "Ohwi16o",  "Goihw16g", "NC1HWC0_C04", "FRACTAL_Z_C04"};
}  // namespace

std::string_view dtype_name(DataType t) {
  for (auto& d : kDtypeNames) if (d.t == t) return d.name;
  return "undef";
}

DataType dtype_from_name(std::string_view name) {
  for (auto& d : kDtypeNames) if (d.name == name) return d.t;
  // Long names used in registry files.
  static const std::pair<std::string_view, DataType> long_names[] = {
      {"float32", DataType::Float32}, {"float16", DataType::Float16}, {"bfloat16", DataType::BFloat16},
      {"float64", DataType::Float64}, {"double", DataType::Float64},  {"float", DataType::Float32},
      {"int8", DataType::Int8},       {"int16", DataType::Int16},     {"int32", DataType::Int32},
      {"int64", DataType::Int64},     {"uint8", DataType::UInt8},     {"uint16", DataType::UInt16},
      {"uint32", DataType::UInt32},   {"uint64", DataType::UInt64}};
  for (auto& [n, t] : long_names) if (n == name) return t;
  return DataType::Undefined;
}

bool dtype_is_float(DataType t) {
  return t == DataType::Float32 || t == DataType::Float16 || t == DataType::Float64 || t == DataType::BFloat16;
}
bool dtype_is_integer(DataType t) {
  switch (t) {
    case DataType::Int8: case DataType::Int16: case DataType::Int32: case DataType::Int64:
    case DataType::UInt8: case DataType::UInt16: case DataType::UInt32: case DataType::UInt64: return true;
    default: return false;
  }
}

std::string_view format_name(Format f) {
  auto i = static_cast<size_t>(f);
  return i < std::size(kFormatNames) ? kFormatNames[i] : "?";
}

Format format_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kFormatNames); ++i)
    if (kFormatNames[i] == name) return static_cast<Format>(i);
  throw Error("unknown tensor format '" + std::string(name) + "'");
}

bool format_is_blocked(Format f) {
  return f == Format::NC1HWC0 || f == Format::NC1HWC0_C04 || f == Format::FRACTAL_NZ || format_is_weight(f);
}
bool format_is_weight(Format f) {
  return f == Format::FRACTAL_Z || f == Format::FRACTAL_Z_C04 || f == Format::OIhw16i16o || f == Format::Ohwi16o ||
         f == Format::Goihw16g;
}

std::vector<int64_t> format_storage_dims(const std::vector<int64_t>& d, Format f) {
  auto blocks = [](int64_t n) { return (n + kFormatC0 - 1) / kFormatC0; };
  if (f == Format::FRACTAL_NZ) {  // [..., M, N] -> [..., N1, M1, M0, N0]; rank >= 2 (types.h)
    if (d.size() < 2) return d;
    std::vector<int64_t> s(d.begin(), d.end() - 2);
    const int64_t m = d[d.size() - 2], n = d[d.size() - 1];
    s.insert(s.end(), {blocks(n), blocks(m), kFormatC0, kFormatC0});
    return s;
  }
  // The other blocked formats are defined for rank-4 logical shapes only (types.h); any other
  // rank is stored unpadded here and refused by the kernels and the layout pass that would create it.
  if (!format_is_blocked(f) || d.size() != 4) return d;
  switch (f) {
    case Format::NC1HWC0: return {d[0], blocks(d[1]), d[2], d[3], kFormatC0};
    case Format::OIhw16i16o: return {blocks(d[0]), blocks(d[1]), d[2], d[3], kFormatC0, kFormatC0};
    case Format::Ohwi16o: return {blocks(d[0]), d[2], d[3], d[1], kFormatC0};
    case Format::Goihw16g: return {blocks(d[0]), d[1], d[2], d[3], kFormatC0};
    case Format::NC1HWC0_C04: return {d[0], (d[1] + kFormatC04 - 1) / kFormatC04, d[2], d[3], kFormatC04};
    case Format::FRACTAL_Z_C04:  // the 4*C1*Kh*Kw reduction values padded once to 16 (types.h)
      return {blocks((d[1] + kFormatC04 - 1) / kFormatC04 * kFormatC04 * d[2] * d[3]), blocks(d[0]), kFormatC0, kFormatC0};
    default: return {blocks(d[1]) * d[2] * d[3], blocks(d[0]), kFormatC0, kFormatC0};  // FRACTAL_Z
  }
}

namespace {

/// Product of dims, refused past 2^59 elements: every byte count (elements × at most 8 bytes,
/// plus alignment) then fits int64, so no later size, stride or offset computation overflows.
int64_t checked_product(const std::vector<int64_t>& dims, const std::vector<int64_t>& shown) {
  constexpr int64_t kMaxElements = int64_t{1} << 59;
  int64_t n = 1;
  bool over = false, empty = false;
  for (auto d : dims) {  // a zero dim does not excuse the others: padded products multiply them
    empty |= d == 0;
    if (d != 0) over |= __builtin_mul_overflow(n, d, &n) || n > kMaxElements || n < -kMaxElements;
  }
  if (over) throw InvalidGraphError("shape " + Shape(shown).str() + " has more than 2^59 elements");
  return empty ? 0 : n;
}

}  // namespace

int64_t format_storage_numel(const std::vector<int64_t>& logical, Format f) {
  if (!format_is_blocked(f) || (f == Format::FRACTAL_NZ ? logical.size() < 2 : logical.size() != 4))
    return checked_product(logical, logical);
  checked_product(logical, logical);  // the padded dims below stay in range only when these do
  return checked_product(format_storage_dims(logical, f), logical);
}

int64_t Shape::numel() const { return checked_product(dims_, dims_); }

std::string Shape::str() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

std::vector<int64_t> contiguous_strides(const Shape& s) {
  std::vector<int64_t> st(s.rank(), 1);
  for (int64_t i = static_cast<int64_t>(s.rank()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || (axis >= rank && !(rank == 0 && axis == 0)))
    throw InvalidGraphError(what + ": axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace ge
