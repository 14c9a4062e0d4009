// Profiler tests: FLOP formulas against hand-computed counts, the Chrome trace's structure on a
// real run of tiny_cnn, the top-K order, and the DOT / ONNX exports of gec inspect.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "ge/core/environment.h"
#include "ge/core/graph_export.h"
#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "ge/core/pipeline.h"
#include "ge/core/profiler.h"
#include "ge/sdk/text_ir.h"
#include "random_streams.h"

namespace {

const char* kGraph = R"(graph flops opset(ai.onnx=13) {
  input %x: f32[1,3,8,8]
  const %w: f32[4,3,3,3]
  const %b: f32[4]
  %y: f32[1,4,6,6] = Conv(%x, %w, %b) {kernel_shape=[3,3]}  # conv
  input %x4: f32[2,4,8,8]
  const %wg: f32[4,1,3,3]
  %yg: f32[2,4,8,8] = Conv(%x4, %wg) {group=4, kernel_shape=[3,3], pads=[1,1,1,1]}  # dwconv
  input %a: f32[2,5,7]
  const %m: f32[7,3]
  %z: f32[2,5,3] = MatMul(%a, %m)  # matmul
  input %ga: f32[7,5]
  const %gb: f32[7,6]
  const %gc: f32[6]
  %gy: f32[5,6] = Gemm(%ga, %gb, %gc) {transA=1}  # gemm
  %r: f32[2,5,3] = Relu(%z)  # relu
  %t: f32[2,3,5] = Transpose(%r) {perm=[0,2,1]}  # transpose
  output %y
  output %yg
  output %t
  output %gy
}
)";

TEST(Flops, ConvMatMulGemmMatchHandCounts) {
  auto env = ge::core::load_environment(ge::core::load_manifest(std::string(GE_PLUGIN_DIR) + "/default.toml"));
  auto g = ge::parse_graph(kGraph);
  g->ops = &env->ops;  // Relu's one FLOP per element: its registry pattern (elementwise)
  // Conv: 2·N·Cout·Hout·Wout·(Cin/group)·kh·kw + bias (N·Cout·Hout·Wout)
  EXPECT_DOUBLE_EQ(ge::core::node_flops(*g->find_node("conv")), 2.0 * 1 * 4 * 6 * 6 * 3 * 3 * 3 + 1 * 4 * 6 * 6);
  EXPECT_DOUBLE_EQ(ge::core::node_flops(*g->find_node("dwconv")), 2.0 * 2 * 4 * 8 * 8 * 1 * 3 * 3);
  // MatMul: 2·M·N·K·batch
  EXPECT_DOUBLE_EQ(ge::core::node_flops(*g->find_node("matmul")), 2.0 * 5 * 3 * 7 * 2);
  // Gemm with transA: A is [K,M]; + M·N for C
  EXPECT_DOUBLE_EQ(ge::core::node_flops(*g->find_node("gemm")), 2.0 * 5 * 6 * 7 + 5 * 6);
  EXPECT_DOUBLE_EQ(ge::core::node_flops(*g->find_node("relu")), 30);
  EXPECT_DOUBLE_EQ(ge::core::node_flops(*g->find_node("transpose")), 0);
  EXPECT_EQ(ge::core::node_bytes(*g->find_node("relu")), 2u * 30 * 4);
}

TEST(Flops, NominalPeakIsPositiveAndSaysItIsAnAssumption) {
  std::string how;
  double p = ge::core::nominal_peak_gflops(2, &how);
  EXPECT_GT(p, 0);
  EXPECT_NE(how.find("assumption"), std::string::npos) << how;
}

TEST(Export, DotNamesEveryNodeAndColoursFusedOps) {
  auto g = ge::parse_graph(kGraph);
  std::string dot = ge::core::to_dot(*g);
  EXPECT_EQ(dot.rfind("digraph", 0), 0u);
  EXPECT_EQ(dot.back(), '\n');
  for (const ge::Node* n : g->nodes()) EXPECT_NE(dot.find("\\n" + n->name()), std::string::npos) << n->name();
  EXPECT_NE(dot.find("f32[2,5,3]"), std::string::npos);  // edge labels carry shapes
}

// A compiled tiny_cnn and its executable, shared by the runtime tests.
struct Compiled {
  std::unique_ptr<ge::core::Environment> env;
  std::shared_ptr<ge::Graph> graph;
  std::unique_ptr<ge::core::Executable> exe;
};

