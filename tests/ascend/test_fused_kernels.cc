// The transformer and fused ops' AI Core kernels (vector_rows.cc, vector_fused.cc, ge.FusedMatMul
// in cube_kernels.cc) against the CPU backend (fp32, the fused ops' reference kernels):
//  * force_fp16: relative L2 <= 1e-3 (operands and the one output rounding each ~2^-12 relative;
//    the fused kernels compute everything in between in fp32) and > 0 (it really ran in fp16),
//    on the engine the placement table names (Cube for FusedMatMul, Vector for the others);
//  * must_keep_origin_dtype: relative L2 <= 1e-5 (fp32 on both sides, other summation orders);
//  * exact small cases: integer-valued FusedMatMul + bias + Relu, Softmax of equal values,
//    ReduceMean of [1, 2, 3, 4]: the fp16 result equals the exact value;
//  * the unfused MatMul + Add + Relu and a decomposed LayerNorm are fused for backend ascend (the
//    ascend manifest enables the rules) and land on the Cube / Vector unit.
// Each graph ends with a Flatten (an AI CPU op), so the op under test is not a graph output.
#include "ascend_harness.h"

namespace ge::ascend {
namespace {

struct Case {
  std::string name, body, input, engine;
  std::string node;  // "op:engine" the compiled graph must hold once (ge.Cast also counts as Vector)
};

std::string text_of(const Case& c) {
  return "graph g opset(ai.onnx=13, ge=1) {\n  " + c.input + "\n" + c.body + "\n  output %out\n}";
}

class AscendFusedKernels : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cpu_ = test::cpu_env().release();
    fp16_ = test::ascend_env("force_fp16").release();
    fp32_ = test::ascend_env("must_keep_origin_dtype").release();
  }
  static core::Environment *cpu_, *fp16_, *fp32_;

  /// Runs the case on both backends; returns the force_fp16 run.
  test::Run check(const Case& c) {
    SCOPED_TRACE(c.name);
    const std::string text = text_of(c);
    test::ModeRuns m = test::run_three_ways(text, *cpu_, *fp16_, *fp32_);
    test::Run &h = m.fp16, &f = m.fp32;
    const double e16 = m.e16, e32 = m.e32;
    std::printf("%-28s force_fp16 rel L2 %.3e  must_keep_origin_dtype %.3e\n", c.name.c_str(), e16, e32);
    EXPECT_LE(e16, 1e-3);
    EXPECT_GT(e16, 0.0);
    EXPECT_LE(e32, 1e-5);
    EXPECT_GE(h.counters["ascend.placement.final." + c.engine], 1) << c.engine;
    EXPECT_EQ(engines(h).count(c.node), 1u) << c.node;
    EXPECT_EQ(h.counters["ascend.placement.aicpu"], 0);  // the Flatten follows fp16: a view
    EXPECT_EQ(h.counters["ascend.placement.view"], 1);
    EXPECT_EQ(h.counters["ascend.casts.to_fp32"], 1);
    EXPECT_EQ(f.counters["ascend.casts.to_fp16"], 0);
    return h;
  }

  /// The op types of the compiled graph's nodes and their stored engines ("ge.FusedMatMul:cube").
  static std::multiset<std::string> engines(const test::Run& r) {
    std::multiset<std::string> s;
    for (const Node* n : r.graph->nodes())
      s.insert((n->domain().empty() ? "" : n->domain() + ".") + n->op_type() + ":" + n->attrs.get_string("ascend_engine", "?"));
    return s;
  }

  /// Runs `text` (its constants as written) under force_fp16 on the given input values; returns
  /// output 0 as floats.
  std::vector<float> run_fp16(const std::string& text, const std::vector<float>& x) {
    std::unique_ptr<Graph> g = parse_graph(text, "test");
    core::ImportOptions io;
    core::propagate_shapes(*g, *fp16_, io);
    Tensor t = Tensor::allocate(DataType::Float32, g->inputs()[0]->shape);
    EXPECT_EQ(static_cast<size_t>(t.numel()), x.size());
    std::copy(x.begin(), x.end(), t.span<float>().begin());
    auto r = test::compile_and_run(std::move(g), *fp16_, "ascend", {t});
    std::vector<float> out;
    for (double v : r.outputs[0].to_double_vector()) out.push_back(static_cast<float>(v));
    return out;
  }
};
core::Environment *AscendFusedKernels::cpu_, *AscendFusedKernels::fp16_, *AscendFusedKernels::fp32_;

