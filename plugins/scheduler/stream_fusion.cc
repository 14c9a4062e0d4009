// Stream fusion (stream_fusion.h).
#include "stream_fusion.h"

#include <map>

#include "upward_rank.h"

namespace ge::sched {

int compact_streams(Graph& g) {
  std::map<int, int> id;
  for (Node* n : g.nodes()) {
    auto it = id.find(n->stream);
    if (it == id.end()) it = id.emplace(n->stream, static_cast<int>(id.size())).first;
    n->stream = it->second;
  }
  return std::max<int>(1, static_cast<int>(id.size()));
}

int fuse_small_streams(Graph& g, const std::unordered_map<const Node*, double>& w_us, double threshold) {
  for (;;) {
    std::map<int, double> busy;
    for (Node* n : g.nodes()) busy[n->stream] += w_us.at(n);
    if (busy.size() <= 1) break;
    double top = 0;
    for (auto& [s, b] : busy) top = std::max(top, b);
    // The idlest stream under the threshold, if any.
    int victim = -1;
    for (auto& [s, b] : busy)
      if (b < threshold * top && (victim < 0 || b < busy[victim])) victim = s;
    if (victim < 0) break;
    std::map<int, int> edges;  // other stream → data edges with the victim
    for (Node* n : g.nodes()) {
      if (n->stream != victim) continue;
      for (Node* p : producers(n))
        if (p->stream != victim) ++edges[p->stream];
      for (Node* c : consumers(n))
        if (c->stream != victim) ++edges[c->stream];
    }
    int into = -1;
    for (auto& [s, b] : busy) {
      if (s == victim) continue;
      if (into < 0 || edges[s] > edges[into] || (edges[s] == edges[into] && b > busy[into])) into = s;
    }
    for (Node* n : g.nodes())
      if (n->stream == victim) n->stream = into;
  }
  return compact_streams(g);
}

}  // namespace ge::sched
