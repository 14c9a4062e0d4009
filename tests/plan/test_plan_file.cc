// Round trips: compile → save → load → run equals the direct run bit for bit, the loaded graph
// prints as the same text IR, constants are views of the mapped file, saving is atomic.
#include "ge/core/compare.h"
#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"
#include "plan_test_util.h"

using namespace plan_test;

namespace {

std::vector<ge::Tensor> read_inputs(const std::string& dir, size_t n) {
  std::vector<ge::Tensor> in;
  for (size_t i = 0; i < n; ++i) in.push_back(ge::core::read_tensor_file(dir + "/input_" + std::to_string(i) + ".pb"));
  return in;
}

void round_trip(const std::string& model, const std::string& data_dir) {
  std::shared_ptr<ge::Graph> g = compile(model);
  std::vector<ge::Tensor> inputs = read_inputs(data_dir, g->inputs().size());
  ge::core::Executable direct(g, *env(), {"cpu", 1});
  std::vector<ge::Tensor> want = direct.run(inputs);

  std::string path = temp_path("round_trip.gep");
  ge::core::save_plan(*g, *env(), "cpu", path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_TRUE(ge::core::is_plan_file(path));
  EXPECT_FALSE(ge::core::is_plan_file(model));
  uint64_t size = std::filesystem::file_size(path);
  ge::core::PlanContents plan = ge::core::load_plan(path, *env());
  std::filesystem::remove(path);  // the mapping keeps the bytes alive after the unlink
  EXPECT_EQ(plan.backend, "cpu");
  EXPECT_EQ(plan.file_bytes, size);
  EXPECT_EQ(ge::print_graph(*plan.graph), ge::print_graph(*g));
  EXPECT_EQ(plan.graph->arena_bytes, g->arena_bytes);
  for (const ge::Value* v : g->values())
    EXPECT_EQ(plan.graph->find_value(v->name())->arena_offset, v->arena_offset) << v->name();
  for (const ge::Value* v : plan.graph->values())
    if (v->is_constant() && v->nbytes()) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(v->data->data()) % 64, 0u) << v->name() << " is not 64-byte aligned";
    }

  ge::core::Executable loaded(plan.graph, *env(), {"cpu", 1});
  std::vector<ge::Tensor> got = loaded.run(inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(bitwise_equal(got[k], want[k])) << "output " << k;
  // The plan's outputs also meet the model's reference outputs.
  for (size_t k = 0; k < got.size(); ++k) {
    ge::Tensor ref = ge::core::read_tensor_file(data_dir + "/output_" + std::to_string(k) + ".pb");
    ge::core::Tolerance tol;
    tol.max_rel_l2 = 1e-4;
    tol.rtol = 1e-3;
    tol.atol = 1e-4;
    EXPECT_TRUE(ge::core::compare_tensors(got[k], ref, tol).ok) << "output " << k;
  }
}

}  // namespace

TEST(PlanFile, TinyCnnRoundTripIsBitwiseEqual) { round_trip(tiny_cnn_dir() + "/model.onnx", tiny_cnn_dir() + "/test_data_set_0"); }

TEST(PlanFile, SqueezenetRoundTripIsBitwiseEqual) {
  std::string d = squeezenet_dir();
  if (d.empty()) GTEST_SKIP() << "GE_SHARED_DIR/models/squeezenet1_1 absent";
  round_trip(d + "/squeezenet1_1.onnx", d + "/test_data_set_0");
}

TEST(PlanFile, HandBuiltGraphKeepsAttributesFormatsAndOptionalInputs) {
  ge::Graph g("hand");
  g.opsets[""] = 17;
  ge::Value* x = g.add_input("x", ge::DataType::Float32, ge::Shape{2, 3});
  ge::Tensor w = ge::Tensor::allocate(ge::DataType::Float32, ge::Shape{3});
  for (int i = 0; i < 3; ++i) w.data_as<float>()[i] = 0.5f * static_cast<float>(i);
  ge::Value* c = g.add_constant("w", w);
  ge::Value* c2 = g.add_constant("w_shared", w);  // one Tensor, stored once
  ge::Value* s = g.add_value("s", ge::DataType::Float32, ge::Shape{2, 3});
  ge::Value* y = g.add_value("y", ge::DataType::Float32, ge::Shape{2, 3});
  g.add_node("Add", "add", {x, c}, {s});
  ge::Attributes a;
  a.set("alpha", 0.25f);
  a.set("ints", std::vector<int64_t>{1, -2});
  a.set("strs", std::vector<std::string>{"a", ""});
  a.set("t", ge::Tensor::allocate(ge::DataType::Int64, ge::Shape{2}));
  g.add_node("Add", "add2", {s, c2}, {y}, a);
  g.mark_output(y);
  std::vector<uint8_t> bytes = ge::core::serialize_plan(g, *env(), "cpu");
  ge::core::PlanContents p = ge::core::parse_plan(bytes.data(), bytes.size(), nullptr, *env(), "hand");
  EXPECT_EQ(ge::print_graph(*p.graph), ge::print_graph(g));
  EXPECT_EQ(p.weights_bytes, 12u) << "a Tensor shared by two constants is stored once";
  EXPECT_EQ(p.graph->find_value("w")->data->data(), p.graph->find_value("w_shared")->data->data());
}

TEST(PlanFile, SavingNeverLeavesAHalfWrittenFile) {
  ge::Graph g("empty");
  std::string dir = temp_path("no_such_dir");
  EXPECT_THROW(ge::core::save_plan(g, *env(), "cpu", dir + "/x.gep"), ge::Error);
  EXPECT_FALSE(std::filesystem::exists(dir + "/x.gep"));
}
