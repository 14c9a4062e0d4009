// common_subexpression_elimination: two nodes of the same op type, domain and attributes that read
// the same values compute the same outputs, so the later one's readers may read the earlier one's.
// Constants with identical dtype, shape, format and bytes merge the same way (bytes compared, not
// only hashed).
//
// Nodes whose OpDef is not foldable (random ops) never merge: two draws are not one draw. A
// duplicate whose output is a graph output is kept (its readers would see a renamed output).
// Topological order lets merges cascade: once two producers merged, their readers read the same
// values and merge in the same walk.
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "registration.h"
#include "simplify_util.h"

namespace ge::fusion {
namespace {

std::string_view bytes_of(const Tensor& t) { return {static_cast<const char*>(t.data()), t.nbytes()}; }

/// Everything that determines a node's result apart from its inputs' contents: op, domain,
/// attributes (a tensor attribute by its bytes: attr_to_string shows only its type), input
/// identities and which optional outputs exist.
std::string node_key(const Node& n) {
  std::string k = n.domain() + "::" + n.op_type() + "(";
  for (const Value* v : n.inputs()) k += (v ? std::to_string(reinterpret_cast<uintptr_t>(v)) : "_") + ",";
  k += ")->";
  for (const Value* o : n.outputs()) k += o ? "o" : "_";
  for (auto& [name, a] : n.attrs.all()) {
    k += "|" + name + "=" + attr_to_string(a);
    if (const Tensor* t = std::get_if<Tensor>(&a)) k += ":" + std::string(bytes_of(*t));
  }
  return k;
}

bool same_constant(const Value& a, const Value& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.format == b.format &&
         a.data->nbytes() == b.data->nbytes() && bytes_of(*a.data) == bytes_of(*b.data);
}

class CommonSubexpressionElimination : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "common_subexpression_elimination";
    i.stage = Stage::Simplify;
    i.min_level = OptLevel::O1;
    i.numerics = NumericsEffect::Exact;
    i.summary = "Merges nodes with the same op, attributes and inputs, and constants with the same bytes";
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    int64_t consts = merge_constants(g), nodes = merge_nodes(g, ctx);
    if (consts) ctx.count("simplify.common_subexpression_elimination.constants", consts);
    if (nodes) ctx.count("simplify.common_subexpression_elimination.nodes", nodes);
    return consts + nodes > 0;
  }

 private:
  static int64_t merge_constants(Graph& g) {
    std::unordered_multimap<size_t, Value*> seen;  // hash of the bytes → first constants
    int64_t merged = 0;
    for (Value* v : g.values()) {
      if (!v->is_constant() || v->is_graph_input() || !v->data || v->data->empty()) continue;
      size_t h = std::hash<std::string_view>{}(bytes_of(*v->data)) ^ (v->shape.numel() * 31 + static_cast<size_t>(v->dtype));
      Value* first = nullptr;
      auto [lo, hi] = seen.equal_range(h);
      for (auto it = lo; it != hi && !first; ++it)
        if (same_constant(*it->second, *v)) first = it->second;
      if (!first) {
        seen.emplace(h, v);
        continue;
      }
      if (v->is_graph_output()) continue;
      g.replace_all_uses(v, first);
      g.remove_value(v);
      ++merged;
    }
    return merged;
  }

  static int64_t merge_nodes(Graph& g, PassContext& ctx) {
    std::unordered_map<std::string, Node*> seen;
    int64_t merged = 0;
    for (Node* n : ordered_nodes(g)) {
      const OpDef* def = op_def(g, *n, ctx);
      if (!def || !def->foldable) continue;
      std::string key = node_key(*n);
      auto [it, fresh] = seen.emplace(key, n);
      if (fresh) continue;
      Node* first = it->second;
      bool output = false;
      for (const Value* o : n->outputs()) output |= o && o->is_graph_output();
      if (output) continue;
      for (size_t i = 0; i < n->num_outputs(); ++i)
        if (Value* o = n->output(i)) g.replace_all_uses(o, first->output(i));
      erase_node(g, n);
      ++merged;
    }
    return merged;
  }
};

}  // namespace

GE_FUSION_PASS(CommonSubexpressionElimination, 40);

}  // namespace ge::fusion
