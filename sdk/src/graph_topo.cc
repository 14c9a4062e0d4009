// Topological order through Boost.Graph (DESIGN.md: graph algorithms come from Boost.Graph).
//
// Passes ask for it often, so the graph is built without a heap allocation per node: a
// compressed sparse row graph (one edge array) whose vertices are the nodes' list positions,
// found through an array indexed by Node::id.
#include <algorithm>
// GCC 12 reports -Warray-bounds inside Boost's CSR construction at -O3 (a false positive of
// its value-range analysis on the inlined std::vector fills; the code indexes within bounds).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/topological_sort.hpp>
#pragma GCC diagnostic pop
#include <unordered_map>
#include <utility>

#include "ge/sdk/error.h"
#include "ge/sdk/ir.h"

namespace ge {

bool Graph::is_topological(const std::vector<Node*>& order) const {
  std::vector<char> done(node_id_bound(), 0);  // by Node::id
  for (const Node* n : order) {
    if (n->graph() != this || n->id() >= done.size()) return false;
    for (const Value* v : n->inputs())
      if (v && v->producer() && (v->producer()->graph() != this || !done[v->producer()->id()])) return false;
    done[n->id()] = 1;
  }
  return true;
}

std::vector<Node*> Graph::topological_order() const {
  using BG = boost::compressed_sparse_row_graph<boost::directedS>;
  std::vector<Node*> list = nodes();
  std::vector<uint32_t> position(node_id_bound());  // list position by Node::id
  for (size_t i = 0; i < list.size(); ++i) position[list[i]->id()] = static_cast<uint32_t>(i);
  auto index_of = [&](const Node* n) -> size_t {
    if (n->graph() != this)
      throw InvalidGraphError("graph '" + name + "': an input is produced by a node outside the graph");
    return position[n->id()];
  };
  // One vertex per node (index = list position), one edge per producer → consumer link. The
  // edges of a producer keep the order in which the loop below meets them (consumers from the
  // last node back, each one's inputs in order): depth-first search follows out-edges in that
  // order, and with it the tie-breaking the order has always had (ties keep insertion order).
  std::vector<std::pair<size_t, size_t>> edges;
  edges.reserve(list.size() * 2);
  for (size_t i = list.size(); i-- > 0;)
    for (Value* v : list[i]->inputs())
      if (v && v->producer()) edges.emplace_back(index_of(v->producer()), i);
  // Grouped by producer, keeping the order above within a group: a counting sort (linear).
  std::vector<size_t> start(list.size() + 1, 0);
  for (auto& e : edges) ++start[e.first + 1];
  for (size_t i = 0; i < list.size(); ++i) start[i + 1] += start[i];
  std::vector<std::pair<size_t, size_t>> sorted(edges.size());
  for (auto& e : edges) sorted[start[e.first]++] = e;
  BG bg(boost::edges_are_sorted, sorted.begin(), sorted.end(), list.size());
  std::vector<size_t> rev;
  rev.reserve(list.size());
  try {
    boost::topological_sort(bg, std::back_inserter(rev));
  } catch (const boost::not_a_dag&) {
    // Find one node on a cycle for the message: a node reachable from itself.
    for (Node* n : list) {
      std::vector<Node*> stack{n};
      std::unordered_map<Node*, bool> seen;
      while (!stack.empty()) {
        Node* cur = stack.back();
        stack.pop_back();
        for (Value* o : cur->outputs()) {
          if (!o) continue;
          for (const Use& u : o->uses()) {
            if (u.node == n) throw InvalidGraphError("graph '" + name + "' has a cycle through " + n->describe());
            if (!seen[u.node]) { seen[u.node] = true; stack.push_back(u.node); }
          }
        }
      }
    }
    throw InvalidGraphError("graph '" + name + "' has a cycle");
  }
  std::vector<Node*> out;
  out.reserve(rev.size());
  for (auto it = rev.rbegin(); it != rev.rend(); ++it) out.push_back(list[*it]);
  return out;
}

}  // namespace ge
