// plugins/memory/buffer_groups.cc — liveness (first definition, last use) and alias groups.
#include "buffer_groups.h"

#include "ge/sdk/error.h"
#include "ge/sdk/memory.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace ge::memory {
namespace {

/// The registry's view contract (OpDef::view): output 0 is input 0's bytes under a new shape.
bool is_view_op(const Node& n, const OpRegistry& ops) {
  const OpDef* def = ops.find(n.domain(), n.op_type(), n.graph()->opset(n.domain()));
  return def && def->view;
}

/// Step of every node and group of every planned value, in vectors indexed by Node::id and
/// Value::id (ir.h): -1 = not in the order / not planned.
class Grouping {
 public:
  Grouping(const Graph& g, const std::vector<Node*>& order)
      : step_(g.node_id_bound(), -1), where_(g.value_id_bound(), {-1, 0}) {
    for (int s = 0; s < static_cast<int>(order.size()); ++s) step_[order[s]->id()] = s;
    for (int s = 0; s < static_cast<int>(order.size()); ++s)
      for (Value* v : order[s]->outputs()) {
        if (!is_planned(v)) continue;
        int last = s;
        for (const Use& u : v->uses()) last = std::max(last, step_[u.node->id()]);
        where_[v->id()] = {static_cast<int>(groups_.size()), 0};
        groups_.push_back({{{v, 0}}, v->nbytes(), s, last});
      }
  }
  bool has(const Value* v) const { return v && where_[v->id()].first >= 0; }
  BufferGroup& group_of(const Value* v) { return groups_[static_cast<size_t>(gid(v))]; }
  int gid(const Value* v) const { return where_[v->id()].first; }
  uint64_t offset_in_group(const Value* v) const { return where_[v->id()].second; }
  int step(const Node* n) const { return step_[n->id()]; }

  /// Moves child's group into parent's at `offset` (child's root lands there).
  void merge(const Value* child, const Value* parent, uint64_t offset) {
    int c = gid(child), p = gid(parent);
    if (c == p) return;
    BufferGroup &gc = groups_[c], &gp = groups_[p];
    for (GroupMember m : gc.members) {
      m.offset += offset;
      where_[m.value->id()] = {p, m.offset};
      gp.members.push_back(m);
    }
    gp.bytes = std::max(gp.bytes, offset + gc.bytes);
    gp.first_step = std::min(gp.first_step, gc.first_step);
    gp.last_step = std::max(gp.last_step, gc.last_step);
    gc = BufferGroup{};
  }
  std::vector<BufferGroup> take() {
    std::vector<BufferGroup> out;
    for (BufferGroup& g : groups_)
      if (!g.members.empty()) out.push_back(std::move(g));
    return out;
  }

 private:
  std::vector<int> step_;
  std::vector<std::pair<int, uint64_t>> where_;  // group, offset in it
  std::vector<BufferGroup> groups_;
};

/// Every node touching the group (its members' producers and readers) is `n` or happens-before
/// it, so n's write cannot race with another stream still reading the bytes.
bool dies_at(const BufferGroup& grp, const Node& n, const StreamOrder* order) {
  if (!order) return true;
  const int at = order->index(&n);
  auto done = [&](const Node* x) { return x == &n || order->before(order->index(x), at); };
  for (const GroupMember& m : grp.members) {
    if (!done(m.value->producer())) return false;
    for (const Use& u : m.value->uses())
      if (!done(u.node)) return false;
  }
  return true;
}

/// In-place: the registry's contract (OpDef::inplace_inputs) says the op's kernels read each
/// element of input i before writing that element of the output; it applies when input i has the
/// output's dtype, shape and layout and nothing reads its bytes after this step (the whole group
/// dies here, no other input of the node shares it). A value given twice to a variadic ai.onnx op
/// (Sum(v, w, v)) stays out: the kernels' later passes read it again after the output was written.
void try_inplace(Grouping& G, Node& n, const OpRegistry& ops, int64_t opset, const StreamOrder* order) {
  const OpDef* def = ops.find(n.domain(), n.op_type(), opset);
  if (!def || def->inplace_inputs.empty()) return;
  Value* out = n.output(0);
  if (n.num_outputs() != 1 || !G.has(out)) return;
  const bool variadic = n.domain().empty() && !def->inputs.empty() && def->inputs.back().variadic;
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    Value* in = n.input(i);
    if (!def->may_run_inplace_on(i)) continue;
    if (!G.has(in) || in->dtype != out->dtype || in->shape != out->shape || in->format != out->format) continue;
    if (variadic && std::count(n.inputs().begin(), n.inputs().end(), in) > 1) continue;
    BufferGroup& gi = G.group_of(in);
    if (gi.last_step != G.step(&n) || G.offset_in_group(in) != 0 || gi.bytes != out->nbytes()) continue;
    if (!dies_at(gi, n, order)) continue;
    bool shared = false;
    for (Value* other : n.inputs())
      shared |= other && other != in && G.has(other) && G.gid(other) == G.gid(in);
    if (shared) continue;
    G.merge(out, in, 0);
    return;
  }
}

