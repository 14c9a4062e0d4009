// tests/support/pass_harness.h — runs passes and fusion rules on text-IR graphs, for pass tests.
//
//   ge::test::PassHarness h;                         // the default manifest's plugins
//   auto g = h.parse(R"(graph g opset(ai.onnx=13) { ... })");
//   h.run(*g, {"conv_bn"});                           // only this pass / rule
//   EXPECT_EQ(ge::print_graph(*g, {.show_node_names = false}), R"(...)");
//   h.expect_same_outputs(*before, *g, 1e-5);          // random inputs, relative L2
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "ge/core/pipeline.h"
#include "ge/core/runtime.h"
#include "ge/sdk/text_ir.h"

namespace ge::test {

class PassHarness {
 public:
  PassHarness() : env_(core::load_environment(core::load_manifest(core::default_manifest_path()))) {}
  core::Environment& env() { return *env_; }

  /// Parses text IR and gives every value its inferred dtype and shape (constants keep theirs).
  std::unique_ptr<Graph> parse(const std::string& text) {
    std::unique_ptr<Graph> g = parse_graph(text, "test");
    core::ImportOptions opts;  // named: GCC 12 warns (-Wmaybe-uninitialized) on a braced temporary
    core::propagate_shapes(*g, *env_, opts);
    return g;
  }

  /// Runs only the named passes / fusion rules (at `level`, relaxed numerics unless strict, with
  /// the thread budget `threads` that passes see as PassContext::threads).
  core::CompileResult run(Graph& g, std::vector<std::string> only, OptLevel level = OptLevel::O3,
                          bool strict = false, int threads = 1) {
    core::CompileOptions o;
    o.threads = threads;
    o.opt_level = level;
    o.strict_numerics = strict;
    o.only = std::move(only);
    o.verify_each = true;
    o.fail_on_pass_error = true;
    return core::compile_graph(g, *env_, o);
  }

  /// `text` with each (from, to) replaced in order, the first occurrence of each; a `from` that is
  /// not there fails the test (and is skipped).
  static std::string edited(std::string text, const std::vector<std::pair<std::string, std::string>>& edits) {
    for (const auto& [from, to] : edits) {
      const size_t at = text.find(from);
      EXPECT_NE(at, std::string::npos) << "no '" << from << "' in the text";
      if (at != std::string::npos) text.replace(at, from.size(), to);
    }
    return text;
  }

  /// Parses `text`, runs only `passes` and expects the printed graph unchanged (a rule's refused
  /// forms); `why` names the case in a failure.
  void expect_unchanged(const std::string& text, std::vector<std::string> passes, const std::string& why) {
    auto g = parse(text);
    const std::string before = print_graph(*g, {.show_node_names = false});
    run(*g, std::move(passes));
    EXPECT_EQ(print_graph(*g, {.show_node_names = false}), before) << why;
  }

  /// Seeded random inputs (floats in [-1, 1), integers in {0, 1}) for g's graph inputs.
  static std::vector<Tensor> random_inputs(const Graph& g, uint32_t seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<Tensor> out;
    for (const Value* v : g.inputs()) {
      Tensor t = Tensor::allocate(v->dtype, v->shape);
      if (v->dtype == DataType::Float32)
        for (auto& x : t.span<float>()) x = u(rng);
      else if (v->dtype == DataType::Int64)
        for (auto& x : t.span<int64_t>()) x = rng() & 1;
      out.push_back(std::move(t));
    }
    return out;
  }

  std::vector<Tensor> execute(std::shared_ptr<const Graph> g, const std::vector<Tensor>& inputs) {
    core::Executable exe(std::move(g), *env_, {"cpu", 1});
    return exe.run(inputs);
  }

  /// Runs both graphs on the same random inputs; every output's relative L2 error ≤ tol.
  void expect_same_outputs(const Graph& a, const Graph& b, double tol = 1e-5) {
    auto ga = std::shared_ptr<const Graph>(a.clone()), gb = std::shared_ptr<const Graph>(b.clone());
    auto in = random_inputs(a);
    auto oa = execute(ga, in), ob = execute(gb, in);
    ASSERT_EQ(oa.size(), ob.size());
    for (size_t i = 0; i < oa.size(); ++i) {
      ASSERT_EQ(oa[i].shape(), ob[i].shape());
      auto x = oa[i].to_double_vector(), y = ob[i].to_double_vector();
      double d = 0, n = 0;
      for (size_t k = 0; k < x.size(); ++k) {
        d += (x[k] - y[k]) * (x[k] - y[k]);
        n += x[k] * x[k];
      }
      EXPECT_LE(std::sqrt(d / std::max(n, 1e-30)), tol) << "output " << i;
    }
  }

  /// Fills every constant with seeded random floats (parse() gives zero-filled constants).
  static void randomize_constants(Graph& g, uint32_t seed = 11) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (Value* v : g.values()) {
      if (!v->is_constant() || v->dtype != DataType::Float32) continue;
      Tensor t = Tensor::allocate(v->dtype, v->shape);
      for (auto& x : t.span<float>()) x = u(rng);
      v->data = std::make_shared<const Tensor>(std::move(t));
    }
  }

 private:
  std::unique_ptr<core::Environment> env_;
};

}  // namespace ge::test
