// plugins/layout/compose_transdata.cc — step 4 of the layout pass (layout_steps.h): two
// conversions through the plain format become one where the SDK converts the pair directly.
//
//   TransData(NCHW -> C)(TransData(A -> NCHW)(x))  →  TransData(A -> C)(x)
//
// for A ≠ C both non-plain and can_convert_format(A, C) — today NC1HWC0 ↔ NHWC, a blocked
// producer feeding a convolution the backend runs on NHWC (cpu backend: oneDNN reorders nChw16c
// ↔ nhwc in one pass, where the two hops read and write the tensor twice). The plain value stays
// while other nodes read it; otherwise cancel_transdata removes its now unread TransData.
#include "layout_steps.h"

namespace ge::layout {
namespace {

bool plain(Format f) { return f == Format::NCHW || f == Format::ND; }

}  // namespace

int compose_transdata(Graph& g) {
  int composed = 0;
  for (Node* n : g.topological_order()) {
    if (!is_transdata(*n)) continue;
    Value* mid = n->input(0);
    Node* p = mid->producer();
    if (!p || !is_transdata(*p) || !plain(mid->format)) continue;
    Value* x = p->input(0);
    const Format a = x->format, c = n->output(0)->format;
    if (plain(a) || plain(c) || a == c || !can_convert_format(a, c, x->shape.rank())) continue;
    g.set_input(n, 0, x);
    n->attrs.set("src_format", std::string(format_name(a)));
    ++composed;
  }
  return composed;
}

}  // namespace ge::layout