TEST_F(AscendFusedKernels, SoftmaxRowsOnTheVectorUnit) {
  auto h = check({"Softmax last axis", R"(  %y: f32[2,3,17] = Softmax(%x) {axis=-1}
  %out: f32[1,102] = Flatten(%y) {axis=0})", "input %x: f32[2,3,17]", "aicore.vector", "Softmax:vector"});
  EXPECT_EQ(engines(h).count("Softmax:vector"), 1u);
  // axis 1 of [2,5,3]: rows of 5 elements at stride 3.
  check({"Softmax middle axis", R"(  %y: f32[2,5,3] = Softmax(%x) {axis=1}
  %out: f32[1,30] = Flatten(%y) {axis=0})", "input %x: f32[2,5,3]", "aicore.vector", "Softmax:vector"});
}

TEST_F(AscendFusedKernels, ReduceMeanOnTheVectorUnit) {
  check({"ReduceMean last axis", R"(  %y: f32[4,6,1] = ReduceMean(%x) {axes=[-1], keepdims=1}
  %out: f32[1,24] = Flatten(%y) {axis=0})", "input %x: f32[4,6,33]", "aicore.vector", "ReduceMean:vector"});
  check({"ReduceMean middle axis", R"(  %y: f32[3,5] = ReduceMean(%x) {axes=[1], keepdims=0}
  %out: f32[1,15] = Flatten(%y) {axis=0})", "input %x: f32[3,7,5]", "aicore.vector", "ReduceMean:vector"});
}

TEST_F(AscendFusedKernels, LayerNormalizationWithSkipAndBias) {
  check({"SkipLayerNorm 6x48", R"(  const %g: f32[48]
  const %b: f32[48]
  const %s: f32[2,3,48]
  %y: f32[2,3,48] = ge.LayerNormalization(%x, %g, %b, %s) {axis=-1, epsilon=1e-05}
  %out: f32[1,288] = Flatten(%y) {axis=0})", "input %x: f32[2,3,48]", "aicore.vector", "ge.LayerNormalization:vector"});
  auto h = check({"LayerNorm no B", R"(  const %g: f32[40]
  %y: f32[5,40] = ge.LayerNormalization(%x, %g) {axis=-1, epsilon=1e-05}
  %out: f32[1,200] = Flatten(%y) {axis=0})", "input %x: f32[5,40]", "aicore.vector", "ge.LayerNormalization:vector"});
  EXPECT_EQ(engines(h).count("ge.LayerNormalization:vector"), 1u);
}

TEST_F(AscendFusedKernels, GeluAndBiasGelu) {
  check({"Gelu", R"(  %y: f32[4,37] = ge.Gelu(%x)
  %out: f32[1,148] = Flatten(%y) {axis=0})", "input %x: f32[4,37]", "aicore.vector", "ge.Gelu:vector"});
  check({"BiasGelu", R"(  const %b: f32[24]
  %y: f32[2,5,24] = ge.Gelu(%x, %b)
  %out: f32[1,240] = Flatten(%y) {axis=0})", "input %x: f32[2,5,24]", "aicore.vector", "ge.Gelu:vector"});
}

TEST_F(AscendFusedKernels, FusedMatMulOnTheCubeWithVectorEpilogue) {
  for (const char* act : {"", "Relu", "Gelu", "Sigmoid"}) {
    auto h = check({std::string("FusedMatMul+") + (*act ? act : "bias"), std::string(R"(  const %w: f32[40,24]
  const %b: f32[24]
  %y: f32[2,8,24] = ge.FusedMatMul(%x, %w, %b) {activation=")") + act + R"(", transB=0}
  %out: f32[1,384] = Flatten(%y) {axis=0})", "input %x: f32[2,8,40]", "aicore.cube", "ge.FusedMatMul:cube"});
    EXPECT_EQ(engines(h).count("ge.FusedMatMul:cube"), 1u);
  }
  check({"FusedMatMul transB", R"(  const %w: f32[19,37]
  %y: f32[7,19] = ge.FusedMatMul(%x, %w) {activation="", transB=1}
  %out: f32[1,133] = Flatten(%y) {axis=0})", "input %x: f32[7,37]", "aicore.cube", "ge.FusedMatMul:cube"});
}

TEST_F(AscendFusedKernels, FusedElementwiseProgramOnTheVectorUnit) {
  // out = Clip(Sigmoid((x + b) * s), 0.1, 0.9) - Sqrt(Sigmoid(x)) with per-channel b and s.
  check({"FusedElementwise 6 ops", R"(  const %b: f32[8,1,1]
  const %s: f32[8,1,1]
  %y: f32[1,8,4,4] = ge.FusedElementwise(%x, %b, %s) {args=[0,1,3,2,4,5,0,7,6,8], imms=[0.1,0.9], ops=["Add","Mul","Sigmoid","Clip","Sigmoid","Sqrt","Sub"]}
  %out: f32[1,128] = Flatten(%y) {axis=0})", "input %x: f32[1,8,4,4]", "aicore.vector", "ge.FusedElementwise:vector"});
}

TEST_F(AscendFusedKernels, ExactSmallCases) {
  // Integers: products and sums exact in fp32 and representable in fp16.
  const std::string mm = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[2,3]
  const %w: f32[3,2] = [1, -2, 3, 0, -1, 4]
  const %b: f32[2] = [0.5, -20]
  %y: f32[2,2] = ge.FusedMatMul(%x, %w, %b) {activation="Relu", transB=0}
  %out: f32[1,4] = Flatten(%y) {axis=0}
  output %out
})";
  // x = [[1,2,3],[4,5,6]]: x·w = [[4,10],[13,16]]; + b = [[4.5,-10],[13.5,-4]]; Relu.
  EXPECT_EQ(run_fp16(mm, {1, 2, 3, 4, 5, 6}), (std::vector<float>{4.5f, 0.f, 13.5f, 0.f}));
  const std::string sm = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,4]
  %y: f32[2,4] = Softmax(%x) {axis=-1}
  %out: f32[1,8] = Flatten(%y) {axis=0}
  output %out
})";
  EXPECT_EQ(run_fp16(sm, {3, 3, 3, 3, -1, -1, -1, -1}), std::vector<float>(8, 0.25f));
  const std::string rm = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,4]
  %y: f32[2,1] = ReduceMean(%x) {axes=[1], keepdims=1}
  %out: f32[1,2] = Flatten(%y) {axis=0}
  output %out
})";
  EXPECT_EQ(run_fp16(rm, {1, 2, 3, 4, -8, 0, 0, 0}), (std::vector<float>{2.5f, -2.f}));
}

TEST_F(AscendFusedKernels, UnfusedPatternsAreFusedForAscend) {
  // MatMul + bias + Relu (matmul_add, gemm_act) → one ge.FusedMatMul on the Cube.
  auto h = check({"MatMul+Add+Relu fused", R"(  const %w: f32[32,16]
  const %b: f32[16]
  %m: f32[4,16] = MatMul(%x, %w)
  %a: f32[4,16] = Add(%m, %b)
  %y: f32[4,16] = Relu(%a)
  %out: f32[1,64] = Flatten(%y) {axis=0})", "input %x: f32[4,32]", "aicore.cube", "ge.FusedMatMul:cube"});
  EXPECT_EQ(engines(h).count("ge.FusedMatMul:cube"), 1u);
  EXPECT_EQ(engines(h).count("MatMul:cube"), 0u);
  // The decomposed LayerNorm of a PyTorch export (layer_norm) → ge.LayerNormalization on the Vector unit.
  auto l = check({"decomposed LayerNorm fused", R"(  const %two: f32[] = [2.0]
  const %eps: f32[] = [1e-05]
  const %g: f32[32]
  const %b: f32[32]
  %mu: f32[4,1] = ReduceMean(%x) {axes=[-1], keepdims=1}
  %d: f32[4,32] = Sub(%x, %mu)
  %p: f32[4,32] = Pow(%d, %two)
  %v: f32[4,1] = ReduceMean(%p) {axes=[-1], keepdims=1}
  %ve: f32[4,1] = Add(%v, %eps)
  %sd: f32[4,1] = Sqrt(%ve)
  %n: f32[4,32] = Div(%d, %sd)
  %sc: f32[4,32] = Mul(%n, %g)
  %y: f32[4,32] = Add(%sc, %b)
  %out: f32[1,128] = Flatten(%y) {axis=0})", "input %x: f32[4,32]", "aicore.vector", "ge.LayerNormalization:vector"});
  EXPECT_EQ(engines(l).count("ge.LayerNormalization:vector"), 1u);
  EXPECT_EQ(l.graph->nodes().size(), 4u);  // Cast to fp16, LayerNorm, Cast to fp32, Flatten
}

// The stored tiling of a row op is checked at kernel build like every other (tiling_load.h): a
// LayerNorm of 6 rows of 48 elements stored with 7 units, or with a unit of 48 elements less UB
// than its rows need, is refused naming the node; a row over the UB puts the op on the AI CPU.
TEST_F(AscendFusedKernels, RowTilingsAreCheckedAtBuild) {
  const std::string text = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[6,48]
  const %g: f32[48]
  %y: f32[6,48] = ge.LayerNormalization(%x, %g) {axis=-1, epsilon=1e-05}
  %out: f32[1,288] = Flatten(%y) {axis=0}
  output %out
})";
  // [2, 1, units, unit_elements, ub_bytes_per_unit, tile_units, double_buffer, block_dim]
  // ub per unit: x row 96 B, out row 96 B, fp32 row 192 B, Scale row 96 B = 480 B.
  for (auto [field, value, want] : {std::tuple{2, 7, "corrupted tiling: units = 7"}, std::tuple{3, 47, "unit_elements = 47"},
                                    std::tuple{4, 256, "ub_bytes_per_unit = 256"}}) {
    auto g = test::parse(*fp16_, text);
    core::CompileOptions o = core::CompileOptions::from_manifest(fp16_->manifest);
    o.opt_level = OptLevel::O2, o.backend = "ascend", o.fail_on_pass_error = true;
    core::compile_graph(*g, *fp16_, o);
    std::shared_ptr<Graph> sg(std::move(g));
    Node* ln = nullptr;
    for (Node* n : sg->nodes())
      if (n->op_type() == "LayerNormalization") ln = n;
    ASSERT_NE(ln, nullptr);
    auto t = ln->attrs.get_ints("ascend_tiling");
    EXPECT_EQ(t.at(4), 480);
    t.at(static_cast<size_t>(field)) = value;
    ln->attrs.set("ascend_tiling", t);
    try {
      core::Executable exe(sg, *fp16_, {"ascend", 1});
      ADD_FAILURE() << "built with " << want;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'" + ln->name() + "'"), std::string::npos) << e.what();
    }
  }
  // A 70000-element row needs 70000·(2+2+4) B = 560 kB of UB (twice: double buffering): no
  // Vector tiling → the AI CPU.
  const std::string big = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,70000]
  %y: f32[2,70000] = Softmax(%x) {axis=-1}
  %out: f32[1,140000] = Flatten(%y) {axis=0}
  output %out
})";
  auto in = test::random_inputs(*test::parse(*fp16_, big));
  auto h = test::compile_and_run(test::parse(*fp16_, big), *fp16_, "ascend", in);
  auto ref = test::compile_and_run(test::parse(*cpu_, big), *cpu_, "cpu", in);
  EXPECT_EQ(engines(h).count("Softmax:aicpu"), 1u);
  // Outputs ≈ 1/70000 are fp16 subnormals (spacing 2^-24 ≈ 6e-8, ~0.4 % of the value): 5e-3.
  EXPECT_LE(test::rel_l2(h.outputs[0], ref.outputs[0]), 5e-3);
  for (const Node* n : h.graph->nodes()) {
    if (n->op_type() != "Softmax") continue;
    EXPECT_NE(n->attrs.get_string("ascend_reason", "").find("one Vector unit needs"), std::string::npos) << n->attrs.get_string("ascend_reason", "");
  }
}

}  // namespace
}  // namespace ge::ascend
