// fp16 overflow, never a silent inf: the run-time check (a result beyond 65504 stops the run
// naming the node), the compile-time check `ascend.overflow_check` (error naming the first node
// and suggesting keep_dtype for all; "keep" keeps them in fp32), and a constant beyond fp16's
// range refused at compile time.
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "ascend_harness.h"

namespace ge::ascend {
namespace {

// x in [0.9, 1) (the check's seeded range below, and the run's input): m1 ≤ 300, m2 ≈ 81000..90000
// (beyond 65504), m3 ≤ 90 but reads m2's value (a Cast of it to fp16 would overflow).
const char* kGraph = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,8]
  const %k: f32[1,8] = [300,300,300,300,300,300,300,300]
  const %s: f32[1,8] = [0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001]
  %a: f32[1,8] = Mul(%x, %k)  # m1
  %b: f32[1,8] = Mul(%a, %k)  # m2
  %c: f32[1,8] = Mul(%b, %s)  # m3
  %out: f32[1,8] = Relu(%c)  # relu
  output %out
})";

std::unique_ptr<Graph> parse(core::Environment& env, const std::string& text) {
  auto g = parse_graph(text, "test");
  core::ImportOptions io;
  core::propagate_shapes(*g, env, io);
  return g;
}

std::vector<Tensor> input() {
  Tensor t = Tensor::allocate(DataType::Float32, Shape{1, 8});
  for (int i = 0; i < 8; ++i) t.span<float>()[i] = 0.9f + 0.01f * i;
  return {t};
}

const std::vector<std::string> kRange{"ascend.overflow_check_inputs=[0.9, 1.0]"};

// These graphs test node by node: the elementwise_chain rule would fuse the Muls into one
// ge.FusedElementwise that computes in fp32 inside (no intermediate can overflow), so it is off.
std::unique_ptr<core::Environment> env_for(const std::string& mode, std::vector<std::string> overrides = {}) {
  overrides.push_back(R"(fusion.disable=["attention", "elementwise_chain"])");
  return test::ascend_env(mode, overrides);
}

std::string run_error(const std::string& mode, std::vector<std::string> overrides, const std::string& text = kGraph) {
  try {
    auto env = env_for(mode, overrides);  // an option value of the wrong kind is refused here
    test::compile_and_run(parse(*env, text), *env, "ascend", input());
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(AscendOverflow, TheRunStopsAtTheFirstOverflowingNode) {
  const std::string e = run_error("force_fp16", {});
  EXPECT_NE(e.find("fp16 overflow in node 'm2' (Mul): value 8"), std::string::npos) << e;
  EXPECT_NE(e.find("ascend.keep_dtype"), std::string::npos) << e;
}

// With only m2 kept in fp32, the Cast the precision mode inserts to give m3 fp16 input overflows:
// that Cast cannot be named in keep_dtype, so the message names its consumer (m3) and its source.
TEST(AscendOverflow, AnInsertedCastNamesTheNodesToKeepInstead) {
  const std::string e = run_error("force_fp16", {R"(ascend.keep_dtype=["m2"])"});
  EXPECT_NE(e.find("fp16 overflow in node 'Cast_"), std::string::npos) << e;
  EXPECT_NE(e.find("a Cast the precision mode inserted to give its consumers fp16 input from the output of node 'm2' (Mul): "
                   "keep them in fp32 with ascend.keep_dtype = [\"m3\"], or set ascend.overflow_check = \"keep\""),
            std::string::npos)
      << e;
  EXPECT_EQ(e.find("keep the node in fp32"), std::string::npos) << e;
}

TEST(AscendOverflow, CompileTimeCheckNamesTheFirstNodeAndSuggestsKeepDtype) {
  std::vector<std::string> o = kRange;
  o.push_back("ascend.overflow_check=\"error\"");
  const std::string e = run_error("force_fp16", o);
  EXPECT_NE(e.find("fp16 overflow at compile time: node 'm2' (Mul) reaches |x| = 8"), std::string::npos) << e;
  EXPECT_NE(e.find("2 node(s) of precision_mode force_fp16 overflow"), std::string::npos) << e;
  EXPECT_NE(e.find(R"(--set 'ascend.keep_dtype=["m2", "m3"]')"), std::string::npos) << e;
  EXPECT_NE(e.find("floats uniform in [0.9, 1)"), std::string::npos) << e;
  // The suggestion works: with it the graph runs, m2 and m3 in fp32, m1 and relu in fp16.
  auto env = env_for("force_fp16", {R"(ascend.keep_dtype=["m2", "m3"])"});
  auto r = test::compile_and_run(parse(*env, kGraph), *env, "ascend", input());
  for (const Node* n : r.graph->nodes()) {
    if (n->name() == "m1" || n->name() == "relu") {
      EXPECT_EQ(n->output(0)->dtype, DataType::Float16) << n->name();
    } else if (n->name() == "m2" || n->name() == "m3") {
      EXPECT_EQ(n->output(0)->dtype, DataType::Float32) << n->name();
    }
  }
  auto cpu = test::cpu_env();
  auto ref = test::compile_and_run(parse(*cpu, kGraph), *cpu, "cpu", input());
  EXPECT_LE(test::rel_l2(r.outputs[0], ref.outputs[0]), 1e-3);
}

TEST(AscendOverflow, CompileTimeCheckKeepsTheOverflowingNodesInFp32) {
  std::vector<std::string> o = kRange;
  o.push_back("ascend.overflow_check=\"keep\"");
  auto env = env_for("force_fp16", o);
  auto r = test::compile_and_run(parse(*env, kGraph), *env, "ascend", input());
  EXPECT_EQ(r.counters["ascend.overflow_check.nodes"], 2);
  EXPECT_EQ(r.counters["ascend.precision.kept.m2:overflow_check"], 1);
  EXPECT_EQ(r.counters["ascend.precision.kept.m3:overflow_check"], 1);
  EXPECT_EQ(r.counters["ascend.precision.fp16_ops"], 2);  // m1, relu
  auto cpu = test::cpu_env();
  auto ref = test::compile_and_run(parse(*cpu, kGraph), *cpu, "cpu", input());
  const double e = test::rel_l2(r.outputs[0], ref.outputs[0]);
  EXPECT_LE(e, 1e-3);
  EXPECT_GT(e, 0.0);
  // Off (the default) and within range: no check, nothing counted.
  auto plain = env_for("force_fp16");
  auto p = test::compile_and_run(parse(*plain, R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,8]
  %out: f32[1,8] = Relu(%x)
  output %out
})"), *plain, "ascend", input());
  EXPECT_EQ(p.counters.count("ascend.overflow_check.nodes"), 0u);
  std::vector<std::string> bad = kRange;
  bad.push_back("ascend.overflow_check=\"yes\"");
  EXPECT_NE(run_error("force_fp16", bad).find("'ascend.overflow_check' must be one of \"off\", \"error\", \"keep\", not \"yes\""), std::string::npos);
  EXPECT_NE(run_error("force_fp16", {"ascend.overflow_check=\"error\"", "ascend.overflow_check_inputs=[1.0, 0.5]"})
                .find("must be [lo, hi] with lo < hi"),
            std::string::npos);
}

/// DIR/input_0.pb holding a float32 tensor of `dims` filled with `x` (raw_data).
std::string write_input_dir(const std::string& name, const std::vector<int64_t>& dims, float x) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() / ("ge_overflow_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::create_directories(d);
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t k : dims) p.add_dims(k), n *= k;
  std::vector<float> v(static_cast<size_t>(n), x);
  p.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
  std::ofstream out(d / "input_0.pb", std::ios::binary);
  p.SerializeToOstream(&out);
  return d.string();
}

