// Pattern matching over producer trees, and the legality checks fusion rules share.
//
// The matcher is a backtracking search written in continuation-passing style: every step gets
// the rest of the match as a callback `k`, so a commutative op nested anywhere in the pattern
// can retry its other input order when a *later* sibling fails (e.g. a repeated capture name
// binds differently), not only when its own subtree fails. Bindings made by a failed branch
// are erased before the next alternative runs.
#include "ge/sdk/pattern.h"

#include <deque>
#include <set>

#include "ge/sdk/error.h"

namespace ge {

Node* Match::node(const std::string& name) const {
  auto it = nodes.find(name);
  if (it == nodes.end()) throw Error("pattern match has no node captured as '" + name + "'");
  return it->second;
}

Value* Match::value(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) throw Error("pattern match has no value captured as '" + name + "'");
  return it->second;
}

Pattern Pattern::op(const std::string& op_type, std::vector<Pattern> inputs) {
  Pattern p;
  p.kind = Kind::Op;
  size_t start = 0;
  while (true) {
    size_t bar = op_type.find('|', start);
    p.op_types.push_back(op_type.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  p.inputs = std::move(inputs);
  return p;
}

Pattern Pattern::any(const std::string& capture) {
  Pattern p;
  p.kind = Kind::Any;
  p.capture = capture;
  return p;
}

Pattern Pattern::constant(const std::string& capture) {
  Pattern p;
  p.kind = Kind::Constant;
  p.capture = capture;
  return p;
}

Pattern& Pattern::as(const std::string& name) {
  capture = name;
  return *this;
}
Pattern& Pattern::commutative() {
  is_commutative = true;
  return *this;
}
Pattern& Pattern::where(std::function<bool(const Node&)> pred) {
  preds.push_back(std::move(pred));
  return *this;
}
Pattern& Pattern::output(int i) {
  output_index = i;
  return *this;
}

namespace {

using Cont = std::function<bool()>;

// Binds `name` → `x` in `map` for the duration of `k`. A name already bound must hold the same
// object; a fresh binding is undone when `k` fails so the next alternative starts clean.
template <class T>
bool with_binding(std::map<std::string, T*>& map, const std::string& name, T* x, const Cont& k) {
  if (name.empty() || x == nullptr) return k();
  auto it = map.find(name);
  if (it != map.end()) return it->second == x && k();
  map.emplace(name, x);
  if (k()) return true;
  map.erase(name);
  return false;
}

// An alternative with a '.' names the domain too ("ge.FusedConv", split at the last '.');
// a bare name means the default ONNX domain, so "Conv" never matches a vendor's Conv.
bool op_type_matches(const Pattern& p, const Node& n) {
  for (const std::string& t : p.op_types) {
    size_t dot = t.rfind('.');
    if (dot == std::string::npos) {
      if (n.domain().empty() && n.op_type() == t) return true;
    } else if (n.domain() == t.substr(0, dot) && n.op_type() == t.substr(dot + 1)) {
      return true;
    }
  }
  return false;
}

bool match_value(const Pattern& p, Value* v, Match& m, const Cont& k);

// Matches p.inputs[order[i..]] against the node's corresponding input slots, then runs k.
bool match_inputs(const Pattern& p, const Node& n, const int* order, size_t i, Match& m, const Cont& k) {
  if (i == p.inputs.size()) return k();
  return match_value(p.inputs[i], n.input(static_cast<size_t>(order[i])), m,
                     [&] { return match_inputs(p, n, order, i + 1, m, k); });
}

// `out` is the value through which the node was reached (null for an unreached root output).
bool match_node(const Pattern& p, Node& n, Value* out, Match& m, const Cont& k) {
  if (!op_type_matches(p, n) || n.num_inputs() < p.inputs.size()) return false;
  for (auto& pred : p.preds)
    if (!pred(n)) return false;
  if (p.is_commutative && p.inputs.size() != 2)
    throw Error("pattern for " + p.op_types.front() + " is commutative but has " + std::to_string(p.inputs.size()) +
                " input patterns (needs exactly 2)");
  return with_binding(m.nodes, p.capture, &n, [&] {
    return with_binding(m.values, p.capture, out, [&] {
      static constexpr int kInOrder[] = {0, 1, 2, 3, 4, 5, 6, 7};
      static constexpr int kSwapped[] = {1, 0};
      if (p.inputs.size() > std::size(kInOrder)) throw Error("pattern has more than 8 input patterns");
      if (match_inputs(p, n, kInOrder, 0, m, k)) return true;
      return p.is_commutative && match_inputs(p, n, kSwapped, 0, m, k);
    });
  });
}

bool match_value(const Pattern& p, Value* v, Match& m, const Cont& k) {
  if (v == nullptr) return false;  // an omitted optional input matches nothing
  switch (p.kind) {
    case Pattern::Kind::Any: return with_binding(m.values, p.capture, v, k);
    case Pattern::Kind::Constant: return v->data != nullptr && with_binding(m.values, p.capture, v, k);
    case Pattern::Kind::Op: {
      Node* prod = v->producer();
      if (prod == nullptr || v->producer_output() != p.output_index) return false;
      return match_node(p, *prod, v, m, k);
    }
  }
  return false;
}

}  // namespace

bool match_pattern(const Pattern& p, Node& root, Match& m) {
  if (p.kind != Pattern::Kind::Op) throw Error("match_pattern needs an op pattern at the root");
  m.nodes.clear();
  m.values.clear();
  Value* out = p.output_index >= 0 ? root.output(static_cast<size_t>(p.output_index)) : nullptr;
  return match_node(p, root, out, m, [] { return true; });
}

namespace {
std::set<Node*> captured_nodes(const Match& m) {
  std::set<Node*> s;
  for (auto& [name, n] : m.nodes) s.insert(n);
  return s;
}
}  // namespace

bool interior_is_private(const Match& m, const std::string& root) {
  Node* r = m.node(root);
  std::set<Node*> inside = captured_nodes(m);
  for (Node* n : inside) {
    if (n == r) continue;
    for (Value* o : n->outputs()) {
      if (o == nullptr) continue;
      if (o->is_graph_output()) return false;
      for (const Use& u : o->uses())
        if (!inside.count(u.node)) return false;
    }
  }
  return true;
}

namespace {
// Fusion metadata of a node. A graph without an opset entry for the node's domain (fused "ge"
// ops added by a pass) uses the newest definition; unregistered ops are `never`.
FuseFlag fuse_flag_of(const Node& n, const OpRegistry& reg, const Graph& g) {
  int64_t opset = g.opset(n.domain());
  const OpDef* def = opset > 0 ? reg.find(n.domain(), n.op_type(), opset) : reg.find_any(n.domain(), n.op_type());
  return def ? def->fuse_flag : FuseFlag::Never;
}

// Nodes reachable from `from` following producers (upstream = true) or uses, stopping once
// every node in `targets` has been seen so a local match does not walk the whole graph.
std::set<Node*> reach(Node* from, bool upstream, const std::set<Node*>& targets) {
  std::set<Node*> seen;
  std::deque<Node*> todo{from};
  size_t found = 0;
  while (!todo.empty() && found < targets.size()) {
    Node* n = todo.front();
    todo.pop_front();
    auto visit = [&](Node* x) {
      if (x == nullptr || !seen.insert(x).second) return;
      if (targets.count(x)) ++found;
      todo.push_back(x);
    };
    if (upstream) {
      for (Value* v : n->inputs())
        if (v) visit(v->producer());
    } else {
      for (Value* v : n->outputs())
        if (v)
          for (const Use& u : v->uses()) visit(u.node);
    }
  }
  return seen;
}
}  // namespace

bool fuse_flags_allow(const Match& m, const std::string& root, const OpRegistry& reg, const Graph& g) {
  Node* r = m.node(root);
  std::set<Node*> absorbed = captured_nodes(m);
  absorbed.erase(r);
  if (absorbed.empty()) return true;
  const FuseFlag rf = fuse_flag_of(*r, reg, g);
  if (rf == FuseFlag::Never) return false;
  std::set<Node*> up = reach(r, /*upstream=*/true, absorbed);
  for (Node* n : absorbed) {
    const FuseFlag f = fuse_flag_of(*n, reg, g);
    if (f == FuseFlag::Never) return false;
    if (up.count(n)) {  // a producer absorbed into root
      if (f == FuseFlag::NoFuseOutput || rf == FuseFlag::NoFuseInput) return false;
    } else {  // not upstream of root: a consumer it absorbs
      if (f == FuseFlag::NoFuseInput || rf == FuseFlag::NoFuseOutput) return false;
    }
  }
  return true;
}

}  // namespace ge
