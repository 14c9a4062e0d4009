// Symbolic dims through the import (ge/core/symbolic.h): the dynamic zoo models and the shared
// models with their batch (and spatial, and sequence) dims made symbolic are imported once with
// symbols, and at every binding tried the symbolic shape of every value evaluates to what a static
// import at that binding infers; shape subgraphs stay symbolic; the consistency check names the
// node at fault.
#include <onnx/onnx_pb.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <set>

#include "ge/core/importer.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/symbolic.h"
#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"
#include "plan_test_util.h"

using namespace plan_test;
namespace fs = std::filesystem;

namespace {

std::string shared_dir() {
  const char* s = std::getenv("GE_SHARED_DIR");
  return s && fs::is_directory(s) ? s : "";
}

std::string dims_of(const ge::Graph& g, const std::string& value) {
  const ge::Value* v = g.find_value(value);
  return v ? ge::dims_str(v->dim_exprs()) : "(no value '" + value + "')";
}

size_t symbolic_values(const ge::Graph& g) {
  size_t n = 0;
  for (ge::Value* v : g.values()) n += v->symbolic_dims() != nullptr;
  return n;
}

// The model imported statically with these input shapes.
std::unique_ptr<ge::Graph> import_static(const std::string& model, const std::map<std::string, std::vector<int64_t>>& shapes) {
  ge::core::ImportOptions io;
  io.frontend.input_shapes = shapes;
  io.backend.clear();
  return ge::core::import_model(*env(), model, io);
}

// Every value's symbolic shape at `b` equals the static import's at the same input shapes.
void expect_agrees(const ge::core::SymbolicImport& s, const std::string& model, const ge::core::Binding& b,
                   const std::map<std::string, std::vector<int64_t>>& shapes) {
  auto st = import_static(model, shapes);
  std::vector<std::string> problems = ge::core::compare_with_static(*s.graph, *st, b);
  EXPECT_TRUE(problems.empty()) << model << " at " << ge::core::binding_str(b) << ": " << problems.size()
                                << " disagreements, first: " << problems.front();
}

// A copy of an ONNX model whose graph inputs' dims are replaced: `params[input][axis]` = dim_param.
std::string with_dim_params(const std::string& model, const std::map<std::string, std::map<int, std::string>>& params,
                            const std::string& name) {
  onnx::ModelProto m;
  std::ifstream in(model, std::ios::binary);
  EXPECT_TRUE(m.ParseFromIstream(&in)) << model;
  for (auto& vi : *m.mutable_graph()->mutable_input()) {
    auto it = params.find(vi.name());
    if (it == params.end()) continue;
    auto* shp = vi.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (auto& [axis, p] : it->second) shp->mutable_dim(axis)->set_dim_param(p);
  }
  m.mutable_graph()->clear_value_info();  // declared at the static shapes
  for (auto& vi : *m.mutable_graph()->mutable_output()) vi.mutable_type()->mutable_tensor_type()->clear_shape();
  const fs::path out = fs::temp_directory_path() / ("ge_symbolic_" + std::to_string(::getpid()) + "_" + name + ".onnx");
  std::ofstream o(out, std::ios::binary);
  EXPECT_TRUE(m.SerializeToOstream(&o));
  return out.string();
}

ge::core::SymbolicImport import_sym(const std::string& model) {
  ge::core::ImportOptions io;
  return ge::core::import_symbolic(*env(), model, io);
}

TEST(Symbolic, Gpt2TinyDynKeepsBatchAndSequence) {
  if (shared_dir().empty()) GTEST_SKIP() << "GE_SHARED_DIR not set";
  const std::string model = shared_dir() + "/zoo/gpt2_tiny_dyn/model.onnx";
  ge::core::SymbolicImport s = import_sym(model);
  EXPECT_EQ(s.symbols, (std::map<std::string, std::string>{{"batch", "batch"}, {"sequence", "sequence"}}));
  EXPECT_TRUE(s.fresh.empty()) << s.fresh.front();
  EXPECT_EQ(dims_of(*s.graph, "logits"), "[batch,sequence,4096]");
  // The attention scores and the causal mask: sequence x sequence, through the Shape → Gather →
  // Unsqueeze → Concat → Reshape chains of the export (no constant of one shape in them).
  std::set<std::string> shapes;
  for (ge::Value* v : s.graph->values())
    if (v->symbolic_dims()) shapes.insert(ge::dims_str(*v->symbolic_dims()));
  EXPECT_TRUE(shapes.count("[batch,4,sequence,sequence]")) << "no attention scores of [batch,4,sequence,sequence]";
  EXPECT_TRUE(shapes.count("[batch,sequence,4,64]")) << "no head split of [batch,sequence,4,64]";
  EXPECT_GT(symbolic_values(*s.graph), 100u);
  EXPECT_TRUE(ge::core::verify_symbolic(*s.graph, *env()).empty());
  for (auto [batch, seq] : std::vector<std::pair<int64_t, int64_t>>{{1, 64}, {2, 17}, {3, 40}, {1, 1}})
    expect_agrees(s, model, {{"batch", batch}, {"sequence", seq}}, {{"input_ids", {batch, seq}}});
}

TEST(Symbolic, MobilenetV3SmallDynKeepsN) {
  if (shared_dir().empty()) GTEST_SKIP() << "GE_SHARED_DIR not set";
  const std::string model = shared_dir() + "/zoo/mobilenet_v3_small_dyn/model.onnx";
  ge::core::SymbolicImport s = import_sym(model);
  EXPECT_TRUE(s.fresh.empty()) << s.fresh.front();
  EXPECT_EQ(dims_of(*s.graph, "output"), "[N,1000]");
  EXPECT_TRUE(ge::core::verify_symbolic(*s.graph, *env()).empty());
  for (int64_t n : {1, 3, 5}) expect_agrees(s, model, {{"N", n}}, {{"input", {n, 3, 224, 224}}});
}

// Spatial dims through every Conv and pool formula of resnet50 (strided convs, the 3x3 stride-2
// max pool with pads 1), batch and image size symbolic.
TEST(Symbolic, Resnet50WithSymbolicImageSize) {
  if (shared_dir().empty()) GTEST_SKIP() << "GE_SHARED_DIR not set";
  const std::string src = shared_dir() + "/models/resnet50/resnet50.onnx";
  if (!fs::exists(src)) GTEST_SKIP() << src << " missing";
  const std::string model = with_dim_params(src, {{"input", {{0, "N"}, {2, "H"}, {3, "W"}}}}, "resnet50");
  ge::core::SymbolicImport s = import_sym(model);
  EXPECT_TRUE(s.fresh.empty()) << s.fresh.front();
  const ge::Value* out = s.graph->outputs().at(0);
  EXPECT_EQ(ge::dims_str(out->dim_exprs()), "[N,1000]");
  // The stem: 7x7 stride 2 pads 3 → (H+1)/2; max pool 3x3 stride 2 pads 1 → (H+3)/4; the last
  // stage, three more stride-2 convs → (H+31)/32.
  std::set<std::string> shapes;
  for (ge::Value* v : s.graph->values())
    if (v->symbolic_dims()) shapes.insert(ge::dims_str(*v->symbolic_dims()));
  EXPECT_TRUE(shapes.count("[N,64,(H+1)/2,(W+1)/2]"));
  EXPECT_TRUE(shapes.count("[N,64,(H+3)/4,(W+3)/4]"));
  EXPECT_TRUE(shapes.count("[N,2048,(H+31)/32,(W+31)/32]"));
  for (auto [n, h, w] : std::vector<std::array<int64_t, 3>>{{1, 224, 224}, {2, 161, 97}})
    expect_agrees(s, model, {{"N", n}, {"H", h}, {"W", w}}, {{"input", {n, 3, h, w}}});
  fs::remove(model);
}

// The other shared models and the zoo's with a symbolic batch (unet_small: and image size; lstm2:
// and sequence length).
TEST(Symbolic, SharedModelsWithSymbolicBatch) {
  if (shared_dir().empty()) GTEST_SKIP() << "GE_SHARED_DIR not set";
  struct Case {
    std::string file;
    std::map<std::string, std::map<int, std::string>> params;
    std::vector<std::pair<ge::core::Binding, std::map<std::string, std::vector<int64_t>>>> at;
  };
  const std::vector<Case> cases = {
      {"mobilenet_v2/mobilenet_v2.onnx", {{"input", {{0, "N"}}}}, {{{{"N", 3}}, {{"input", {3, 3, 224, 224}}}}}},
      {"squeezenet1_1/squeezenet1_1.onnx", {{"input", {{0, "N"}}}}, {{{{"N", 2}}, {{"input", {2, 3, 224, 224}}}}}},
      {"../zoo/unet_small/model.onnx", {{"input", {{0, "N"}, {2, "H"}, {3, "W"}}}},
       {{{{"N", 2}, {"H", 64}, {"W", 96}}, {{"input", {2, 3, 64, 96}}}}}},
      {"../zoo/lstm2/model.onnx", {{"input", {{0, "N"}, {1, "sequence"}}}},
       {{{{"N", 3}, {"sequence", 5}}, {{"input", {3, 5, 64}}}}}},
      {"../zoo/audio_conv1d/model.onnx", {{"waveform", {{0, "N"}}}}, {{{{"N", 2}}, {{"waveform", {2, 1, 8000}}}}}},
      {"../zoo/mobilenet_v3_small_op17/model.onnx", {{"input", {{0, "N"}}}}, {{{{"N", 2}}, {{"input", {2, 3, 224, 224}}}}}},
  };
  // bert_small, yolo_small, t5_encoder and gpt2_tiny (not _dyn) reshape to constants of batch 1
  // and are refused as shufflenet_v2 is below.
  for (const Case& c : cases) {
    const std::string src = shared_dir() + "/models/" + c.file;
    if (!fs::exists(src)) continue;
    SCOPED_TRACE(c.file);
    const std::string model = with_dim_params(src, c.params, fs::path(c.file).stem().string());
    ge::core::SymbolicImport s = import_sym(model);
    EXPECT_TRUE(s.fresh.empty()) << s.fresh.front();
    EXPECT_GT(symbolic_values(*s.graph), 10u);
    // unet_small's three skip Concats hold only for H and W divisible by its total stride: said.
    if (c.file.find("unet") != std::string::npos) {
      std::string all;
      for (const std::string& x : s.constraints) all += x + "\n";
      EXPECT_NE(all.find("node '/Concat' (Concat) holds for multiples of 32 from 96 on of H, N, W"), std::string::npos) << all;
      // Its first max pool needs H, W >= 2.
      EXPECT_NE(all.find("node '/pool/MaxPool' (MaxPool) does not hold at H=1,N=1,W=1"), std::string::npos) << all;
    } else {
      EXPECT_TRUE(s.constraints.empty()) << s.constraints.front();
    }
    for (auto& [b, shapes] : c.at) expect_agrees(s, model, b, shapes);
    EXPECT_TRUE(ge::core::verify_symbolic(*s.graph, *env()).empty());
    fs::remove(model);
  }
}

// shufflenet_v2's export reshapes to constants that hold batch 1 ([1,2,58,28,28]): with a
// symbolic batch that Reshape holds for N = 1 only, and the import says so at the node.
TEST(Symbolic, ABatchFixedInsideTheModelIsRefusedAtItsNode) {
  if (shared_dir().empty()) GTEST_SKIP() << "GE_SHARED_DIR not set";
  const std::string src = shared_dir() + "/models/shufflenet_v2_x1_0/shufflenet_v2_x1_0.onnx";
  if (!fs::exists(src)) GTEST_SKIP() << src << " missing";
  const std::string model = with_dim_params(src, {{"input", {{0, "N"}}}}, "shufflenet");
  try {
    import_sym(model);
    ADD_FAILURE() << "imported";
  } catch (const ge::InvalidGraphError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("node '/stage2/stage2.0/Reshape' (Reshape): inference fails for N="), std::string::npos) << m;
    EXPECT_NE(m.find("cannot reshape"), std::string::npos) << m;
  }
  fs::remove(model);
}

