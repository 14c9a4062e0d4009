// plugins/layout/insert_transdata.cc — step 1 of the layout pass (layout_steps.h): anchors take
// their preferred formats, with a TransData at every boundary and constants converted at
// compile time.
#include <map>
#include <string>
#include <utility>

#include "ge/sdk/error.h"
#include "layout_steps.h"

namespace ge::layout {
namespace {

bool plain(Format f) { return f == Format::ND || f == Format::NCHW; }

/// An anchor whose preference is usable: sizes match the node, and no output is a graph output
/// (graph outputs keep their plain format and their name) unless `graph_outputs`.
bool usable(const Node& n, const NodeFormats& f, bool graph_outputs) {
  if (f.follows || f.inputs.size() != n.num_inputs() || f.outputs.size() != n.num_outputs()) return false;
  bool blocked = false;
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    if (!graph_outputs && !plain(f.outputs[i]) && n.output(i) && n.output(i)->is_graph_output()) return false;
    blocked = blocked || !plain(f.outputs[i]);
  }
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    const Value* v = n.input(i);
    if (v && !can_convert_format(v->format, f.inputs[i], v->shape.rank())) return false;
    blocked = blocked || !plain(f.inputs[i]);
  }
  return blocked;
}

}  // namespace

int insert_transdata(Graph& g, const FormatPreferenceFn& prefer, PassContext* ctx, bool graph_outputs) {
  std::map<std::pair<Value*, Format>, Value*> converted;  // one conversion per value and format
  int moved = 0;
  for (Node* n : g.topological_order()) {
    if (is_transdata(*n)) continue;
    std::optional<NodeFormats> f = prefer(*n);
    if (!f || !usable(*n, *f, graph_outputs)) continue;
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      Value* v = n->input(i);
      const Format want = f->inputs[i];
      if (!v || v->format == want || (plain(v->format) && plain(want))) continue;
      Value*& c = converted[{v, want}];
      if (!c) {
        if (v->is_constant()) {
          // Weights: converted now, so no TransData runs for them at inference.
          c = g.add_constant(g.unique_value_name(v->name() + "_" + std::string(format_name(want))),
                             convert_format(*v->data, want));
          if (ctx) ctx->count("layout.constants_converted");
        } else {
          c = add_transdata(g, v, want);
        }
      }
      g.set_input(n, i, c);
    }
    for (size_t o = 0; o < n->num_outputs(); ++o) {
      Value* y = n->output(o);
      const Format want = f->outputs[o];
      if (!y || plain(want)) continue;
      if (y->is_graph_output()) {
        // A graph output keeps its name and plain format: the node is rebuilt writing a new
        // value in `want`, and a TransData writes the output from it.
        Value* q = g.add_value(g.unique_value_name(y->name() + "_" + std::string(format_name(want))), y->dtype, y->shape);
        q->format = want;
        std::vector<Value*> ins = n->inputs(), outs = n->outputs();
        outs[o] = q;
        const std::string op = n->op_type(), name = n->name(), domain = n->domain();
        Attributes attrs = n->attrs;
        g.remove_node(n);
        n = g.add_node(op, name, std::move(ins), std::move(outs), std::move(attrs), domain);
        Attributes a;
        a.set("src_format", std::string(format_name(want)));
        a.set("dst_format", std::string(format_name(y->format)));
        g.add_node("TransData", "", {q}, {y}, std::move(a), "ge");
        continue;
      }
      // y becomes the blocked result; its readers get a plain copy through a TransData.
      const Format before = y->format;
      Value* p = g.add_value(g.unique_value_name(y->name() + "_" + std::string(format_name(before))), y->dtype, y->shape);
      p->format = before;
      g.replace_all_uses(y, p);
      y->format = want;
      Attributes a;
      a.set("src_format", std::string(format_name(want)));
      a.set("dst_format", std::string(format_name(before)));
      g.add_node("TransData", "", {y}, {p}, std::move(a), "ge");
      if (p->uses().empty()) {  // nobody read y: drop the conversion again
        g.remove_node(p->producer());
        g.remove_value(p);
      }
    }
    ++moved;
  }
  // Constants every reader now takes converted: drop the originals (the plan keeps one copy).
  for (auto& [key, c] : converted) {
    Value* v = key.first;
    if (c->is_constant() && v->uses().empty() && !v->is_graph_input() && !v->is_graph_output()) g.remove_value(v);
  }
  g.sort_topologically();
  return moved;
}

}  // namespace ge::layout
