// Topological order through Boost.Graph (DESIGN.md: graph algorithms come from Boost.Graph).
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <unordered_map>

#include "ge/sdk/error.h"
#include "ge/sdk/ir.h"

namespace ge {

std::vector<Node*> Graph::topological_order() const {
  using BG = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  std::vector<Node*> list = nodes();
  std::unordered_map<const Node*, size_t> idx;
  idx.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) idx[list[i]] = i;
  BG bg(list.size());
  // One vertex per node (index = insertion position), one edge per producer → consumer link.
  for (size_t i = list.size(); i-- > 0;) {
    for (Value* v : list[i]->inputs()) {
      if (v && v->producer()) boost::add_edge(idx.at(v->producer()), i, bg);
    }
  }
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