std::unique_ptr<ge::Graph> parse_and_infer(const std::string& text, ge::core::SymbolicNotes* notes = nullptr) {
  auto g = ge::parse_graph(text);
  ge::core::SymbolicNotes n = ge::core::infer_symbolic(*g, *env());
  if (notes) *notes = n;
  return g;
}

// Expressions that fit the probes' range but not every value are not kept (each case a defect
// a reviewer found): a Slice clamped at 100 (H at H <= 100, 100 past it), a ceil-mode pool at
// multiples of its stride, a Squeeze of dims that may be 1.
TEST(Symbolic, ExpressionsThatHoldOnlyInTheProbeRangeAreNotKept) {
  ge::core::SymbolicNotes notes;
  auto g = parse_and_infer(
      "graph g opset(ai.onnx=13) {\n"
      "  input %x: f32[N,H]\n"
      "  input %p: f32[1,2,L]\n"
      "  input %q: f32[B,1,S,1]\n"
      "  const %s0: i64[1] = [0]\n"
      "  const %e100: i64[1] = [100]\n"
      "  const %ax1: i64[1] = [1]\n"
      "  %y: f32[N,H] = Slice(%x, %s0, %e100, %ax1)\n"
      "  %m: f32[1,2,L] = MaxPool(%p) {kernel_shape=[3], strides=[4], ceil_mode=1}\n"
      "  %z: f32[B,S] = Squeeze(%q)\n"
      "  output %y\n"
      "  output %m\n"
      "  output %z\n"
      "}\n",
      &notes);
  const ge::Value* y = g->find_value("y");
  EXPECT_NE(ge::dims_str(y->dim_exprs()), "[N,H]");
  EXPECT_EQ(y->dim_exprs()[0].str(), "N");
  // The pool: an expression only if it is right at every length (static inference: 8 → 2, 12 → 3,
  // 16 → 4, 9 → 3), else a fresh symbol.
  const ge::DimExpr l = g->find_value("m")->dim_exprs()[2];
  std::set<std::string> syms;
  l.collect_symbols(syms);
  if (syms.count("L")) {
    for (auto [len, want] : std::vector<std::pair<int64_t, int64_t>>{{8, 2}, {12, 3}, {16, 4}, {9, 3}, {10, 3}})
      EXPECT_EQ(l.evaluate({{"L", len}}), want) << l.str() << " at L=" << len;
  }
  // Squeeze without axes drops B and S too where they are 1: said.
  bool squeeze_noted = false;
  for (const std::string& c : notes.constraints) squeeze_noted |= c.find("(Squeeze)") != std::string::npos;
  EXPECT_TRUE(squeeze_noted) << notes.constraints.size() << " constraints";
}

