// Format conversion: TransData's reference semantics (ge/sdk/layout.h). Index formulas: types.h.
#include "ge/sdk/layout.h"

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "ge/sdk/error.h"

namespace ge {
namespace {

bool plain(Format f) { return f == Format::ND || f == Format::NCHW; }

/// Offset (in elements) of logical element (a,b,c,d) of a rank-4 shape in a blocked format.
/// NC1HWC0: (n,c,h,w); weight formats: (n=O/Cout/G, c=I/Cin, h=kh, w=kw). Formulas: types.h
/// (oneDNN's layouts after its docs "Understanding Memory Formats": the outer blocks in order,
/// then the inner 16 or 16x16 block, innermost letter fastest).
struct BlockedIndex {
  Format f;
  int64_t N, C, H, W, C1, N1, C1_4;
  BlockedIndex(Format fmt, const Shape& s)
      : f(fmt), N(s[0]), C(s[1]), H(s[2]), W(s[3]), C1((s[1] + kFormatC0 - 1) / kFormatC0),
        N1((s[0] + kFormatC0 - 1) / kFormatC0), C1_4((s[1] + kFormatC04 - 1) / kFormatC04) {}
  /// False for FRACTAL_Z_C04: its offset depends on k/16 and k%16 of the flattened reduction
  /// index, not linearly on (h, w).
  bool linear_in_hw() const { return f != Format::FRACTAL_Z_C04; }
  int64_t operator()(int64_t n, int64_t c, int64_t h, int64_t w) const {
    const int64_t c1 = c / kFormatC0, c0 = c % kFormatC0;
    const int64_t n1 = n / kFormatC0, n0 = n % kFormatC0;
    switch (f) {
      case Format::NC1HWC0: return (((n * C1 + c1) * H + h) * W + w) * kFormatC0 + c0;
      case Format::NHWC: return ((n * H + h) * W + w) * C + c;
      case Format::NC1HWC0_C04: return (((n * C1_4 + c / kFormatC04) * H + h) * W + w) * kFormatC04 + c % kFormatC04;
      case Format::FRACTAL_Z_C04: {  // [K1, N1, N0, 16]: k = ((c/4*Kh + kh)*Kw + kw)*4 + c%4 (types.h)
        const int64_t k = ((c / kFormatC04 * H + h) * W + w) * kFormatC04 + c % kFormatC04;
        return ((k / kFormatC0 * N1 + n1) * kFormatC0 + n0) * kFormatC0 + k % kFormatC0;
      }
      case Format::OIhw16i16o: return (((n1 * C1 + c1) * H + h) * W + w) * kFormatC0 * kFormatC0 + c0 * kFormatC0 + n0;
      case Format::Ohwi16o: return (((n1 * H + h) * W + w) * C + c) * kFormatC0 + n0;
      case Format::Goihw16g: return (((n1 * C + c) * H + h) * W + w) * kFormatC0 + n0;
      default: break;
    }
    // FRACTAL_Z: [C1*Kh*Kw, N1, N0, C0] (CANN's FRACTAL_Z for convolution weights).
    return (((c1 * H + h) * W + w) * N1 + n / kFormatC0) * kFormatC0 * kFormatC0 + (n % kFormatC0) * kFormatC0 + c0;
  }
};

/// Plain <-> FRACTAL_NZ (types.h): logical (b, m, n) of [B..., M, N] at
/// (((b*N1 + n/16)*M1 + m/16)*16 + m%16)*16 + n%16. A row's 16 elements of one n-block are
/// contiguous on both sides, so they move with one memcpy.
void convert_nz(const Tensor& src, Tensor& dst, bool to_nz) {
  const std::vector<int64_t>& d = src.shape().dims();
  const int64_t M = d[d.size() - 2], N = d[d.size() - 1];
  int64_t B = 1;
  for (size_t i = 0; i + 2 < d.size(); ++i) B *= d[i];
  const int64_t M1 = (M + kFormatC0 - 1) / kFormatC0, N1 = (N + kFormatC0 - 1) / kFormatC0;
  const size_t es = dtype_size(src.dtype());
  const auto* s = static_cast<const unsigned char*>(src.data());
  auto* o = static_cast<unsigned char*>(dst.data());
  if (to_nz) std::memset(o, 0, dst.nbytes());  // padding is zero (types.h)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n1 = 0; n1 < N1; ++n1) {
        const int64_t plain_i = (b * M + m) * N + n1 * kFormatC0;
        const int64_t nz_i = (((b * N1 + n1) * M1 + m / kFormatC0) * kFormatC0 + m % kFormatC0) * kFormatC0;
        const size_t bytes = static_cast<size_t>(std::min<int64_t>(kFormatC0, N - n1 * kFormatC0)) * es;
        if (to_nz) std::memcpy(o + nz_i * es, s + plain_i * es, bytes);
        else std::memcpy(o + plain_i * es, s + nz_i * es, bytes);
      }
}

}  // namespace

