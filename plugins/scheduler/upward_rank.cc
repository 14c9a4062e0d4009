// HEFT upward rank (upward_rank.h) over a Boost.Graph view of the node DAG.
#include "upward_rank.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>

namespace ge::sched {

std::vector<Node*> producers(const Node* n) {
  std::vector<Node*> out;
  for (const Value* v : n->inputs())
    if (v && v->producer() && std::find(out.begin(), out.end(), v->producer()) == out.end()) out.push_back(v->producer());
  return out;
}

std::vector<Node*> consumers(const Node* n) {
  std::vector<Node*> out;
  for (const Value* v : n->outputs())
    if (v)
      for (const Use& u : v->uses())
        if (std::find(out.begin(), out.end(), u.node) == out.end()) out.push_back(u.node);
  return out;
}

std::unordered_map<const Node*, double> upward_rank(const std::vector<Node*>& nodes,
                                                    const std::unordered_map<const Node*, double>& w, double c) {
  using BG = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  std::unordered_map<const Node*, size_t> idx;
  for (size_t i = 0; i < nodes.size(); ++i) idx[nodes[i]] = i;
  BG bg(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    for (Node* s : consumers(nodes[i]))
      if (idx.count(s)) boost::add_edge(i, idx.at(s), bg);
  // topological_sort emits vertices in reverse topological order: every consumer before its
  // producers, exactly the order the recurrence needs.
  std::vector<size_t> rev;
  rev.reserve(nodes.size());
  boost::topological_sort(bg, std::back_inserter(rev));
  std::vector<double> rank(nodes.size(), 0);
  for (size_t v : rev) {
    double best = 0;
    for (auto [e, end] = boost::out_edges(v, bg); e != end; ++e) best = std::max(best, c + rank[boost::target(*e, bg)]);
    rank[v] = w.at(nodes[v]) + best;
  }
  std::unordered_map<const Node*, double> out;
  for (size_t i = 0; i < nodes.size(); ++i) out[nodes[i]] = rank[i];
  return out;
}

}  // namespace ge::sched