// A fresh symbol never takes the name of one of the model's own symbols.
TEST(Symbolic, FreshSymbolsAvoidTheModelsSymbols) {
  ge::core::SymbolicNotes notes;
  auto g = parse_and_infer(
      "graph g opset(ai.onnx=13) {\n"
      "  input %x: f32[B,S]\n"
      "  input %z: f32[B,y_1]\n"
      "  const %s1: i64[1] = [1]\n"
      "  const %big: i64[1] = [1000000]\n"
      "  const %ax1: i64[1] = [1]\n"
      "  const %st2: i64[1] = [2]\n"
      "  %y: f32[B,S] = Slice(%x, %s1, %big, %ax1, %st2)\n"
      "  output %y\n"
      "  output %z\n"
      "}\n",
      &notes);
  const std::string d = g->find_value("y")->dim_exprs()[1].str();
  EXPECT_NE(d, "y_1");
}

// Size is known from the shape alone, as Shape is: a static import folds what follows it
// (it stopped at the ConstantOfShape as data-dependent); with a symbolic input its value is the
// product of the dims.
TEST(Symbolic, SizeFoldsLikeShape) {
  const std::string text =
      "graph g opset(ai.onnx=13) {\n"
      "  input %x: f32[2,3]\n"
      "  const %ax: i64[1] = [0]\n"
      "  %s: i64[] = Size(%x)\n"
      "  %su: i64[1] = Unsqueeze(%s, %ax)\n"
      "  %y: f32[6] = ConstantOfShape(%su)\n"
      "  output %y\n"
      "}\n";
  auto g = ge::parse_graph(text);
  ge::core::ImportOptions io;
  io.backend.clear();
  ge::core::propagate_shapes(*g, *env(), io);
  EXPECT_EQ(g->find_value("y")->shape, (ge::Shape{6}));
  ASSERT_NE(g->find_value("s")->data, nullptr);
  EXPECT_EQ(g->find_value("s")->data->to_int64_vector(), std::vector<int64_t>{6});

  std::string sym = text;
  sym.replace(sym.find("f32[2,3]"), 8, "f32[B,3]");
  sym.replace(sym.find("f32[6]"), 6, "f32[3*B]");
  auto h = parse_and_infer(sym);
  EXPECT_EQ(dims_of(*h, "y"), "[3*B]");
}