/// Row-major bytes: the logical shape is the storage order (not NHWC, not a blocked format).
bool row_major(const Value* v) { return v->format == Format::ND || v->format == Format::NCHW; }

/// Concat's slices along `axis` are contiguous runs of the output's bytes, input i at the sum
/// of the earlier inputs' bytes, when every dim before the axis is 1 and every operand is
/// row-major, or NC1HWC0 concatenated on C without padded channels (whole C1 blocks follow one
/// another; docs/layout.md).
bool concat_slices_contiguous(const Node& n) {
  const Value* out = n.output(0);
  const int64_t r = static_cast<int64_t>(out->shape.rank());
  int64_t axis = n.attrs.get_int("axis", 0);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return false;
  for (int64_t d = 0; d < axis; ++d)
    if (out->shape[d] != 1) return false;
  const bool blocked = out->format == Format::NC1HWC0;
  if (!row_major(out) && !(blocked && axis == 1)) return false;
  for (const Value* in : n.inputs()) {
    if (!in) continue;
    if (in->format != out->format) return false;
    if (blocked && in->nbytes() != static_cast<size_t>(in->shape.numel()) * dtype_size(in->dtype)) return false;
  }
  return true;
}

/// Last step reading v (its definition if nothing does).
int last_use(const Grouping& G, const Value* v) {
  int last = G.step(v->producer());
  for (const Use& u : v->uses()) last = std::max(last, G.step(u.node));
  return last;
}

/// A value that can move into a slice: alone at the start of its own group, written by a node
/// with no other output, not excluded by the pass.
bool movable(Grouping& G, const Value* v, const AliasOptions& opts) {
  if (!G.has(v) || v->producer()->num_outputs() != 1 || opts.concat_excluded.count(v)) return false;
  return G.offset_in_group(v) == 0 && G.group_of(v).bytes == v->nbytes();
}

