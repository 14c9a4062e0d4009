// plugins/cpu_backend/conv_weights.cc — convolution weights in oneDNN's own blocked layouts as
// GE formats (OIhw16i16o, Ohwi16o, Goihw16g; index formulas in ge/sdk/types.h): the descriptor
// of a weight value stored in a GE format, and the GE format of the layout oneDNN chose.
//
// The layout pass converts constant weights into the format the chosen convolution wants at
// compile time, so a plan's weights are already in oneDNN's layout and the kernel builds its
// weights memory on the plan's (mmapped, 64-byte aligned) bytes with no reorder at load.
#include <string>

#include "blocked.h"
#include "ge/sdk/error.h"

namespace ge::cpu {

using dnnl::memory;
using tag = memory::format_tag;

memory::dims conv_weight_dims(const Shape& w, int64_t group) {
  memory::dims d;
  if (group > 1) d = {group, w[0] / group, w[1]};
  else d = {w[0], w[1]};
  for (size_t i = 2; i < w.rank(); ++i) d.push_back(w[i]);
  return d;
}

namespace {

/// oneDNN's tag for GE format f on weights dims of rank `rank` (4: oihw, 5: goihw), or undef.
tag weight_tag(Format f, size_t rank) {
  const bool grouped = rank == 5;
  switch (f) {
    case Format::ND: case Format::NCHW:
      return rank == 3 ? tag::oiw : rank == 4 ? tag::oihw : rank == 5 ? tag::goihw : tag::undef;
    // Grouped weights keep G*O/G as GE's logical O axis: only one output channel per group
    // (depthwise) leaves the 4-D formulas of types.h valid for the 5-D oneDNN layouts.
    case Format::OIhw16i16o: return grouped ? tag::undef : tag::OIhw16i16o;
    case Format::Ohwi16o: return grouped ? tag::undef : tag::Ohwi16o;
    // Goihw16g with O/G = 1 is [G1, I, Kh, Kw, 16g]; ungrouped, the same memory is Abcd16a.
    case Format::Goihw16g: return grouped ? tag::Goihw16g : rank == 4 ? tag::Abcd16a : tag::undef;
    default: return tag::undef;
  }
}

}  // namespace

memory::desc conv_weight_md(const memory::dims& wdims, Format f, const std::string& what) {
  const bool one_per_group = wdims.size() != 5 || wdims[1] == 1;
  const tag t = weight_tag(f, wdims.size());
  if (t == tag::undef || (f == Format::Goihw16g && !one_per_group))
    throw UnsupportedError("Conv: weights " + what + " are " + std::string(format_name(f)) +
                           ", which the CPU convolution cannot read for oneDNN weight dims of rank " +
                           std::to_string(wdims.size()) +
                           " (plain OIHW; OIhw16i16o / Ohwi16o ungrouped 2-D; Goihw16g depthwise)");
  return memory::desc(wdims, memory::data_type::f32, t);
}

Format conv_weight_format(const memory::desc& chosen, const memory::dims& wdims) {
  for (Format f : {Format::OIhw16i16o, Format::Ohwi16o, Format::Goihw16g}) {
    const tag t = weight_tag(f, wdims.size());
    if (t == tag::undef || (wdims.size() == 5 && wdims[1] != 1)) continue;
    if (memory::desc(wdims, memory::data_type::f32, t) == chosen) return f;
  }
  return Format::NCHW;
}

}  // namespace ge::cpu
