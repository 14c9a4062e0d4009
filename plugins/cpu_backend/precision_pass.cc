// plugins/cpu_backend/precision_pass.cc — `cpu_precision`: the cpu backend's precision mode
// (docs/cpu.md), CANN's names:
//   must_keep_origin_dtype (default)  every node computes in its dtype (fp32);
//   allow_mix_precision_bf16          white ops of the shared lists (ge/sdk/precision_lists.h)
//                                     that have a bf16 kernel here (bf16.h: Conv, ConvTranspose,
//                                     MatMul, Gemm, ge.FusedConv, ge.FusedMatMul) compute with
//                                     bf16 operands and fp32 accumulation; every other op — black,
//                                     gray, kept by cpu.keep_dtype — stays fp32.
// Activations between ops stay float32 values in the graph (the kernels convert at their
// boundary), so graph inputs and outputs keep their dtypes and no Cast is inserted. A bf16 node
// gets the attribute cpu_compute_dtype = "bfloat16" (bf16.h), and its constant float32 inputs 0
// and 1 (weights, a constant MatMul operand) are rounded to bf16 at compile time (round to nearest
// even, oneDNN's conversion), one new constant per original (readers kept in fp32 keep theirs).
//
// Options: cpu.precision_mode; cpu.keep_dtype (array of node names / "OpType::X", or a file);
// cpu.modify_mixlist (the vendor's file format); cpu.bf16_fallback = "refuse" (default: a CPU
// without AVX512_BF16 refuses the plan at load) | "emulate" (bf16 operands computed by the fp32
// kernels there: the same numerics, no speed-up). allow_mix_precision_bf16 reduces precision, so
// numerics = "strict" refuses it (ConfigError), never silently.
//
// Report counters: cpu.precision.mode.<mode>, cpu.precision.bf16_ops, cpu.precision.constants,
// cpu.precision.fp32.<why> (white ops kept: keep_dtype, not_float32) and one
// cpu.precision.kept.<node>:keep_dtype per node kept; numerics.reduces_precision (bf16 nodes) flags
// the compile as numerics-changing.
#include <algorithm>
#include <map>
#include <set>

#include <toml++/toml.h>

#include "bf16.h"
#include "ge/sdk/error.h"
#include "ge/sdk/pass.h"
#include "ge/sdk/precision_lists.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

toml::table option_value(const std::string& key, const std::string& text) {
  try {
    return toml::parse("v = " + text);
  } catch (const toml::parse_error& e) {
    throw ConfigError("cpu." + key + ": cannot read value " + text + ": " + std::string(e.description()));
  }
}

std::string string_option(PassContext& ctx, const std::string& key, const std::string& dflt,
                          const std::vector<std::string>& choices) {
  const auto t = ctx.option("cpu", key);
  if (!t) return dflt;
  const toml::table v = option_value(key, *t);
  std::string known;
  for (const std::string& c : choices) known += (known.empty() ? "" : ", ") + c;
  if (!v["v"].is_string())
    throw ConfigError("cpu." + key + " = " + *t + ": must be a string" + (known.empty() ? "" : ", one of " + known));
  const std::string s = *v["v"].value<std::string>();
  if (!choices.empty() && std::find(choices.begin(), choices.end(), s) == choices.end())
    throw ConfigError("cpu." + key + " = \"" + s + "\": unknown (known: " + known + ")");
  return s;
}

KeepDtype keep_dtype_option(PassContext& ctx) { return ge::keep_dtype_option(ctx.option("cpu", "keep_dtype"), "cpu"); }

Tensor constant_to_bf16(const Tensor& t) {
  Tensor r = Tensor::allocate(DataType::Float32, t.shape(), t.format());
  round_to_bf16(t.data_as<float>(), r.data_as<float>(), t.storage_numel());
  return r;
}