/// Concat chains in place: Concat(x0, x1, ..., xk) where x0 .. x(p-1) already sit at their
/// slices in one group (an earlier Concat of the same leading inputs placed them) and the rest
/// can move. DenseNet's dense blocks are this chain (Huang et al., "Densely Connected
/// Convolutional Networks", 2017, eq. 2: layer l reads [x0, x1, ..., x(l-1)]): every layer's
/// Concat output becomes a prefix of one buffer and no layer copies. Unlike try_concat, the
/// inputs may be read after the Concat (by the next Concat of the chain): values never change
/// once written, and the output's slice j holds exactly x_j's bytes. The output's bytes must be
/// free of every other member of the group that is read at or after this step; nothing of the
/// group may lie where the moved inputs go. One stream only (several streams would need the
/// happens-before checks of dies_at for every reader of the group).
bool try_concat_chain(Grouping& G, Node& n, const AliasOptions& opts, std::vector<const Value*>* merged) {
  Value* out = n.output(0);
  if (opts.order || n.num_inputs() < 2 || !G.has(out) || G.group_of(out).members.size() != 1) return false;
  std::vector<uint64_t> at;
  uint64_t total = 0;
  std::set<const Value*> seen;
  for (Value* in : n.inputs()) {
    if (!G.has(in) || !seen.insert(in).second) return false;
    at.push_back(total);
    total += in->nbytes();
  }
  if (total != out->nbytes()) return false;
  const Value* x0 = n.input(0);
  const int base_gid = G.gid(x0);
  const uint64_t b = G.offset_in_group(x0);
  if (base_gid == G.gid(out) || b % MemoryProblem{}.alignment != 0) return false;
  // Inputs [0, p) are in place in x0's group; the rest must be movable.
  size_t p = 1;
  while (p < n.num_inputs() && G.gid(n.input(p)) == base_gid && G.offset_in_group(n.input(p)) == b + at[p]) ++p;
  if (p == 1 && !movable(G, x0, opts)) return false;
  for (size_t j = p; j < n.num_inputs(); ++j)
    if (!movable(G, n.input(j), opts) || G.gid(n.input(j)) == base_gid) return false;
  const uint64_t fresh = b + (p < at.size() ? at[p] : total);  // where the moved inputs start
  const int here = G.step(&n);
  for (const GroupMember& m : G.group_of(x0).members) {
    const uint64_t mb = m.offset, me = m.offset + m.value->nbytes();
    if (me <= b || mb >= b + total) continue;
    if (me > fresh) return false;  // would lie under a moved input
    bool input = false;
    for (size_t j = 0; j < p; ++j) input |= m.value == n.input(j);
    if (!input && last_use(G, m.value) >= here) return false;
  }
  G.merge(out, x0, b);
  if (merged && p == 1) merged->push_back(x0);
  for (size_t j = p; j < n.num_inputs(); ++j) {
    G.merge(n.input(j), out, b + at[j]);
    if (merged) merged->push_back(n.input(j));
  }
  return true;
}

/// Concat in place: slices along `axis` are contiguous only when every dim before it is 1; an
/// input qualifies when its producer writes nothing else and the Concat is its only reader.
void try_concat(Grouping& G, Node& n, const AliasOptions& opts, std::vector<const Value*>* merged) {
  Value* out = n.output(0);
  if (!G.has(out) || !concat_slices_contiguous(n)) return;
  if (try_concat_chain(G, n, opts, merged)) return;
  uint64_t slice = 0;
  std::set<const Value*> seen;
  for (Value* in : n.inputs()) {
    const uint64_t at = slice;
    slice += in ? in->nbytes() : 0;
    if (!G.has(in) || !seen.insert(in).second || in->producer()->num_outputs() != 1 || in->uses().size() != 1) continue;
    BufferGroup& gi = G.group_of(in);
    if (G.offset_in_group(in) != 0 || gi.bytes != in->nbytes() || gi.last_step != G.step(&n)) continue;
    if (G.gid(in) == G.gid(out) || opts.concat_excluded.count(in)) continue;
    if (!dies_at(gi, n, opts.order)) continue;
    // Another input sharing these bytes (a view of this one) must stay readable where it is.
    bool shared = false;
    for (Value* other : n.inputs()) shared |= other && other != in && G.has(other) && G.gid(other) == G.gid(in);
    if (shared) continue;
    G.merge(in, out, at);
    if (merged) merged->push_back(in);
  }
}

