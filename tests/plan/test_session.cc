// The application API: 4 threads × 50 runs of one loaded plan, each thread with its own Session,
// every output checked; load-time passes are runtime_safe only; pruning outputs at load.
#include <atomic>
#include <cmath>
#include <thread>

#include "ge/core/compare.h"
#include "ge/core/session.h"
#include "ge/sdk/error.h"
#include "plan_test_util.h"

using namespace plan_test;

namespace {

void threads_run_one_plan(const std::string& model, const std::string& data_dir) {
  std::shared_ptr<ge::Graph> g = compile(model);
  std::string path = temp_path("threads.gep");
  ge::core::save_plan(*g, *env(), "cpu", path);
  std::shared_ptr<ge::LoadedPlan> plan = ge::LoadedPlan::load(path, env(), {});
  std::filesystem::remove(path);
  ASSERT_EQ(plan->inputs().size(), g->inputs().size());
  std::vector<ge::Tensor> inputs;
  for (size_t i = 0; i < plan->inputs().size(); ++i) {
    inputs.push_back(ge::core::read_tensor_file(data_dir + "/input_" + std::to_string(i) + ".pb"));
    EXPECT_EQ(plan->inputs()[i].shape, inputs.back().shape());
  }
  std::vector<ge::Tensor> refs;
  for (size_t k = 0; k < plan->outputs().size(); ++k)
    refs.push_back(ge::core::read_tensor_file(data_dir + "/output_" + std::to_string(k) + ".pb"));
  // The single-threaded run every concurrent run must equal bit for bit.
  std::vector<ge::Tensor> want = plan->run(inputs);
  ge::core::Tolerance tol;
  tol.max_rel_l2 = 1e-4;
  tol.rtol = 1e-3;
  tol.atol = 1e-4;
  for (size_t k = 0; k < want.size(); ++k) ASSERT_TRUE(ge::core::compare_tensors(want[k], refs[k], tol).ok);

  plan_test::expect_concurrent_runs_bitwise(*plan, inputs, want);
}

// x → Relu → a (output), x → Sigmoid → b → Relu → c (output); small enough to check by hand.
std::string two_output_plan() {
  ge::Graph g("two");
  g.opsets[""] = 17;
  ge::Value* x = g.add_input("x", ge::DataType::Float32, ge::Shape{4});
  ge::Value* a = g.add_value("a", ge::DataType::Float32, ge::Shape{4});
  ge::Value* b = g.add_value("b", ge::DataType::Float32, ge::Shape{4});
  ge::Value* c = g.add_value("c", ge::DataType::Float32, ge::Shape{4});
  g.add_node("Relu", "relu", {x}, {a});
  g.add_node("Sigmoid", "sigmoid", {x}, {b});
  g.add_node("Relu", "relu2", {b}, {c});
  g.mark_output(a);
  g.mark_output(c);
  std::string path = temp_path("two.gep");
  ge::core::save_plan(g, *env(), "cpu", path);
  return path;
}

}  // namespace

TEST(Session, TinyCnnFourThreadsFiftyRuns) { threads_run_one_plan(tiny_cnn_dir() + "/model.onnx", tiny_cnn_dir() + "/test_data_set_0"); }

TEST(Session, SqueezenetFourThreadsFiftyRuns) {
  std::string d = squeezenet_dir();
  if (d.empty()) GTEST_SKIP() << "GE_SHARED_DIR/models/squeezenet1_1 absent";
  threads_run_one_plan(d + "/squeezenet1_1.onnx", d + "/test_data_set_0");
}

TEST(Session, LoadRunsOnlyRuntimeSafePasses) {
  for (const auto& p : ge::core::load_time_passes({{"a"}})) EXPECT_TRUE(p->info().runtime_safe) << p->info().name;
  std::string path = two_output_plan();
  auto plan = ge::LoadedPlan::load(path, env(), {{{"a"}}, 1});
  std::filesystem::remove(path);
  ASSERT_FALSE(plan->load_passes().empty());
  for (const ge::PassInfo& i : plan->load_passes()) {
    EXPECT_TRUE(i.runtime_safe) << i.name;
    // No compile-time pass that is not runtime_safe ran at load.
    for (const auto& [pass, plugin] : env()->passes)
      if (!pass->info().runtime_safe) {
        EXPECT_NE(pass->info().name, i.name);
      }
  }
}

TEST(Session, PruneOutputsAtLoad) {
  std::string path = two_output_plan();
  auto all = ge::LoadedPlan::load(path, env(), {});
  auto only_a = ge::LoadedPlan::load(path, env(), {{{"a"}}, 1});
  auto only_c = ge::LoadedPlan::load(path, env(), {{{"c"}}, 1});
  EXPECT_THROW(ge::LoadedPlan::load(path, env(), {{{"nope"}}, 1}), ge::Error);
  std::filesystem::remove(path);
  EXPECT_EQ(all->graph().num_nodes(), 3u);
  ASSERT_EQ(only_a->outputs().size(), 1u);
  EXPECT_EQ(only_a->outputs()[0].name, "a");
  EXPECT_EQ(only_a->graph().num_nodes(), 1u);
  EXPECT_EQ(only_a->graph().find_value("b"), nullptr);
  EXPECT_EQ(only_c->graph().num_nodes(), 2u);

  ge::Tensor x = ge::Tensor::allocate(ge::DataType::Float32, ge::Shape{4});
  float xs[4] = {-2, -0.5f, 0, 3};
  std::memcpy(x.data(), xs, sizeof xs);
  ge::Session s = only_c->new_session();
  std::vector<ge::Tensor> out = s.run(std::map<std::string, ge::Tensor>{{"x", x}});
  ASSERT_EQ(out.size(), 1u);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[0].data_as<float>()[i], 1 / (1 + std::exp(-xs[i])), 1e-6);
  EXPECT_THROW(s.run(std::map<std::string, ge::Tensor>{}), ge::Error);
  EXPECT_EQ(only_a->run({x})[0].data_as<float>()[3], 3.0f);
}
