// plugins/ascend_backend/precision_pass.cc — `ascend_precision`: applies the precision mode to a
// graph compiled for backend "ascend" and counts where each node will run.
//
// precision_plan.h decides which nodes compute in fp16 (mode, allow_mix_precision's lists,
// keep_dtype, the optional compile-time overflow check); this file rewrites the graph: a node
// computing in fp16 gets fp16 outputs (a graph output keeps its name and fp32 dtype through a
// ge.Cast from a new fp16 value), its constant float inputs are converted at compile time (no Cast
// runs for weights; a constant beyond fp16's range is refused, naming it), its other fp32 inputs
// get a ge.Cast to fp16 (one per value), and every fp16 value read by a node that stays fp32 gets
// a ge.Cast back. A dtype follower (precision_plan.h: Transpose, Slice, Gather and the views)
// in fp16 already reads an fp16 value, so it gets no Cast; only its outputs turn fp16. Graph inputs and outputs keep their dtypes. Every mode but
// must_keep_origin_dtype reduces precision, so numerics = "strict" refuses them (a ConfigError
// naming the mode), never silently.
//
// Report counters: ascend.casts.to_fp16 / to_fp32 (Cast nodes inserted), ascend.casts.constants
// (constants converted at compile time), one "ascend.cast.<value>" per Cast inserted (the list),
// ascend.precision.fp16_ops (candidates in fp16), ascend.precision.fp16_follow (dtype followers in
// fp16), ascend.precision.fp32.<why> (candidates kept in fp32, by reason) and
// one ascend.precision.kept.<node>:<why> per node kept by keep_dtype, the black list or the
// overflow check, ascend.overflow_check.* (when it runs), ascend.placement.{aicore.cube,
// aicore.vector,aicpu,view} (view: task.h is_view_node, no task) and ascend.placement.aicpu.<op>, ascend.ai_cores (of the soc_version).
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "ge/sdk/error.h"
#include "ge/sdk/precision_lists.h"
#include "overflow_check.h"
#include "placement.h"
#include "task.h"
#include "platform.h"
#include "precision.h"
#include "precision_plan.h"

