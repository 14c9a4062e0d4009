// tests/memory/arena_checker.cc — see arena_checker.h. Deliberately written from the graph and
// the ONNX semantics alone (no plugins/memory code), so a planner bug cannot hide in both.
#include "arena_checker.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace ge::test {
namespace {

struct Life {
  const Value* v;
  int def, last;
  uint64_t begin, end;  // bytes
};

bool is_view(const Node& n) {
  static const std::set<std::string> k = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"};
  return n.domain().empty() && k.count(n.op_type()) > 0;
}

std::vector<Life> lifetimes(const Graph& g) {
  std::unordered_map<const Node*, int> step;
  std::vector<Node*> order = g.nodes();
  for (int s = 0; s < static_cast<int>(order.size()); ++s) step[order[s]] = s;
  std::vector<Life> out;
  for (const Value* v : g.values()) {
    if (v->arena_offset < 0 || !v->producer()) continue;
    int def = step.at(v->producer()), last = def;
    for (const Use& u : v->uses()) last = std::max(last, step.at(u.node));
    uint64_t b = static_cast<uint64_t>(v->arena_offset);
    out.push_back({v, def, last, b, b + v->nbytes()});
  }
  return out;
}

/// Byte offset of Concat input `slot` inside the output, or -1 when slices are not contiguous.
int64_t concat_slice(const Node& n, size_t slot) {
  const Value* out = n.output(0);
  int64_t r = static_cast<int64_t>(out->shape.rank()), axis = n.attrs.get_int("axis", 0);
  if (axis < 0) axis += r;
  for (int64_t d = 0; d < axis; ++d)
    if (out->shape[d] != 1) return -1;
  int64_t off = 0;
  for (size_t i = 0; i < slot; ++i) off += static_cast<int64_t>(n.input(i)->nbytes());
  return off;
}

/// `a` dies at the node that defines `b`, and that node may legally write b over a's bytes.
bool legal_handover(const Life& a, const Life& b, const Graph& g, const OpRegistry& ops) {
  if (a.last != b.def) return false;
  const Node& n = *b.v->producer();
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    if (n.input(i) != a.v) continue;
    if (n.domain().empty() && n.op_type() == "Concat") {
      int64_t at = concat_slice(n, i);
      if (at >= 0 && a.begin == b.begin + static_cast<uint64_t>(at)) return true;
    }
    const OpDef* def = ops.find(n.domain(), n.op_type(), g.opset(n.domain()));
    bool ew = def && (def->pattern == OpPattern::Elementwise || def->pattern == OpPattern::Broadcast);
    if (ew && n.num_outputs() == 1 && a.begin == b.begin && a.v->shape == b.v->shape && a.v->dtype == b.v->dtype)
      return true;
    if (is_view(n) && i == 0 && b.v == n.output(0) && a.begin == b.begin) return true;
  }
  return false;
}

/// Same bytes because one is a view of the other (through any chain of views).
bool same_data(const Value* a, const Value* b) {
  auto root = [](const Value* v) {
    while (v->producer() && is_view(*v->producer()) && v->producer()->output(0) == v &&
           v->producer()->input(0)->arena_offset == v->arena_offset)
      v = v->producer()->input(0);
    return v;
  };
  return a->arena_offset == b->arena_offset && a->nbytes() == b->nbytes() && root(a) == root(b);
}

}  // namespace

std::string check_arena(const Graph& g, const OpRegistry& ops, ArenaCheckOptions opts) {
  std::ostringstream err;
  for (const Value* v : g.values())
    if (v->arena_offset >= 0 && (v->is_graph_input() || v->is_graph_output() || v->is_constant()))
      err << "'" << v->name() << "' is a graph input, output or constant but has an arena offset\n";
  std::vector<Life> L = lifetimes(g);
  // A Concat input in its slice is aligned relative to the output, and so is whatever shares
  // its bytes (a view or in-place chain ending in it).
  std::set<uint64_t> slice_offsets;
  for (const Node* n : g.nodes())
    if (n->domain().empty() && n->op_type() == "Concat" && n->output(0)->arena_offset >= 0)
      for (size_t i = 0; i < n->num_inputs(); ++i)
        if (int64_t at = concat_slice(*n, i);
            at >= 0 && n->input(i)->arena_offset == n->output(0)->arena_offset + at)
          slice_offsets.insert(static_cast<uint64_t>(n->input(i)->arena_offset));
  for (const Life& l : L) {
    if (l.end > g.arena_bytes) err << "'" << l.v->name() << "' ends at " << l.end << " > arena " << g.arena_bytes << "\n";
    if (l.begin % 64 && !slice_offsets.count(l.begin))
      err << "'" << l.v->name() << "' at unaligned offset " << l.begin << "\n";
  }
  if (opts.views_aliased)
    for (const Node* n : g.nodes())
      if (is_view(*n) && n->input(0)->arena_offset >= 0 && n->output(0)->arena_offset >= 0 &&
          n->input(0)->nbytes() == n->output(0)->nbytes() && n->input(0)->arena_offset != n->output(0)->arena_offset)
        err << "view '" << n->output(0)->name() << "' does not share its input's bytes\n";
  for (size_t i = 0; i < L.size(); ++i)
    for (size_t j = i + 1; j < L.size(); ++j) {
      const Life &a = L[i], &b = L[j];
      if (a.def > b.last || b.def > a.last || a.begin >= b.end || b.begin >= a.end) continue;
      if (same_data(a.v, b.v) || legal_handover(a, b, g, ops) || legal_handover(b, a, g, ops)) continue;
      err << "'" << a.v->name() << "' [" << a.begin << ", " << a.end << ") steps " << a.def << ".." << a.last
          << " overlaps '" << b.v->name() << "' [" << b.begin << ", " << b.end << ") steps " << b.def << ".." << b.last
          << "\n";
    }
  std::string e = err.str();
  return e.empty() ? e : e + draw_arena(g, opts.columns);
}

std::string draw_arena(const Graph& g, int columns) {
  std::vector<Life> L = lifetimes(g);
  const int steps = static_cast<int>(g.num_nodes());
  const uint64_t bytes = std::max<uint64_t>(g.arena_bytes, 1);
  const double per = static_cast<double>(bytes) / columns;
  std::vector<std::string> rows(steps, std::string(columns, '.'));
  const std::string letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::ostringstream legend;
  for (size_t k = 0; k < L.size(); ++k) {
    const Life& l = L[k];
    char c = letters[k % letters.size()];
    legend << c << " = " << l.v->name() << " [" << l.begin << ", " << l.end << ") steps " << l.def << ".." << l.last
           << "\n";
    int c0 = static_cast<int>(l.begin / per), c1 = std::max(c0, static_cast<int>((l.end - 1) / per));
    for (int s = l.def; s <= l.last && s < steps; ++s)
      for (int col = c0; col <= std::min(c1, columns - 1); ++col) rows[s][col] = rows[s][col] == '.' ? c : '#';
  }
  std::ostringstream out;
  out << "arena " << g.arena_bytes << " bytes, " << columns << " columns of " << per << " bytes; rows = steps\n";
  for (int s = 0; s < steps; ++s) out << (s < 10 ? " " : "") << s << " |" << rows[s] << "|\n";
  return out.str() + legend.str();
}

}  // namespace ge::test
