// plugins/layout/transdata.cc — creating TransData nodes and their shape inference.
#include <string>

#include "ge/sdk/error.h"
#include "ge/sdk/op_registry.h"
#include "layout_steps.h"

namespace ge::layout {

bool is_transdata(const Node& n) { return n.op_type() == "TransData" && n.domain() == "ge"; }

Value* add_transdata(Graph& g, Value* v, Format dst) {
  if (!can_convert_format(v->format, dst, v->shape.rank()))
    throw UnsupportedError("layout: no TransData " + std::string(format_name(v->format)) + " -> " +
                           std::string(format_name(dst)) + " for value '" + v->name() + "' " + v->shape.str());
  const std::string suffix = std::string(format_name(dst));
  Value* out = g.add_value(g.unique_value_name(v->name() + "_" + suffix), v->dtype, v->shape);
  out->format = dst;
  Attributes a;
  a.set("src_format", std::string(format_name(v->format)));
  a.set("dst_format", suffix);
  g.add_node("TransData", "", {v}, {out}, std::move(a), "ge");
  return out;
}

int count_transdata(const Graph& g) {
  int n = 0;
  for (const Node* node : g.nodes()) n += is_transdata(*node);
  return n;
}

void infer_transdata(InferContext& ctx) {
  if (!ctx.has_input(0)) ctx.fail("missing input 'X'");
  ctx.set_output(0, ctx.input_type(0), ctx.input_shape(0));
}

}  // namespace ge::layout