namespace ge::ascend {

PrecisionMode precision_mode_from_name(const std::string& name) {
  if (name == "force_fp16") return PrecisionMode::ForceFp16;
  if (name == "allow_fp32_to_fp16") return PrecisionMode::AllowFp32ToFp16;
  if (name == "allow_mix_precision") return PrecisionMode::AllowMixPrecision;
  if (name == "must_keep_origin_dtype") return PrecisionMode::MustKeepOriginDtype;
  throw ConfigError("ascend.precision_mode '" + name +
                    "' is unknown (known: force_fp16, allow_fp32_to_fp16, allow_mix_precision, must_keep_origin_dtype)");
}

std::string precision_mode_name(PrecisionMode m) {
  switch (m) {
    case PrecisionMode::ForceFp16: return "force_fp16";
    case PrecisionMode::AllowFp32ToFp16: return "allow_fp32_to_fp16";
    case PrecisionMode::AllowMixPrecision: return "allow_mix_precision";
    case PrecisionMode::MustKeepOriginDtype: return "must_keep_origin_dtype";
  }
  return "?";
}

namespace {

/// Parses one option's TOML text (`"x"`, `["a", "b"]`, `[0.0, 1.0]`) into a node.
toml::table option_value(const std::string& key, const std::string& text) {
  try {
    return toml::parse("v = " + text);
  } catch (const toml::parse_error& e) {
    throw ConfigError("ascend." + key + ": cannot read value " + text + ": " + std::string(e.description()));
  }
}

std::string string_option(PassContext& ctx, const std::string& key, const std::string& dflt) {
  return ctx.string_option("ascend", key, dflt);
}

/// ascend.keep_dtype: an array of entries, or a string naming a file in the vendor's format.
KeepDtype keep_dtype_option(PassContext& ctx) { return ge::keep_dtype_option(ctx.option("ascend", "keep_dtype"), "ascend"); }

/// ascend.overflow_check_inputs: [lo, hi] (seeded, default [-1, 1]) or "DIR" (input_K.pb files).
CheckInputs check_inputs_option(PassContext& ctx) {
  CheckInputs in;
  const auto t = ctx.option("ascend", "overflow_check_inputs");
  if (!t) return in;
  const toml::table v = option_value("overflow_check_inputs", *t);
  if (v["v"].is_string()) {
    in.dir = *v["v"].value<std::string>();
    return in;
  }
  const toml::array* a = v["v"].as_array();
  auto num = [&](size_t i) -> std::optional<double> {
    if (!a || a->size() != 2) return std::nullopt;
    const toml::node* e = a->get(i);
    if (auto d = e->value<double>()) return *d;
    return std::nullopt;
  };
  const auto lo = num(0), hi = num(1);
  if (!lo || !hi || !(*lo < *hi))
    throw ConfigError("ascend.overflow_check_inputs: value " + *t +
                      " must be [lo, hi] with lo < hi (the uniform range of seeded float inputs) or a directory of input_K.pb files");
  in.lo = *lo;
  in.hi = *hi;
  return in;
}

std::string fmt(double x) {
  std::ostringstream s;
  s.precision(8);
  s << x;
  return s.str();
}

class PrecisionPass : public Pass {
 public:
  explicit PrecisionPass(std::string dir) : dir_(std::move(dir)) {}
  PassInfo info() const override {
    PassInfo i;
    i.name = "ascend_precision";
    i.stage = Stage::Fusion;
    i.min_level = OptLevel::O0;
    i.numerics = NumericsEffect::Exact;  // runs at every level; refuses the reducing modes itself under strict
    i.summary = "ascend: precision mode (force_fp16, allow_fp32_to_fp16, allow_mix_precision: casts to fp16 around AI Core ops) and placement counts";
    i.options = {"ascend.precision_mode", "ascend.soc_version",     "ascend.keep_dtype",
                 "ascend.modify_mixlist",  "ascend.overflow_check", "ascend.overflow_check_inputs"};
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    if (ctx.backend() != "ascend") return false;
    const Platform p = load_platform(dir_, string_option(ctx, "soc_version", "Ascend910A"));
    ctx.count("ascend.ai_cores", p.get_int("ai_cores"));
    const PrecisionMode mode = precision_mode_from_name(string_option(ctx, "precision_mode", "force_fp16"));
    const KeepDtype keep = keep_dtype_option(ctx);
    check_keep_dtype(keep, g, ctx.ops(), "ascend_precision");
    const std::string mixlist = string_option(ctx, "modify_mixlist", "");
    const std::string check = string_option(ctx, "overflow_check", "off");
    if (check != "off" && check != "error" && check != "keep")
      throw ConfigError("ascend.overflow_check '" + check + "' is unknown (known: off, error, keep)");
    if (!mixlist.empty() && mode != PrecisionMode::AllowMixPrecision)
      throw ConfigError("ascend.modify_mixlist ('" + mixlist + "') applies to precision_mode allow_mix_precision only; precision_mode is '" +
                        precision_mode_name(mode) + "'");
    bool changed = false;
    if (mode != PrecisionMode::MustKeepOriginDtype) {
      if (ctx.strict_numerics())
        throw ConfigError("ascend.precision_mode '" + precision_mode_name(mode) +
                          "' reduces precision and numerics = \"strict\" allows only exact rewrites; use --set "
                          "ascend.precision_mode=must_keep_origin_dtype");
      MixLists lists;
      if (mode == PrecisionMode::AllowMixPrecision) {
        lists = shipped_mix_lists(ctx.ops(), "ascend");
        if (!mixlist.empty()) modify_mix_lists(lists, mixlist, ctx.ops(), "ascend");
      }
      PrecisionPlan plan = plan_precision(g, mode, &lists, keep);
      if (check != "off") plan = overflow_check(g, ctx, mode, lists, keep, plan, check == "keep");
      count_plan(ctx, plan);
      changed = lower_to_fp16(g, ctx, plan.fp16, plan.follow);
    }
    for (const Node* n : g.nodes()) {
      if (is_view_node(*n)) {  // no task (task.h): counted apart from the AI CPU
        ctx.count("ascend.placement.view");
        continue;
      }
      const Engine e = engine_for(*n);
      ctx.count(e == Engine::Cube ? "ascend.placement.aicore.cube"
                : e == Engine::Vector ? "ascend.placement.aicore.vector"
                                      : "ascend.placement.aicpu");
      if (e == Engine::AiCpu) ctx.count("ascend.placement.aicpu." + n->op_type());
    }
    return changed;
  }

