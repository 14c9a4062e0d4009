// Tests of the schema-driven registry (registry/README.md): ONNX's inference on ops GE has no
// inference of its own for (constant inputs visible), function bodies expanded (text IR before
// and after), and the [[meta]] data format with its errors.
#include <gtest/gtest.h>

#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"
#include "registry_fixture.h"

using namespace ge;
using ge::test::registrar;

namespace {

/// Infers every node of `g` in order with the registry's definitions (as the importer does).
void infer_all(Graph& g) {
  for (Node* n : g.topological_order()) {
    const int64_t opset = g.opset(n->domain());
    const OpDef* d = registrar().reg.find(n->domain(), n->op_type(), opset);
    if (!d) throw std::runtime_error("no definition of " + n->op_type());
    InferContext ctx(*n, *d, opset);
    d->infer(ctx);
  }
}

std::unique_ptr<Graph> infer_text(const std::string& text) {
  auto g = parse_graph(text);
  infer_all(*g);
  return g;
}

Shape out_shape(const std::string& text) { return infer_text(text)->outputs().at(0)->shape; }

}  // namespace

TEST(OnnxInference, ElementwiseAndBroadcastOpsKeepOrBroadcastTheShape) {
  EXPECT_EQ(out_shape(R"(graph g opset(ai.onnx=16) {
    input %x: f32[2,3,4]
    %y: f32[2,3,4] = LeakyRelu(%x) {alpha=0.2}
    output %y
  })"), (Shape{2, 3, 4}));
  EXPECT_EQ(out_shape(R"(graph g opset(ai.onnx=16) {
    input %c: bool[3,1]
    input %a: f32[4]
    input %b: f32[1,1]
    %y: f32[3,4] = Where(%c, %a, %b)
    output %y
  })"), (Shape{3, 4}));
  auto g = infer_text(R"(graph g opset(ai.onnx=13) {
    input %a: f32[2,3]
    input %b: f32[3]
    %y: bool[2,3] = Less(%a, %b)
    output %y
  })");
  EXPECT_EQ(g->outputs()[0]->dtype, DataType::Bool);
}

TEST(OnnxInference, ConstantShapeInputsGiveStaticShapes) {
  // Expand to a constant shape [2,1,6] from [3,1]: numpy broadcasting gives [2,3,6].
  auto g = parse_graph(R"(graph g opset(ai.onnx=13) {
    input %x: f32[3,1]
    const %s: i64[3] = [2,1,6]
    %y: f32[1] = Expand(%x, %s)
    output %y
  })");
  infer_all(*g);
  EXPECT_EQ(g->outputs()[0]->shape, (Shape{2, 3, 6}));
  // Range(1, 10, 3) = [1, 4, 7]: three elements (Operators.md#Range: ceil((limit-start)/delta)).
  g = parse_graph(R"(graph g opset(ai.onnx=13) {
    const %s: i64[] = [1]
    const %l: i64[] = [10]
    const %d: i64[] = [3]
    %y: i64[1] = Range(%s, %l, %d)
    output %y
  })");
  infer_all(*g);
  EXPECT_EQ(g->outputs()[0]->shape, (Shape{3}));
  // TopK with K = 2 along the last axis: values and int64 indices [4,2].
  g = parse_graph(R"(graph g opset(ai.onnx=11) {
    input %x: f32[4,5]
    const %k: i64[1] = [2]
    %v: f32[1], %i: i64[1] = TopK(%x, %k)
    output %v
    output %i
  })");
  infer_all(*g);
  EXPECT_EQ(g->outputs()[0]->shape, (Shape{4, 2}));
  EXPECT_EQ(g->outputs()[1]->dtype, DataType::Int64);
}

TEST(OnnxInference, RunTimeShapeInputsAreUnknownNotWrong) {
  // K only known at run time: the output shape is not static; UnknownValueError lets the importer
  // take the model's declared shape instead.
  auto g = parse_graph(R"(graph g opset(ai.onnx=11) {
    input %x: f32[4,5]
    input %k: i64[1]
    %v: f32[1], %i: i64[1] = TopK(%x, %k)
    output %v
    output %i
  })");
  EXPECT_THROW(infer_all(*g), UnknownValueError);
}

