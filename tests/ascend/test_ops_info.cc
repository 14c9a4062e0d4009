// The op information library (plugins/ascend_backend/ops_info.toml): every entry names an op the
// backend registers a kernel for, the facts placement and the cycle model read come from it, and
// a malformed file is refused naming the file, line and key.
#include <gtest/gtest.h>

#include "ascend_harness.h"
#include "cycle_model.h"
#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"
#include "ops_info.h"
#include "placement.h"

namespace ge::ascend {
namespace {

std::string error_of(const std::string& text) {
  try {
    detail::parse_ops_info(text, "ops_info.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(AscendOpsInfo, EveryEntryHasAnAscendKernel) {
  auto env = test::ascend_env("must_keep_origin_dtype");
  ASSERT_GT(all_op_infos().size(), 30u);
  for (const OpInfo& i : all_op_infos()) {
    const KernelDef* k = env->kernels.find("ascend", i.domain, i.op_type);
    EXPECT_TRUE(k) << (i.domain.empty() ? "" : i.domain + ".") << i.op_type << " is in ops_info.toml without an ascend kernel";
  }
}

TEST(AscendOpsInfo, PlacementAndCycleModelReadTheEntries) {
  auto g = parse_graph(R"(graph g opset(ai.onnx=13) {
  input %x: f16[1,16,8,8]
  const %w: f16[16,16,3,3]
  input %idx: i64[2]
  %c: f16[1,16,8,8] = Conv(%x, %w) {pads=[1,1,1,1]}
  %s: f16[1,16,8,8] = Sum(%c, %c, %c, %c)
  %p: f16[1,16,6,7] = MaxPool(%s) {kernel_shape=[3,2]}
  %q: f16[1,16,1,1] = GlobalAveragePool(%p)
  %t: f16[1,2,1,1] = Gather(%q, %idx) {axis=1}
  %e: f16[1,2,1,1] = Erf(%t)
  %r: f16[1,2] = Flatten(%e) {axis=1}
  output %r
})");
  auto node = [&](const char* op) -> const Node& {
    for (const Node* n : g->nodes())
      if (n->op_type() == op) return *n;
    throw Error(std::string("no ") + op + " node");
  };
  EXPECT_TRUE(is_cube_op(node("Conv")));
  EXPECT_EQ(engine_for(node("Conv")), Engine::Cube);  // fp16 input
  EXPECT_TRUE(is_vector_op(node("Sum")));
  EXPECT_DOUBLE_EQ(vector_ops_per_element(node("Sum")), 3);  // inputs − 1
  EXPECT_DOUBLE_EQ(vector_ops_per_element(node("MaxPool")), 6);  // 3 × 2 window
  EXPECT_DOUBLE_EQ(vector_ops_per_element(node("GlobalAveragePool")), 6 * 7);  // H · W of MaxPool's 6 × 7 output
  EXPECT_DOUBLE_EQ(vector_ops_per_element(node("Gather")), 0);  // a move
  EXPECT_DOUBLE_EQ(vector_ops_per_element(node("Erf")), 8);
  EXPECT_FALSE(is_vector_op(node("Gather")));
  EXPECT_TRUE(has_vector_kernel(node("Gather")));
  EXPECT_FALSE(has_vector_kernel(node("Flatten")));  // a view: no AI Core kernel
  EXPECT_EQ(engine_for(node("Flatten")), Engine::AiCpu);
}

TEST(AscendOpsInfo, MalformedEntriesNameFileLineAndKey) {
  EXPECT_EQ(error_of("[[op]]\nop_type = \"Relu\"\nengine = \"gpu\"\nproblem = \"elementwise\"\n"),
            "ops_info.toml:1: 'engine' must be one of cube, vector, not 'gpu'");
  EXPECT_EQ(error_of("[[op]]\nop_type = \"Relu\"\nengine = \"vector\"\nproblem = \"elementwise\"\nvector_opz = 2\n"),
            "ops_info.toml:5: unknown key 'vector_opz' in [[op]]");
  EXPECT_EQ(error_of("[[op]]\nop_type = \"Conv\"\nengine = \"vector\"\nproblem = \"conv\"\n"),
            "ops_info.toml:1: Conv: problem and engine disagree (a Cube problem needs engine \"cube\")");
  EXPECT_EQ(error_of("[[op]]\nop_type = \"Relu\"\nengine = \"vector\"\nproblem = \"elementwise\"\nvector_ops = \"many\"\n"),
            "ops_info.toml:5: 'vector_ops' must be one of inputs_minus_one, kernel_window, spatial, reduced, program, not 'many'");
  EXPECT_EQ(error_of("[[op]]\nop_type = \"Relu\"\nengine = \"vector\"\nproblem = \"elementwise\"\n"
                     "[[op]]\nop_type = \"Relu\"\nengine = \"vector\"\nproblem = \"elementwise\"\n"),
            "ops_info.toml:5: Relu is listed twice");
  EXPECT_EQ(error_of("[[op]]\nengine = \"vector\"\nproblem = \"elementwise\"\n"), "ops_info.toml:1: [[op]] needs 'op_type'");
}

}  // namespace
}  // namespace ge::ascend
