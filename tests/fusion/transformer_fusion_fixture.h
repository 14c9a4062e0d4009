// tests/fusion/transformer_fusion_fixture.h — the fixture shared by the transformer fusion tests
// (test_transformer_fusion.cc: matmul_add, gemm_act, gelu, bias_gelu;
// test_transformer_fusion_norm_attention.cc: layer_norm, add_layernorm, attention).
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pass_harness.h"

namespace ge::test {

inline std::string text(const Graph& g) { return print_graph(g, {.show_node_names = false}); }

class TransformerFusion : public ::testing::Test {
 protected:
  /// Parses `before` with random constants (scalars given in the text keep their values), runs
  /// `rules`, checks outputs against the unfused graph, and returns the fused text.
  std::string fuse(const std::string& before, std::vector<std::string> rules, double tol = 1e-5) {
    auto g = h.parse(before);
    randomize_keep_scalars(*g);
    auto original = g->clone();
    h.run(*g, std::move(rules));
    h.expect_same_outputs(*original, *g, tol);
    return text(*g);
  }
  /// Like fuse() but expects no change.
  void expect_unchanged(const std::string& before, std::vector<std::string> rules, std::vector<std::string> disabled = {}) {
    auto g = h.parse(before);
    const std::string t = text(*g);
    core::CompileOptions o;
    o.opt_level = OptLevel::O3;
    o.only = std::move(rules);
    o.disabled = std::move(disabled);
    o.verify_each = true;
    o.fail_on_pass_error = true;
    core::compile_graph(*g, h.env(), o);
    EXPECT_EQ(text(*g), t);
  }
  static void randomize_keep_scalars(Graph& g) {
    std::map<Value*, std::shared_ptr<const Tensor>> keep;
    for (Value* v : g.values())
      if (v->is_constant() && v->numel() == 1) keep[v] = v->data;
    PassHarness::randomize_constants(g);
    for (auto& [v, d] : keep) v->data = d;
  }
  PassHarness h;
};

}  // namespace ge::test