TEST(OnnxInference, MalformedNodesAreRefusedNamingTheNode) {
  try {
    out_shape(R"(graph g opset(ai.onnx=13) {
      input %a: f32[2,3]
      input %b: f32[4,5]
      %y: f32[1] = Less(%a, %b)  # cmp
      output %y
    })");
    FAIL() << "incompatible broadcast accepted";
  } catch (const InvalidGraphError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'cmp' (Less)"), std::string::npos) << e.what();
  }
  // Upsample is deprecated from opset 10: a model at opset 10 may not use it.
  try {
    out_shape(R"(graph g opset(ai.onnx=10) {
      input %x: f32[1,1,2,2]
      const %s: f32[4] = [1.0,1.0,2.0,2.0]
      %y: f32[1] = Upsample(%x, %s)
      output %y
    })");
    FAIL() << "deprecated Upsample-10 accepted";
  } catch (const InvalidGraphError& e) {
    EXPECT_NE(std::string(e.what()).find("deprecated since opset 10"), std::string::npos) << e.what();
  }
}

TEST(FunctionBodies, HardSwishExpandsIntoItsOnnxBody) {
  // HardSwish-14's body (onnx/defs/math/defs.cc): HardSigmoid(alpha=1/6, beta=0.5) then Mul.
  auto g = infer_text(R"(graph g opset(ai.onnx=14) {
    input %x: f32[2,8]
    %y: f32[2,8] = HardSwish(%x)  # hs
    output %y
  })");
  const FunctionExpander* fx = registrar().reg.expander("", "HardSwish");
  ASSERT_NE(fx, nullptr);
  EXPECT_TRUE(fx->has_body(14));
  std::vector<Node*> body = fx->expand(*g->find_node("hs"), 14);
  ASSERT_EQ(body.size(), 2u);
  infer_all(*g);
  TextIrOptions o;
  o.show_node_names = false;
  const std::string after = print_graph(*g, o);
  EXPECT_NE(after.find("= HardSigmoid(%x) {alpha=0.16666667, beta=0.5}"), std::string::npos) << after;
  EXPECT_NE(after.find("%y: f32[2,8] = Mul(%x, "), std::string::npos) << after;
  EXPECT_EQ(g->outputs()[0]->shape, (Shape{2, 8}));
}

TEST(FunctionBodies, LayerNormalizationBodyUsesTheCallersAxisAndEpsilon) {
  // LayerNormalization-17 has a context-dependent body built from the node's attributes and input
  // types; the caller's epsilon appears in it, the outputs keep their names and shapes.
  auto g = infer_text(R"(graph g opset(ai.onnx=17) {
    input %x: f32[2,3,4]
    input %s: f32[4]
    input %b: f32[4]
    %y: f32[2,3,4] = LayerNormalization(%x, %s, %b) {axis=-1, epsilon=0.001}  # ln
    output %y
  })");
  const FunctionExpander* fx = registrar().reg.expander("", "LayerNormalization");
  ASSERT_NE(fx, nullptr);
  std::vector<Node*> body = fx->expand(*g->find_node("ln"), 17);
  EXPECT_GT(body.size(), 5u);
  // (The body computes its reduction shape with Shape → … → ConstantOfShape: the importer folds
  // that chain with the host kernels; shapes are not inferred here.)
  const std::string after = print_graph(*g);
  EXPECT_EQ(after.find("LayerNormalization("), std::string::npos) << after;
  EXPECT_NE(after.find("ReduceMean("), std::string::npos) << after;
  // The caller's epsilon is the body's FloatEpsilon constant.
  const Node* eps = g->find_node("ln/Constant_0");
  ASSERT_NE(eps, nullptr) << after;
  EXPECT_FLOAT_EQ(eps->attrs.get_tensor("value").data_as<float>()[0], 0.001f);
  EXPECT_EQ(g->outputs()[0]->name(), "y");
  EXPECT_NE(g->outputs()[0]->producer(), nullptr);
}

TEST(FunctionBodies, OpsWithoutABodyHaveNoExpander) {
  EXPECT_EQ(registrar().reg.expander("", "Conv"), nullptr);
  const FunctionExpander* fx = registrar().reg.expander("", "Softmax");
  ASSERT_NE(fx, nullptr);  // Softmax-13 has a body; Softmax-11 does not
  EXPECT_TRUE(fx->has_body(13));
  EXPECT_FALSE(fx->has_body(11));
}

TEST(MetaToml, EntriesParseAndApply) {
  auto metas = parse_op_meta_toml(R"(
[[meta]]
ops = ["Det", "Einsum"]
since = 12
pattern = "reduce"
fuse_flag = "no_fuse_output"
numerics = "order"
)", "m.toml");
  ASSERT_EQ(metas.size(), 1u);
  EXPECT_EQ(metas[0].origin, "m.toml:2");
  OpDef d;
  d.op_type = "Det";
  d.since_version = 11;
  apply_meta_to(d, metas[0]);
  EXPECT_EQ(d.pattern, OpPattern::Opaque);  // since 12 only
  d.since_version = 12;
  apply_meta_to(d, metas[0]);
  EXPECT_EQ(d.pattern, OpPattern::Reduce);
  EXPECT_EQ(d.fuse_flag, FuseFlag::NoFuseOutput);
  EXPECT_EQ(d.numerics, "order");
}

