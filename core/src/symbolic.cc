// Symbolic shapes through the import (ge/core/symbolic.h).
#include "ge/core/symbolic.h"

#include <cctype>
#include <filesystem>
#include <optional>
#include <set>
#include <unordered_map>

#include "ge/core/file_io.h"
#include "ge/core/onnx_frontend.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"
#include "ge/sdk/verifier.h"
#include "import_hook.h"
#include "symbolic_fit.h"
#include "symbolic_rules.h"

namespace ge::core {

namespace {

// The candidate fitting (symbolic_fit.h) and the per-op rules (symbolic_rules.h).
using symbolic_detail::candidates;
using symbolic_detail::Candidates;
using symbolic_detail::data_dependent_type;
using symbolic_detail::Dims;
using symbolic_detail::family_text;
using symbolic_detail::fit;
using symbolic_detail::int_tensor;
using symbolic_detail::is_int_type;
using symbolic_detail::kProbeFamilies;
using symbolic_detail::matches;
using symbolic_detail::probes;
using symbolic_detail::spatial_rule;
using symbolic_detail::TrackedValue;
using symbolic_detail::value_rule;

/// An ONNX dim_param as a DimExpr symbol: characters outside [A-Za-z0-9_] become '_', a leading
/// digit gets a '_' before it.
std::string identifier_of(const std::string& param) {
  std::string s;
  for (char c : param) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
  return s;
}

/// What a node's inference gives for one output.
struct Out {
  DataType dtype = DataType::Undefined;
  Dims dims;
  /// The tracked value of a small integer output (symbolic elements), when a rule gives it.
  std::optional<Dims> value;
};

class Engine {
 public:
  explicit Engine(Graph& g) : g_(g) {
    for (Value* v : g.inputs())
      for (const DimExpr& e : v->dim_exprs()) e.collect_symbols(input_symbols_);
  }

  /// A value whose dims or contents depend on a symbol.
  bool symbolic(const Value* v) const {
    if (!v) return false;
    if (v->symbolic_dims()) return true;
    return v->id() < dependent_.size() && dependent_[v->id()];
  }
  bool any_symbolic_input(const Node* n) const {
    for (Value* v : n->inputs())
      if (symbolic(v)) return true;
    return false;
  }

  /// The import hook: a node with a symbolic input gets symbolic outputs; false for the others
  /// (the static path folds them).
  bool import_node(Node* n, const OpDef& def, int64_t opset) {
    if (!any_symbolic_input(n)) return false;
    std::vector<Out> outs = infer(n, def, opset);
    for (size_t i = 0; i < outs.size(); ++i) {
      Value* o = n->output(i);
      if (!o) continue;
      o->dtype = outs[i].dtype;
      o->set_symbolic_dims(outs[i].dims);
      o->data.reset();
      record(o, outs[i]);
      log(LogLevel::Trace, n->describe() + ": '" + o->name() + "' " + std::string(dtype_name(o->dtype)) + dims_str(outs[i].dims));
    }
    return true;
  }

  /// Marks o as depending on symbols and keeps its tracked value; a value whose every element
  /// is a constant becomes constant data instead (what follows folds as usual).
  void record(Value* o, const Out& r) {
    if (r.value && !o->symbolic_dims()) {
      bool all_const = true;
      for (const DimExpr& e : *r.value) all_const &= e.is_constant();
      if (all_const && static_cast<int64_t>(r.value->size()) == o->shape.numel() && is_int_type(o->dtype)) {
        std::vector<int64_t> v;
        for (const DimExpr& e : *r.value) v.push_back(e.constant());
        o->data = std::make_shared<const Tensor>(int_tensor(o->dtype, o->shape, v));
        return;
      }
    }
    if (o->id() >= dependent_.size()) {
      dependent_.resize(g_.value_id_bound(), false);
      values_.resize(g_.value_id_bound());
    }
    dependent_[o->id()] = true;
    values_[o->id()] = r.value;
  }

