#include "registration.h"

#include <algorithm>

#include "ge/sdk/op_registry.h"

namespace ge::fusion {

std::vector<PassEntry>& pass_entries() {
  static std::vector<PassEntry> v;
  return v;
}
std::vector<std::function<std::shared_ptr<FusionRule>()>>& rule_entries() {
  static std::vector<std::function<std::shared_ptr<FusionRule>()>> v;
  return v;
}
std::vector<InferEntry>& infer_entries() {
  static std::vector<InferEntry> v;
  return v;
}

OptionDecl fold_limit_option();  // constant_folding.cc

void register_all(Registrar& r) {
  r.declare_option(fold_limit_option());
  for (const OpFile& f : embedded_op_files())
    for (OpDef& d : parse_op_defs_toml(f.text, f.origin)) r.add_op(std::move(d));
  for (const InferEntry& e : infer_entries()) r.set_shape_inference(e.domain, e.op_type, e.fn);
  std::vector<PassEntry> passes = pass_entries();
  std::stable_sort(passes.begin(), passes.end(), [](auto& a, auto& b) { return a.order < b.order; });
  for (auto& p : passes) r.add_pass(p.make());
  for (auto& make : rule_entries()) r.add_fusion_rule(make());
}

}  // namespace ge::fusion
