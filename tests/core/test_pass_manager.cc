// The pass manager: levels, names, numerics policy, restore on failure, printing, options.
#include <gtest/gtest.h>

#include <sstream>

#include "ge/core/environment.h"
#include "ge/core/manifest.h"
#include "ge/core/pipeline.h"
#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"
#include "test_helpers.h"

using namespace ge;

namespace {
const std::string kManifest = std::string("[[plugin]]\nname = \"registry\"\npath = \"") + GE_PLUGIN_DIR +
                              "/libge_registry.so\"\n[[plugin]]\nname = \"test_passes\"\npath = \"" +
                              GE_TEST_PLUGIN_DIR + "/libge_test_passes.so\"\n";

std::unique_ptr<core::Environment> env_with(const std::string& extra = "") {
  return core::load_environment(core::load_manifest(test::write_temp_manifest(kManifest + extra)));
}

std::unique_ptr<Graph> relu_graph() {
  auto g = parse_graph(
      "graph g opset(ai.onnx=13) {\n"
      "  input %x: f32[2,3]\n"
      "  %y: f32[2,3] = Relu(%x)\n"
      "  output %y\n"
      "}\n");
  return g;
}

std::string status_of(const core::CompileResult& r, const std::string& name) {
  for (auto& p : r.passes)
    if (p.name == name) return p.status;
  return "<absent>";
}

std::string relu_attrs(const Graph& g) {
  std::string s;
  for (auto& [k, v] : g.nodes()[0]->attrs.all()) s += k + " ";
  return s;
}
}  // namespace

TEST(PassManager, RunsByStageAndSkipsByLevel) {
  auto env = env_with();
  auto g = relu_graph();
  core::CompileOptions o;
  o.opt_level = OptLevel::O2;
  core::CompileResult r = core::compile_graph(*g, *env, o);
  EXPECT_EQ(status_of(r, "rename_relu"), "ran");
  EXPECT_EQ(status_of(r, "reassoc"), "ran");
  EXPECT_EQ(status_of(r, "aggressive"), "skipped: needs O3, compiling at O2");
  EXPECT_EQ(relu_attrs(*g), "late layout reassoc seen ");
  // Stage order: simplify passes before fusion before layout; within a stage, registration order
  // except where a pass states its place (late_simplify, registered first, runs after reassoc).
  std::vector<std::string> order;
  for (auto& p : r.passes) order.push_back(p.name);
  EXPECT_EQ(order, (std::vector<std::string>{"explode", "rename_relu", "reassoc", "late_simplify", "aggressive", "reads_option", "explode_late"}));
}

TEST(PassManager, O0RunsNothing) {
  auto env = env_with();
  auto g = relu_graph();
  core::CompileOptions o;
  o.opt_level = OptLevel::O0;
  core::CompileResult r = core::compile_graph(*g, *env, o);
  EXPECT_EQ(status_of(r, "rename_relu"), "skipped: needs O1, compiling at O0");
  EXPECT_EQ(relu_attrs(*g), "");
}

TEST(PassManager, StrictNumericsRefusesNonExactPasses) {
  auto env = env_with();
  auto g = relu_graph();
  core::CompileOptions o;
  o.strict_numerics = true;
  core::CompileResult r = core::compile_graph(*g, *env, o);
  EXPECT_EQ(status_of(r, "reassoc"), "skipped: reassociates under numerics = strict");
  EXPECT_EQ(relu_attrs(*g).find("reassoc"), std::string::npos);
}

TEST(PassManager, DisablesByNameAndRejectsUnknownNames) {
  auto env = env_with();
  auto g = relu_graph();
  core::CompileOptions o;
  o.disabled = {"rename_relu"};
  core::CompileResult r = core::compile_graph(*g, *env, o);
  EXPECT_EQ(status_of(r, "rename_relu"), "skipped: disabled by name");
  o.disabled = {"no_such_pass"};
  try {
    core::compile_graph(*g, *env, o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("disable names 'no_such_pass', which is no loaded pass or fusion rule"),
              std::string::npos)
        << e.what();
  }
}

TEST(PassManager, RestoresTheGraphWhenAPassThrows) {
  auto env = env_with();
  auto g = relu_graph();
  core::CompileResult r = core::compile_graph(*g, *env, {});
  EXPECT_EQ(status_of(r, "explode"), "failed: explode: deliberate failure (graph restored)");
  EXPECT_EQ(relu_attrs(*g).find("exploded"), std::string::npos);  // its marker was undone
  EXPECT_NE(relu_attrs(*g).find("seen"), std::string::npos);      // later passes still ran
}

