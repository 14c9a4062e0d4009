// Dynamic shapes (ge/core/dynamic.h) on dyn_matmul (make_test_models.cc: x f32[batch,4],
// b f32[batch,3] → y = x·W + b, W[i][j] = i - j): gears parsed and refused, input shapes bound
// and refused with the input, dim and both values, a plan with gears round-tripped with its
// weights stored once, the executor choosing gear / padded gear / specialization, the LRU cache
// of specializations, one arena for every gear.
#include "ge/core/dynamic.h"
#include "ge/core/session.h"
#include "ge/sdk/error.h"
#include "plan_test_util.h"

using namespace plan_test;

namespace {

std::string model_path() { return std::string(GE_TEST_MODELS_DIR) + "/dyn_matmul/model.onnx"; }

ge::core::DynamicSpec spec(const ge::core::Manifest& m = ge::core::Manifest{}) {
  ge::core::CompileOptions co = ge::core::CompileOptions::from_manifest(env()->manifest);
  return ge::core::dynamic_spec_from_file(model_path(), co, m);
}

// x[r][i] = r + i + shift, b[r][j] = j
std::vector<ge::Tensor> inputs(int64_t batch, float shift = 0) {
  ge::Tensor x = ge::Tensor::allocate(ge::DataType::Float32, ge::Shape{batch, 4});
  ge::Tensor b = ge::Tensor::allocate(ge::DataType::Float32, ge::Shape{batch, 3});
  for (int64_t r = 0; r < batch; ++r) {
    for (int i = 0; i < 4; ++i) x.data_as<float>()[r * 4 + i] = static_cast<float>(r + i) + shift;
    for (int j = 0; j < 3; ++j) b.data_as<float>()[r * 3 + j] = static_cast<float>(j);
  }
  return {x, b};
}

// y[r][j] = sum_i (r + i + shift)(i - j) + j, by the definition.
void expect_y(const ge::Tensor& y, int64_t batch, float shift = 0) {
  ASSERT_EQ(y.shape(), (ge::Shape{batch, 3}));
  for (int64_t r = 0; r < batch; ++r)
    for (int j = 0; j < 3; ++j) {
      float want = static_cast<float>(j);
      for (int i = 0; i < 4; ++i) want += (static_cast<float>(r + i) + shift) * static_cast<float>(i - j);
      EXPECT_FLOAT_EQ(y.data_as<float>()[r * 3 + j], want) << "r " << r << " j " << j;
    }
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ge::Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::shared_ptr<ge::LoadedPlan> plan_with_gears(const std::string& gears, const ge::core::Manifest& m = {}) {
  ge::core::DynamicPlan p;
  p.spec = spec(m);
  ge::core::CompileOptions co = ge::core::CompileOptions::from_manifest(env()->manifest);
  for (const ge::core::Binding& b : ge::core::parse_gears(gears, p.spec))
    p.gears.push_back({b, ge::core::compile_binding(p.spec, b, *env(), co)});
  auto bytes = std::make_shared<const std::vector<uint8_t>>(ge::core::serialize_dynamic_plan(p, *env()));
  return ge::LoadedPlan::load_bytes(bytes, "dyn.gep", env());
}

}  // namespace

TEST(Dynamic, SpecReadsTheModelsSymbols) {
  ge::core::DynamicSpec s = spec();
  ASSERT_EQ(s.inputs.size(), 2u);
  EXPECT_EQ(s.inputs[0].dims_str(), "[batch,4]");
  EXPECT_EQ(s.inputs[1].dims_str(), "[batch,3]");
  EXPECT_EQ(s.outputs[0].dims_str(), "[batch,3]");
  EXPECT_EQ(s.symbols(), std::vector<std::string>{"batch"});
}

TEST(Dynamic, ParseGears) {
  ge::core::DynamicSpec s = spec();
  std::vector<ge::core::Binding> g = ge::core::parse_gears("batch=1,2,8", s);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(ge::core::binding_str(g[2]), "batch=8");
  g = ge::core::parse_gears("x:3x4,b:3x3;x:5x4,b:5x3", s);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(ge::core::binding_str(g[1]), "batch=5");
  EXPECT_EQ(error_of([&] { ge::core::parse_gears("seq=1", s); }),
            "gears 'seq=1': 'seq' is no symbolic dim of the model's inputs (symbols: batch)");
  EXPECT_EQ(error_of([&] { ge::core::parse_gears("batch=0", s); }),
            "gears 'batch=0', batch: '0' is not an extent (an integer >= 1)");
  EXPECT_EQ(error_of([&] { ge::core::parse_gears("x:3x4,b:2x3", s); }),
            "gears 'x:3x4,b:2x3': input 'b' dim 0 binds 'batch' to 2; input 'x' dim 0 bound it to 3");
  EXPECT_EQ(error_of([&] { ge::core::parse_gears("x:3x4", s); }),
            "gears 'x:3x4': profile 'x:3x4' gives no shape for input 'b'");
}

TEST(Dynamic, BadInputShapesNameTheInputTheDimAndBothValues) {
  ge::core::DynamicSpec s = spec();
  auto t = [](ge::Shape sh) { return ge::Tensor::allocate(ge::DataType::Float32, std::move(sh)); };
  EXPECT_EQ(error_of([&] { ge::core::bind_inputs(s, {t({2, 4, 1}), t({2, 3})}); }),
            "input 'x' has rank 3 (shape [2,4,1]); the model's input has rank 2 [batch,4]");
  EXPECT_EQ(error_of([&] { ge::core::bind_inputs(s, {t({2, 5}), t({2, 3})}); }),
            "input 'x' dim 1 is 5; the model fixes it to 4 [batch,4]");
  EXPECT_EQ(error_of([&] { ge::core::bind_inputs(s, {t({2, 4}), t({3, 3})}); }),
            "input 'b' dim 0 binds 'batch' to 3; input 'x' dim 0 bound it to 2");
  EXPECT_EQ(error_of([&] { ge::core::bind_inputs(s, {t({2, 4})}); }), "the model 'model.onnx' has 2 inputs; 1 given");
  EXPECT_EQ(ge::core::binding_str(ge::core::bind_inputs(s, {t({7, 4}), t({7, 3})})), "batch=7");
}

TEST(Dynamic, GearsShareWeightsAndOneArena) {
  std::shared_ptr<ge::LoadedPlan> p = plan_with_gears("batch=2,16");
  ASSERT_TRUE(p->is_dynamic());
  const ge::core::DynamicPlan& d = *p->contents().dynamic;
  ASSERT_EQ(d.gears.size(), 2u);
  // W is stored once: both gears' constants view the same bytes of the weights section.
  auto w_of = [](const ge::Graph& g) -> const void* {
    for (const ge::Value* v : g.values())
      if (v->is_constant() && v->data && v->data->numel() == 12) return v->data->data();
    return nullptr;
  };
  ASSERT_NE(w_of(*d.gears[0].graph), nullptr);
  EXPECT_EQ(w_of(*d.gears[0].graph), w_of(*d.gears[1].graph));
  EXPECT_EQ(p->inputs()[0].dims, "[batch,4]");
  EXPECT_EQ(p->inputs()[0].shape, (ge::Shape{-1, 4}));
  ge::Session s = p->new_session();
  expect_y(s.run(inputs(16))[0], 16);
  ASSERT_NE(s.last_run(), nullptr);
  EXPECT_EQ(s.last_run()->kind, "gear");
  EXPECT_EQ(s.last_run()->gear, 1);
  expect_y(s.run(inputs(2, 1.5f))[0], 2, 1.5f);
  EXPECT_EQ(s.last_run()->gear, 0);
  EXPECT_EQ(p->specialization_stats().compiled, 0);
}

TEST(Dynamic, OutsideEveryGearSpecializesOnFirstUseAndCachesLru) {
  ge::core::Manifest m;
  m.specialization_cache = 2;
  std::shared_ptr<ge::LoadedPlan> p = plan_with_gears("batch=4", m);
  ge::Session s = p->new_session();
  expect_y(s.run(inputs(3))[0], 3);
  EXPECT_EQ(s.last_run()->kind, "specialization");
  EXPECT_TRUE(s.last_run()->compiled);
  EXPECT_GT(s.last_run()->compile_ms, 0);
  expect_y(s.run(inputs(3, 2))[0], 3, 2);
  EXPECT_FALSE(s.last_run()->compiled);
  expect_y(s.run(inputs(5))[0], 5);
  expect_y(s.run(inputs(6))[0], 6);  // evicts batch=3 (least recently used)
  expect_y(s.run(inputs(3))[0], 3);  // compiled again
  EXPECT_TRUE(s.last_run()->compiled);
  ge::core::SpecializationStats st = p->specialization_stats();
  EXPECT_EQ(st.compiled, 4);
  EXPECT_EQ(st.hits, 1);
  EXPECT_EQ(st.evicted, 2);
  // A second session shares the plan's specializations.
  ge::Session s2 = p->new_session();
  expect_y(s2.run(inputs(6))[0], 6);
  EXPECT_FALSE(s2.last_run()->compiled);
}

TEST(Dynamic, PaddableSymbolRunsTheNextLargerGearAndCutsBack) {
  ge::core::Manifest m;
  m.paddable = {"batch"};
  std::shared_ptr<ge::LoadedPlan> p = plan_with_gears("batch=2,8", m);
  ge::Session s = p->new_session();
  expect_y(s.run(inputs(5, 0.25f))[0], 5, 0.25f);
  EXPECT_EQ(s.last_run()->kind, "padded gear");
  EXPECT_EQ(ge::core::binding_str(s.last_run()->ran), "batch=8");
  expect_y(s.run(inputs(1))[0], 1);
  EXPECT_EQ(ge::core::binding_str(s.last_run()->ran), "batch=2");
  // Larger than every gear: specialization.
  expect_y(s.run(inputs(9))[0], 9);
  EXPECT_EQ(s.last_run()->kind, "specialization");
}

TEST(Dynamic, NotPaddableByDefault) {
  std::shared_ptr<ge::LoadedPlan> p = plan_with_gears("batch=8");
  ge::Session s = p->new_session();
  expect_y(s.run(inputs(5))[0], 5);
  EXPECT_EQ(s.last_run()->kind, "specialization");
}

TEST(Dynamic, SavedPlanLoadsFromFile) {
  ge::core::DynamicPlan d;
  d.spec = spec();
  std::string path = temp_path("dyn_file.gep");
  ge::core::save_dynamic_plan(d, *env(), path);
  EXPECT_TRUE(ge::core::plan_is_dynamic(path));
  std::shared_ptr<ge::LoadedPlan> p = ge::LoadedPlan::load(path, env(), {});
  std::filesystem::remove(path);
  EXPECT_FALSE(p->has_graph());
  ge::Session s = p->new_session();
  expect_y(s.run(inputs(2))[0], 2);
  EXPECT_EQ(s.last_run()->kind, "specialization");
  const std::vector<ge::Tensor> mixed = {inputs(2)[0], inputs(3)[1]};
  EXPECT_EQ(error_of([&] { s.run(mixed); }),
            "plan '" + path + "': input 'b' dim 0 binds 'batch' to 3; input 'x' dim 0 bound it to 2");
}

// staged_select (make_test_models.cc): NonZero and Unique have output shapes that depend on the
// data, and the model declares none, so the model runs in stages cut at each (ge/core/staging.h).
namespace {
std::shared_ptr<ge::LoadedPlan> staged_plan(const std::string& gears = "") {
  ge::core::CompileOptions co = ge::core::CompileOptions::from_manifest(env()->manifest);
  ge::core::DynamicPlan p;
  p.spec = ge::core::dynamic_spec_from_file(std::string(GE_TEST_MODELS_DIR) + "/staged_select/model.onnx", co,
                                            ge::core::Manifest{});
  for (const ge::core::Binding& b : ge::core::parse_gears(gears, p.spec))
    p.gears.push_back({b, ge::core::compile_binding(p.spec, b, *env(), co)});
  auto bytes = std::make_shared<const std::vector<uint8_t>>(ge::core::serialize_dynamic_plan(p, *env()));
  return ge::LoadedPlan::load_bytes(bytes, "staged.gep", env());
}

ge::Tensor floats(ge::Shape s, std::vector<float> v) {
  ge::Tensor t = ge::Tensor::allocate(ge::DataType::Float32, std::move(s));
  std::copy(v.begin(), v.end(), t.data_as<float>());
  return t;
}

std::vector<float> values_of(const ge::Tensor& t) {
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel());
}
}  // namespace

