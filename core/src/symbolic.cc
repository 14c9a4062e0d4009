// Symbolic shapes through the import (ge/core/symbolic.h).
#include "ge/core/symbolic.h"

#include <algorithm>
#include <cctype>
#include <cmath>
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

namespace ge::core {

namespace {

using Dims = std::vector<DimExpr>;

/// An ONNX dim_param as a DimExpr symbol: characters outside [A-Za-z0-9_] become '_', a leading
/// digit gets a '_' before it.
std::string identifier_of(const std::string& param) {
  std::string s;
  for (char c : param) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
  return s;
}

/// Probe bindings: K assignments of every symbol to values in [7, 97) that are unrelated from
/// symbol to symbol (a fixed integer hash), so that no affine relation between two symbols holds
/// at every probe by chance. Small enough for models whose dims have an upper bound of their own
/// (a learned position table of 128 rows), large enough for five stride-2 stages.
/// Probe families (see Engine::infer): 0 = any values in [7, 97); 1 = multiples of 32 in
/// [96, 512); 2 = multiples of 256 in [4096, 12288) (a 1-D audio net's long strided input).
constexpr int kProbeFamilies = 3;
std::vector<Binding> probes(const std::set<std::string>& symbols, size_t k, int family) {
  std::vector<Binding> out(k);
  size_t i = 0;
  for (const std::string& s : symbols) {
    for (size_t j = 0; j < k; ++j) {
      uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ (j + 1) * 0xC2B2AE3D27D4EB4Full;
      h ^= h >> 29;
      h *= 0xBF58476D1CE4E5B9ull;
      h ^= h >> 32;
      const int64_t r = static_cast<int64_t>(h % 90);
      out[j][s] = family == 0 ? 7 + r : family == 1 ? 96 + 32 * (r % 13) : 4096 + 256 * (r % 32);
    }
    ++i;
  }
  return out;
}
std::string family_text(int family) {
  return family == 1 ? "multiples of 32 from 96 on" : "multiples of 256 from 4096 on";
}

bool is_int_type(DataType t) {
  switch (t) {
    case DataType::Int64:
    case DataType::Int32:
    case DataType::Int16:
    case DataType::Int8:
    case DataType::UInt8:
    case DataType::UInt16:
    case DataType::UInt32:
    case DataType::Bool: return true;
    default: return false;
  }
}

Tensor int_tensor(DataType dt, const Shape& shape, const std::vector<int64_t>& v) {
  Tensor t = Tensor::allocate(dt, shape);
  for (size_t i = 0; i < v.size(); ++i) {
    switch (dt) {
      case DataType::Int64: t.data_as<int64_t>()[i] = v[i]; break;
      case DataType::Int32: t.data_as<int32_t>()[i] = static_cast<int32_t>(v[i]); break;
      case DataType::Int16: t.data_as<int16_t>()[i] = static_cast<int16_t>(v[i]); break;
      case DataType::Int8: t.data_as<int8_t>()[i] = static_cast<int8_t>(v[i]); break;
      case DataType::UInt8:
      case DataType::Bool: t.data_as<uint8_t>()[i] = static_cast<uint8_t>(v[i]); break;
      case DataType::UInt16: t.data_as<uint16_t>()[i] = static_cast<uint16_t>(v[i]); break;
      case DataType::UInt32: t.data_as<uint32_t>()[i] = static_cast<uint32_t>(v[i]); break;
      default: throw Error("int_tensor: not an integer type");
    }
  }
  return t;
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
    const Candidates cands = candidates(n);
    std::optional<Dims> value0 = value_rule(n, opset);
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
  using Candidates = std::vector<DimExpr>;

  const Dims* tracked(const Value* v) const {
    if (v && v->id() < values_.size() && values_[v->id()]) return &*values_[v->id()];
    return nullptr;
  }

  /// The elements of a small integer value: tracked expressions, or constant data.
  std::optional<Dims> known(const Value* v) const {
    if (!v) return std::nullopt;
    if (const Dims* t = tracked(v)) return *t;
    if (v->data && is_int_type(v->dtype) && v->data->numel() <= 64 && v->shape.rank() <= 1 && !v->symbolic_dims()) {
      Dims d;
      for (int64_t x : v->data->to_int64_vector()) d.emplace_back(x);
      return d;
    }
    return std::nullopt;
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

  /// dtype and dims (-1 = a fresh symbol) of an output whose shape depends on run-time values, for
  /// the ops whose rank does not (onnx/docs/Operators.md); nullopt for the others.
  std::optional<std::pair<DataType, Dims>> data_dependent_type(const Node* n, size_t out) const {
    if (!n->domain().empty()) return std::nullopt;
    const std::string& op = n->op_type();
    Value* x = n->input(0);
    auto unknown = [](size_t r) { return Dims(r, DimExpr(-1)); };
    auto static_len = [&](size_t i) -> std::optional<size_t> {
      Value* v = n->input(i);
      if (!v || v->symbolic_dims() || v->shape.rank() != 1) return std::nullopt;
      return static_cast<size_t>(v->shape[0]);
    };
    if (!x) return std::nullopt;
    if (op == "NonZero" && out == 0) return std::make_pair(DataType::Int64, Dims{DimExpr(static_cast<int64_t>(x->shape.rank())), DimExpr(-1)});
    if (op == "Reshape" && out == 0) {
      if (auto k = static_len(1)) return std::make_pair(x->dtype, unknown(*k));
      return std::nullopt;
    }
    if (op == "Expand" && out == 0) {
      if (auto k = static_len(1)) return std::make_pair(x->dtype, unknown(std::max(*k, x->shape.rank())));
      return std::nullopt;
    }
    if (op == "ConstantOfShape" && out == 0) {
      DataType dt = DataType::Float32;
      if (n->attrs.has("value")) dt = n->attrs.get_tensor("value").dtype();
      if (auto k = static_len(0)) return std::make_pair(dt, unknown(*k));
      return std::nullopt;
    }
    if (op == "Range" && out == 0) return std::make_pair(x->dtype, unknown(1));
    if ((op == "Tile" || op == "Pad" || op == "Slice" || op == "Resize" || op == "Upsample") && out == 0)
      return std::make_pair(x->dtype, unknown(x->shape.rank()));
    if (op == "TopK" && out < 2) return std::make_pair(out == 0 ? x->dtype : DataType::Int64, unknown(x->shape.rank()));
    if (op == "OneHot" && out == 0 && n->input(2)) return std::make_pair(n->input(2)->dtype, unknown(x->shape.rank() + 1));
    return std::nullopt;
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

  /// Expressions an output dim may be (up to an affine map): the inputs' dims, the elements of
  /// their tracked values, products of consecutive dims, and per-axis sums over the inputs.
  Candidates candidates(const Node* n) const {
    Candidates c;
    std::set<std::string> seen;
    auto add = [&](const DimExpr& e) {
      if (e.is_constant()) return;
      if (seen.insert(e.str()).second) c.push_back(e);
    };
    for (Value* v : n->inputs())
      if (v)
        for (const DimExpr& e : v->dim_exprs()) add(e);
    for (Value* v : n->inputs())
      if (const Dims* t = tracked(v))
        for (const DimExpr& e : *t) add(e);
    for (Value* v : n->inputs()) {
      if (!v || !v->symbolic_dims()) continue;
      const Dims d = v->dim_exprs();
      for (size_t a = 0; a < d.size(); ++a) {
        DimExpr p = d[a];
        for (size_t z = a + 1; z < d.size(); ++z) {
          p = p * d[z];
          add(p);
        }
      }
    }
    size_t rank = 0;
    for (Value* v : n->inputs()) rank = std::max(rank, v ? v->shape.rank() : 0);
    for (size_t k = 0; k < rank && n->num_inputs() > 1; ++k) {
      DimExpr s(0);
      bool ok = true;
      for (Value* v : n->inputs()) {
        if (!v || v->shape.rank() != rank) {
          ok = false;
          break;
        }
        s = s + v->dim_exprs()[k];
      }
      if (ok) add(s);
    }
    return c;
  }

  static bool matches(const DimExpr& e, const std::vector<Binding>& bs, const std::vector<int64_t>& obs) {
    try {
      for (size_t j = 0; j < bs.size(); ++j)
        if (e.evaluate(bs[j]) != obs[j]) return false;
      return true;
    } catch (const Error&) {
      return false;
    }
  }

  static std::optional<DimExpr> fit(const Candidates& cands, const std::vector<Binding>& bs, const std::vector<int64_t>& obs) {
    bool constant = true;
    for (int64_t o : obs) constant &= o == obs[0];
    if (constant) return DimExpr(obs[0]);
    for (const DimExpr& c : cands)
      if (matches(c, bs, obs)) return c;
    for (const DimExpr& c : cands) {
      std::vector<int64_t> cv;
      try {
        for (const Binding& b : bs) cv.push_back(c.evaluate(b));
      } catch (const Error&) {
        continue;
      }
      size_t j = 1;
      while (j < cv.size() && cv[j] == cv[0]) ++j;
      if (j == cv.size()) continue;
      const int64_t dc = cv[j] - cv[0], dout = obs[j] - obs[0];
      if (dout % dc != 0) continue;
      const int64_t a = dout / dc, b0 = obs[0] - a * cv[0];
      bool ok = a != 0;
      for (size_t q = 0; q < cv.size() && ok; ++q) ok = a * cv[q] + b0 == obs[q];
      if (ok) return DimExpr(a) * c + DimExpr(b0);
    }
    // Floor divisions (a*c + b) / k, k in [2, 16], a in [1, 2k], |b| <= 2k: a Slice with step 2,
    // Range with step 3, an equal Split of a symbolic axis, Resize by 0.7 (= 7/10). The check
    // bindings after the fit (Engine::validate) catch a form that holds at the probes only.
    for (const DimExpr& c : cands) {
      std::vector<int64_t> cv;
      try {
        for (const Binding& b : bs) cv.push_back(c.evaluate(b));
      } catch (const Error&) {
        continue;
      }
      for (int64_t k = 2; k <= 16; ++k)
        for (int64_t a = 1; a <= 2 * k; ++a) {
          if (a % k == 0) continue;  // affine, tried above
          for (int64_t b = -2 * k; b <= 2 * k; ++b) {
            bool ok = true;
            for (size_t q = 0; q < cv.size() && ok; ++q) {
              const int64_t num = a * cv[q] + b;
              const int64_t fl = num >= 0 ? num / k : -((-num + k - 1) / k);
              ok = fl == obs[q];
            }
            if (ok) return DimExpr::floor_div(DimExpr(a) * c + DimExpr(b), k);
          }
        }
    }
    return std::nullopt;
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

  // ---- ONNX formulas for spatial dims (onnx/defs/nn/defs.cc, convPoolShapeInference;
  // onnx/defs/tensor/defs.cc, Resize): expressions where the input's spatial dims are symbolic.
  std::vector<std::optional<DimExpr>> spatial_rule(const Node* n, size_t out, size_t rank) const {
    const std::string& op = n->op_type();
    if (!n->domain().empty() || out != 0) return {};
    Value* x = n->input(0);
    if (!x || !x->symbolic_dims() || x->shape.rank() != rank || rank < 3) return {};
    const Dims d = x->dim_exprs();
    std::vector<std::optional<DimExpr>> r(rank);
    const size_t sp = rank - 2;
    if (op == "Conv" || op == "ConvInteger" || op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
      std::vector<int64_t> kernel = n->attrs.get_ints("kernel_shape");
      if (kernel.empty() && (op == "Conv" || op == "ConvInteger")) {
        Value* w = n->input(1);
        if (!w || w->symbolic_dims() || w->shape.rank() != rank) return {};
        for (size_t i = 0; i < sp; ++i) kernel.push_back(w->shape[2 + i]);
      }
      if (kernel.size() != sp) return {};
      std::vector<int64_t> strides = n->attrs.get_ints("strides", std::vector<int64_t>(sp, 1));
      std::vector<int64_t> dil = n->attrs.get_ints("dilations", std::vector<int64_t>(sp, 1));
      std::vector<int64_t> pads = n->attrs.get_ints("pads", std::vector<int64_t>(2 * sp, 0));
      const std::string auto_pad = n->attrs.has("auto_pad") ? n->attrs.get_string("auto_pad", "NOTSET") : "NOTSET";
      const bool ceil_mode = n->attrs.get_int("ceil_mode", 0) != 0;
      if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) return {};
      for (size_t i = 0; i < sp; ++i) {
        if (d[2 + i].is_constant() || strides[i] <= 0) continue;
        if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
          r[2 + i] = DimExpr::ceil_div(d[2 + i], strides[i]);
          continue;
        }
        const int64_t eff = (kernel[i] - 1) * dil[i] + 1;
        const DimExpr span = auto_pad == "VALID" ? d[2 + i] - DimExpr(eff) : d[2 + i] + DimExpr(pads[i] + pads[i + sp] - eff);
        r[2 + i] = (ceil_mode ? DimExpr::ceil_div(span, strides[i]) : DimExpr::floor_div(span, strides[i])) + DimExpr(1);
      }
      return r;
    }
    if (op == "Resize" || op == "Upsample") {
      // Scales as constants: output = floor(input * scale) with the scale a fraction p/q.
      Value* sv = op == "Resize" ? n->input(2) : n->input(1);
      if (!sv || !sv->data || sv->data->numel() != static_cast<int64_t>(rank)) return {};
      std::vector<double> scales = sv->data->to_double_vector();
      for (size_t i = 0; i < rank; ++i) {
        if (d[i].is_constant()) continue;
        for (int64_t q = 1; q <= 1024; ++q) {
          const double p = scales[i] * static_cast<double>(q);
          if (std::fabs(p - std::round(p)) < 1e-9 * q && std::round(p) >= 1) {
            r[i] = DimExpr::floor_div(d[i] * DimExpr(static_cast<int64_t>(std::round(p))), q);
            break;
          }
        }
      }
      return r;
    }
    return {};
  }

  // ---- the value of shape-computing ops (element expressions of a rank <= 1 integer output)
  std::optional<Dims> value_rule(const Node* n, int64_t opset) const {
    if (!n->domain().empty() || n->num_outputs() < 1 || !n->output(0)) return std::nullopt;
    const std::string& op = n->op_type();
    auto in = [&](size_t i) { return known(n->input(i)); };
    if (op == "Shape") {
      Value* x = n->input(0);
      if (!x) return std::nullopt;
      Dims d = x->dim_exprs();
      const int64_t r = static_cast<int64_t>(d.size());
      int64_t start = opset >= 15 ? n->attrs.get_int("start", 0) : 0, end = opset >= 15 ? n->attrs.get_int("end", r) : r;
      if (start < 0) start += r;
      if (end < 0) end += r;
      start = std::clamp<int64_t>(start, 0, r);
      end = std::clamp<int64_t>(end, 0, r);
      if (end <= start) return Dims{};
      return Dims(d.begin() + start, d.begin() + end);
    }
    if (op == "Size") {
      Value* x = n->input(0);
      if (!x) return std::nullopt;
      DimExpr p(1);
      for (const DimExpr& e : x->dim_exprs()) p = p * e;
      return Dims{p};
    }
    if (op == "Gather") {
      auto data = in(0);
      Value* iv = n->input(1);
      if (!data || !iv || !iv->data || !is_int_type(iv->dtype) || n->input(0)->shape.rank() != 1) return std::nullopt;
      if (n->attrs.get_int("axis", 0) != 0 && n->attrs.get_int("axis", 0) != -1) return std::nullopt;
      Dims r;
      const int64_t len = static_cast<int64_t>(data->size());
      for (int64_t k : iv->data->to_int64_vector()) {
        if (k < 0) k += len;
        if (k < 0 || k >= len) return std::nullopt;
        r.push_back((*data)[static_cast<size_t>(k)]);
      }
      return r;
    }
    if (op == "Slice" && opset >= 10) {
      auto data = in(0);
      if (!data || n->input(0)->shape.rank() != 1) return std::nullopt;
      auto constant = [&](size_t i) -> std::optional<std::vector<int64_t>> {
        Value* v = n->input(i);
        if (!v) return std::vector<int64_t>{};
        if (!v->data || !is_int_type(v->dtype)) return std::nullopt;
        return v->data->to_int64_vector();
      };
      auto starts = constant(1), ends = constant(2), axes = constant(3), steps = constant(4);
      if (!starts || !ends || !axes || !steps || starts->size() != 1 || ends->size() != 1) return std::nullopt;
      if (!axes->empty() && (*axes)[0] != 0 && (*axes)[0] != -1) return std::nullopt;
      const int64_t step = steps->empty() ? 1 : (*steps)[0];
      const int64_t len = static_cast<int64_t>(data->size());
      if (step == 0) return std::nullopt;
      int64_t s = (*starts)[0], e = (*ends)[0];
      if (s < 0) s += len;
      if (e < 0) e += len;
      if (step > 0) {
        s = std::clamp<int64_t>(s, 0, len);
        e = std::clamp<int64_t>(e, 0, len);
      } else {
        s = std::clamp<int64_t>(s, 0, len - 1);
        e = std::clamp<int64_t>(e, -1, len - 1);
      }
      Dims r;
      for (int64_t k = s; step > 0 ? k < e : k > e; k += step) r.push_back((*data)[static_cast<size_t>(k)]);
      return r;
    }
    if (op == "Concat") {
      Dims r;
      for (size_t i = 0; i < n->num_inputs(); ++i) {
        auto v = in(i);
        if (!v || n->input(i)->shape.rank() != 1) return std::nullopt;
        r.insert(r.end(), v->begin(), v->end());
      }
      return r;
    }
    if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" || op == "Identity" || op == "Flatten") return in(0);
    if (op == "Cast") {
      const int64_t to = n->attrs.get_int("to", 0);
      if (!is_int_type(static_cast<DataType>(to)) || static_cast<DataType>(to) == DataType::Bool) return std::nullopt;
      return in(0);
    }
    if (op == "Neg") {
      auto a = in(0);
      if (!a) return std::nullopt;
      for (DimExpr& e : *a) e = -e;
      return a;
    }
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" || op == "Max" || op == "Min" || op == "Equal") {
      if (n->num_inputs() != 2) return std::nullopt;
      auto a = in(0), b = in(1);
      if (!a || !b || a->empty() || b->empty()) return std::nullopt;
      if (a->size() != b->size() && a->size() != 1 && b->size() != 1) return std::nullopt;
      const size_t len = std::max(a->size(), b->size());
      Dims r;
      for (size_t k = 0; k < len; ++k) {
        const DimExpr& x = (*a)[a->size() == 1 ? 0 : k];
        const DimExpr& y = (*b)[b->size() == 1 ? 0 : k];
        std::optional<DimExpr> z = binary(op, x, y, n);
        if (!z) return std::nullopt;
        r.push_back(*z);
      }
      return r;
    }
    if (op == "Where") {
      Value* cv = n->input(0);
      auto x = in(1), y = in(2);
      if (!cv || !cv->data || !x || !y) return std::nullopt;
      std::vector<int64_t> c = cv->data->to_int64_vector();
      const size_t len = std::max({c.size(), x->size(), y->size()});
      for (size_t s : {c.size(), x->size(), y->size()})
        if (s != len && s != 1) return std::nullopt;
      Dims r;
      for (size_t k = 0; k < len; ++k)
        r.push_back(c[c.size() == 1 ? 0 : k] ? (*x)[x->size() == 1 ? 0 : k] : (*y)[y->size() == 1 ? 0 : k]);
      return r;
    }
    return std::nullopt;
  }

  static std::optional<DimExpr> binary(const std::string& op, const DimExpr& x, const DimExpr& y, const Node* n) {
    if (op == "Add") return x + y;
    if (op == "Sub") return x - y;
    if (op == "Mul") return x * y;
    const bool nonneg = x.is_constant() ? x.constant() >= 0 : x.is_positive();
    if (op == "Div") {
      // Integer Div truncates (onnx/docs/Operators.md, Div); that is the floor for x >= 0.
      if (x == y && x.is_positive()) return DimExpr(1);
      if (!y.is_constant() || y.constant() <= 0 || !nonneg || !dtype_is_integer(n)) return std::nullopt;
      return DimExpr::floor_div(x, y.constant());
    }
    if (op == "Mod") {
      if (!y.is_constant() || y.constant() <= 0 || !nonneg || n->attrs.get_int("fmod", 0) != 0) return std::nullopt;
      return DimExpr::mod(x, y.constant());
    }
    const DimExpr diff = x - y;
    if (op == "Equal") {
      if (diff.is_constant()) return DimExpr(diff.constant() == 0 ? 1 : 0);
      // A positive expression is never a constant <= 0 (torch's `Where(Equal(shape, -1), ...)`).
      if (y.is_constant() && y.constant() <= 0 && x.is_positive()) return DimExpr(0);
      if (x.is_constant() && x.constant() <= 0 && y.is_positive()) return DimExpr(0);
      return std::nullopt;
    }
    if (op == "Max" || op == "Min") {
      int sign = 0;
      if (diff.is_constant()) sign = diff.constant() >= 0 ? 1 : -1;
      else if (diff.is_positive()) sign = 1;
      else if ((-diff).is_positive()) sign = -1;
      if (!sign) return std::nullopt;
      return (op == "Max") == (sign > 0) ? x : y;
    }
    return std::nullopt;
  }
  static bool dtype_is_integer(const Node* n) {
    Value* o = n->output(0);
    return o && is_int_type(o->dtype);
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
