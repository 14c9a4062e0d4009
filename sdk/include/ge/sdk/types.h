// ge/sdk/types.h — element types, tensor formats and static shapes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace ge {

/// Element type of a tensor. The numeric values equal ONNX's TensorProto.DataType so that the
/// ONNX frontend converts by cast (onnx.proto, enum TensorProto.DataType).
enum class DataType : int32_t {
  Undefined = 0,
  Float32 = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Float64 = 11,
  UInt32 = 12,
  UInt64 = 13,
  BFloat16 = 16,
};

/// Size of one element in bytes; 0 for Undefined and String.
size_t dtype_size(DataType t);
/// Short lower-case name used in the text IR and messages: "f32", "f16", "i64", "u8", "bool", ...
std::string_view dtype_name(DataType t);
/// Inverse of dtype_name; returns Undefined for an unknown name.
DataType dtype_from_name(std::string_view name);
bool dtype_is_float(DataType t);    ///< Float16, BFloat16, Float32, Float64
bool dtype_is_integer(DataType t);  ///< signed or unsigned integers (not Bool)

/// Memory layout of a tensor's elements. Converting between formats is an explicit TransData
/// node, never a reinterpretation.
///  - ND: plain row-major, no channel meaning.
///  - NCHW / NHWC: 4-D activations.
///  - NC1HWC0: 5-D blocked, C1 = ceil(C / C0), C padded to a multiple of C0 (C0 = 16 here).
///  - FRACTAL_Z: blocked convolution weights (Ascend); FRACTAL_NZ: blocked matrices (Ascend).
///
/// Shape convention (docs/layout.md): a Value's or Tensor's `shape` is always the LOGICAL shape
/// (NCHW for activations, OIHW for convolution weights); `format` says how the elements lie in
/// memory. Shape inference therefore never depends on the format. Blocked formats pad: the
/// number of stored elements is format_storage_numel(shape, format) >= shape.numel(), and
/// padding elements are zero (every producer of a blocked tensor keeps them zero).
///  - NC1HWC0 of logical [N, C, H, W]: [N, C1, H, W, C0], C1 = ceil(C / C0); element (n,c,h,w) at
///    (((n*C1 + c/C0)*H + h)*W + w)*C0 + c%C0. Equal to oneDNN's nChw16c (C0 = 16).
///  - FRACTAL_Z of logical weights [N(=Cout), C(=Cin), Kh, Kw] (CANN "FRACTAL_Z" format):
///    [C1*Kh*Kw, N1, N0, C0] with C1 = ceil(C / C0), N1 = ceil(N / N0), N0 = 16; element
///    (n,c,kh,kw) at (((c/C0*Kh + kh)*Kw + kw)*N1 + n/N0)*N0*C0 + (n%N0)*C0 + c%C0.
///  - FRACTAL_NZ of a logical matrix (or batch of matrices) [B..., M, N], rank >= 2 (CANN "NZ",
///    the Cube's matrix-operand format; CANN's data-layout guide and its TransData reference:
///    ND {8,100,30} -> NZ {8,2,112,16}): [B..., N1, M1, M0, N0] with M1 = ceil(M / 16),
///    N1 = ceil(N / 16), M0 = N0 = 16 (fp16) — 16x16 fractals, column blocks outermost ("N"),
///    rows inside a fractal ("Z"); element (b,m,n) at (((b*N1 + n/16)*M1 + m/16)*16 + m%16)*16 + n%16.
///
/// oneDNN's own blocked convolution-weight layouts (fp32 AVX-512 convolutions on nChw16c choose
/// them; source: oneDNN docs "Understanding Memory Formats" and dnnl_types.h format tags). Logical
/// weights [O(=Cout), I(=Cin/group), Kh, Kw], O1 = ceil(O / 16), I1 = ceil(I / 16); padding zero:
///  - OIhw16i16o (oneDNN ABcd16b16a, most convolutions): [O1, I1, Kh, Kw, 16i, 16o]; element
///    (o,i,kh,kw) at (((o/16*I1 + i/16)*Kh + kh)*Kw + kw)*256 + (i%16)*16 + o%16.
///  - Ohwi16o (oneDNN Acdb16a, a first layer on a plain NCHW source): [O1, Kh, Kw, I, 16o];
///    element at (((o/16*Kh + kh)*Kw + kw)*I + i)*16 + o%16 (I is not padded).
///  - Goihw16g (oneDNN Goihw16g with one output channel per group, i.e. depthwise; the logical
///    O axis is the group axis G): [G1, I, Kh, Kw, 16g]; element (g,i,kh,kw) at
///    (((g/16*I + i)*Kh + kh)*Kw + kw)*16 + g%16 (I is not padded).
///
/// Ascend's small-channel formats (CANN's `enable_small_channel` path for convolutions with few
/// input channels; C04 = 4, padding zero). Sources: CANN application API reference, aclFormat:
/// "NC1HWC0_C04: 5-D format, C0 fixed at 4, C1 = C / C0, the last block padded to C0"
/// (ACL_FORMAT_NC1HWC0_C04 = 12); the weight layout is MindSpore's FracZc04DeviceShape /
/// NchwToFracZc04 (mindspore/ccsrc/common/trans.cc), the device format CANN's FRACTAL_Z_C04:
///  - NC1HWC0_C04 of logical [N, C, H, W]: [N, C1, H, W, 4], C1 = ceil(C / 4); element (n,c,h,w)
///    at (((n*C1 + c/4)*H + h)*W + w)*4 + c%4. A 3-channel image is 4 values per pixel (NC1HWC0:
///    16).
///  - FRACTAL_Z_C04 of logical weights [N(=Cout), C(=Cin), Kh, Kw]: the reduction axis
///    k = ((c/4*Kh + kh)*Kw + kw)*4 + c%4 (for C <= 4 simply (kh*Kw + kw)*4 + c) is flattened
///    FIRST and padded ONCE to a multiple of 16: [K1, N1, N0, 16] with K1 = ceil(4*C1*Kh*Kw / 16),
///    C1 = ceil(C / 4), N1 = ceil(N / 16), N0 = 16; element (n,c,kh,kw) at
///    ((k/16*N1 + n/16)*16 + n%16)*16 + k%16 — FRACTAL_Z's fractal (N0 rows of 16 k values) with
///    K = 4*Kh*Kw rounded up to 16 instead of 16*Kh*Kw (a 3-channel 7x7 kernel: K1 = 13, not 49).
///    It is the Cube's B operand of a convolution whose im2col reads NC1HWC0_C04 pixels
///    (4 channels of one tap are 4 consecutive k).
enum class Format : int32_t {
  ND = 0, NCHW = 1, NHWC = 2, NC1HWC0 = 3, FRACTAL_Z = 4, FRACTAL_NZ = 5,
  OIhw16i16o = 6, Ohwi16o = 7, Goihw16g = 8,
  NC1HWC0_C04 = 9, FRACTAL_Z_C04 = 10,  // appended (SDK ABI 1.4): plan files store these numbers
};
/// The largest Format value (plan files refuse anything above it).
constexpr Format kFormatLast = Format::FRACTAL_Z_C04;
std::string_view format_name(Format f);
/// Inverse of format_name; throws ge::Error on an unknown name.
Format format_from_name(std::string_view name);
/// True for the padded blocked formats NC1HWC0, NC1HWC0_C04, FRACTAL_Z and the weight formats
/// below (rank-4 logical shapes only), and FRACTAL_NZ (rank >= 2).
bool format_is_blocked(Format f);
/// True for the blocked convolution-weight formats FRACTAL_Z, FRACTAL_Z_C04, OIhw16i16o, Ohwi16o,
/// Goihw16g.
bool format_is_weight(Format f);
/// C0, the channel block of NC1HWC0 / FRACTAL_Z: 16 (fp32 on the CPU backend = oneDNN's
/// nChw16c; fp16 on Ascend's Cube unit). Also N0 of FRACTAL_Z and FRACTAL_Z_C04.
constexpr int64_t kFormatC0 = 16;
/// C0 of the small-channel formats NC1HWC0_C04 and FRACTAL_Z_C04 (CANN's "C04").
constexpr int64_t kFormatC04 = 4;
/// Physical dims of a blocked format for a logical rank-4 shape ([N,C1,H,W,C0],
/// [C1*Kh*Kw,N1,N0,C0], [O1,I1,Kh,Kw,16,16], [O1,Kh,Kw,I,16], [G1,I,Kh,Kw,16]; C04:
/// [N,ceil(C/4),H,W,4], [ceil(4*ceil(C/4)*Kh*Kw/16),N1,16,16]) or, for
/// FRACTAL_NZ, a rank >= 2 shape ([B...,N1,M1,16,16]); the logical dims for every other format,
/// and for a blocked format with another rank (the layout pass and the kernels never create such
/// a value).
std::vector<int64_t> format_storage_dims(const std::vector<int64_t>& logical, Format f);
/// Number of stored elements (padding included) of a logical shape in format f.
int64_t format_storage_numel(const std::vector<int64_t>& logical, Format f);

/// A static shape: one extent per axis, each >= 0. Rank 0 is a scalar (one element).
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> d) : dims_(d) {}
  explicit Shape(std::vector<int64_t> d) : dims_(std::move(d)) {}

  size_t rank() const { return dims_.size(); }
  int64_t operator[](size_t i) const { return dims_[i]; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  std::vector<int64_t>& dims() { return dims_; }
  /// Product of the dims (1 for a scalar).
  int64_t numel() const;
  /// "[1,3,224,224]"; "[]" for a scalar.
  std::string str() const;
  bool operator==(const Shape& o) const = default;

 private:
  std::vector<int64_t> dims_;
};

/// Row-major strides in elements of a shape.
std::vector<int64_t> contiguous_strides(const Shape& s);

/// Normalizes an axis in [-rank, rank) to [0, rank); throws ge::InvalidGraphError naming `what`
/// when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what);

}  // namespace ge
