// tests/memory/test_random_dags.cc — 1000 seeded random DAGs (multi-output Split, unconsumed
// outputs, views, in-place candidates, Concat) planned by every planner at every level and
// verified by the independent arena checker.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "arena_checker.h"
#include "ge/core/runtime.h"
#include "pass_harness.h"
#include "ge/sdk/text_ir.h"
#include "memory_env.h"
#include "random_streams.h"

namespace ge {
namespace {

/// A random graph on f32[1,C,2,2] values (C in 1..8): unary and binary elementwise ops (binary
/// ones on equal shapes are in-place candidates), Identity/Reshape views, Split into two
/// (sometimes a piece is never read) and Concat on axis 1. A few random values become outputs.
std::string random_dag(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  std::vector<int> chans;  // per value %v<i>
  std::ostringstream s;
  s << "graph g opset(ai.onnx=13) {\n  input %v0: f32[1,2,2,2]\n";
  chans.push_back(2);
  auto shape = [](int c) { return "f32[1," + std::to_string(c) + ",2,2]"; };
  const int nodes = 4 + pick(24);
  for (int k = 0; k < nodes; ++k) {
    const int a = pick(static_cast<int>(chans.size())), ca = chans[a];
    const int id = static_cast<int>(chans.size());
    std::string v = "%v" + std::to_string(id);
    switch (pick(7)) {
      case 0: case 1: {
        const char* ops[] = {"Relu", "Sigmoid", "Erf", "Sqrt"};
        s << "  " << v << ": " << shape(ca) << " = " << ops[pick(4)] << "(%v" << a << ")\n";
        chans.push_back(ca);
        break;
      }
      case 2: {  // binary on an equal-shaped partner when there is one
        int b = a;
        for (int t = 0; t < 6; ++t) {
          int c = pick(static_cast<int>(chans.size()));
          if (chans[c] == ca) b = c;
        }
        s << "  " << v << ": " << shape(ca) << " = " << (pick(2) ? "Add" : "Mul") << "(%v" << a << ", %v" << b << ")\n";
        chans.push_back(ca);
        break;
      }
      case 3:
        s << "  " << v << ": " << shape(ca) << " = Identity(%v" << a << ")\n";
        chans.push_back(ca);
        break;
      case 4:
        if (ca % 2 == 0) {
          std::string w = "%v" + std::to_string(id + 1);
          s << "  " << v << ": " << shape(ca / 2) << ", " << w << ": " << shape(ca / 2) << " = Split(%v" << a
            << ") {axis=1}\n";
          chans.push_back(ca / 2);
          chans.push_back(ca / 2);
        } else {
          s << "  " << v << ": " << shape(ca) << " = Relu(%v" << a << ")\n";
          chans.push_back(ca);
        }
        break;
      case 5: {
        const int b = pick(static_cast<int>(chans.size())), cb = chans[b];
        if (ca + cb <= 8 && a != b) {
          s << "  " << v << ": " << shape(ca + cb) << " = Concat(%v" << a << ", %v" << b << ") {axis=1}\n";
          chans.push_back(ca + cb);
        } else {
          s << "  " << v << ": " << shape(ca) << " = Sigmoid(%v" << a << ")\n";
          chans.push_back(ca);
        }
        break;
      }
      default: {  // view -> in-place candidate on the view -> view back
        const std::string k = std::to_string(id), c = std::to_string(ca);
        s << "  const %s" << k << ": i64[3] = [1," << c << ",4]\n";
        s << "  %r" << k << ": f32[1," << c << ",4] = Reshape(%v" << a << ", %s" << k << ")\n";
        s << "  %t" << k << ": f32[1," << c << ",4] = Erf(%r" << k << ")\n";
        s << "  const %u" << k << ": i64[4] = [1," << c << ",2,2]\n";
        s << "  " << v << ": " << shape(ca) << " = Reshape(%t" << k << ", %u" << k << ")\n";
        chans.push_back(ca);
        break;
      }
    }
  }
  std::string text = s.str();
  std::ostringstream outs;
  const int last = static_cast<int>(chans.size()) - 1;
  outs << "  output %v" << last << "\n";
  if (pick(2) && last > 1) outs << "  output %v" << last / 2 << "\n";
  return text + outs.str() + "}\n";
}

TEST(RandomDags, EveryPlannerAndLevelPassesTheChecker) {
  auto configs = test::memory_configs();
  std::vector<std::unique_ptr<core::Environment>> envs;
  for (auto& [p, l] : configs) envs.push_back(test::memory_env(p, l));
  int graphs = 0;
  for (uint32_t seed = 1; seed <= 1000; ++seed) {
    const std::string text = random_dag(seed);
    std::vector<std::vector<double>> reference;
    for (size_t c = 0; c < configs.size(); ++c) {
      std::unique_ptr<Graph> g = parse_graph(text, "random");
      core::ImportOptions io;
      core::propagate_shapes(*g, *envs[c], io);
      test::plan_only(*g, *envs[c]);
      test::ArenaCheckOptions opts;
      opts.views_aliased = configs[c].second != "none";
      std::string err = test::check_arena(*g, envs[c]->ops, opts);
      ASSERT_TRUE(err.empty()) << "seed " << seed << ", " << configs[c].first << "/" << configs[c].second << ":\n"
                               << err << text;
      // Every 10th graph also runs: views, in-place kernels, Concat in place and Split on the
      // planned arena give exactly the outputs of the no-reuse plan (configs[0]).
      if (seed % 10 == 0) {
        auto in = test::PassHarness::random_inputs(*g, seed);
        core::Executable exe(std::shared_ptr<const Graph>(std::move(g)), *envs[c], {"cpu", 1});
        std::vector<std::vector<double>> got;
        for (const Tensor& t : exe.run(in)) got.push_back(t.to_double_vector());
        for (auto& o : got)
          for (double& x : o) x = std::isnan(x) ? -12345 : x;  // Sqrt of negatives: NaN == NaN here
        if (c == 0) reference = got;
        EXPECT_EQ(got, reference) << "seed " << seed << ", " << configs[c].first << "/" << configs[c].second;
      }
    }
    ++graphs;
  }
  EXPECT_EQ(graphs, 1000);
}

// The same random DAGs on 2–4 random streams (events derived from the data edges): every
// planner at every level must honour the happens-before order (checked independently), and the
// graphs run on one worker per stream with the no-reuse plan's outputs.
TEST(RandomDags, RandomStreamsEveryPlannerAndLevelPassesTheChecker) {
  auto configs = test::memory_configs();
  std::vector<std::unique_ptr<core::Environment>> envs;
  for (auto& [p, l] : configs) envs.push_back(test::memory_env(p, l));
  int multi = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    const std::string text = random_dag(seed);
    const int streams = 2 + static_cast<int>(seed % 3);
    std::vector<std::vector<double>> reference;
    for (size_t c = 0; c < configs.size(); ++c) {
      std::unique_ptr<Graph> g = parse_graph(text, "random");
      core::ImportOptions io;
      core::propagate_shapes(*g, *envs[c], io);
      test::assign_random_streams(*g, streams, seed);
      test::plan_only(*g, *envs[c]);
      if (c == 0) multi += !g->schedule.events.empty();
      test::ArenaCheckOptions opts;
      opts.views_aliased = configs[c].second != "none";
      std::string err = test::check_arena(*g, envs[c]->ops, opts);
      ASSERT_TRUE(err.empty()) << "seed " << seed << ", " << streams << " streams, " << configs[c].first << "/"
                               << configs[c].second << ":\n" << err << text;
      if (seed % 5 == 0) {
        auto in = test::PassHarness::random_inputs(*g, seed);
        core::Executable exe(std::shared_ptr<const Graph>(std::move(g)), *envs[c], {"cpu", streams});
        ASSERT_EQ(exe.streams(), streams);
        std::vector<std::vector<double>> got;
        for (int rep = 0; rep < 3; ++rep) {  // repeated runs: events reset per run
          got.clear();
          for (const Tensor& t : exe.run(in)) got.push_back(t.to_double_vector());
          for (auto& o : got)
            for (double& x : o) x = std::isnan(x) ? -12345 : x;
          if (c == 0 && rep == 0) reference = got;
          EXPECT_EQ(got, reference) << "seed " << seed << ", " << configs[c].first << "/" << configs[c].second;
        }
      }
    }
  }
  EXPECT_GT(multi, 250);  // nearly every graph really uses several streams
}

}  // namespace
}  // namespace ge
