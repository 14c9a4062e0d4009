// Passes for the pass manager's tests:
//   rename_relu (simplify, O1, exact): Relu → Relu with a marker attribute "seen" (changes the graph)
//   reassoc (simplify, O1, reassociates): marks Relu nodes "reassoc"
//   aggressive (fusion, O3, exact): marks Relu nodes "o3"
//   explode (simplify, O1, exact): adds a marker, then throws — the manager must undo both
//   reads_option (layout, O1, exact): declares option "layout.test_key"
//   late_simplify (simplify, O1, exact): registered first, but states after = {"reassoc"}
//   explode_late (layout, O1, exact): as explode, after every other pass has changed the graph —
//     undoing it must keep their changes
#include <stdexcept>

#include "ge/sdk/plugin.h"

namespace {
class MarkPass : public ge::Pass {
 public:
  MarkPass(ge::PassInfo info, std::string mark, bool throws = false)
      : info_(std::move(info)), mark_(std::move(mark)), throws_(throws) {}
  ge::PassInfo info() const override { return info_; }
  bool run(ge::Graph& g, ge::PassContext&) override {
    bool changed = false;
    for (ge::Node* n : g.nodes())
      if (n->op_type() == "Relu") {
        n->attrs.set(mark_, int64_t{1});
        changed = true;
      }
    if (throws_) throw std::runtime_error("explode: deliberate failure");
    return changed;
  }

 private:
  ge::PassInfo info_;
  std::string mark_;
  bool throws_;
};

ge::PassInfo info(const char* name, ge::Stage st, ge::OptLevel lvl, ge::NumericsEffect num) {
  ge::PassInfo i;
  i.name = name;
  i.stage = st;
  i.min_level = lvl;
  i.numerics = num;
  return i;
}

void reg(ge::Registrar& r) {
  using ge::NumericsEffect;
  using ge::OptLevel;
  using ge::Stage;
  ge::PassInfo late = info("late_simplify", Stage::Simplify, OptLevel::O1, NumericsEffect::Exact);
  late.after = {"reassoc", "no_such_pass"};  // a pass not loaded is ignored
  r.add_pass(std::make_shared<MarkPass>(late, "late"));
  r.add_pass(std::make_shared<MarkPass>(info("explode", Stage::Simplify, OptLevel::O1, NumericsEffect::Exact), "exploded", true));
  r.add_pass(std::make_shared<MarkPass>(info("rename_relu", Stage::Simplify, OptLevel::O1, NumericsEffect::Exact), "seen"));
  r.add_pass(std::make_shared<MarkPass>(info("reassoc", Stage::Simplify, OptLevel::O1, NumericsEffect::Reassociates), "reassoc"));
  r.add_pass(std::make_shared<MarkPass>(info("aggressive", Stage::Fusion, OptLevel::O3, NumericsEffect::Exact), "o3"));
  ge::PassInfo opt = info("reads_option", Stage::Layout, OptLevel::O1, NumericsEffect::Exact);
  opt.options = {"layout.test_key"};
  r.add_pass(std::make_shared<MarkPass>(opt, "layout"));
  r.add_pass(std::make_shared<MarkPass>(info("explode_late", Stage::Layout, OptLevel::O1, NumericsEffect::Exact),
                                        "exploded_late", true));
}
}  // namespace

GE_PLUGIN("test_passes", "1.0.0", reg)
