// Backend sections of plan files (ge/sdk/plan_section.h) on the CPU backend with a test section:
// written for the plan's backend, handed back to its validator at load with the loaded graph, the
// manifest's options and the weights ranges; refused when no plugin reads it, when the plan lacks
// a section its backend requires, when the validator refuses (after a resealed edit), and a
// writer's refusal stops the save.
#include "ge/sdk/error.h"
#include "plan_test_util.h"

using namespace plan_test;

namespace {

/// "nodes=N;planner=P;w=name:offset:size,..." — what the test section stores.
std::string describe_graph(const ge::PlanSectionContext& c) {
  std::string s = "nodes=" + std::to_string(c.graph().num_nodes()) + ";planner=" + c.option("memory", "planner").value_or("-") +
                  ";w=";
  for (const ge::Value* v : c.graph().values())
    if (auto r = c.weights_range(*v)) s += v->name() + ":" + std::to_string(r->offset) + ":" + std::to_string(r->size) + ",";
  return s + ";bytes=" + std::to_string(c.weights_bytes());
}

struct SectionEnv {
  std::unique_ptr<ge::core::Environment> env;
  int writes = 0, validations = 0;
  bool refuse_write = false;
};

std::unique_ptr<SectionEnv> env_with_section() {
  auto s = std::make_unique<SectionEnv>();
  s->env = ge::core::load_environment(ge::core::load_manifest(ge::core::default_manifest_path()));
  ge::PlanSectionDef d;
  d.name = "test.graph";
  d.backend = "cpu";
  SectionEnv* p = s.get();
  d.write = [p](const ge::PlanSectionContext& c) {
    if (p->refuse_write) throw ge::Error("refused for the test");
    ++p->writes;
    EXPECT_EQ(c.backend(), "cpu");
    return describe_graph(c);
  };
  d.validate = [p](const ge::PlanSectionContext& c, const std::string& bytes) {
    ++p->validations;
    if (bytes != describe_graph(c)) throw ge::Error("stored '" + bytes + "', the graph gives '" + describe_graph(c) + "'");
  };
  s->env->plan_sections.emplace_back(std::move(d), "test_plugin");
  return s;
}

std::shared_ptr<ge::Graph> tiny() {
  static std::shared_ptr<ge::Graph> g = compile(tiny_cnn_dir() + "/model.onnx");
  return g;
}

TEST(PlanSections, WrittenForTheBackendAndValidatedAtLoad) {
  auto s = env_with_section();
  std::vector<uint8_t> b = ge::core::serialize_plan(*tiny(), *s->env, "cpu");
  EXPECT_EQ(s->writes, 1);
  ge::core::PlanContents c = ge::core::parse_plan(b.data(), b.size(), nullptr, *s->env, "t.gep");
  EXPECT_EQ(s->validations, 1);
  ASSERT_EQ(c.sections.size(), 1u);
  EXPECT_EQ(c.sections[0].name, "test.graph");
  EXPECT_EQ(c.sections[0].plugin, "test_plugin");
  // The writer saw the manifest's options and every constant's range in the weights section.
  EXPECT_NE(c.sections[0].data.find("nodes=" + std::to_string(tiny()->num_nodes()) + ";planner="), std::string::npos);
  int constants = 0;
  for (const ge::Value* v : tiny()->values()) constants += v->is_constant();
  ASSERT_GT(constants, 0);
  EXPECT_EQ(std::count(c.sections[0].data.begin(), c.sections[0].data.end(), ','), constants);
  EXPECT_NE(c.sections[0].data.find(";bytes=" + std::to_string(c.weights_bytes)), std::string::npos);
  // A backend the section is not registered for gets none.
  ge::core::Environment& e = *s->env;
  e.plan_sections[0].first.backend = "other";
  std::vector<uint8_t> b2 = ge::core::serialize_plan(*tiny(), e, "cpu");
  EXPECT_EQ(ge::core::parse_plan(b2.data(), b2.size(), nullptr, e, "t.gep").sections.size(), 0u);
}

TEST(PlanSections, ASectionNoPluginReadsIsRefused) {
  auto s = env_with_section();
  std::vector<uint8_t> b = ge::core::serialize_plan(*tiny(), *s->env, "cpu");
  EXPECT_EQ(refusal(b, b.size(), *env()),
            "plan 't.gep': section 'test.graph' (written by plugin 'test_plugin') is read by no plugin of this environment "
            "(load that plugin's manifest)");
}

TEST(PlanSections, AMissingRequiredSectionIsRefused) {
  auto s = env_with_section();
  std::vector<uint8_t> b = ge::core::serialize_plan(*tiny(), *env(), "cpu");
  EXPECT_EQ(refusal(b, b.size(), *s->env),
            "plan 't.gep': it was compiled for backend 'cpu' but lacks section 'test.graph' (plugin 'test_plugin' requires "
            "it; recompile the model)");
}

TEST(PlanSections, TheValidatorsRefusalNamesFileAndSection) {
  auto s = env_with_section();
  std::vector<uint8_t> b = ge::core::serialize_plan(*tiny(), *s->env, "cpu");
  // Same length, resealed: the checksum passes and only the validator can notice.
  const std::string from = "nodes=" + std::to_string(tiny()->num_nodes()) + ";";
  std::string to = from;
  to[6] = to[6] == '9' ? '1' : static_cast<char>(to[6] + 1);
  auto it = std::search(b.begin(), b.end(), from.begin(), from.end());
  ASSERT_NE(it, b.end());
  std::copy(to.begin(), to.end(), it);
  ge::core::reseal_plan(b);
  const std::string msg = refusal(b, b.size(), *s->env);
  EXPECT_EQ(msg.rfind("plan 't.gep': section 'test.graph': stored '" + to, 0), 0u) << msg;
}

TEST(PlanSections, AWritersRefusalStopsTheSave) {
  auto s = env_with_section();
  s->refuse_write = true;
  try {
    ge::core::serialize_plan(*tiny(), *s->env, "cpu");
    ADD_FAILURE() << "expected a refusal";
  } catch (const ge::Error& e) {
    EXPECT_EQ(std::string(e.what()), "graph '" + tiny()->name + "': section 'test.graph' (plugin 'test_plugin'): refused for the test");
  }
}

TEST(PlanSections, PlanBackendReadsTheHeaderOnly) {
  const std::string path = temp_path("backend.gep");
  ge::core::save_plan(*tiny(), *env(), "cpu", path);
  EXPECT_EQ(ge::core::plan_backend(path), "cpu");
  std::filesystem::remove(path);
  // No backend manifest for "cpu" (the default manifest loads it); names with a path are refused.
  EXPECT_EQ(ge::core::backend_manifest_path("cpu"), "");
  EXPECT_EQ(ge::core::backend_manifest_path("../plugins/default"), "");
}

}  // namespace
