#include "pass_context.h"

#include <algorithm>

#include "ge/sdk/error.h"

namespace ge::core {

std::optional<std::string> HostPassContext::option(const std::string& section, const std::string& key) const {
  auto s = env_.manifest.sections.find(section);
  if (s == env_.manifest.sections.end()) return std::nullopt;
  auto k = s->second.find(key);
  if (k == s->second.end()) return std::nullopt;
  return k->second.toml;
}

std::string HostPassContext::skip_reason(const std::string& name, OptLevel min_level, NumericsEffect numerics) const {
  if (std::find(opts_.disabled.begin(), opts_.disabled.end(), name) != opts_.disabled.end())
    return "skipped: disabled by name";
  if (opts_.opt_level < min_level)
    return "skipped: needs O" + std::to_string(static_cast<int>(min_level)) + ", compiling at O" +
           std::to_string(static_cast<int>(opts_.opt_level));
  if (opts_.strict_numerics && numerics != NumericsEffect::Exact)
    return "skipped: " + std::string(numerics_effect_name(numerics)) + " under numerics = strict";
  return "";
}

bool HostPassContext::rule_enabled(const std::string& rule) const {
  for (auto& [r, src] : env_.fusion_rules) {
    FusionRuleInfo info = r->info();
    if (info.name != rule) continue;
    if (opts_.fusion_enable &&
        std::find(opts_.fusion_enable->begin(), opts_.fusion_enable->end(), rule) == opts_.fusion_enable->end())
      return false;
    return skip_reason(rule, info.min_level, info.numerics).empty();
  }
  return false;
}

void HostPassContext::infer_shapes(Node& n) const {
  int64_t opset = graph_.opset(n.domain());
  // A domain the model never imported (GE's own "ge" ops created by a pass): newest definition.
  const OpDef* def = opset > 0 ? env_.ops.find(n.domain(), n.op_type(), opset) : env_.ops.find_any(n.domain(), n.op_type());
  if (def && opset == 0) opset = def->since_version;
  if (!def || !def->infer) throw Error(n.describe() + ": no registered definition with shape inference at opset " + std::to_string(opset));
  InferContext ctx(n, *def, opset);
  def->infer(ctx);
}

std::optional<std::vector<Tensor>> HostPassContext::evaluate(const Node& n) const {
  const KernelDef* kd = env_.kernels.find(opts_.host_backend, n.domain(), n.op_type());
  if (!kd) return std::nullopt;
  KernelBuildContext bc{n, graph_.opset(n.domain()), 1};
  std::unique_ptr<Kernel> k = kd->factory(bc);
  std::vector<Tensor> ins, outs;
  for (Value* v : n.inputs()) {
    if (v && !v->data) throw Error(n.describe() + ": evaluate() needs every input to be known");
    ins.push_back(v ? *v->data : Tensor());
  }
  for (Value* v : n.outputs()) outs.push_back(v ? Tensor::allocate(v->dtype, v->shape) : Tensor());
  KernelIO io{ins, outs};
  k->run(io);
  return outs;
}

}  // namespace ge::core
