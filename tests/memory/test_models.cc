// tests/memory/test_models.cc — every shared model, compiled at O2 under every planner and
// level: the arena checker passes and the outputs still match the model's reference data
// (test_data_set_0). Prints the memory figures (no_reuse, arena, lower bound) per planner.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "arena_checker.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/runtime.h"
#include "memory_env.h"
#include "shared_models.h"

namespace ge {
namespace {

namespace fs = std::filesystem;
using test::read_set;
using test::shared_dir;
using test::shared_models;

TEST(MemoryModels, EveryPlannerAndLevelIsSoundAndKeepsOutputs) {
  auto models = shared_models();
  if (models.empty()) GTEST_SKIP() << "shared models not found under " << shared_dir();
  for (auto& [planner, level] : test::memory_configs()) {
    auto env = test::memory_env(planner, level);
    for (const fs::path& model : models) {
      SCOPED_TRACE(model.string() + " " + planner + "/" + level);
      core::ImportOptions io;
      std::unique_ptr<Graph> g = core::import_model(*env, model.string(), io);
      core::CompileOptions o;
      o.opt_level = OptLevel::O2;
      o.fail_on_pass_error = true;
      core::CompileResult r = core::compile_graph(*g, *env, o);
      test::ArenaCheckOptions co;
      co.views_aliased = level != "none";
      std::string err = test::check_arena(*g, env->ops, co);
      ASSERT_TRUE(err.empty()) << err.substr(0, 20000);
      std::printf("%-22s %-18s %-10s no_reuse %11lld arena %11lld lower_bound %11lld ratio %.4f\n",
                  model.parent_path().filename().c_str(), planner.c_str(), level.c_str(),
                  (long long)r.counters["memory.no_reuse_bytes"], (long long)r.counters["memory.arena_bytes"],
                  (long long)r.counters["memory.lower_bound_bytes"],
                  double(r.counters["memory.arena_bytes"]) / std::max<double>(1, r.counters["memory.lower_bound_bytes"]));
      if (planner == "auto" && level == "aggressive") {
        EXPECT_LE(r.counters["memory.arena_bytes"], 1.03 * r.counters["memory.lower_bound_bytes"]);
      }

      fs::path data = model.parent_path() / "test_data_set_0";
      std::vector<Tensor> in = read_set(data, "input_"), want = read_set(data, "output_");
      if (in.empty()) continue;
      core::Executable exe(std::shared_ptr<const Graph>(std::move(g)), *env, {"cpu", 1});
      std::vector<Tensor> got = exe.run(in);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        auto x = got[i].to_double_vector(), y = want[i].to_double_vector();
        ASSERT_EQ(x.size(), y.size());
        double d = 0, n = 0;
        for (size_t k = 0; k < x.size(); ++k) d += (x[k] - y[k]) * (x[k] - y[k]), n += y[k] * y[k];
        EXPECT_LE(std::sqrt(d / std::max(n, 1e-30)), 1e-3) << "output " << i;
      }
    }
  }
}

}  // namespace
}  // namespace ge