  /// The outputs of `n` from its inputs' recorded dims and tracked values; the graph is left as
  /// it was. Throws ge::Error naming the node.
  std::vector<Out> infer(Node* n, const OpDef& def, int64_t opset) {
    std::set<std::string> syms;
    for (Value* v : n->inputs()) {
      if (!v) continue;
      for (const DimExpr& e : v->dim_exprs()) e.collect_symbols(syms);
      if (const Dims* val = tracked(v))
        for (const DimExpr& e : *val) e.collect_symbols(syms);
    }
    std::vector<Binding> bs;
    std::vector<Sample> samples;
    std::optional<InvalidGraphError> first;
    for (int family = 0; family < kProbeFamilies; ++family) {
      // Many models hold only for dims that are multiples of their total stride (a UNet's skip
      // Concat, a YOLO head) or above a window: after a failure, probe again at larger multiples
      // and say under which assumption the graph was inferred.
      bs = probes(syms, syms.empty() ? 1 : 5, family);
      samples.clear();
      try {
        for (const Binding& b : bs) samples.push_back(probe(n, def, opset, b));
      } catch (const InvalidGraphError& e) {
        if (!first) first = e;
        if (syms.empty() || family + 1 == kProbeFamilies) throw *first;
        continue;
      }
      if (family > 0) {
        std::string list;
        for (const std::string& x : syms) list += (list.empty() ? "" : ", ") + x;
        constraints.push_back(n->describe() + " holds for " + family_text(family) + " of " + list +
                              ", not for every value (" + first->what() + ")");
      }
      break;
    }
    const size_t no = n->num_outputs();
    std::vector<Out> outs(no);
    const TrackedValue tracked_value = [this](const Value* v) { return tracked(v); };
    const Candidates cands = candidates(n, tracked_value);
    std::optional<Dims> value0 = value_rule(n, opset, tracked_value);
    for (size_t i = 0; i < no; ++i) {
      Value* o = n->output(i);
      if (!o) continue;
      Out& r = outs[i];
      if (samples[0].unknown) {
        // The output shape depends on values known at run time only (NonZero, a Reshape whose
        // target is not tracked): fresh symbols, one per axis of the declared rank.
        bool all_unknown = true;
        for (const Sample& s : samples) all_unknown &= s.unknown;
        std::optional<std::pair<DataType, Dims>> dd = all_unknown ? data_dependent_type(n, i) : std::nullopt;
        if (!dd)
          throw UnsupportedError(n->describe() + ": output '" + o->name() + "' has a shape that depends on run-time values and GE " +
                                 "knows no rank for it (the compile runs such a model in stages: docs/plan.md, \"Data-dependent shapes\")");
        r.dtype = dd->first;
        for (size_t k = 0; k < dd->second.size(); ++k)
          r.dims.push_back(dd->second[k] == DimExpr(-1) ? fresh_symbol(n, o, k) : dd->second[k]);
        continue;
      }
      r.dtype = samples[0].dtype[i];
      const size_t rank = samples[0].dims[i].size();
      for (const Sample& s : samples)
        if (s.unknown || s.dims[i].size() != rank || s.dtype[i] != r.dtype)
          throw InvalidGraphError(n->describe() + ": output '" + o->name() + "' changes rank or type with the symbols' values");
      std::vector<std::optional<DimExpr>> ruled = spatial_rule(n, i, rank);
      for (size_t k = 0; k < rank; ++k) {
        std::vector<int64_t> obs;
        for (const Sample& s : samples) obs.push_back(s.dims[i][k]);
        std::optional<DimExpr> e;
        if (ruled.size() == rank && ruled[k] && matches(*ruled[k], bs, obs)) e = ruled[k];
        if (!e) e = fit(cands, bs, obs);
        if (!e) {
          r.dims.push_back(fresh_symbol(n, o, k));
          log(LogLevel::Debug, n->describe() + ": no expression in the inputs' dims explains axis " + std::to_string(k) +
                                   " of '" + o->name() + "'; fresh symbol " + r.dims.back().str());
        } else {
          r.dims.push_back(*e);
        }
      }
      if (i == 0 && value0) {
        // The rule's value holds only if its element count is the output's at every probe.
        bool ok = true;
        for (size_t j = 0; j < samples.size() && ok; ++j) {
          int64_t numel = 1;
          for (int64_t d : samples[j].dims[0]) numel *= d;
          ok = numel == static_cast<int64_t>(value0->size()) && value_agrees(*value0, bs[j], samples[j]);
        }
        if (ok) r.value = value0;
      }
    }
    if (!syms.empty() && !samples[0].unknown) validate(n, def, opset, syms, outs);
    return outs;
  }