TEST(MetaToml, ContractsParseAndApply) {
  auto metas = parse_op_meta_toml(R"(
[[meta]]
ops = ["Relu"]
view = false
inplace = [0]
cost_class = "elementwise"
elementwise_instruction = true

[[meta]]
ops = ["Where"]
inplace = "any"
max_operands = 12
)", "m.toml");
  ASSERT_EQ(metas.size(), 2u);
  OpDef d;
  d.op_type = "Relu";
  apply_meta_to(d, metas[0]);
  EXPECT_FALSE(d.view);
  EXPECT_EQ(d.inplace_inputs, std::vector<int>{0});
  EXPECT_TRUE(d.may_run_inplace_on(0));
  EXPECT_FALSE(d.may_run_inplace_on(1));
  EXPECT_EQ(d.cost_class, "elementwise");
  EXPECT_TRUE(d.elementwise_instruction);
  OpDef w;
  apply_meta_to(w, metas[1]);
  EXPECT_TRUE(w.may_run_inplace_on(2));
  EXPECT_EQ(w.max_operands, 12);
}

// The contracts the memory planner, runtime, cost model and fusion rules read, as the standard
// registry states them.
TEST(MetaToml, StandardContracts) {
  const OpRegistry& reg = registrar().reg;
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"})
    EXPECT_TRUE(reg.find("", op, 13)->view) << op;
  for (const char* op : {"Transpose", "Concat", "Relu", "Add"}) EXPECT_FALSE(reg.find("", op, 13)->view) << op;
  EXPECT_EQ(reg.find("", "Sum", 13)->inplace_inputs, (std::vector<int>{0, 1}));  // a left-to-right fold
  EXPECT_EQ(reg.find("", "Sigmoid", 13)->inplace_inputs, std::vector<int>{0});
  EXPECT_TRUE(reg.find("", "Where", 16)->may_run_inplace_on(2));
  EXPECT_TRUE(reg.find("", "Conv", 11)->inplace_inputs.empty());
  EXPECT_EQ(reg.find("", "Conv", 11)->cost_class, "gemm");
  EXPECT_EQ(reg.find("", "Softmax", 13)->cost_class, "reduce");
  EXPECT_EQ(reg.find("", "Transpose", 13)->cost_class, "data");
  EXPECT_TRUE(reg.find("", "HardSwish", 14)->elementwise_instruction);
  EXPECT_FALSE(reg.find("", "Mean", 13)->elementwise_instruction);
}

TEST(MetaToml, ErrorsNameFileLineAndKey) {
  auto msg = [](const std::string& text) {
    try {
      parse_op_meta_toml(text, "m.toml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(msg("[[meta]]\nops = [\"Relu\"]\npatern = \"elementwise\"\n"), "m.toml:3: unknown key 'patern' in [[meta]]");
  EXPECT_EQ(msg("[[meta]]\nops = []\n"), "m.toml:2: 'ops' of [[meta]] must be a non-empty array of op types");
  EXPECT_EQ(msg("[[meta]]\nops = [\"Relu\"]\ninplace = \"all\"\n"),
            "m.toml:3: 'inplace' of [[meta]] must be \"any\" or an array of input indices (integers >= 0)");
  EXPECT_EQ(msg("[[meta]]\nops = [\"Relu\"]\ninplace = [-1]\n"),
            "m.toml:3: 'inplace' of [[meta]] must be \"any\" or an array of input indices (integers >= 0)");
  EXPECT_EQ(msg("[[meta]]\nops = [\"Relu\"]\nview = 1\n"), "m.toml:3: key 'view' in [[meta]] must be a boolean");
  EXPECT_EQ(msg("[[meta]]\nops = [\"Relu\"]\ncost_class = \"gem\"\n"),
            "m.toml:3: unknown cost_class 'gem' in [[meta]] (known: gemm, elementwise, reduce, data, transdata, other)");
  EXPECT_EQ(msg("[[meta]]\nops = [\"Relu\"]\nmax_operands = 0\n"),
            "m.toml:3: 'max_operands' of [[meta]] must be an integer in [1, 1048576]");
  EXPECT_NE(msg("[[meta]]\nops = [\"Relu\"]\npattern = \"elementwize\"\n").find("unknown op pattern 'elementwize'"),
            std::string::npos);
  OpRegistry reg;
  OpMeta m;
  m.op_types = {"NoSuchOp"};
  m.origin = "m.toml:7";
  try {
    reg.apply_meta(m);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "m.toml:7: metadata for op type 'NoSuchOp', which no loaded registry defines");
  }
}
