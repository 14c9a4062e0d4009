// gec compare: runs a model compiled at two levels on the same inputs and prints, for every
// tensor present in both compiled graphs, in execution order, the relative error between them —
// so a user finds the first fused node where results drift.
#include <cmath>
#include <cstdio>

#include "common.h"
#include "ge/core/compare.h"
#include "ge/sdk/error.h"

namespace gec {

int cmd_compare(const std::string& model, const CommonOptions& common, const std::string& level_a,
                const std::string& level_b, const std::string& inputs_dir, double threshold, bool fail_on_drift) {
  auto compile_at = [&](const std::string& level) {
    CommonOptions o = common;
    o.opt_level = level;
    // Every intermediate must keep its own bytes until the end of the run to be read back: no
    // arena reuse (memory level "none").
    o.sets.push_back("memory.level=\"none\"");
    auto env = o.load_environment();
    Compiled c = compile_model(model, *env, o);
    return std::make_pair(std::move(env), std::move(c));
  };
  auto [env_a, a] = compile_at(level_a);
  auto [env_b, b] = compile_at(level_b);
  std::vector<ge::Tensor> inputs =
      inputs_dir.empty() ? random_inputs(a.exe->graph(), 0) : read_inputs(inputs_dir, a.exe->graph());
  a.exe->run(inputs);
  b.exe->run(inputs);

  std::printf("%s: O%s has %zu kernels, O%s has %zu kernels\n", model.c_str(), level_a.c_str(), a.exe->num_kernels(),
              level_b.c_str(), b.exe->num_kernels());
  std::printf("%5s  %-40s %-22s %-22s %11s %11s\n", "#", "tensor", ("op at O" + level_a).c_str(),
              ("op at O" + level_b).c_str(), "rel_l2", "max_abs");
  int index = 0, compared = 0;
  std::string first_drift;
  for (ge::Node* n : a.exe->graph().topological_order()) {
    for (ge::Value* v : n->outputs()) {
      if (!v) continue;
      const ge::Value* vb = b.exe->graph().find_value(v->name());
      if (!vb || !vb->producer() || vb->shape != v->shape || vb->dtype != v->dtype) continue;
      std::optional<ge::Tensor> ta = a.exe->value(v->name()), tb = b.exe->value(v->name());
      if (!ta || !tb) continue;
      ge::core::Tolerance tol;
      tol.max_rel_l2 = threshold;
      ge::core::Comparison c = ge::core::compare_tensors(*tb, *ta, tol);
      ++compared;
      bool drift = c.rel_l2 > threshold;
      if (drift && first_drift.empty()) first_drift = v->name() + " (" + vb->producer()->op_type() + ")";
      std::printf("%5d  %-40s %-22s %-22s %11.3e %11.3e%s\n", index++, v->name().c_str(), n->op_type().c_str(),
                  vb->producer()->op_type().c_str(), c.rel_l2, c.max_abs, drift ? "  <- drift" : "");
    }
  }
  std::printf("%d tensors compared; ", compared);
  if (first_drift.empty()) std::printf("none above rel_l2 %.1e\n", threshold);
  else std::printf("first above rel_l2 %.1e: %s\n", threshold, first_drift.c_str());
  return fail_on_drift && !first_drift.empty() ? 1 : 0;
}

}  // namespace gec