TEST(PassManager, UndoingALatePassKeepsWhatEarlierPassesDid) {
  // explode_late fails after rename_relu, reassoc, late_simplify and reads_option changed the
  // graph: the graph is theirs, without explode_late's marker (nor explode's).
  auto env = env_with();
  auto g = relu_graph();
  core::CompileOptions o;
  o.opt_level = OptLevel::O2;
  core::CompileResult r = core::compile_graph(*g, *env, o);
  EXPECT_EQ(status_of(r, "explode_late"), "failed: explode: deliberate failure (graph restored)");
  EXPECT_EQ(relu_attrs(*g), "late layout reassoc seen ");
  EXPECT_EQ(g->num_nodes(), 1u);
}

TEST(PassManager, UndoesWithTheCallersRebuildInsteadOfACopy) {
  // With rebuild_received the pass manager keeps no copy: it asks for the received graph again
  // once per failed pass (explode and explode_late fail at O2) and replays the passes before it.
  auto env = env_with();
  auto g = relu_graph();
  core::CompileOptions o;
  o.opt_level = OptLevel::O2;
  int rebuilt = 0;
  o.rebuild_received = [&] {
    ++rebuilt;
    return relu_graph();
  };
  core::CompileResult r = core::compile_graph(*g, *env, o);
  EXPECT_EQ(rebuilt, 2);
  EXPECT_EQ(status_of(r, "explode_late"), "failed: explode: deliberate failure (graph restored)");
  EXPECT_EQ(relu_attrs(*g), "late layout reassoc seen ");
  // A rebuild that gives nothing back is an error, not an empty graph.
  auto h = relu_graph();
  o.rebuild_received = [] { return std::unique_ptr<Graph>(); };
  try {
    core::compile_graph(*h, *env, o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "compile: the received graph could not be rebuilt to undo a failed pass");
  }
}

TEST(PassManager, FailOnPassErrorNamesThePass) {
  auto env = env_with();
  auto g = relu_graph();
  core::CompileOptions o;
  o.fail_on_pass_error = true;
  try {
    core::compile_graph(*g, *env, o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "pass 'explode' failed: explode: deliberate failure");
  }
}

TEST(PassManager, PrintsAfterANamedPass) {
  auto env = env_with();
  auto g = relu_graph();
  std::ostringstream os;
  core::CompileOptions o;
  o.disabled = {"explode"};
  o.print_after = {"rename_relu"};
  o.print_to = &os;
  core::compile_graph(*g, *env, o);
  EXPECT_EQ(os.str(),
            "// after rename_relu (simplify)\n"
            "graph g opset(ai.onnx=13) {\n"
            "  input %x: f32[2,3]\n"
            "  %y: f32[2,3] = Relu(%x) {seen=1}  # " + g->nodes()[0]->name() + "\n"
            "  output %y\n"
            "}\n");
}

TEST(PassManager, RefusesManifestOptionsNoPassReads) {
  auto env = env_with("[layout]\ntest_key = 1\nother_key = 2\n");
  auto g = relu_graph();
  try {
    core::compile_graph(*g, *env, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(".toml:9: unknown key 'other_key' in [layout]: no loaded plugin reads it"),
              std::string::npos)
        << e.what();
  }
}

namespace {
/// Matches every Relu and rewrites it into a Relu again: it never reaches a fixed point.
class EndlessRule : public FusionRule {
 public:
  FusionRuleInfo info() const override { return {"endless", NumericsEffect::Exact, OptLevel::O1, 0, "never done"}; }
  std::vector<std::string> anchor_ops() const override { return {"Relu"}; }
  bool match(Node& anchor, const PassContext&, Match& m) const override {
    m.nodes["relu"] = &anchor;
    return true;
  }
  void rewrite(Graph&, PassContext&, const Match& m) const override {
    Node* n = m.node("relu");
    n->attrs.set("rewrites", n->attrs.get_int("rewrites", 0) + 1);
  }
};
}  // namespace

// A rule still matching at the sweep cap is reported in its record, not stopped silently.
TEST(PassManager, ReportsARuleStoppedAtTheSweepCap) {
  auto env = env_with();
  env->fusion_rules.push_back({std::make_shared<EndlessRule>(), "test"});
  auto g = relu_graph();
  core::CompileOptions o;
  o.disabled = {"explode"};
  core::CompileResult r = core::compile_graph(*g, *env, o);
  EXPECT_EQ(status_of(r, "endless"),
            "stopped: still matching after 64 sweeps (its rewrites create new matches); the rest were not applied");
  EXPECT_EQ(r.counters["fusion.endless"], 64);
  EXPECT_EQ(g->nodes()[0]->attrs.get_int("rewrites", 0), 64);
}
