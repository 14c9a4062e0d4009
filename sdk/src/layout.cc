// Format conversion: TransData's reference semantics (ge/sdk/layout.h). Index formulas: types.h.
#include "ge/sdk/layout.h"

#include <cstring>
#include <string>

#include "ge/sdk/error.h"

namespace ge {
namespace {

bool plain(Format f) { return f == Format::ND || f == Format::NCHW; }

/// Offset (in elements) of logical element (a,b,c,d) of a rank-4 shape in a blocked format.
/// NC1HWC0: (n,c,h,w); FRACTAL_Z: (n=Cout, c=Cin, kh, kw).
struct BlockedIndex {
  Format f;
  int64_t N, C, H, W, C1, N1;
  BlockedIndex(Format fmt, const Shape& s)
      : f(fmt), N(s[0]), C(s[1]), H(s[2]), W(s[3]), C1((s[1] + kFormatC0 - 1) / kFormatC0),
        N1((s[0] + kFormatC0 - 1) / kFormatC0) {}
  int64_t operator()(int64_t n, int64_t c, int64_t h, int64_t w) const {
    const int64_t c1 = c / kFormatC0, c0 = c % kFormatC0;
    if (f == Format::NC1HWC0) return (((n * C1 + c1) * H + h) * W + w) * kFormatC0 + c0;
    // FRACTAL_Z: [C1*Kh*Kw, N1, N0, C0] (CANN's FRACTAL_Z for convolution weights).
    return (((c1 * H + h) * W + w) * N1 + n / kFormatC0) * kFormatC0 * kFormatC0 + (n % kFormatC0) * kFormatC0 + c0;
  }
};

}  // namespace

bool can_convert_format(Format src, Format dst, size_t rank) {
  if (src == dst || (plain(src) && plain(dst))) return true;
  if (rank != 4) return false;
  if (plain(src)) return format_is_blocked(dst);
  if (plain(dst)) return format_is_blocked(src);
  return false;
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
                           " (NCHW <-> NC1HWC0 and NCHW <-> FRACTAL_Z, rank 4)");
  const size_t es = dtype_size(src.dtype());
  if (src.nbytes() == dst.nbytes() && (sf == df || (plain(sf) && plain(df)))) {
    if (src.nbytes()) std::memcpy(dst.data(), src.data(), src.nbytes());
    return;
  }
  const bool to_blocked = plain(sf);
  const BlockedIndex idx(to_blocked ? df : sf, src.shape());
  const auto* s = static_cast<const unsigned char*>(src.data());
  auto* d = static_cast<unsigned char*>(dst.data());
  if (to_blocked) std::memset(d, 0, dst.nbytes());  // padding is zero (types.h)
  int64_t plain_i = 0;
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
