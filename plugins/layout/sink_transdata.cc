// plugins/layout/sink_transdata.cc — step 2 of the layout pass (layout_steps.h): a TransData
// back to the plain format moves past a layout-agnostic node towards its inverse.
//
//   before:  x@NC1HWC0 -> TransData(NC1HWC0 -> NCHW) -> a -> Relu -> r -> TransData(NCHW -> NC1HWC0)
//   after:   x@NC1HWC0 -> Relu -> r'@NC1HWC0 -> TransData(NC1HWC0 -> NCHW) -> r -> TransData(...)
// and cancel_transdata then removes the pair after the Relu. The node moves only when every
// input its preference wants blocked arrives from a TransData to the plain format (otherwise
// moving would add a conversion instead of removing one), at least one of them from the wanted
// format itself, and no output is a graph output. An input converted from another format the SDK
// converts to the wanted one directly (NHWC, from a convolution the backend runs on NHWC) gets a
// TransData to the wanted format, which compose_transdata joins with the one before it: the
// conversions from the wanted format go, the others stay one each. So a Concat of two NC1HWC0
// and two NHWC branches (inception_v3's blocks) concatenates NC1HWC0 and only its NHWC inputs
// convert, instead of all four converting to NCHW and its output back for every blocked reader.
#include <string>

#include "layout_steps.h"

namespace ge::layout {
namespace {

bool plain(Format f) { return f == Format::ND || f == Format::NCHW; }

/// The non-plain value a plain value was converted from by a TransData, or null.
Value* converted_from(const Value* v) {
  const Node* p = v ? v->producer() : nullptr;
  if (!p || !is_transdata(*p) || !plain(v->format)) return nullptr;
  Value* src = p->input(0);
  return plain(src->format) ? nullptr : src;
}

bool can_sink(const Node& n, const NodeFormats& f) {
  if (!f.follows || f.inputs.size() != n.num_inputs() || f.outputs.size() != n.num_outputs()) return false;
  bool any = false;
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    if (plain(f.inputs[i])) continue;
    const Value* src = converted_from(n.input(i));
    if (!src) return false;
    if (src->format == f.inputs[i]) any = true;
    else if (!can_convert_format(src->format, f.inputs[i], src->shape.rank())) return false;
  }
  for (size_t o = 0; o < n.num_outputs(); ++o)
    if (n.output(o) && n.output(o)->is_graph_output() && !plain(f.outputs[o])) return false;
  return any;
}

}  // namespace

int sink_transdata(Graph& g, const FormatPreferenceFn& prefer) {
  int moved = 0;
  for (Node* n : g.topological_order()) {
    if (is_transdata(*n)) continue;
    std::optional<NodeFormats> f = prefer(*n);
    if (!f || !can_sink(*n, *f)) continue;
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      if (plain(f->inputs[i])) continue;
      Value* src = converted_from(n->input(i));
      g.set_input(n, i, src->format == f->inputs[i] ? src : add_transdata(g, n->input(i), f->inputs[i]));
    }
    for (size_t o = 0; o < n->num_outputs(); ++o) {
      Value* y = n->output(o);
      if (!y || plain(f->outputs[o])) continue;
      const Format before = y->format;
      Value* p = g.add_value(g.unique_value_name(y->name() + "_" + std::string(format_name(before))), y->dtype, y->shape);
      p->format = before;
      g.replace_all_uses(y, p);
      y->format = f->outputs[o];
      Attributes a;
      a.set("src_format", std::string(format_name(y->format)));
      a.set("dst_format", std::string(format_name(before)));
      g.add_node("TransData", "", {y}, {p}, std::move(a), "ge");
    }
    ++moved;
  }
  g.sort_topologically();
  return moved;
}

}  // namespace ge::layout