Compiled compile_tiny_cnn(const std::string& level = "O2") {
  Compiled c;
  ge::core::Manifest m = ge::core::load_manifest(std::string(GE_PLUGIN_DIR) + "/default.toml");
  m.opt_level = level;
  c.env = ge::core::load_environment(m);
  ge::core::ImportOptions io;
  c.graph = ge::core::import_model(*c.env, GE_TEST_MODELS_DIR "/tiny_cnn/model.onnx", io);
  ge::core::compile_graph(*c.graph, *c.env, ge::core::CompileOptions::from_manifest(m));
  c.exe = std::make_unique<ge::core::Executable>(c.graph, *c.env, ge::core::ExecOptions{"cpu", 1});
  return c;
}

std::vector<ge::Tensor> zero_inputs(const ge::Graph& g) {
  std::vector<ge::Tensor> in;
  for (const ge::Value* v : g.inputs()) {
    ge::Tensor t = ge::Tensor::allocate(v->dtype, v->shape);
    std::fill_n(static_cast<uint8_t*>(t.data()), t.nbytes(), 0);
    in.push_back(std::move(t));
  }
  return in;
}

/// The trace of `iters` profiled runs: every node once per iteration, on the track of the
/// stream it ran on, every track named, spans on one track ordered and never overlapping.
void check_trace(ge::core::Executable& exe, int iters, size_t want_tracks) {
  auto inputs = zero_inputs(exe.graph());
  std::vector<ge::core::StepTimes> runs(iters);
  for (auto& r : runs) exe.run(inputs, ge::core::RunOptions{&r});
  ge::core::Profile p = ge::core::make_profile(exe, runs, 100.0, "test");
  ASSERT_EQ(p.nodes.size(), exe.num_kernels());
  nlohmann::json doc = nlohmann::json::parse(ge::core::chrome_trace(p, "test"));  // throws if invalid
  ASSERT_TRUE(doc["traceEvents"].is_array());

  std::map<std::string, int> count;
  std::map<std::string, int> tid_of;
  std::map<int, std::vector<std::pair<double, double>>> spans;  // tid → (ts, end)
  std::set<int> named_tracks;
  for (auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M") {
      if (e["name"] == "thread_name") named_tracks.insert(e["tid"].get<int>());
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    EXPECT_EQ(e["pid"], 1);
    EXPECT_GE(e["dur"].get<double>(), 0);
    EXPECT_TRUE(e["args"].contains("op_type") && e["args"].contains("kernel") && e["args"].contains("flops"));
    count[e["name"].get<std::string>()]++;
    tid_of[e["name"].get<std::string>()] = e["tid"].get<int>();
    double ts = e["ts"].get<double>();
    spans[e["tid"].get<int>()].push_back({ts, ts + e["dur"].get<double>()});
  }
  for (const auto& n : p.nodes) {
    EXPECT_EQ(count[n.name], iters) << n.name;
    EXPECT_EQ(tid_of[n.name], n.stream + 1) << n.name;
  }
  EXPECT_EQ(count.size(), p.nodes.size());
  ASSERT_EQ(spans.size(), want_tracks);
  for (auto& [tid, v] : spans) {
    EXPECT_TRUE(named_tracks.count(tid)) << "track " << tid << " has no thread_name";
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i)
      EXPECT_LE(v[i - 1].second, v[i].first + 1e-9) << "overlapping spans on track " << tid << " at event " << i;
  }
}

TEST(Trace, EveryNodeOncePerIterationOnOrderedNonOverlappingTracks) {
  Compiled c = compile_tiny_cnn();
  check_trace(*c.exe, 4, 1);  // one stream: one track
}

// Two streams (a random assignment, re-planned): two tracks, each stream's spans in sequence.
TEST(Trace, OneTrackPerStream) {
  Compiled c = compile_tiny_cnn();
  ge::test::assign_random_streams(*c.graph, 2, 3);
  ge::core::CompileOptions o;
  o.opt_level = ge::OptLevel::O0;
  o.only = std::vector<std::string>{"plan_memory"};
  o.fail_on_pass_error = true;
  ge::core::compile_graph(*c.graph, *c.env, o);
  ge::core::Executable exe(c.graph, *c.env, ge::core::ExecOptions{"cpu", 2});
  ASSERT_EQ(exe.streams(), 2);
  EXPECT_EQ(exe.intra_op_threads(), 1);
  check_trace(exe, 4, 2);
}