/// Byte offset of the block of `outer` that `inner` occupies when `inner` is the elements
/// `start[i] .. start[i] + inner[i]` (step 1) of every axis i and those form one contiguous run
/// of `outer`'s row-major bytes: every axis before the innermost partial one has extent 1 in
/// `inner`, every axis after it is whole (ONNX tensors are row-major, onnx/docs/IR.md).
std::optional<uint64_t> contiguous_block(const Shape& outer, const Shape& inner, const std::vector<int64_t>& start,
                                         size_t esize) {
  const size_t r = outer.rank();
  if (inner.rank() != r || start.size() != r) return std::nullopt;
  size_t partial = 0;  // axes [0, partial) may be partial with extent 1; the rest whole
  for (size_t i = r; i-- > 0;)
    if (inner[i] != outer[i] || start[i] != 0) {
      partial = i;
      break;
    }
  for (size_t i = 0; i < partial; ++i)
    if (inner[i] != 1) return std::nullopt;
  const std::vector<int64_t> strides = contiguous_strides(outer);
  uint64_t off = 0;
  for (size_t i = 0; i < r; ++i) {
    if (start[i] < 0 || start[i] + inner[i] > outer[i]) return std::nullopt;
    off += static_cast<uint64_t>(start[i] * strides[i]);
  }
  return off * esize;
}

/// Constant int64s of input i (opset >= 10 Slice, >= 11 Pad) or attribute `attr` (older).
std::optional<std::vector<int64_t>> const_ints(const Node& n, size_t i, const char* attr, bool from_input) {
  if (!from_input) {
    if (!n.attrs.has(attr)) return std::nullopt;
    return n.attrs.get_ints(attr);
  }
  const Value* v = i < n.num_inputs() ? n.input(i) : nullptr;
  if (!v || !v->data) return std::nullopt;
  return v->data->to_int64_vector();
}