  std::vector<std::string> fresh;
  std::vector<std::string> constraints;

 private:
  struct Sample {
    bool unknown = false;
    std::vector<DataType> dtype;
    std::vector<std::vector<int64_t>> dims;
    std::vector<std::shared_ptr<const Tensor>> data;  // what the inference computed (Shape's value)
  };

  const Dims* tracked(const Value* v) const {
    if (v && v->id() < values_.size() && values_[v->id()]) return &*values_[v->id()];
    return nullptr;
  }

  DimExpr fresh_symbol(const Node* n, const Value* o, size_t axis) {
    const std::string base = identifier_of(o->name() + "_" + std::to_string(axis));
    std::string s = base;
    for (int k = 2; input_symbols_.count(s); ++k) s = base + "_" + std::to_string(k);  // never a model's own symbol
    if (fresh_names_.insert(s).second)
      fresh.push_back(s + ": value '" + o->name() + "' axis " + std::to_string(axis) + " (node '" + n->name() + "')");
    return DimExpr::symbol(s);
  }

  /// The probes see symbol values in one range; an expression can fit them and be wrong outside
  /// it (a Slice clamped at 100, a Squeeze of a dim that is 1, a ceil-mode pool at multiples of
  /// its stride). The node is inferred again at 1, at 2, at multiples of 64, at large values and,
  /// for each floor division by k <= 64 in its outputs, at every residue modulo k:
  /// an axis whose expression disagrees there becomes a fresh symbol; a failure or another rank
  /// there is reported as a constraint (once per node). Bindings at which a symbolic dim of an
  /// input is already below 1 are skipped (reported where it arose).
  void validate(Node* n, const OpDef& def, int64_t opset, const std::set<std::string>& syms, std::vector<Out>& outs) {
    std::vector<Binding> vs(4);
    int64_t i = 0;
    for (const std::string& x : syms) {
      vs[0][x] = 1;
      vs[1][x] = 2;
      vs[2][x] = 64 * (i + 2);
      vs[3][x] = 211 + 67 * i;
      ++i;
    }
    // A floor division by k is checked at every residue modulo k: the probes may all miss one
    // (Range(2, S, 3) is S/3, and (S-1)/3 agrees with it unless S is a multiple of 3).
    std::set<int64_t> divisors;
    for (const Out& r : outs)
      for (const DimExpr& e : r.dims) e.collect_divisors(divisors);
    for (int64_t k : divisors) {
      if (k > 64) continue;
      for (int64_t rem = 0; rem < k; ++rem) {
        Binding b;
        int64_t j = 0;
        for (const std::string& x : syms) b[x] = 1024 * (j++ + 1) + rem;
        vs.push_back(std::move(b));
      }
    }
    bool noted = false;
    auto note = [&](const std::string& what) {
      if (!noted) constraints.push_back(what);
      noted = true;
    };
    for (const Binding& b : vs) {
      bool valid = true;
      for (Value* v : n->inputs())
        if (v && v->symbolic_dims())
          for (const DimExpr& e : *v->symbolic_dims()) {
            try {
              valid &= e.is_constant() || e.evaluate(b) >= 1;
            } catch (const Error&) {
              valid = false;
            }
          }
      if (!valid) continue;
      Sample s;
      try {
        s = probe(n, def, opset, b);
      } catch (const InvalidGraphError& e) {
        note(n->describe() + " does not hold at " + binding_str(b) + " (" + e.what() + ")");
        continue;
      }
      if (s.unknown) continue;
      for (size_t k = 0; k < outs.size(); ++k) {
        Value* o = n->output(k);
        if (!o) continue;
        Out& r = outs[k];
        if (s.dims[k].size() != r.dims.size()) {
          note(n->describe() + ": output '" + o->name() + "' is " + dims_str(r.dims) + " but has rank " +
               std::to_string(s.dims[k].size()) + " at " + binding_str(b) + " (" + Shape(s.dims[k]).str() + ")");
          continue;
        }
        for (size_t a = 0; a < r.dims.size(); ++a) {
          int64_t want;
          try {
            want = r.dims[a].evaluate(b);
          } catch (const Error&) {
            continue;  // a fresh symbol
          }
          if (want == s.dims[k][a]) continue;
          log(LogLevel::Debug, n->describe() + ": axis " + std::to_string(a) + " of '" + o->name() + "' fits " + r.dims[a].str() +
                                   " at the probes but is " + std::to_string(s.dims[k][a]) + " at " + binding_str(b) + "; fresh symbol");
          r.dims[a] = fresh_symbol(n, o, a);
        }
        if (r.value && !value_agrees(*r.value, b, s)) r.value.reset();
      }
    }
  }