class CpuPrecisionPass : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "cpu_precision";
    i.stage = Stage::Fusion;  // after the fusion rules (the fused ops are in the lists), before layout
    i.min_level = OptLevel::O0;
    i.numerics = NumericsEffect::Exact;  // runs at every level; refuses the bf16 mode itself under strict
    i.summary = "cpu: precision mode (allow_mix_precision_bf16: white matrix ops with bf16 operands, fp32 accumulation)";
    i.options = {"cpu.precision_mode", "cpu.keep_dtype", "cpu.modify_mixlist", "cpu.bf16_fallback"};
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    if (ctx.backend() != "cpu") return false;
    const std::string mode =
        string_option(ctx, "precision_mode", "must_keep_origin_dtype", {"must_keep_origin_dtype", "allow_mix_precision_bf16"});
    const std::string fallback = string_option(ctx, "bf16_fallback", "refuse", {"refuse", "emulate"});
    const std::string mixlist = string_option(ctx, "modify_mixlist", "", {});
    const KeepDtype keep = keep_dtype_option(ctx);
    ctx.count("cpu.precision.mode." + mode);
    if (mode == "must_keep_origin_dtype") {
      if (!mixlist.empty() || !keep.empty() || ctx.option("cpu", "bf16_fallback"))
        throw ConfigError(std::string("cpu.") + (!mixlist.empty() ? "modify_mixlist" : !keep.empty() ? "keep_dtype" : "bf16_fallback") +
                          " applies to cpu.precision_mode allow_mix_precision_bf16 only; precision_mode is 'must_keep_origin_dtype'");
      return false;
    }
    if (ctx.strict_numerics())
      throw ConfigError("cpu.precision_mode 'allow_mix_precision_bf16' reduces precision and numerics = \"strict\" allows only "
                        "exact rewrites; use --set cpu.precision_mode=must_keep_origin_dtype");
    check_keep_dtype(keep, g, ctx.ops(), "cpu_precision");
    MixLists lists = shipped_mix_lists(ctx.ops(), "cpu");
    if (!mixlist.empty()) modify_mix_lists(lists, mixlist, ctx.ops(), "cpu");
    const auto& capable = bf16_op_types();

    std::map<Value*, Value*> rounded;  // original constant → its bf16-rounded copy
    int64_t ops = 0;
    for (Node* n : g.topological_order()) {
      const std::string key = op_key(*n);
      if (lists.of(*n) != MixClass::White || std::find(capable.begin(), capable.end(), key) == capable.end()) continue;
      if (keep.keeps(*n)) {
        ctx.count("cpu.precision.fp32.keep_dtype");
        ctx.count("cpu.precision.kept." + n->name() + ":keep_dtype");
        continue;
      }
      bool f32 = n->output(0) && n->output(0)->dtype == DataType::Float32;
      for (size_t i = 0; i < 2 && i < n->num_inputs(); ++i) f32 = f32 && n->input(i) && n->input(i)->dtype == DataType::Float32;
      if (!f32) {
        ctx.count("cpu.precision.fp32.not_float32");
        continue;
      }
      n->attrs.set(kComputeDtypeAttr, std::string("bfloat16"));
      if (fallback == "emulate") n->attrs.set(kBf16FallbackAttr, std::string("emulate"));
      for (size_t i = 0; i < 2; ++i) {
        Value* v = n->input(i);
        if (!v->is_constant() || !v->data) continue;
        Value*& c = rounded[v];
        if (!c) {
          c = g.add_constant(g.unique_value_name(v->name() + "_bf16"), constant_to_bf16(*v->data));
          c->format = v->format;
          ctx.count("cpu.precision.constants");
        }
        g.set_input(n, i, c);
      }
      ++ops;
    }
    for (auto& [old, neu] : rounded)
      if (old->uses().empty() && !old->is_graph_output() && !old->is_graph_input()) g.remove_value(old);
    ctx.count("cpu.precision.bf16_ops", ops);
    if (ops > 0) ctx.count("numerics.reduces_precision", ops);
    return ops > 0;
  }
};

}  // namespace

std::shared_ptr<Pass> make_cpu_precision_pass() { return std::make_shared<CpuPrecisionPass>(); }

}  // namespace ge::cpu