/// Where Slice's output lies in its input (Operators.md Slice-13: negative starts and ends add
/// the extent, then clamp to [0, dim]), when every parameter is constant, every step over an axis
/// it selects more than one element of is 1 and the selection is one contiguous run.
std::optional<uint64_t> slice_offset(const Node& n) {
  const Value *x = n.input(0), *y = n.output(0);
  const bool inputs = n.graph()->opset("") >= 10;
  auto starts = const_ints(n, 1, "starts", inputs), ends = const_ints(n, 2, "ends", inputs);
  if (!starts || !ends || starts->size() != ends->size()) return std::nullopt;
  std::vector<int64_t> axes, steps;
  if (inputs ? n.num_inputs() > 3 && n.input(3) : n.attrs.has("axes")) {
    auto a = const_ints(n, 3, "axes", inputs);
    if (!a) return std::nullopt;
    axes = *a;
  }
  if (inputs && n.num_inputs() > 4 && n.input(4)) {
    auto s = const_ints(n, 4, "", true);
    if (!s) return std::nullopt;
    steps = *s;
  }
  const auto r = static_cast<int64_t>(x->shape.rank());
  if ((!axes.empty() && axes.size() != starts->size()) || (!steps.empty() && steps.size() != starts->size()))
    return std::nullopt;
  std::vector<int64_t> start(static_cast<size_t>(r), 0);
  std::vector<bool> seen(static_cast<size_t>(r), false);
  for (size_t i = 0; i < starts->size(); ++i) {
    int64_t a = axes.empty() ? static_cast<int64_t>(i) : axes[i];
    if (a < 0) a += r;
    if (a < 0 || a >= r || seen[static_cast<size_t>(a)]) return std::nullopt;
    seen[static_cast<size_t>(a)] = true;
    const int64_t dim = x->shape[static_cast<size_t>(a)], step = steps.empty() ? 1 : steps[i];
    int64_t s = (*starts)[i], e = (*ends)[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    const int64_t count = e > s ? e - s : 0;
    if (count != y->shape[static_cast<size_t>(a)] || (step != 1 && count > 1)) return std::nullopt;
    start[static_cast<size_t>(a)] = s;
  }
  return contiguous_block(x->shape, y->shape, start, dtype_size(x->dtype));
}

/// Split and Slice as views: a part that is one contiguous run of the input's bytes is placed
/// there (the kernel's copy of a range onto itself is skipped). The input's group then lives as
/// long as the part does.
void try_part_views(Grouping& G, Node& n) {
  Value* x = n.input(0);
  if (!G.has(x) || !row_major(x)) return;
  auto place = [&](Value* part, uint64_t off) {
    if (G.has(part) && row_major(part) && part->dtype == x->dtype && G.gid(part) != G.gid(x) &&
        off + part->nbytes() <= x->nbytes())
      G.merge(part, x, G.offset_in_group(x) + off);
  };
  if (n.op_type() == "Split") {
    const auto r = static_cast<int64_t>(x->shape.rank());
    int64_t axis = n.attrs.get_int("axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return;
    for (int64_t d = 0; d < axis; ++d)
      if (x->shape[static_cast<size_t>(d)] != 1) return;
    uint64_t off = 0, total = 0;
    for (Value* part : n.outputs()) {
      if (!part) return;  // an omitted output: the kernel refuses the node
      total += part->nbytes();
    }
    if (total != x->nbytes()) return;
    for (Value* part : n.outputs()) {
      place(part, off);
      off += part->nbytes();
    }
  } else if (n.num_outputs() == 1 && n.output(0)) {  // Slice
    if (auto off = slice_offset(n)) place(n.output(0), *off);
  }
}

/// Pad in place: the input written straight into the output's interior, when the interior is
/// one contiguous run of the output's bytes (pads only on axes before the innermost padded one
/// whose input extent is 1; none negative) and the input qualifies as a Concat input does.
void try_pad(Grouping& G, Node& n, const AliasOptions& opts, std::vector<const Value*>* merged) {
  Value *x = n.input(0), *y = n.output(0);
  if (!G.has(x) || !G.has(y) || !row_major(x) || !row_major(y) || x->dtype != y->dtype) return;
  const int64_t opset = n.graph()->opset("");
  auto pads = const_ints(n, 1, opset < 2 ? "paddings" : "pads", opset >= 11);
  const size_t r = x->shape.rank();
  if (!pads || pads->size() != 2 * r || (n.num_inputs() > 3 && n.input(3))) return;
  std::vector<int64_t> start(r);
  for (size_t i = 0; i < r; ++i) {
    if ((*pads)[i] < 0 || (*pads)[i + r] < 0) return;
    start[i] = (*pads)[i];
  }
  const auto off = contiguous_block(y->shape, x->shape, start, dtype_size(x->dtype));
  if (!off || x->producer()->num_outputs() != 1 || x->uses().size() != 1 || opts.concat_excluded.count(x)) return;
  BufferGroup& gx = G.group_of(x);
  if (G.offset_in_group(x) != 0 || gx.bytes != x->nbytes() || gx.last_step != G.step(&n) || G.gid(x) == G.gid(y))
    return;
  if (!dies_at(gx, n, opts.order)) return;
  G.merge(x, y, *off);
  if (merged) merged->push_back(x);
}
}  // namespace

bool is_planned(const Value* v) {
  return v && v->producer() && !v->is_graph_output() && !v->is_graph_input() && v->nbytes() > 0;
}

std::vector<BufferGroup> build_groups(const Graph& g, const std::vector<Node*>& order, const OpRegistry& ops,
                                      const AliasOptions& opts, std::vector<const Value*>* concat_inputs) {
  Grouping G(g, order);
  for (Node* n : order) {
    if (opts.views && is_view_op(*n, ops) && G.has(n->input(0)) && G.has(n->output(0)) &&
        n->input(0)->nbytes() == n->output(0)->nbytes())
      G.merge(n->output(0), n->input(0), G.offset_in_group(n->input(0)));
    else if (opts.views && n->domain().empty() && (n->op_type() == "Split" || n->op_type() == "Slice") &&
             n->num_inputs() > 0)
      try_part_views(G, *n);
    else if (opts.concat && n->domain().empty() && n->op_type() == "Concat")
      try_concat(G, *n, opts, concat_inputs);
    else if (opts.concat && n->domain().empty() && n->op_type() == "Pad" && n->num_inputs() > 0 && n->num_outputs() == 1)
      try_pad(G, *n, opts, concat_inputs);
    else if (opts.inplace && n->num_inputs() > 0)
      try_inplace(G, *n, ops, g.opset(n->domain()), opts.order);
  }
  return G.take();
}

std::vector<std::vector<int>> group_conflicts(const std::vector<BufferGroup>& groups, const StreamOrder& order) {
  const int S = order.num_streams();
  const size_t G = groups.size();
  // Per group: the last position touched on each stream (-1: none) and the writers' indices.
  std::vector<int> last_touch(G * S, -1);
  std::vector<std::vector<int>> writers(G);
  for (size_t g = 0; g < G; ++g) {
    auto touch = [&](const Node* x) {
      int i = order.index(x);
      int& t = last_touch[g * S + order.stream(i)];
      t = std::max(t, order.position(i));
    };
    for (const GroupMember& m : groups[g].members) {
      touch(m.value->producer());
      writers[g].push_back(order.index(m.value->producer()));
      for (const Use& u : m.value->uses()) touch(u.node);
    }
  }
  // a before b: every writer of b has, on every stream, a clock at or past a's last touch.
  auto before = [&](size_t a, size_t b) {
    for (int w : writers[b]) {
      const int* c = order.clock(w);
      for (int s = 0; s < S; ++s)
        if (c[s] < last_touch[a * S + s]) return false;
    }
    return true;
  };
  std::vector<std::vector<int>> out(G);
  for (size_t a = 0; a < G; ++a)
    for (size_t b = a + 1; b < G; ++b)
      if (!before(a, b) && !before(b, a)) {
        out[a].push_back(static_cast<int>(b));
        out[b].push_back(static_cast<int>(a));
      }
  for (auto& c : out) std::sort(c.begin(), c.end());
  return out;
}

uint64_t live_bytes_lower_bound(const Graph& g, const std::vector<BufferGroup>& groups, const std::vector<Node*>& order,
                                uint64_t alignment) {
  std::vector<int> step(g.node_id_bound(), -1);  // by Node::id; -1 = not in the order
  for (int s = 0; s < static_cast<int>(order.size()); ++s) step[order[s]->id()] = s;
  auto step_of = [&](const Node* n) {
    if (step[n->id()] < 0) throw Error(n->describe() + " produces a planned value but is not in the node order");
    return step[n->id()];
  };
  std::vector<uint64_t> live(order.size() + 1, 0);
  // A group of one member adds its aligned bytes over its whole life: a difference array
  // (+ at the first step, − after the last), summed once at the end.
  std::vector<int64_t> delta(order.size() + 2, 0);
  for (const BufferGroup& grp : groups) {
    if (grp.members.size() == 1) {
      const Value* v = grp.members[0].value;
      int def = step_of(v->producer()), last = def;
      for (const Use& u : v->uses()) last = std::max(last, step[u.node->id()]);
      const auto bytes = static_cast<int64_t>((v->nbytes() + alignment - 1) / alignment * alignment);
      delta[static_cast<size_t>(def)] += bytes;
      delta[static_cast<size_t>(last) + 1] -= bytes;
      continue;
    }
    // Per step, the union of the live members' byte ranges (views and in-place pairs coincide,
    // Concat slices are disjoint until the output is defined).
    std::map<int, std::vector<std::pair<uint64_t, uint64_t>>> ranges;
    for (const GroupMember& m : grp.members) {
      int def = step_of(m.value->producer()), last = def;
      for (const Use& u : m.value->uses()) last = std::max(last, step[u.node->id()]);
      for (int s = def; s <= last; ++s) ranges[s].push_back({m.offset, m.offset + m.value->nbytes()});
    }
    for (auto& [s, rs] : ranges) {
      std::sort(rs.begin(), rs.end());
      uint64_t covered = 0, end = 0;
      for (auto [b, e] : rs) {
        if (e <= end) continue;
        covered += e - std::max(b, end);
        end = e;
      }
      live[s] += (covered + alignment - 1) / alignment * alignment;
    }
  }
  int64_t running = 0;
  for (size_t s = 0; s < live.size(); ++s) {
    running += delta[s];
    live[s] += static_cast<uint64_t>(running);
  }
  return live.empty() ? 0 : *std::max_element(live.begin(), live.end());
}

}  // namespace ge::memory