 private:
  static void count_plan(PassContext& ctx, const PrecisionPlan& plan) {
    ctx.count("ascend.precision.fp16_ops", static_cast<int64_t>(plan.fp16.size() - plan.follow.size()));
    ctx.count("ascend.precision.fp16_follow", static_cast<int64_t>(plan.follow.size()));
    if (!plan.fp16.empty()) ctx.count("numerics.reduces_precision", static_cast<int64_t>(plan.fp16.size()));
    for (auto& [n, why] : plan.fp32_why) {
      ctx.count("ascend.precision.fp32." + why);
      if (why != "gray" && why != "vector") ctx.count("ascend.precision.kept." + n->name() + ":" + why);
    }
  }

  /// Runs the fp32 graph once (overflow_check.h); candidates of the plan whose values exceed 65504
  /// (a dtype follower only copies its input: it follows its producer back to fp32)
  /// are refused (an error naming the first and suggesting keep_dtype for all) or, with `keep`,
  /// kept in fp32 and the plan redone.
  static PrecisionPlan overflow_check(const Graph& g, PassContext& ctx, PrecisionMode mode, const MixLists& lists,
                                      const KeepDtype& keep, PrecisionPlan plan, bool keep_them) {
    const OverflowScan s = scan_fp32_ranges(g, ctx, check_inputs_option(ctx));
    std::vector<const Node*> over;
    for (const Node* n : g.topological_order())
      if (plan.fp16.count(n) && !plan.follow.count(n) && s.max_abs.at(n->name()) > kFp16Max) over.push_back(n);
    ctx.count("ascend.overflow_check.nodes", static_cast<int64_t>(over.size()));
    if (over.empty()) return plan;
    if (keep_them) {
      std::set<std::string> names;
      for (const Node* n : over) names.insert(n->name());
      return plan_precision(g, mode, &lists, keep, names);
    }
    std::string list;
    for (const Node* n : over) list += (list.empty() ? "\"" : ", \"") + n->name() + "\"";
    throw ConfigError("ascend: fp16 overflow at compile time: " + over[0]->describe() + " reaches |x| = " +
                fmt(s.max_abs.at(over[0]->name())) + " in fp32, beyond fp16's 65504 (" + s.input_desc + "); " +
                std::to_string(over.size()) + " node(s) of precision_mode " + precision_mode_name(mode) +
                " overflow — keep them in fp32: --set 'ascend.keep_dtype=[" + list +
                "]' (or ascend.overflow_check = \"keep\")");
  }

  Value* cast(Graph& g, PassContext& ctx, Value* v, DataType to) {
    // A graph output computed in fp16 already has its fp16 twin (keep_graph_outputs_fp32): read it.
    if (to == DataType::Float16)
      if (auto t = fp16_twin_.find(v); t != fp16_twin_.end()) return t->second;
    Value*& c = casts_[{v, to}];
    if (c) return c;
    const bool half = to == DataType::Float16;
    c = g.add_value(g.unique_value_name(v->name() + (half ? "_fp16" : "_fp32")), to, v->shape);
    c->format = v->format;
    Attributes a;
    a.set("to", static_cast<int64_t>(to));
    g.add_node("Cast", "", {v}, {c}, std::move(a), "ge");
    ctx.count(half ? "ascend.casts.to_fp16" : "ascend.casts.to_fp32");
    ctx.count("ascend.cast." + v->name() + (half ? ":fp32->fp16" : ":fp16->fp32"));
    return c;
  }

  /// A constant's fp16 copy (converted once, at compile time). A finite element beyond fp16's
  /// range is refused naming the constant and the reader: never a silent inf.
  static Tensor constant_to_fp16(const Value& v, const Node& reader) {
    const Tensor& t = *v.data;
    Tensor h = Tensor::allocate(DataType::Float16, t.shape(), t.format());
    const float* f = t.data_as<float>();
    uint16_t* p = h.data_as<uint16_t>();
    for (int64_t i = 0; i < t.storage_numel(); ++i) {
      p[i] = float_to_half(f[i]);
      if ((p[i] & 0x7c00u) == 0x7c00u && std::isfinite(f[i]))
        throw ConfigError("ascend: fp16 overflow at compile time: constant '" + v.name() + "' read by " + reader.describe() +
                    " holds " + fmt(f[i]) + " (element " + std::to_string(i) + "), beyond fp16's 65504; keep the node in fp32: "
                    "--set 'ascend.keep_dtype=[\"" + reader.name() + "\"]'");
    }
    return h;
  }