TEST(Profile, TopKIsSortedAndSharesSumToOne) {
  Compiled c = compile_tiny_cnn();
  auto inputs = zero_inputs(c.exe->graph());
  std::vector<ge::core::StepTimes> runs(3);
  for (auto& r : runs) c.exe->run(inputs, ge::core::RunOptions{&r});
  ge::core::Profile p = ge::core::make_profile(*c.exe, runs, 100.0, "test");
  auto top = p.top(3);
  ASSERT_EQ(top.size(), std::min<size_t>(3, p.nodes.size()));
  for (size_t i = 1; i < top.size(); ++i) EXPECT_GE(top[i - 1].median_us, top[i].median_us);
  for (const auto& n : p.top(0)) EXPECT_LE(n.median_us, top.front().median_us);
  double share = 0;
  for (const auto& n : p.nodes) share += n.share;
  EXPECT_NEAR(share, 1.0, 1e-9);
  EXPECT_GT(p.total_flops, 0);
  EXPECT_GT(p.weight_bytes, 0u);
  EXPECT_GT(p.run_median_ms, 0);
  EXPECT_FALSE(p.nodes.front().kernel.empty());
}

TEST(Profile, RunWithoutProfilerRecordsNothing) {
  Compiled c = compile_tiny_cnn();
  auto inputs = zero_inputs(c.exe->graph());
  ge::core::StepTimes t;
  c.exe->run(inputs);
  EXPECT_TRUE(t.steps.empty());
  c.exe->run(inputs, ge::core::RunOptions{&t});
  EXPECT_EQ(t.steps.size(), c.exe->num_kernels());
}

// The exported ONNX goes back through the frontend: same nodes, op types and domains — except
// ge.TransData, which ONNX (no formats) receives as Identity (graph_export.h).
void expect_onnx_round_trip(const std::string& level) {
  Compiled c = compile_tiny_cnn(level);
  std::string bytes = ge::core::to_onnx(*c.graph);
  std::string path = testing::TempDir() + "/tiny_cnn_" + level + ".onnx";
  { std::ofstream(path, std::ios::binary) << bytes; }
  ge::core::ImportOptions io;
  auto back = ge::core::import_model(*c.env, path, io);
  ASSERT_EQ(back->num_nodes(), c.graph->num_nodes());
  for (const ge::Node* n : c.graph->nodes()) {
    const ge::Node* m = back->find_node(n->name());
    ASSERT_NE(m, nullptr) << n->name();
    const bool transdata = n->domain() == "ge" && n->op_type() == "TransData";
    EXPECT_EQ(m->op_type(), transdata ? "Identity" : n->op_type());
    EXPECT_EQ(m->domain(), transdata ? "" : n->domain());
    for (size_t i = 0; i < n->num_outputs(); ++i) EXPECT_EQ(m->output(i)->shape, n->output(i)->shape);
    // Backend annotations (here the cpu backend's cpu_conv_algorithm) come back with the node.
    EXPECT_EQ(m->attrs.get_string("cpu_conv_algorithm", ""), n->attrs.get_string("cpu_conv_algorithm", "")) << n->name();
  }
}

TEST(Export, OnnxRoundTripsUnfused) { expect_onnx_round_trip("O0"); }
TEST(Export, OnnxRoundTripsFused) { expect_onnx_round_trip("O2"); }

// An attribute `<backend>_<name>` of a registered backend is that backend's annotation and
// imports without a schema entry; any other attribute the op does not define is refused.
TEST(Export, OnlyRegisteredBackendsAnnotateNodes) {
  Compiled c = compile_tiny_cnn("O2");
  // cpu_conv_winograd leaves tiny_cnn's 3 → 8-channel conv direct (too few channels for Winograd
  // to pay, winograd_pass.cc): the test annotates it as the pass annotates wider ones.
  int annotated = 0;
  for (ge::Node* n : c.graph->nodes()) {
    EXPECT_FALSE(n->attrs.has("cpu_conv_algorithm")) << n->name();
    if (n->op_type() == "FusedConv" || n->op_type() == "Conv") {
      n->attrs.set("cpu_conv_algorithm", std::string("winograd"));
      ++annotated;
    }
  }
  EXPECT_EQ(annotated, 1);
  for (const std::string name : {"cpu_conv_algorithm", "gpu_conv_algorithm", "cpu"}) {
    std::unique_ptr<ge::Graph> g = c.graph->clone();
    for (ge::Node* n : g->nodes())
      if (n->attrs.has("cpu_conv_algorithm")) {
        n->attrs.erase("cpu_conv_algorithm");
        n->attrs.set(name, std::string("winograd"));
      }
    const std::string path = testing::TempDir() + "/tiny_cnn_annotated.onnx";
    { std::ofstream(path, std::ios::binary) << ge::core::to_onnx(*g); }
    std::string error;
    try {
      ge::core::ImportOptions io;
      ge::core::import_model(*c.env, path, io);
    } catch (const ge::Error& e) {
      error = e.what();
    }
    if (name == "cpu_conv_algorithm") EXPECT_EQ(error, "");
    else EXPECT_NE(error.find("unknown attribute '" + name + "' for FusedConv"), std::string::npos) << error;
  }
}

}  // namespace