  /// Runs the op's registry inference with every input's dims and tracked values evaluated at
  /// `b`, then puts inputs and outputs back.
  Sample probe(Node* n, const OpDef& def, int64_t opset, const Binding& b) {
    struct SavedIn {
      Value* v;
      Shape shape;
      std::shared_ptr<const Tensor> data;
    };
    struct SavedOut {
      Value* v;
      DataType dtype;
      Shape shape;
      std::shared_ptr<const Tensor> data;
    };
    std::vector<SavedIn> ins;
    std::vector<SavedOut> outs;
    auto restore = [&] {
      for (SavedOut& s : outs) {
        s.v->dtype = s.dtype;
        s.v->shape = s.shape;
        s.v->data = s.data;
      }
      for (SavedIn& s : ins) {
        s.v->shape = s.shape;
        s.v->data = s.data;
      }
    };
    std::set<const Value*> seen;
    Sample r;
    try {
      for (Value* v : n->inputs()) {
        if (!v || !seen.insert(v).second) continue;
        const Dims* val = tracked(v);
        if (!v->symbolic_dims() && !val) continue;
        ins.push_back({v, v->shape, v->data});
        if (const Dims* d = v->symbolic_dims()) {
          std::vector<int64_t> e;
          for (const DimExpr& x : *d) {
            e.push_back(x.evaluate(b));
            if (e.back() < 0)
              throw InvalidGraphError("input '" + v->name() + "' would be " + dims_str(*d) + " = " + Shape(e).str() + "..., a negative extent");
          }
          try {
            Shape(e).numel();  // at most 2^59 elements, as every static shape (types.h)
          } catch (const Error& err) {
            throw InvalidGraphError("input '" + v->name() + "' would be " + dims_str(*d) + " = " + Shape(e).str() + ": " + err.what());
          }
          v->shape = Shape(e);
        }
        if (val) {
          std::vector<int64_t> e;
          for (const DimExpr& x : *val) e.push_back(x.evaluate(b));
          if (static_cast<int64_t>(e.size()) != v->shape.numel() || !is_int_type(v->dtype)) continue;
          v->data = std::make_shared<const Tensor>(int_tensor(v->dtype, v->shape, e));
        }
      }
      for (Value* o : n->outputs())
        if (o) outs.push_back({o, o->dtype, o->shape, o->data});
      InferContext ctx(*n, def, opset);
      def.infer(ctx);
      for (Value* o : n->outputs()) {
        r.dtype.push_back(o ? o->dtype : DataType::Undefined);
        r.dims.push_back(o ? o->shape.dims() : std::vector<int64_t>{});
        r.data.push_back(o ? o->data : nullptr);
      }
    } catch (const UnknownValueError&) {
      r.unknown = true;
    } catch (const Error& e) {
      restore();
      throw InvalidGraphError(n->describe() + ": inference fails for " + binding_str(b) + ": " + e.what());
    } catch (...) {
      restore();
      throw;
    }
    restore();
    return r;
  }