  /// A graph output keeps its name and fp32 dtype: n is rebuilt writing a new fp16 value, and a
  /// ge.Cast from it produces the graph output. Returns the node that now computes n's outputs.
  Node* keep_graph_outputs_fp32(Graph& g, PassContext& ctx, Node* n) {
    bool any = false;
    for (const Value* o : n->outputs()) any = any || (o && o->is_graph_output());
    if (!any) return n;
    const std::vector<Value*> ins = n->inputs(), outs = n->outputs();
    std::vector<Value*> fresh = outs;
    for (Value*& o : fresh)
      if (o && o->is_graph_output()) {
        Value* h = g.add_value(g.unique_value_name(o->name() + "_fp16"), DataType::Float16, o->shape);
        h->format = o->format;
        o = h;
      }
    Attributes a = n->attrs;
    const std::string name = n->name(), op = n->op_type(), domain = n->domain();
    g.remove_node(n);
    Node* m = g.add_node(op, name, ins, fresh, std::move(a), domain);
    for (size_t i = 0; i < outs.size(); ++i) {
      if (fresh[i] == outs[i]) continue;
      Attributes c;
      c.set("to", static_cast<int64_t>(DataType::Float32));
      g.add_node("Cast", "", {fresh[i]}, {outs[i]}, std::move(c), "ge");
      fp16_twin_[outs[i]] = fresh[i];
      ctx.count("ascend.casts.to_fp32");
      ctx.count("ascend.cast." + fresh[i]->name() + ":fp16->fp32");
    }
    return m;
  }

  bool lower_to_fp16(Graph& g, PassContext& ctx, const std::set<const Node*>& fp16, const std::set<const Node*>& follow) {
    casts_.clear();
    fp16_twin_.clear();
    std::set<Value*> halved;  // values this pass made fp16
    std::map<Value*, Value*> consts;
    const std::vector<Node*> order = g.topological_order();
    for (Node* n : order) {
      if (fp16.count(n)) {
        // A dtype follower's data input is already fp16 (its producer came first); its other
        // inputs (indices, shape, bounds, Dropout's ratio) keep their dtypes.
        // (Input 0 may still be fp32 when it is a graph output: it then reads its fp16 twin.)
        const size_t lowered = follow.count(n) ? 1 : n->num_inputs();
        for (size_t i = 0; i < lowered; ++i) {
          Value* v = n->input(i);
          if (!v || v->dtype != DataType::Float32) continue;
          if (v->is_constant()) {
            Value*& c = consts[v];
            if (!c) {
              c = g.add_constant(g.unique_value_name(v->name() + "_fp16"), constant_to_fp16(*v, *n));
              c->format = v->format;
              ctx.count("ascend.casts.constants");
            }
            g.set_input(n, i, c);
          } else {
            g.set_input(n, i, cast(g, ctx, v, DataType::Float16));
          }
        }
        n = keep_graph_outputs_fp32(g, ctx, n);
        for (Value* o : n->outputs())
          if (o && o->dtype == DataType::Float32) o->dtype = DataType::Float16, halved.insert(o);
      } else {
        for (size_t i = 0; i < n->num_inputs(); ++i) {
          Value* v = n->input(i);
          if (v && halved.count(v)) g.set_input(n, i, cast(g, ctx, v, DataType::Float32));
        }
      }
    }
    // Constants no reader uses any more (all converted) go.
    for (auto& [old, neu] : consts)
      if (old->uses().empty() && !old->is_graph_output() && !old->is_graph_input()) g.remove_value(old);
    if (!fp16.empty()) g.sort_topologically();  // each Cast before its readers (graph order = issue order)
    return !fp16.empty();
  }

  std::string dir_;
  std::map<std::pair<Value*, DataType>, Value*> casts_;
  std::map<Value*, Value*> fp16_twin_;  ///< graph output (fp32) -> the fp16 value its Cast reads
};

}  // namespace

std::shared_ptr<Pass> make_precision_pass(std::string platform_dir) {
  return std::make_shared<PrecisionPass>(std::move(platform_dir));
}

}  // namespace ge::ascend
