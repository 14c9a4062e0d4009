// tests/difftest/graph_gen.cc — the graph generator's driver: graph inputs, the pool, one
// candidate node at a time validated on a scratch graph, graph outputs (graph_gen.h).
#include "graph_gen.h"

#include <algorithm>
#include <cmath>

#include "gen_builder.h"
#include "ge/core/importer.h"
#include "ge/sdk/error.h"
#include "ge/sdk/verifier.h"

namespace ge::difftest {

Builder::Builder(const core::Environment& env, const std::set<std::string>& ops, int64_t max_elems, uint64_t seed)
    : rng(seed), g(std::make_unique<Graph>("difftest_" + std::to_string(seed))), max_elements(max_elems), env_(env), ops_(ops) {}

std::string Builder::fresh(const std::string& hint) { return g->unique_value_name(hint + "_" + std::to_string(counter_++)); }

std::vector<Value*> Builder::emit(const std::string& op, const std::vector<Operand>& operands, Attributes attrs, int outputs,
                                  const std::vector<bool>& omit_outputs) {
  // The candidate on a scratch graph first: operands become inputs (constants keep their data,
  // which Reshape/Slice/… shape inference reads), so a refused node leaves `g` as it was.
  Graph s("scratch");
  s.opsets = g->opsets;
  std::vector<Value*> sin;
  bool any_data_input = false;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Operand& o = operands[i];
    const std::string n = "in" + std::to_string(i);
    if (o.existing) {
      if (o.existing->data && !o.existing->producer()) sin.push_back(s.add_constant(n, *o.existing->data));
      else {
        sin.push_back(s.add_input(n, o.existing->dtype, o.existing->shape));
        any_data_input = true;
      }
    } else if (o.constant) {
      sin.push_back(s.add_constant(n, *o.constant));
    } else if (o.new_input) {
      sin.push_back(s.add_input(n, o.new_input->first, o.new_input->second));
      any_data_input = true;
    } else {
      sin.push_back(nullptr);
    }
  }
  // A node of constants only would be folded at import: it tests nothing a run would.
  if (!any_data_input) return {};
  std::vector<Value*> sout;
  for (int i = 0; i < outputs; ++i) {
    const bool omit = i < static_cast<int>(omit_outputs.size()) && omit_outputs[static_cast<size_t>(i)];
    sout.push_back(omit ? nullptr : s.add_value("out" + std::to_string(i)));
  }
  s.add_node(op, "candidate", sin, sout, attrs);
  try {
    core::ImportOptions io;
    io.backend = "";  // no function expansion: every op the generator emits has a cpu kernel
    core::propagate_shapes(s, env_, io);
  } catch (const Error&) {
    return {};
  }
  for (Value* o : sout)
    if (o && (o->numel() > max_elements || o->numel() == 0)) return {};

  std::vector<Value*> in;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Operand& o = operands[i];
    if (o.existing) in.push_back(o.existing);
    else if (o.constant) in.push_back(g->add_constant(fresh("w"), *o.constant));
    else if (o.new_input) in.push_back(g->add_input(fresh("x"), o.new_input->first, o.new_input->second));
    else in.push_back(nullptr);
  }
  std::vector<Value*> out;
  for (Value* so : sout) out.push_back(so ? g->add_value(fresh("t"), so->dtype, so->shape) : nullptr);
  g->add_node(op, "", in, out, std::move(attrs));
  return out;
}

Slot Builder::slot_of(const Value* v) const {
  for (const std::vector<Slot>* p : {&floats, &ints, &bools})
    for (const Slot& s : *p)
      if (s.v == v) return s;
  return {const_cast<Value*>(v), v->is_constant() || v->is_graph_input(), 1};
}

void Builder::push(Value* v, bool exact, double mag) {
  if (!v) return;
  Slot s{v, exact, std::isfinite(mag) ? mag : 1e6};
  if (v->dtype == DataType::Float32) floats.push_back(s);
  else if (v->dtype == DataType::Bool) bools.push_back(s);
  else if (v->dtype == DataType::Int32 || v->dtype == DataType::Int64) ints.push_back(s);
}

const Slot* Builder::pick_from(std::vector<Slot>& pool, const std::function<bool(const Slot&)>& pred) {
  std::vector<size_t> ok;
  for (size_t i = 0; i < pool.size(); ++i)
    if (!pred || pred(pool[i])) ok.push_back(i);
  if (ok.empty()) return nullptr;
  // Half the time one of the three newest (depth), else any (breadth, reuse).
  if (rng.coin(0.5)) {
    const size_t k = std::min<size_t>(3, ok.size());
    return &pool[ok[ok.size() - 1 - static_cast<size_t>(rng.uni(0, static_cast<int64_t>(k) - 1))]];
  }
  return &pool[rng.pick(ok)];
}

const Slot* Builder::pick_float(const std::function<bool(const Slot&)>& pred) { return pick_from(floats, pred); }

Tensor Builder::uniform(Shape s, double lo, double hi) {
  Tensor t = Tensor::allocate(DataType::Float32, std::move(s));
  for (float& x : t.span<float>()) x = static_cast<float>(lo + (hi - lo) * rng.unit());
  return t;
}

Tensor Builder::scalar_f(float v, bool rank0) {
  Tensor t = Tensor::allocate(DataType::Float32, rank0 ? Shape{} : Shape{1});
  t.span<float>()[0] = v;
  return t;
}