// NonZero: [rank of the input, a fresh symbol], not a refusal.
TEST(Symbolic, NonZeroGetsItsRankAndAFreshSymbol) {
  ge::core::SymbolicNotes notes;
  auto g = parse_and_infer(
      "graph g opset(ai.onnx=13) {\n"
      "  input %x: f32[N,4]\n"
      "  %i: i64[2,3] = NonZero(%x)\n"
      "  output %i\n"
      "}\n",
      &notes);
  const ge::Value* i = g->find_value("i");
  ASSERT_EQ(i->dim_exprs().size(), 2u);
  EXPECT_EQ(i->dim_exprs()[0].str(), "2");
  EXPECT_FALSE(i->dim_exprs()[1].is_constant());
  EXPECT_EQ(notes.fresh.size(), 1u);
}

TEST(Symbolic, ShapeSubgraphStaysSymbolic) {
  auto g = parse_and_infer(
      "graph g opset(ai.onnx=13) {\n"
      "  input %x: f32[batch,sequence,64]\n"
      "  const %i0: i64[] = [0]\n"
      "  const %i1: i64[] = [1]\n"
      "  const %ax: i64[1] = [0]\n"
      "  const %heads: i64[2] = [4,16]\n"
      "  const %m1: i64[1] = [-1]\n"
      "  %s: i64[3] = Shape(%x)\n"
      "  %b: i64[] = Gather(%s, %i0)\n"
      "  %t: i64[] = Gather(%s, %i1)\n"
      "  %b1: i64[1] = Unsqueeze(%b, %ax)\n"
      "  %t1: i64[1] = Unsqueeze(%t, %ax)\n"
      "  %c: i64[4] = Concat(%b1, %t1, %heads) {axis=0}\n"
      "  %r: f32[batch,sequence,4,16] = Reshape(%x, %c)\n"
      "  %bt: i64[1] = Mul(%b1, %t1)\n"
      "  %c2: i64[2] = Concat(%bt, %m1) {axis=0}\n"
      "  %f: f32[batch*sequence,64] = Reshape(%x, %c2)\n"
      "  output %r\n"
      "  output %f\n"
      "}\n");
  EXPECT_EQ(dims_of(*g, "r"), "[batch,sequence,4,16]");
  // Reshape's -1: the element count over the other dims, batch*sequence*64 / (batch*sequence).
  EXPECT_EQ(dims_of(*g, "f"), "[batch*sequence,64]");
  EXPECT_EQ(g->find_value("c")->data, nullptr) << "the shape was folded to a constant";
  EXPECT_TRUE(ge::core::verify_symbolic(*g, *env()).empty());
}

TEST(Symbolic, VerifierNamesTheInconsistentNode) {
  auto g = ge::parse_graph(
      "graph g opset(ai.onnx=13) {\n"
      "  input %x: f32[batch,64]\n"
      "  %y: f32[batch,32] = Relu(%x)\n"
      "  output %y\n"
      "}\n");
  std::vector<std::string> p = ge::core::verify_symbolic(*g, *env());
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("output 'y' is recorded as f32[batch,32] but the op infers f32[batch,64]"), std::string::npos) << p[0];

  auto h = ge::parse_graph(
      "graph h opset(ai.onnx=13) {\n"
      "  input %x: f32[batch,64]\n"
      "  input %z: f32[sequence,64]\n"
      "  %y: f32[batch,64] = Add(%x, %z)\n"
      "  output %y\n"
      "}\n");
  p = ge::core::verify_symbolic(*h, *env());
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("inference fails for batch="), std::string::npos) << p[0];
  EXPECT_NE(p[0].find("(Add)"), std::string::npos) << p[0];
}

}  // namespace