// Besides the pairs ge/sdk/layout.h lists, NCHW/ND <-> NHWC for rank 4 (layout.format = "NHWC";
// element (n, c, h, w) of NHWC at ((n*H + h)*W + w)*C + c).
bool can_convert_format(Format src, Format dst, size_t rank) {
  if (src == dst || (plain(src) && plain(dst))) return true;
  if (src == Format::FRACTAL_NZ || dst == Format::FRACTAL_NZ)
    return rank >= 2 && (plain(src) || plain(dst));
  if (rank != 4) return false;
  if (plain(src)) return format_is_blocked(dst) || dst == Format::NHWC;
  if (plain(dst)) return format_is_blocked(src) || src == Format::NHWC;
  // A blocked format and NHWC: through NCHW (convert_format_into).
  return (format_is_blocked(src) && dst == Format::NHWC) || (src == Format::NHWC && format_is_blocked(dst));
}

void convert_format_into(const Tensor& src, Tensor& dst) {
  if (src.dtype() != dst.dtype() || src.shape() != dst.shape())
    throw InvalidGraphError("TransData: source " + std::string(dtype_name(src.dtype())) + src.shape().str() +
                            " and destination " + std::string(dtype_name(dst.dtype())) + dst.shape().str() +
                            " differ in dtype or shape");
  const Format sf = src.format(), df = dst.format();
  if (!can_convert_format(sf, df, src.shape().rank()))
    throw UnsupportedError("TransData: " + std::string(format_name(sf)) + " -> " + std::string(format_name(df)) +
                           " not supported for shape " + src.shape().str() +
                           " (NCHW <-> NC1HWC0 / NC1HWC0_C04 / NHWC / a weight format, and NHWC <-> those, rank 4; ND <-> FRACTAL_NZ, rank >= 2)");
  const size_t es = dtype_size(src.dtype());
  if (sf == Format::FRACTAL_NZ || df == Format::FRACTAL_NZ) {
    if (sf == df) {
      if (src.nbytes()) std::memcpy(dst.data(), src.data(), src.nbytes());
    } else {
      convert_nz(src, dst, df == Format::FRACTAL_NZ);
    }
    return;
  }
  if (src.nbytes() == dst.nbytes() && (sf == df || (plain(sf) && plain(df)))) {
    if (src.nbytes()) std::memcpy(dst.data(), src.data(), src.nbytes());
    return;
  }
  if (!plain(sf) && !plain(df)) {  // a blocked format <-> NHWC: two moves through NCHW
    Tensor nchw = Tensor::allocate(src.dtype(), src.shape(), Format::NCHW);
    convert_format_into(src, nchw);
    convert_format_into(nchw, dst);
    return;
  }
  const bool to_blocked = plain(sf);
  const BlockedIndex idx(to_blocked ? df : sf, src.shape());
  const auto* s = static_cast<const unsigned char*>(src.data());
  auto* d = static_cast<unsigned char*>(dst.data());
  if (to_blocked) std::memset(d, 0, dst.nbytes());  // padding is zero (types.h)
  // Every format's offset is linear in (h, w) for a fixed (n, c): base(n, c) + h*sh + w*sw.
  // Walking (h, w) with those strides and moving whole elements of their own width keeps a
  // resnet50's worth of weights (25M floats) in tens of milliseconds at compile time.
  const int64_t base0 = idx(0, 0, 0, 0);
  const int64_t sh = idx.H > 1 ? idx(0, 0, 1, 0) - base0 : 0, sw = idx.W > 1 ? idx(0, 0, 0, 1) - base0 : 0;
  // memcpy of a compile-time width: one load and one store, without aliasing the bytes as
  // another type.
  auto move = [&](auto width) {
    constexpr size_t E = decltype(width)::value;
    int64_t plain_i = 0;
    for (int64_t n = 0; n < idx.N; ++n)
      for (int64_t c = 0; c < idx.C; ++c) {
        const int64_t base = idx(n, c, 0, 0);
        for (int64_t h = 0; h < idx.H; ++h) {
          const int64_t row = base + h * sh;
          if (to_blocked)
            for (int64_t w = 0; w < idx.W; ++w, ++plain_i) std::memcpy(d + (row + w * sw) * E, s + plain_i * E, E);
          else
            for (int64_t w = 0; w < idx.W; ++w, ++plain_i) std::memcpy(d + plain_i * E, s + (row + w * sw) * E, E);
        }
      }
  };
  if (idx.linear_in_hw()) {
    switch (es) {
      case 1: move(std::integral_constant<size_t, 1>{}); return;
      case 2: move(std::integral_constant<size_t, 2>{}); return;
      case 4: move(std::integral_constant<size_t, 4>{}); return;
      case 8: move(std::integral_constant<size_t, 8>{}); return;
      default: break;
    }
  }
  int64_t plain_i = 0;  // any other element width, and FRACTAL_Z_C04 (weights: small)
  for (int64_t n = 0; n < idx.N; ++n)
    for (int64_t c = 0; c < idx.C; ++c)
      for (int64_t h = 0; h < idx.H; ++h)
        for (int64_t w = 0; w < idx.W; ++w, ++plain_i) {
          const int64_t b = idx(n, c, h, w);
          if (to_blocked) std::memcpy(d + b * es, s + plain_i * es, es);
          else std::memcpy(d + plain_i * es, s + b * es, es);
        }
}

Tensor convert_format(const Tensor& src, Format dst) {
  Tensor out = Tensor::allocate(src.dtype(), src.shape(), dst);
  convert_format_into(src, out);
  return out;
}

}  // namespace ge
