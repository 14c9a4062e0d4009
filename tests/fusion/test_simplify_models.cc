// The simplify passes on the shared models at O1: squeezenet1_1's Identity nodes go, and
// shufflenet_v2_x1_0's shape subgraphs (Shape→Gather→Unsqueeze→Concat→Reshape) fold.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "ge/core/importer.h"
#include "pass_harness.h"

namespace {

using ge::Graph;

/// GE_SHARED_DIR, else ../shared beside the source tree (CMake's default too).
std::filesystem::path shared_dir() {
  if (const char* e = std::getenv("GE_SHARED_DIR")) return e;
  return std::filesystem::path(__FILE__).parent_path() / "../../../shared";
}

/// Nodes of op type `op` after compiling `model` at O1 (-1 when the model is absent).
int count_after_o1(ge::test::PassHarness& h, const std::string& model, const std::string& op) {
  std::filesystem::path p = shared_dir() / "models" / model;
  if (!std::filesystem::exists(p)) return -1;
  std::unique_ptr<Graph> g = ge::core::import_model(h.env(), p.string(), {});
  ge::core::CompileOptions o;
  o.opt_level = ge::OptLevel::O1;
  o.fail_on_pass_error = true;
  ge::core::compile_graph(*g, h.env(), o);
  int n = 0;
  for (ge::Node* node : g->nodes()) n += node->op_type() == op;
  return n;
}

TEST(SimplifyModels, SqueezenetLosesItsIdentityNodesAtO1) {
  ge::test::PassHarness h;
  int n = count_after_o1(h, "squeezenet1_1/squeezenet1_1.onnx", "Identity");
  if (n < 0) GTEST_SKIP() << "shared models not found";
  EXPECT_EQ(n, 0);
}

TEST(SimplifyModels, ShufflenetShapeSubgraphsFoldAtO1) {
  ge::test::PassHarness h;
  // Its 16 remaining Concats join activations; the shape subgraphs' Concats fold with the rest.
  for (const char* op : {"Shape", "Gather", "Unsqueeze"}) {
    int n = count_after_o1(h, "shufflenet_v2_x1_0/shufflenet_v2_x1_0.onnx", op);
    if (n < 0) GTEST_SKIP() << "shared models not found";
    EXPECT_EQ(n, 0) << op;
  }
}

}  // namespace
