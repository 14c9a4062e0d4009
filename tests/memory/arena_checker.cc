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
  std::vector<int> touches;  // steps of the producer and every reader
};

/// Happens-before as the runtime enforces it: stream order (each stream's nodes in graph
/// order) and events, nothing else (data edges are not edges here). reach[a][b]: a finishes
/// before b starts. Computed by a plain depth-first search per node over those edges, unlike
/// the vector clocks the planner uses; events naming unknown nodes are reported, not followed.
struct HappensBefore {
  std::vector<std::vector<bool>> reach;
  std::string problems;
  explicit HappensBefore(const Graph& g) {
    std::vector<Node*> order = g.nodes();
    const size_t N = order.size();
    std::unordered_map<std::string, int> by_name;
    for (size_t i = 0; i < N; ++i) by_name[order[i]->name()] = static_cast<int>(i);
    std::vector<std::vector<int>> succ(N);
    std::map<int, int> last_on_stream;
    for (size_t i = 0; i < N; ++i) {
      auto it = last_on_stream.find(order[i]->stream);
      if (it != last_on_stream.end()) succ[it->second].push_back(static_cast<int>(i));
      last_on_stream[order[i]->stream] = static_cast<int>(i);
    }
    for (const StreamEvent& e : g.schedule.events) {
      auto r = by_name.find(e.record_after), w = by_name.find(e.wait_before);
      if (r == by_name.end() || w == by_name.end()) {
        problems += "event '" + e.record_after + "' -> '" + e.wait_before + "' names an unknown node\n";
        continue;
      }
      succ[r->second].push_back(w->second);
    }
    reach.assign(N, std::vector<bool>(N, false));
    for (size_t a = 0; a < N; ++a) {
      std::vector<int> stack(succ[a].begin(), succ[a].end());
      while (!stack.empty()) {
        int x = stack.back();
        stack.pop_back();
        if (reach[a][x]) continue;
        reach[a][x] = true;
        stack.insert(stack.end(), succ[x].begin(), succ[x].end());
      }
    }
  }
  /// Every access of `a` finishes before `b` is first written.
  bool all_before(const std::vector<int>& touches, int def) const {
    for (int t : touches)
      if (!reach[t][def]) return false;
    return true;
  }
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
    std::vector<int> touches = {def};
    for (const Use& u : v->uses()) last = std::max(last, step.at(u.node)), touches.push_back(step.at(u.node));
    uint64_t b = static_cast<uint64_t>(v->arena_offset);
    out.push_back({v, def, last, b, b + v->nbytes(), std::move(touches)});
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

/// Constant int64s: input `i` at opset >= `from_opset`, else attribute `attr`; empty if unknown.
std::vector<int64_t> ints_of(const Node& n, size_t i, const char* attr, int64_t from_opset) {
  if (n.graph()->opset("") < from_opset) return n.attrs.get_ints(attr);
  const Value* v = i < n.num_inputs() ? n.input(i) : nullptr;
  return v && v->data ? v->data->to_int64_vector() : std::vector<int64_t>{};
}

/// Row-major element strides of `s` (ONNX tensors are row-major).
std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.rank(), 1);
  for (size_t i = s.rank(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

/// True when the elements start[i] .. start[i] + inner[i] of every axis of `outer` are one
/// contiguous run: each axis before the innermost partial one has extent 1 in `inner`.
bool contiguous(const Shape& outer, const Shape& inner, const std::vector<int64_t>& start) {
  size_t k = 0;
  for (size_t i = 0; i < outer.rank(); ++i)
    if (inner[i] != outer[i] || start[i] != 0) k = i;
  for (size_t i = 0; i < k; ++i)
    if (inner[i] != 1) return false;
  return true;
}

/// Byte offset of output `slot` of a Split or Slice inside its input when that part is one
/// contiguous run of the input (Split: dims before the axis all 1; Slice: constant parameters,
/// steps 1, Operators.md's clamping of starts), else -1.
int64_t part_offset(const Node& n, size_t slot) {
  const Value *x = n.input(0), *y = n.output(slot);
  const size_t r = x->shape.rank();
  if (n.op_type() == "Split") {
    int64_t axis = n.attrs.get_int("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(r);
    for (int64_t d = 0; d < axis; ++d)
      if (x->shape[d] != 1) return -1;
    int64_t off = 0;
    for (size_t i = 0; i < slot; ++i) off += static_cast<int64_t>(n.output(i)->nbytes());
    return off;
  }
  const std::vector<int64_t> starts = ints_of(n, 1, "starts", 10), axes = ints_of(n, 3, "axes", 10),
                             steps = n.graph()->opset("") >= 10 ? ints_of(n, 4, "", 10) : std::vector<int64_t>{};
  std::vector<int64_t> start(r, 0);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes.empty() ? static_cast<int64_t>(i) : axes[i];
    if (a < 0) a += static_cast<int64_t>(r);
    const int64_t dim = x->shape[a];
    if (!steps.empty() && steps[i] != 1 && y->shape[a] > 1) return -1;
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    start[a] = std::clamp<int64_t>(s, 0, dim);
  }
  if (starts.empty() || !contiguous(x->shape, y->shape, start)) return -1;
  const std::vector<int64_t> st = strides_of(x->shape);
  int64_t off = 0;
  for (size_t i = 0; i < r; ++i) off += start[i] * st[i];
  return off * static_cast<int64_t>(dtype_size(x->dtype));
}

/// Byte offset of a Pad's input inside its output when the padded interior is one contiguous
/// run of the output (constant pads, none negative), else -1.
int64_t pad_offset(const Node& n) {
  const Value *x = n.input(0), *y = n.output(0);
  const int64_t opset = n.graph()->opset("");
  const std::vector<int64_t> pads = ints_of(n, 1, opset < 2 ? "paddings" : "pads", 11);
  const size_t r = x->shape.rank();
  if (pads.size() != 2 * r) return -1;
  std::vector<int64_t> start(pads.begin(), pads.begin() + static_cast<int64_t>(r));
  for (int64_t p : pads)
    if (p < 0) return -1;
  if (!contiguous(y->shape, x->shape, start)) return -1;
  const std::vector<int64_t> st = strides_of(y->shape);
  int64_t off = 0;
  for (size_t i = 0; i < r; ++i) off += start[i] * st[i];
  return off * static_cast<int64_t>(dtype_size(x->dtype));
}

bool is_part_op(const Node& n) { return n.domain().empty() && (n.op_type() == "Split" || n.op_type() == "Slice"); }
bool is_pad(const Node& n) { return n.domain().empty() && n.op_type() == "Pad" && n.num_inputs() > 0; }

/// `a` dies at the node that defines `b` (every other access of a happens-before it), and that
/// node may legally write b over a's bytes.
bool legal_handover(const Life& a, const Life& b, const Graph& g, const OpRegistry& ops, const HappensBefore& hb) {
  if (a.last != b.def) return false;
  for (int t : a.touches)
    if (t != b.def && !hb.reach[t][b.def]) return false;
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
    // An op whose registry contract lets output 0 run in place on input i (OpDef::inplace_inputs:
    // every kernel reads element k of it before writing element k), e.g. ge.FusedConv's Z.
    if (def && def->may_run_inplace_on(i) && b.v == n.output(0) && a.begin == b.begin && a.v->shape == b.v->shape &&
        a.v->dtype == b.v->dtype && a.v->format == b.v->format)
      return true;
    if (is_view(n) && i == 0 && b.v == n.output(0) && a.begin == b.begin) return true;
    if (is_pad(n) && i == 0) {
      int64_t at = pad_offset(n);
      if (at >= 0 && a.begin == b.begin + static_cast<uint64_t>(at)) return true;
    }
  }
  return false;
}

/// The value whose bytes `v` is: up through views at their input's offset and Split/Slice parts
/// at their place in the input. Values of one root only ever hold that root's data.
const Value* root_of(const Value* v) {
  for (;;) {
    const Node* p = v->producer();
    if (!p || p->num_inputs() == 0 || !p->input(0) || p->input(0)->arena_offset < 0) return v;
    const Value* x = p->input(0);
    if (is_view(*p) && p->output(0) == v && x->arena_offset == v->arena_offset) {
      v = x;
      continue;
    }
    if (is_part_op(*p)) {
      size_t slot = 0;
      while (slot < p->num_outputs() && p->output(slot) != v) ++slot;
      const int64_t at = part_offset(*p, slot);
      if (at >= 0 && v->arena_offset == x->arena_offset + at) {
        v = x;
        continue;
      }
    }
    return v;
  }
}

bool same_data(const Value* a, const Value* b) { return root_of(a) == root_of(b); }

/// `outer` is (a view or part of) a Concat's output and `a` holds the data of one of its inputs,
/// placed in that input's slice, or of an input of that input (nested Concats): the bytes are
/// the same whatever their lifetimes (values never change once written), as in a chain of
/// Concats sharing their leading inputs (DenseNet).
bool in_concat_slice(const Value* a, const Value* outer) {
  const Value* out = root_of(outer);
  const Node& n = *out->producer();
  if (!n.domain().empty() || n.op_type() != "Concat" || out->arena_offset < 0) return false;
  const auto begin = static_cast<uint64_t>(a->arena_offset), end = begin + a->nbytes();
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    const Value* in = n.input(i);
    const int64_t at = concat_slice(n, i);
    if (at < 0 || !in || in->arena_offset != out->arena_offset + at || in->arena_offset < 0) continue;
    const auto slot = static_cast<uint64_t>(in->arena_offset);
    if (begin >= slot && end <= slot + in->nbytes() && (same_data(a, in) || in_concat_slice(a, in))) return true;
  }
  return false;
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
  // So are Split/Slice parts inside their input and a Pad input in its output's interior.
  for (const Value* v : g.values())
    if (v->arena_offset >= 0 && root_of(v) != v) slice_offsets.insert(static_cast<uint64_t>(v->arena_offset));
  for (const Node* n : g.nodes())
    if (is_pad(*n) && n->output(0)->arena_offset >= 0 && n->input(0)->arena_offset >= 0)
      if (int64_t at = pad_offset(*n); at >= 0 && n->input(0)->arena_offset == n->output(0)->arena_offset + at)
        slice_offsets.insert(static_cast<uint64_t>(n->input(0)->arena_offset));
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
  // Two values sharing bytes must be ordered: every access of one happens-before the other's
  // producer under the schedule (for one stream: graph order, i.e. disjoint step intervals).
  HappensBefore hb(g);
  err << hb.problems;
  for (size_t i = 0; i < L.size(); ++i)
    for (size_t j = i + 1; j < L.size(); ++j) {
      const Life &a = L[i], &b = L[j];
      if (a.begin >= b.end || b.begin >= a.end) continue;
      if (hb.all_before(a.touches, b.def) || hb.all_before(b.touches, a.def)) continue;
      if (same_data(a.v, b.v) || legal_handover(a, b, g, ops, hb) || legal_handover(b, a, g, ops, hb)) continue;
      if (g.schedule.streams <= 1 && (in_concat_slice(a.v, b.v) || in_concat_slice(b.v, a.v))) continue;
      err << "'" << a.v->name() << "' [" << a.begin << ", " << a.end << ") steps " << a.def << ".." << a.last
          << " overlaps '" << b.v->name() << "' [" << b.begin << ", " << b.end << ") steps " << b.def << ".." << b.last;
      if (g.schedule.streams > 1)
        err << " (written on streams " << a.v->producer()->stream << " and " << b.v->producer()->stream
            << "; stream order and events do not separate their accesses)";
      err << "\n";
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