TEST(AscendOverflow, CompileTimeCheckOnGivenInputs) {
  // x = 0.5 everywhere: m2 = 45000 stays in range; x = 0.95: m2 = 85500 overflows.
  const std::string low = write_input_dir("low", {1, 8}, 0.5f), high = write_input_dir("high", {1, 8}, 0.95f);
  auto env = env_for("force_fp16", {"ascend.overflow_check=\"error\"", "ascend.overflow_check_inputs=\"" + low + "\""});
  auto r = test::compile_and_run(parse(*env, kGraph), *env, "ascend", {[] {
                                   Tensor t = Tensor::allocate(DataType::Float32, Shape{1, 8});
                                   for (float& x : t.span<float>()) x = 0.5f;
                                   return t;
                                 }()});
  EXPECT_EQ(r.counters["ascend.overflow_check.nodes"], 0);
  const std::string e = run_error("force_fp16", {"ascend.overflow_check=\"error\"", "ascend.overflow_check_inputs=\"" + high + "\""});
  EXPECT_NE(e.find("node 'm2' (Mul) reaches |x| = 85500 in fp32, beyond fp16's 65504 (inputs of '" + high + "')"), std::string::npos) << e;
  // A file whose shape is not the input's, and a directory without the file, are refused naming them.
  const std::string wrong = write_input_dir("wrong", {2, 8}, 0.5f);
  const std::string w = run_error("force_fp16", {"ascend.overflow_check=\"error\"", "ascend.overflow_check_inputs=\"" + wrong + "\""});
  EXPECT_NE(w.find("input_0.pb' holds f32[2,8], input 'x' is f32[1,8]"), std::string::npos) << w;
  EXPECT_NE(run_error("force_fp16", {"ascend.overflow_check=\"error\"", "ascend.overflow_check_inputs=\"/nonexistent/dir\""})
                .find("'/nonexistent/dir' is not a directory"),
            std::string::npos);
  for (const std::string& d : {low, high, wrong}) std::filesystem::remove_all(d);
}

TEST(AscendOverflow, AConstantBeyondFp16IsRefusedAtCompileTime) {
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,2]
  const %big: f32[1,2] = [1.0,100000.0]
  %y: f32[1,2] = Mul(%x, %big)  # mb
  %out: f32[1,2] = Relu(%y)
  output %out
})";
  auto env = env_for("force_fp16");
  Tensor t = Tensor::allocate(DataType::Float32, Shape{1, 2});
  try {
    test::compile_and_run(parse(*env, text), *env, "ascend", {t});
    ADD_FAILURE() << "an fp16 constant of 100000 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("constant 'big' read by node 'mb' (Mul) holds 100000 (element 1)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ge::ascend
