// common_subexpression_elimination: two nodes of the same op type, domain and attributes that read
// the same values compute the same outputs, so the later one's readers may read the earlier one's.
// Constants with identical dtype, shape, format and bytes merge the same way (bytes compared).
//
// Nodes whose OpDef is not foldable (random ops) never merge: two draws are not one draw. A
// duplicate whose output is a graph output is kept (its readers would see a renamed output).
// Topological order lets merges cascade: once two producers merged, their readers read the same
// values and merge in the same walk.
#include <bit>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "registration.h"
#include "simplify_util.h"

namespace ge::fusion {
namespace {

std::string_view bytes_of(const Tensor& t) { return {static_cast<const char*>(t.data()), t.nbytes()}; }

/// Hash of a buffer's first and last 64 bytes.
size_t sample_hash(std::string_view b);

/// Mixes `v` into the running hash `h` (the boost::hash_combine recipe).
void mix(size_t& h, size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

size_t attr_hash(const AttrValue& a) {
  size_t h = a.index();
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t>) mix(h, std::hash<int64_t>{}(x));
        else if constexpr (std::is_same_v<T, float>) mix(h, std::bit_cast<uint32_t>(x));
        else if constexpr (std::is_same_v<T, std::string>) mix(h, std::hash<std::string>{}(x));
        else if constexpr (std::is_same_v<T, Tensor>) mix(h, sample_hash(bytes_of(x)));
        else
          for (const auto& e : x) {
            if constexpr (std::is_same_v<std::decay_t<decltype(e)>, float>) mix(h, std::bit_cast<uint32_t>(e));
            else mix(h, std::hash<std::decay_t<decltype(e)>>{}(e));
          }
      },
      a);
  return h;
}

/// Attribute equality for merging: floats by their bits (0.0 and -0.0 differ, a NaN equals the same
/// NaN), tensors by dtype, shape and bytes.
bool same_attr(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, float>) return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y);
        else if constexpr (std::is_same_v<T, std::vector<float>>)
          return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
        else if constexpr (std::is_same_v<T, Tensor>)
          return x.dtype() == y.dtype() && x.shape() == y.shape() && bytes_of(x) == bytes_of(y);
        else return x == y;
      },
      a);
}

/// Hash of everything that determines a node's result apart from its inputs' contents: op,
/// domain, attributes, input identities and which optional outputs exist.
size_t node_hash(const Node& n) {
  size_t h = std::hash<std::string>{}(n.op_type());
  mix(h, std::hash<std::string>{}(n.domain()));
  for (const Value* v : n.inputs()) mix(h, std::hash<const Value*>{}(v));
  for (const Value* o : n.outputs()) mix(h, o ? 1 : 2);
  for (const auto& [name, a] : n.attrs.all()) {
    mix(h, std::hash<std::string>{}(name));
    mix(h, attr_hash(a));
  }
  return h;
}

/// True when `a` and `b` compute the same outputs: the fields node_hash covers, compared.
bool same_node(const Node& a, const Node& b) {
  if (a.op_type() != b.op_type() || a.domain() != b.domain() || a.inputs() != b.inputs() ||
      a.num_outputs() != b.num_outputs() || a.attrs.size() != b.attrs.size())
    return false;
  for (size_t i = 0; i < a.num_outputs(); ++i)
    if ((a.output(i) == nullptr) != (b.output(i) == nullptr)) return false;
  auto ia = a.attrs.all().begin(), ib = b.attrs.all().begin();
  for (; ia != a.attrs.all().end(); ++ia, ++ib)
    if (ia->first != ib->first || !same_attr(ia->second, ib->second)) return false;
  return true;
}

/// Hash of a buffer's first and last 64 bytes.
size_t sample_hash(std::string_view b) {
  if (b.size() <= 128) return std::hash<std::string_view>{}(b);
  return std::hash<std::string_view>{}(b.substr(0, 64)) * 31 + std::hash<std::string_view>{}(b.substr(b.size() - 64));
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
  /// Constants are grouped by dtype, format, shape and a hash of their first and last 64 bytes;
  /// within a group each one is compared with the group's distinct representatives byte by byte.
  /// Hashing every weight's bytes instead costs a full pass over all weights (~30 ms on
  /// resnet50's 100 MB) although almost no two weights are equal.
  static int64_t merge_constants(Graph& g) {
    std::unordered_map<std::string, std::vector<Value*>> groups;  // type key → distinct constants
    int64_t merged = 0;
    for (Value* v : g.values()) {
      if (!v->is_constant() || v->is_graph_input() || !v->data || v->data->empty()) continue;
      std::string key = std::to_string(static_cast<int>(v->dtype)) + ":" + std::to_string(static_cast<int>(v->format)) +
                        ":" + v->shape.str() + ":" + std::to_string(v->data->nbytes()) + ":" +
                        std::to_string(sample_hash(bytes_of(*v->data)));
      std::vector<Value*>& reps = groups[key];
      Value* first = nullptr;
      for (Value* r : reps)
        if (same_constant(*r, *v)) {
          first = r;
          break;
        }
      if (!first) {
        reps.push_back(v);
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
    // Hashes the node's fields rather than building a key string per node: on a 100 000-node
    // graph the strings were most of the pass's time.
    std::unordered_multimap<size_t, Node*> seen;
    seen.reserve(g.num_nodes());
    int64_t merged = 0;
    for (Node* n : ordered_nodes(g)) {
      const OpDef* def = op_def(g, *n, ctx);
      if (!def || !def->foldable) continue;
      size_t h = node_hash(*n);
      Node* first = nullptr;
      for (auto [it, end] = seen.equal_range(h); it != end && !first; ++it)
        if (same_node(*it->second, *n)) first = it->second;
      if (!first) {
        seen.emplace(h, n);
        continue;
      }
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
