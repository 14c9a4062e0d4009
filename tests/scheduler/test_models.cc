// tests/scheduler/test_models.cc — every shared model under every scheduler (2 threads): the
// schedule checker passes, the outputs match the model's reference data, the estimate is set;
// `sequential` never has a higher peak of live bytes than the plain topological order; and random
// stream assignments get events that order every cross-stream edge, none of them redundant.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/pipeline.h"
#include "ge/core/runtime.h"
#include "schedule_test_util.h"
#include "shared_models.h"

namespace ge {
namespace {

namespace fs = std::filesystem;

using ge::test::read_set;
using ge::test::shared_dir;
using ge::test::shared_models;

std::unique_ptr<core::Environment> env_with(const std::string& scheduler) {
  core::Manifest m = core::load_manifest(core::default_manifest_path());
  core::apply_override(m, "scheduler.name=\"" + scheduler + "\"");
  return core::load_environment(m);
}

std::unique_ptr<Graph> compile(const fs::path& model, const core::Environment& env, int threads) {
  core::ImportOptions io;
  std::unique_ptr<Graph> g = core::import_model(env, model.string(), io);
  core::CompileOptions o;
  o.opt_level = OptLevel::O2;
  o.fail_on_pass_error = true;
  o.threads = threads;
  core::compile_graph(*g, env, o);
  return g;
}

TEST(SchedulerModels, EverySchedulerIsValidAndKeepsOutputs) {
  auto models = shared_models();
  if (models.empty()) GTEST_SKIP() << "shared models not found under " << shared_dir();
  for (const char* sched : {"sequential", "parallel", "pipeline", "auto"}) {
    auto env = env_with(sched);
    for (const fs::path& model : models) {
      SCOPED_TRACE(model.string() + " under " + sched);
      std::unique_ptr<Graph> g = compile(model, *env, 2);
      std::vector<std::string> problems = check_schedule(*g);
      ASSERT_TRUE(problems.empty()) << problems.front();
      EXPECT_GT(g->schedule.estimated_latency_ms, 0);
      EXPECT_FALSE(g->schedule.scheduler.empty());
      if (std::string(sched) != "auto") {
        EXPECT_EQ(g->schedule.scheduler, sched);
      }
      std::printf("%-20s %-10s streams %d stages %d events %3zu estimate %8.3f ms  %s\n",
                  model.parent_path().filename().c_str(), sched, g->schedule.streams, g->schedule.pipeline_stages,
                  g->schedule.events.size(), g->schedule.estimated_latency_ms, g->schedule.reason.substr(0, 90).c_str());
      fs::path data = model.parent_path() / "test_data_set_0";
      std::vector<Tensor> in = read_set(data, "input_"), want = read_set(data, "output_");
      if (in.empty()) continue;
      core::Executable exe(std::shared_ptr<const Graph>(std::move(g)), *env, {"cpu", 1});
      std::vector<Tensor> got = exe.run(in);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].numel(), want[i].numel());
        double num = 0, den = 0;
        for (int64_t k = 0; k < got[i].numel(); ++k) {
          double a = got[i].data_as<float>()[k], b = want[i].data_as<float>()[k];
          num += (a - b) * (a - b);
          den += b * b;
        }
        EXPECT_LT(std::sqrt(num / std::max(den, 1e-30)), 1e-4) << "output " << i;
      }
    }
  }
}

TEST(SchedulerModels, SequentialPeakIsAtMostThePlainTopologicalOrder) {
  auto models = shared_models();
  if (models.empty()) GTEST_SKIP() << "shared models not found under " << shared_dir();
  auto env = env_with("sequential");
  for (const fs::path& model : models) {
    SCOPED_TRACE(model.string());
    std::unique_ptr<Graph> g = compile(model, *env, 1);
    const uint64_t scheduled = test::test_peak_live_bytes(g->nodes());
    const uint64_t plain = test::test_peak_live_bytes(g->topological_order());
    std::printf("%-20s peak live bytes: sequential %11llu  plain topological %11llu\n",
                model.parent_path().filename().c_str(), (unsigned long long)scheduled, (unsigned long long)plain);
    EXPECT_LE(scheduled, plain);
  }
}

TEST(SchedulerModels, RandomStreamsGetExactlyTheNeededEvents) {
  auto models = shared_models();
  if (models.empty()) GTEST_SKIP() << "shared models not found under " << shared_dir();
  auto env = env_with("sequential");
  std::mt19937 rng(7);
  for (const fs::path& model : models) {
    SCOPED_TRACE(model.string());
    std::unique_ptr<Graph> g = compile(model, *env, 1);
    for (int streams : {2, 3}) {
      for (Node* n : g->nodes()) n->stream = static_cast<int>(rng() % streams);
      g->schedule.streams = streams;
      g->schedule.events = minimal_events(*g);
      std::vector<std::string> problems = check_schedule(*g);
      ASSERT_TRUE(problems.empty()) << problems.front();
      // None is redundant: dropping one (a sample of 20) leaves some edge unordered.
      const std::vector<StreamEvent> all = g->schedule.events;
      for (size_t i = 0; i < all.size(); i += std::max<size_t>(1, all.size() / 20)) {
        g->schedule.events = all;
        g->schedule.events.erase(g->schedule.events.begin() + static_cast<std::ptrdiff_t>(i));
        EXPECT_FALSE(check_schedule(*g).empty()) << all[i].record_after << "->" << all[i].wait_before << " was redundant";
      }
      g->schedule.events = all;
    }
  }
}

}  // namespace
}  // namespace ge