TEST(Staging, DataDependentShapesRunInStagesCutAtEachSuchNode) {
  std::shared_ptr<ge::LoadedPlan> p = staged_plan();
  EXPECT_EQ(p->outputs()[1].dims, "(no shape)");  // declared without a shape, kept so by the plan
  ge::Session s = p->new_session();
  // Relu(x) > 0 at (0,1) = 2, (0,3) = 3, (1,0) = 2, (1,2) = 2, (1,3) = 1.
  std::vector<ge::Tensor> out = s.run({floats({2, 4}, {-1, 2, 0, 3, 2, -5, 2, 1})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(values_of(out[0]), std::vector<float>{10});
  EXPECT_EQ(out[1].shape(), (ge::Shape{5}));
  EXPECT_EQ(values_of(out[1]), (std::vector<float>{4, 6, 4, 4, 2}));
  EXPECT_EQ(values_of(out[2]), (std::vector<float>{1, 2, 3}));
  ASSERT_EQ(out[3].dtype(), ge::DataType::Int64);
  EXPECT_EQ(out[3].data_as<int64_t>()[0], 3);
  const ge::core::DynamicRunInfo* r = s.last_run();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, "stages");
  EXPECT_EQ(r->cut_node, "node 'nonzero' (NonZero)");
  EXPECT_TRUE(r->compiled);
  ASSERT_EQ(r->stages.size(), 2u);  // the prefix (Relu, ReduceSum), the suffix (cut again)
  EXPECT_EQ(r->stages[0].kind, "specialization");
  EXPECT_EQ(r->stages[1].kind, "stages");
  EXPECT_EQ(r->stages[1].cut_node, "node 'unique' (Unique)");

  // Same input shape, other values, another count of nonzeros: the prefix is reused and only the
  // suffix at the new NonZero extent compiles.
  const int64_t before = p->specialization_stats().compiled;
  out = s.run({floats({2, 4}, {0, 0, 7, 0, 0, 0, 0, 7})});
  EXPECT_EQ(values_of(out[1]), (std::vector<float>{14, 14}));
  EXPECT_EQ(values_of(out[2]), (std::vector<float>{7}));
  EXPECT_GT(p->specialization_stats().compiled, before);
  EXPECT_FALSE(s.last_run()->stages[0].compiled);
  const int64_t after = p->specialization_stats().compiled;
  out = s.run({floats({2, 4}, {0, 0, 5, 0, 0, 0, 0, 5})});  // every stage's shape seen: nothing compiles
  EXPECT_EQ(values_of(out[1]), (std::vector<float>{10, 10}));
  EXPECT_EQ(p->specialization_stats().compiled, after);
  EXPECT_FALSE(s.last_run()->compiled);

  // No nonzero at all: NonZero gives [2, 0] and every later value is empty.
  out = s.run({floats({1, 4}, {-1, -2, -3, 0})});
  EXPECT_EQ(values_of(out[0]), std::vector<float>{0});
  EXPECT_EQ(out[1].shape(), (ge::Shape{0}));
  EXPECT_EQ(out[2].shape(), (ge::Shape{0}));
  EXPECT_EQ(out[3].data_as<int64_t>()[0], 0);
}

TEST(Staging, AModelWithDataDependentShapesHasNoGears) {
  EXPECT_NE(error_of([] { staged_plan("batch=2"); })
                .find("node 'nonzero' (NonZero): dimension 1 of output 'nz' depends on values known only at run time; a "
                      "gear is one static plan, so this model cannot have gears"),
            std::string::npos)
      << error_of([] { staged_plan("batch=2"); });
}