  /// Whether a rule's value agrees with what the registry inference computed at a probe, where
  /// it computed one (Shape gives its value itself).
  static bool value_agrees(const Dims& value, const Binding& b, const Sample& s) {
    if (s.data.empty() || !s.data[0] || !is_int_type(s.data[0]->dtype())) return true;
    const std::vector<int64_t> got = s.data[0]->to_int64_vector();
    if (got.size() != value.size()) return false;
    try {
      for (size_t k = 0; k < got.size(); ++k)
        if (value[k].evaluate(b) != got[k]) return false;
    } catch (const Error&) {
      return false;
    }
    return true;
  }

  Graph& g_;
  std::vector<bool> dependent_;
  std::vector<std::optional<Dims>> values_;
  std::set<std::string> fresh_names_;
  std::set<std::string> input_symbols_;
};

}  // namespace

SymbolicImport import_symbolic(const Environment& env, const std::string& path, const ImportOptions& opts) {
  return import_symbolic_bytes(env, read_regular_file(path, "model file"), path,
                               std::filesystem::path(path).parent_path().string(), opts);
}

SymbolicImport import_symbolic_bytes(const Environment& env, std::string bytes, const std::string& path,
                                     const std::string& base_dir, const ImportOptions& opts) {
  const OnnxSignature sig = onnx_signature(bytes, path);
  SymbolicImport out;
  // dim_param → symbol, and the static stand-in shapes the frontend reads the model with.
  std::map<std::string, std::string> to_symbol;
  std::set<std::string> taken;
  ImportOptions io = opts;
  io.backend.clear();
  std::map<std::string, Dims> input_dims;
  for (const SymbolicTensor& t : sig.inputs) {
    if (!t.has_shape || opts.frontend.input_shapes.count(t.name)) continue;
    Dims d;
    std::vector<int64_t> stand_in;
    bool symbolic = false;
    for (const SymbolicDim& sd : t.dims) {
      if (!sd.symbolic()) {
        d.emplace_back(sd.value);
        stand_in.push_back(sd.value);
        continue;
      }
      symbolic = true;
      std::string param = sd.param;
      if (param.rfind("?", 0) == 0) param = param.substr(1);  // an unnamed dim: "?x:1" → x_1
      auto it = to_symbol.find(param);
      if (it == to_symbol.end()) {
        std::string s = identifier_of(param), base = s;
        for (int k = 2; taken.count(s); ++k) s = base + "_" + std::to_string(k);
        taken.insert(s);
        it = to_symbol.emplace(param, s).first;
        out.symbols[s] = param;
      }
      d.push_back(DimExpr::symbol(it->second));
      stand_in.push_back(1);
    }
    if (!symbolic) continue;
    input_dims[t.name] = std::move(d);
    io.frontend.input_shapes[t.name] = stand_in;
  }
  out.graph = load_onnx_bytes(std::move(bytes), path, base_dir, io.frontend);
  Graph& g = *out.graph;
  for (Value* v : g.inputs())
    if (auto it = input_dims.find(v->name()); it != input_dims.end()) v->set_symbolic_dims(it->second);
  // Declared value types are those of the stand-in shapes: only the dtypes and ranks are kept
  // (for outputs whose shape depends on run-time values).
  Engine e(g);
  NodeHook hook = [&](Node* n, const OpDef& def, int64_t opset) { return e.import_node(n, def, opset); };
  propagate_shapes_hooked(g, env, io, &hook);
  out.fresh = e.fresh;
  out.constraints = e.constraints;
  for (const std::string& c : out.constraints) log(LogLevel::Info, "model file '" + path + "': " + c);
  verify_graph_or_throw(g, &env.ops);
  // The model's declared output dims, where symbolic, name what GE should have inferred.
  for (const SymbolicTensor& t : sig.outputs) {
    Value* v = g.find_value(t.name);
    if (!v || !t.has_shape || t.dims.size() != v->shape.rank()) continue;
    const Dims got = v->dim_exprs();
    for (size_t k = 0; k < t.dims.size(); ++k) {
      const SymbolicDim& sd = t.dims[k];
      auto it = sd.symbolic() ? to_symbol.find(sd.param) : to_symbol.end();
      const DimExpr want = sd.symbolic() ? (it != to_symbol.end() ? DimExpr::symbol(it->second) : DimExpr(-1)) : DimExpr(sd.value);
      if (want != DimExpr(-1) && got[k] != want)
        log(LogLevel::Warn, "model file '" + path + "': graph output '" + t.name + "' is declared " + t.dims_str() +
                                ", GE infers " + dims_str(got));
    }
  }
  return out;
}

SymbolicNotes infer_symbolic(Graph& g, const Environment& env) {
  ImportOptions io;
  io.backend.clear();
  Engine e(g);
  NodeHook hook = [&](Node* n, const OpDef& def, int64_t opset) { return e.import_node(n, def, opset); };
  propagate_shapes_hooked(g, env, io, &hook);
  verify_graph_or_throw(g, &env.ops);
  return {e.fresh, e.constraints};
}

std::vector<std::string> verify_symbolic(Graph& g, const Environment& env) {
  std::vector<std::string> problems = verify_graph(g, &env.ops);
  if (!problems.empty()) return problems;
  Engine e(g);
  for (Node* n : g.topological_order()) {
    if (!e.any_symbolic_input(n)) {
      bool any = false;
      for (Value* o : n->outputs()) any |= o && o->symbolic_dims();
      if (any) problems.push_back(n->describe() + ": its inputs are static, its outputs symbolic");
      continue;
    }
    const int64_t opset = g.opset(n->domain());
    const OpDef* def = opset > 0 ? env.ops.find(n->domain(), n->op_type(), opset) : env.ops.find_any(n->domain(), n->op_type());
    if (!def || !def->infer) continue;  // verify_graph named it
    std::vector<Out> outs;
    try {
      outs = e.infer(n, *def, opset > 0 ? opset : def->since_version);
    } catch (const Error& ex) {
      problems.push_back(ex.what());
      continue;
    }
    for (size_t i = 0; i < outs.size(); ++i) {
      Value* o = n->output(i);
      if (!o) continue;
      const Dims rec = o->dim_exprs();
      if (o->dtype != outs[i].dtype || rec != outs[i].dims)
        problems.push_back(n->describe() + ": output '" + o->name() + "' is recorded as " + std::string(dtype_name(o->dtype)) +
                           dims_str(rec) + " but the op infers " + std::string(dtype_name(outs[i].dtype)) + dims_str(outs[i].dims));
      Out kept = outs[i];
      kept.dims = rec;
      if (o->symbolic_dims() || kept.value) {
        auto data = o->data;
        e.record(o, kept);
        o->data = data;  // verification changes nothing
      }
    }
  }
  return problems;
}

std::vector<std::string> compare_with_static(const Graph& symbolic, const Graph& stat, const Binding& binding) {
  std::vector<std::string> problems;
  for (Value* v : symbolic.values()) {
    const Dims* d = v->symbolic_dims();
    if (!d) continue;
    const Value* s = stat.find_value(v->name());
    if (!s) continue;
    std::vector<int64_t> want;
    try {
      for (const DimExpr& e : *d) want.push_back(e.evaluate(binding));
    } catch (const Error&) {
      continue;  // a fresh symbol
    }
    if (Shape(want) != s->shape)
      problems.push_back("value '" + v->name() + "': symbolic " + dims_str(*d) + " is " + Shape(want).str() + " at " +
                         binding_str(binding) + ", the static import has " + s->shape.str());
  }
  return problems;
}

}  // namespace ge::core
