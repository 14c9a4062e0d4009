// What the compiler guarantees of every graph it writes into a plan, re-checked on load: a plan
// with a valid checksum may still come from a buggy or hostile producer, and the kernels and
// the runtime rely on these without checking (plan_graph.h).
#include <algorithm>
#include <string>

#include "ge/core/environment.h"
#include "ge/sdk/error.h"
#include "plan_graph.h"

namespace ge::core::plan_detail {
namespace {

/// Required operands present, no operand past the definition (ONNX IR: omitted optional inputs
/// are empty names; a kernel reads a required input without checking it).
void check_operands(const Node& n, const OpDef& def) {
  auto check = [&](const std::vector<IoDef>& decl, size_t count, auto present, const char* kind) {
    const bool variadic = !decl.empty() && decl.back().variadic;
    if (!variadic && count > decl.size())
      throw Error(n.describe() + " has " + std::to_string(count) + " " + kind + "s; its definition has " +
                  std::to_string(decl.size()));
    for (size_t i = 0; i < decl.size(); ++i) {
      if (decl[i].optional) continue;
      if (decl[i].variadic && i + 1 == decl.size()) {  // at least one, each present
        if (count <= i) throw Error(n.describe() + ": required " + kind + " '" + decl[i].name + "' is missing");
        for (size_t k = i; k < count; ++k)
          if (!present(k)) throw Error(n.describe() + ": " + kind + " " + std::to_string(k) + " is missing");
        continue;
      }
      if (i >= count || !present(i))
        throw Error(n.describe() + ": required " + kind + " " + std::to_string(i) + " ('" + decl[i].name + "') is missing");
    }
  };
  check(def.inputs, n.num_inputs(), [&](size_t i) { return n.input(i) != nullptr; }, "input");
  check(def.outputs, n.num_outputs(), [&](size_t i) { return n.output(i) != nullptr; }, "output");
}

struct Range {
  uint64_t begin, end;
  bool overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
};

bool in_arena(const Value* v) { return v && v->arena_offset >= 0 && v->nbytes() > 0; }
Range range_of(const Value* v) {
  return {static_cast<uint64_t>(v->arena_offset), static_cast<uint64_t>(v->arena_offset) + v->nbytes()};
}

/// The memory planner shares bytes between a node's operands only as a view or an in-place
/// output (same start), as a Concat or Pad input written into its slice (input inside the
/// output) or as a Split or Slice part placed in its input (output inside the input).
/// Anything else — a partial overlap, two outputs sharing bytes — would make a kernel's copies
/// overlap.
void check_arena_operands(const Node& n) {
  for (size_t a = 0; a < n.num_outputs(); ++a) {
    const Value* out = n.output(a);
    if (!in_arena(out)) continue;
    const Range ro = range_of(out);
    for (size_t b = a + 1; b < n.num_outputs(); ++b)
      if (in_arena(n.output(b)) && ro.overlaps(range_of(n.output(b))))
        throw Error(n.describe() + ": outputs '" + out->name() + "' and '" + n.output(b)->name() + "' share arena bytes");
    for (const Value* in : n.inputs()) {
      if (!in_arena(in)) continue;
      const Range ri = range_of(in);
      if (!ro.overlaps(ri) || ri.begin == ro.begin || (ri.begin >= ro.begin && ri.end <= ro.end) ||
          (ro.begin >= ri.begin && ro.end <= ri.end))
        continue;
      throw Error(n.describe() + ": input '" + in->name() + "' (arena [" + std::to_string(ri.begin) + ", " +
                  std::to_string(ri.end) + ")) partly overlaps output '" + out->name() + "' ([" +
                  std::to_string(ro.begin) + ", " + std::to_string(ro.end) + "))");
    }
  }
}

}  // namespace

void check_invariants(const Graph& g, const Environment& env) {
  for (const Node* n : g.nodes()) {
    const int64_t opset = g.opset(n->domain());
    const OpDef* def = opset > 0 ? env.ops.find(n->domain(), n->op_type(), opset) : nullptr;
    if (!def) def = env.ops.find_any(n->domain(), n->op_type());
    if (def) check_operands(*n, *def);
    check_arena_operands(*n);
  }
}

}  // namespace ge::core::plan_detail
