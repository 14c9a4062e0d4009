// plugins/ascend_backend/precision_pass.cc — `ascend_precision`: applies the precision mode to a
// graph compiled for backend "ascend" and counts where each node will run.
//
// force_fp16: every Cube or Vector op (placement.h) whose float inputs and outputs are fp32
// computes in fp16: its outputs become float16 (a graph output keeps its name and dtype through a
// ge.Cast from a new fp16 value), constant float inputs are
// converted at compile time (no Cast runs for weights), other fp32 inputs get a ge.Cast to fp16
// (one per value), and every fp16 value read by a node that stays fp32 gets a ge.Cast back. Graph
// inputs and outputs keep their dtypes. This mode reduces precision, so numerics = "strict"
// refuses it (a ConfigError naming the mode), never silently.
// must_keep_origin_dtype: dtypes are untouched (Cube ops on fp32 run on the AI CPU).
//
// Report counters: ascend.casts.to_fp16 / to_fp32 (Cast nodes inserted), ascend.casts.constants
// (constants converted at compile time), one "ascend.cast.<value>" per Cast inserted (the list),
// ascend.placement.{aicore.cube,aicore.vector,aicpu} and ascend.placement.aicpu.<op>, and
// ascend.ai_cores (of the selected soc_version).
#include <map>
#include <set>

#include "ge/sdk/error.h"
#include "placement.h"
#include "platform.h"
#include "precision.h"

namespace ge::ascend {

PrecisionMode precision_mode_from_name(const std::string& name) {
  if (name == "force_fp16") return PrecisionMode::ForceFp16;
  if (name == "must_keep_origin_dtype") return PrecisionMode::MustKeepOriginDtype;
  if (name == "allow_fp32_to_fp16" || name == "allow_mix_precision")
    throw ConfigError("ascend.precision_mode '" + name + "' is not implemented yet (docs/ascend.md); use force_fp16 or must_keep_origin_dtype");
  throw ConfigError("ascend.precision_mode '" + name + "' is unknown (known: force_fp16, must_keep_origin_dtype)");
}

namespace {

std::string unquote(const std::string& toml) {
  if (toml.size() >= 2 && toml.front() == '"' && toml.back() == '"') return toml.substr(1, toml.size() - 2);
  throw ConfigError("ascend: option value " + toml + " must be a string");
}

Tensor to_fp16(const Tensor& t) {
  Tensor h = Tensor::allocate(DataType::Float16, t.shape(), t.format());
  const float* f = t.data_as<float>();
  uint16_t* p = h.data_as<uint16_t>();
  for (int64_t i = 0; i < t.storage_numel(); ++i) p[i] = float_to_half(f[i]);
  return h;
}

class PrecisionPass : public Pass {
 public:
  explicit PrecisionPass(std::string dir) : dir_(std::move(dir)) {}
  PassInfo info() const override {
    PassInfo i;
    i.name = "ascend_precision";
    i.stage = Stage::Fusion;
    i.min_level = OptLevel::O0;
    i.numerics = NumericsEffect::Exact;  // runs at every level; refuses force_fp16 itself under strict
    i.summary = "ascend: precision mode (force_fp16 casts to fp16 around AI Core ops) and placement counts";
    i.options = {"ascend.precision_mode", "ascend.soc_version"};
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    if (ctx.backend() != "ascend") return false;
    const std::string soc = ctx.option("ascend", "soc_version") ? unquote(*ctx.option("ascend", "soc_version")) : "Ascend910A";
    const Platform p = load_platform(dir_, soc);
    ctx.count("ascend.ai_cores", p.get_int("ai_cores"));
    const std::string mode_name =
        ctx.option("ascend", "precision_mode") ? unquote(*ctx.option("ascend", "precision_mode")) : "force_fp16";
    const PrecisionMode mode = precision_mode_from_name(mode_name);
    bool changed = false;
    if (mode == PrecisionMode::ForceFp16) {
      if (ctx.strict_numerics())
        throw ConfigError("ascend.precision_mode 'force_fp16' reduces precision and numerics = \"strict\" allows only exact "
                          "rewrites; use --set ascend.precision_mode=must_keep_origin_dtype");
      changed = force_fp16(g, ctx);
    }
    for (const Node* n : g.nodes()) {
      const Engine e = engine_for(*n);
      ctx.count(e == Engine::Cube ? "ascend.placement.aicore.cube"
                : e == Engine::Vector ? "ascend.placement.aicore.vector"
                                      : "ascend.placement.aicpu");
      if (e == Engine::AiCpu) ctx.count("ascend.placement.aicpu." + n->op_type());
    }
    return changed;
  }

 private:
  static bool candidate(const Node& n) {
    if (!is_cube_op(n) && !is_vector_op(n)) return false;
    bool any = false;
    for (const Value* v : n.inputs())
      if (v && dtype_is_float(v->dtype)) {
        if (v->dtype != DataType::Float32) return false;
        any = true;
      }
    for (const Value* o : n.outputs())
      if (o && o->dtype != DataType::Float32) return false;
    return any;
  }

  Value* cast(Graph& g, PassContext& ctx, Value* v, DataType to) {
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
      ctx.count("ascend.casts.to_fp32");
      ctx.count("ascend.cast." + fresh[i]->name() + ":fp16->fp32");
    }
    return m;
  }

  bool force_fp16(Graph& g, PassContext& ctx) {
    casts_.clear();
    std::set<Value*> halved;  // values this pass made fp16
    std::map<Value*, Value*> consts;
    const std::vector<Node*> order = g.topological_order();
    std::set<const Node*> fp16;
    for (Node* n : order)
      if (candidate(*n)) fp16.insert(n);
    for (Node* n : order) {
      if (fp16.count(n)) {
        for (size_t i = 0; i < n->num_inputs(); ++i) {
          Value* v = n->input(i);
          if (!v || v->dtype != DataType::Float32) continue;
          if (v->is_constant()) {
            Value*& c = consts[v];
            if (!c) {
              c = g.add_constant(g.unique_value_name(v->name() + "_fp16"), to_fp16(*v->data));
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
    return !fp16.empty();
  }

  std::string dir_;
  std::map<std::pair<Value*, DataType>, Value*> casts_;
};

}  // namespace

std::shared_ptr<Pass> make_precision_pass(std::string platform_dir) {
  return std::make_shared<PrecisionPass>(std::move(platform_dir));
}

}  // namespace ge::ascend