Tensor Builder::ints64(const std::vector<int64_t>& v) {
  Tensor t = Tensor::allocate(DataType::Int64, Shape{static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.span<int64_t>().begin());
  return t;
}

Shape Builder::broadcast_partner(const Shape& s) {
  const size_t keep = static_cast<size_t>(rng.uni(0, static_cast<int64_t>(s.rank())));
  std::vector<int64_t> d(s.dims().end() - static_cast<std::ptrdiff_t>(keep), s.dims().end());
  for (int64_t& x : d)
    if (rng.coin(0.4)) x = 1;
  // Now and then a leading 1 beyond the rank (the output gains a dim).
  if (rng.coin(0.1) && d.size() < 5) d.insert(d.begin(), 1);
  return Shape(d);
}

Value* Builder::positive(Value* x, float c) {
  auto a = emit("Abs", {Operand::of(x)});
  if (a.empty()) return nullptr;
  auto p = emit("Add", {Operand::of(a[0]), Operand::konst(scalar_f(c))});
  if (p.empty()) return nullptr;
  push(a[0], slot_of(x).exact, slot_of(x).mag);
  return p[0];
}

Value* Builder::bounded(Value* x, double max_mag) {
  if (slot_of(x).mag <= max_mag) return x;
  auto t = emit("Tanh", {Operand::of(x)});
  return t.empty() ? nullptr : t[0];
}

namespace {

/// Ops named by the families that the cpu backend has a kernel for.
std::set<std::string> runnable_ops(const core::Environment& env, OpCoverage& cov) {
  std::set<std::string> ok;
  for (const auto& fams : {basic_families(), nn_families()})
    for (const FamilyEntry& f : fams)
      for (const std::string& op : f.ops) {
        if (env.kernels.find("cpu", "", op)) {
          ok.insert(op);
          cov.generable.insert(op);
        } else {
          cov.missing.insert(op);
        }
      }
  return ok;
}

Shape random_input_shape(Rng& r) {
  switch (r.uni(0, 5)) {
    case 0: return Shape{r.uni(1, 2), r.uni(1, 16), r.uni(1, 9), r.uni(1, 9)};  // NCHW activations
    case 1: return Shape{1, r.coin(0.5) ? 16 : r.uni(3, 20), r.uni(3, 8), r.uni(3, 8)};  // C0-sized channels
    case 2: return Shape{r.uni(1, 3), r.uni(1, 12), r.uni(2, 24)};  // [batch, sequence, hidden]
    case 3: return Shape{r.uni(1, 16), r.uni(1, 32)};
    case 4: return Shape{r.uni(1, 3), r.uni(1, 4), r.uni(1, 8), r.uni(1, 8)};
    default: return Shape{r.uni(1, 64)};
  }
}

}  // namespace

GraphGenerator::GraphGenerator(const core::Environment& env, GenOptions opts) : env_(env), opts_(opts) {
  runnable_ops(env_, coverage_);
}

std::unique_ptr<Graph> GraphGenerator::generate(uint64_t seed) const {
  std::vector<FamilyEntry> fams = basic_families();
  for (FamilyEntry& f : nn_families()) fams.push_back(std::move(f));
  // A family is drawn only when the cpu backend runs its main op.
  std::erase_if(fams, [&](const FamilyEntry& f) { return !coverage_.generable.count(f.ops.front()); });
  int total = 0;
  for (const FamilyEntry& f : fams) total += f.weight;

  for (uint64_t attempt = 0; attempt < 16; ++attempt) {
    Builder b(env_, coverage_.generable, opts_.max_elements, seed * 16 + attempt);
    b.g->opsets[""] = b.rng.coin(0.75) ? 17 : 13;
    const int inputs = static_cast<int>(b.rng.uni(1, 3));
    for (int i = 0; i < inputs; ++i) {
      Shape s = random_input_shape(b.rng);
      // Several inputs often share a shape (binary ops, Concat partners).
      if (i > 0 && b.rng.coin(0.5)) s = b.floats.front().v->shape;
      b.push(b.g->add_input(b.fresh("x"), DataType::Float32, s), true, 0.6);
    }
    const int target = static_cast<int>(b.rng.uni(opts_.min_nodes, opts_.max_nodes));
    int added = 0;
    for (int tries = 0; added < target && tries < target * 20; ++tries) {
      int w = static_cast<int>(b.rng.uni(0, total - 1));
      const FamilyEntry* f = &fams.front();
      for (const FamilyEntry& e : fams) {
        if (w < e.weight) {
          f = &e;
          break;
        }
        w -= e.weight;
      }
      if (f->fn(b)) ++added;
    }
    if (added < opts_.min_nodes) continue;
    // Outputs: every value nobody reads, and now and then one that is also read further on.
    for (Node* n : b.g->nodes())
      for (Value* v : n->outputs())
        if (v && v->uses().empty()) b.g->mark_output(v);
    for (Node* n : b.g->nodes())
      for (Value* v : n->outputs())
        if (v && !v->is_graph_output() && b.rng.coin(0.08)) b.g->mark_output(v);
    // Graph inputs nobody reads would be refused by nothing but tell nothing either: drop none,
    // keep the signature stable (the reducer replaces nodes by inputs the same way).
    core::ImportOptions io;
    io.backend = "cpu";
    core::propagate_shapes(*b.g, env_, io);
    verify_graph_or_throw(*b.g, &env_.ops);
    return std::move(b.g);
  }
  throw Error("difftest generator: seed " + std::to_string(seed) + " grew no valid graph in 16 attempts");
}

std::map<std::string, int> op_histogram(const Graph& g) {
  std::map<std::string, int> h;
  for (const Node* n : g.nodes()) ++h[(n->domain().empty() ? "" : n->domain() + ".") + n->op_type()];
  return h;
}

}  // namespace ge::difftest
