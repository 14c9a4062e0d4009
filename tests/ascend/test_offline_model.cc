// The offline model (.om, plan section "ascend.om"): squeezenet1_1 compiled for ascend, saved,
// loaded and run equals the in-memory compiled graph bit for bit; the section holds one kernel
// task per node on the node's stream and one record and one wait task per schedule event (a
// hand-built two-stream graph states the counts); a corrupted task (block_dim, arena offset,
// resealed so that only the section's validator can notice), another SoC, an unknown section
// and a malformed section are refused naming what is wrong.
#include <chrono>
#include <cstring>
#include <filesystem>

#include "ascend_harness.h"
#include "ge/core/plan.h"
#include "ge/core/session.h"
#include "ge/sdk/stream_order.h"
#include "offline_model.h"
#include "shared_models.h"
#include "task.h"

namespace ge::ascend {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::shared_ptr<Graph> compile_for_ascend(std::unique_ptr<Graph> g, core::Environment& env) {
  core::CompileOptions o = core::CompileOptions::from_manifest(env.manifest);
  o.backend = "ascend";
  o.fail_on_pass_error = true;
  core::compile_graph(*g, env, o);
  return std::shared_ptr<Graph>(std::move(g));
}

std::string temp_path(const std::string& leaf) {
  return (fs::temp_directory_path() / ("ge_om_test_" + std::to_string(::getpid()) + "_" + leaf)).string();
}

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

const core::PlanSection& om_section(const core::PlanContents& c) {
  for (const core::PlanSection& s : c.sections)
    if (s.name == kOmSectionName) return s;
  throw Error("no ascend.om section");
}

/// The message of the ge::Error parsing `bytes` throws in `env`; "" when it loads.
std::string refusal(const std::vector<uint8_t>& bytes, const core::Environment& env) {
  try {
    core::parse_plan(bytes.data(), bytes.size(), nullptr, env, "t.om");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// Replaces the first occurrence of `from` at or after `pos` by `to` (same length, so the
/// protobuf header keeps its framing) and reseals the checksum: only the section's validator can
/// tell. Returns the position replaced.
size_t patch(std::vector<uint8_t>& b, const std::string& from, const std::string& to, size_t pos = 0) {
  EXPECT_EQ(from.size(), to.size());
  auto it = std::search(b.begin() + static_cast<std::ptrdiff_t>(pos), b.end(), from.begin(), from.end());
  EXPECT_NE(it, b.end()) << "'" << from << "' not found";
  if (it == b.end()) return std::string::npos;
  std::copy(to.begin(), to.end(), it);
  core::reseal_plan(b);
  return static_cast<size_t>(it - b.begin());
}

size_t find(const std::vector<uint8_t>& b, const std::string& s, size_t pos = 0) {
  auto it = std::search(b.begin() + static_cast<std::ptrdiff_t>(pos), b.end(), s.begin(), s.end());
  return it == b.end() ? std::string::npos : static_cast<size_t>(it - b.begin());
}

/// The offline model's structure against the graph it was written for.
void expect_tasks_follow_graph(const OfflineModel& m, const Graph& g) {
  size_t kernels = 0, records = 0, waits = 0;  // kernels: the position in issue order
  for (const Task& t : m.tasks) {
    if (t.kind == Task::Kind::EventRecord) ++records;
    if (t.kind == Task::Kind::EventWait) ++waits;
    if (t.kind != Task::Kind::Kernel) continue;
    while (kernels < g.nodes().size() && is_view_node(*g.nodes()[kernels])) ++kernels;  // no task
    ASSERT_LT(kernels, g.nodes().size());
    const Node* n = g.nodes()[kernels++];  // issue order
    EXPECT_EQ(t.node, n->name());
    EXPECT_EQ(t.stream, n->stream) << n->name();
    EXPECT_EQ(t.outputs.size(), n->outputs().size()) << n->name();
    for (size_t k = 0; k < t.outputs.size(); ++k) EXPECT_EQ(t.outputs[k].arena_offset, n->output(k)->arena_offset);
  }
  while (kernels < g.nodes().size() && is_view_node(*g.nodes()[kernels])) ++kernels;
  EXPECT_EQ(kernels, g.num_nodes());
  EXPECT_EQ(records, g.schedule.events.size());
  EXPECT_EQ(waits, g.schedule.events.size());
  EXPECT_EQ(m.feature_map_bytes, g.arena_bytes);
}

TEST(AscendOfflineModel, Squeezenet11SavedLoadedAndRunBitForBit) {
  const fs::path model = ge::test::shared_dir() / "models/squeezenet1_1/squeezenet1_1.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " not found";
  std::shared_ptr<core::Environment> env = test::ascend_env("force_fp16");
  core::ImportOptions io;
  auto t0 = Clock::now();
  std::shared_ptr<Graph> g = compile_for_ascend(core::import_model(*env, model.string(), io), *env);
  const double compile_ms = ms_since(t0);
  const std::vector<Tensor> in = ge::test::read_set(model.parent_path() / "test_data_set_0", "input_");
  core::Executable exe(g, *env, {"ascend", 1});
  const std::vector<Tensor> want = exe.run(in);

  const std::string path = temp_path("squeezenet1_1.om");
  t0 = Clock::now();
  core::save_plan(*g, *env, "ascend", path);
  const double save_ms = ms_since(t0);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  t0 = Clock::now();
  // No manifest named: a plan of backend "ascend" loads through lib/ge/plugins/ascend.toml.
  std::shared_ptr<LoadedPlan> plan = LoadedPlan::load(path, PlanLoadOptions{{}, 1});
  const double load_ms = ms_since(t0);
  const std::vector<Tensor> got = plan->run(in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(bitwise_equal(got[k], want[k])) << "output " << k;

  core::PlanContents c = core::load_plan(path, *env);
  const OfflineModel m = offline_model_from_json(om_section(c).data);
  std::printf("squeezenet1_1.om: %llu bytes (header %llu, weights %llu, section %zu), compile %.1f ms, save %.1f ms, "
              "load+kernels %.1f ms\n",
              (unsigned long long)c.file_bytes, (unsigned long long)c.header_bytes, (unsigned long long)c.weights_bytes,
              om_section(c).data.size(), compile_ms, save_ms, load_ms);
  std::printf("%s", describe(m, false).c_str());
  fs::remove(path);
  EXPECT_EQ(om_section(c).plugin, "ascend_backend");
  EXPECT_EQ(m.soc_version, "Ascend910A");
  EXPECT_EQ(m.weights_bytes, c.weights_bytes);
  expect_tasks_follow_graph(m, *g);
  // One stream: no events; the Flatten follows its fp16 input, so it is a view (no task) before
  // the output's Cast.
  EXPECT_EQ(m.tasks.size(), g->num_nodes() - 1);
  // The weights region: 26 convolution weights — 25 in FRACTAL_Z, conv1's (3 input channels) in
  // FRACTAL_Z_C04 — and 8 distinct biases (docs/ascend.md), all fp16 (converted at compile time),
  // inside the weights section, 64-byte aligned.
  int fractal_z = 0, fractal_z_c04 = 0;
  for (const OmWeight& w : m.weights) {
    EXPECT_EQ(w.dtype, "f16") << w.name;
    EXPECT_EQ(w.offset % 64, 0u) << w.name;
    EXPECT_LE(w.offset + w.size, m.weights_bytes) << w.name;
    fractal_z += w.format == "FRACTAL_Z";
    if (w.format == "FRACTAL_Z_C04") {
      ++fractal_z_c04;
      EXPECT_EQ(w.dims, (std::vector<int64_t>{64, 3, 3, 3})) << w.name;  // logical OIHW
      EXPECT_EQ(w.size, 3u * 4 * 256 * 2) << w.name;                     // ⌈4·9/16⌉ = 3 K fractals, 4 N blocks
    }
  }
  EXPECT_EQ(m.weights.size(), 34u);
  EXPECT_EQ(fractal_z, 25);
  EXPECT_EQ(fractal_z_c04, 1);
}

/// Two convolution branches of one input joined by an Add, the second branch on stream 1.
TEST(AscendOfflineModel, TwoStreamGraphHasEventRecordAndWaitTasks) {
  std::shared_ptr<core::Environment> env = test::ascend_env("force_fp16");
  std::shared_ptr<Graph> g = compile_for_ascend(test::parse(*env, R"(graph two_streams opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,8,8]
  const %w1: f32[16,16,3,3]
  const %w2: f32[16,16,1,1]
  %a: f32[1,16,8,8] = Conv(%x, %w1) {pads=[1,1,1,1]}
  %b: f32[1,16,8,8] = Conv(%x, %w2)
  %ra: f32[1,16,8,8] = Relu(%a)
  %rb: f32[1,16,8,8] = Sigmoid(%b)
  %s: f32[1,16,8,8] = Mul(%ra, %rb)
  %out: f32[1,1024] = Flatten(%s) {axis=1}
  output %out
})"), *env);
  // Compiled: Cast(x), TransData to NC1HWC0, the two convolutions fused with their activations
  // (ge.FusedConv ×2), Mul, TransData back, Cast back, Flatten — 8 nodes. The 1x1 branch goes on
  // stream 1, everything else stays on stream 0; the events that assignment needs, then the arena
  // planned again for the two streams.
  ASSERT_EQ(g->num_nodes(), 8u) << print_graph(*g);
  std::vector<std::string> on1;
  for (Node* n : g->nodes()) {
    const bool branch_b = n->op_type() == "FusedConv" && n->input(1)->shape.dims()[2] == 1;
    n->stream = branch_b ? 1 : 0;
    if (branch_b) on1.push_back(n->name());
  }
  ASSERT_EQ(on1.size(), 1u) << print_graph(*g);
  g->schedule.streams = 2;
  g->schedule.scheduler = "test";
  g->schedule.events = derive_events(*g);
  core::CompileOptions o;
  o.opt_level = OptLevel::O0;
  o.backend = "ascend";
  o.only = std::vector<std::string>{"plan_memory"};
  o.fail_on_pass_error = true;
  core::compile_graph(*g, *env, o);
  StreamOrder check(*g);

  // Two events: the TransData of x (stream 0) before the 1x1 FusedConv (stream 1), and that
  // FusedConv before the Mul (stream 0).
  ASSERT_EQ(g->schedule.events.size(), 2u) << print_graph(*g);
  std::vector<uint8_t> bytes = core::serialize_plan(*g, *env, "ascend");
  core::PlanContents c = core::parse_plan(bytes.data(), bytes.size(), nullptr, *env, "two_streams.om");
  const OfflineModel m = offline_model_from_json(om_section(c).data);
  expect_tasks_follow_graph(m, *g);
  EXPECT_EQ(m.streams, 2);
  ASSERT_EQ(m.events.size(), 2u);
  EXPECT_EQ(m.tasks.size(), 11u);  // 7 kernels + 2 records + 2 waits (the fp16 Flatten is a view: no task)
  // Every wait is on the waiting node's stream, just before its kernel; every record just after
  // the recording node's kernel, on its stream.
  for (size_t i = 0; i < m.tasks.size(); ++i) {
    const Task& t = m.tasks[i];
    if (t.kind == Task::Kind::EventWait) {
      ASSERT_LT(i + 1, m.tasks.size());
      EXPECT_EQ(m.tasks[i + 1].node, m.events[t.event].wait_before);
      EXPECT_EQ(t.stream, m.tasks[i + 1].stream);
    }
    if (t.kind == Task::Kind::EventRecord) {
      ASSERT_GT(i, 0u);
      EXPECT_EQ(m.tasks[i - 1].node, m.events[t.event].record_after);
      EXPECT_EQ(t.stream, m.tasks[i - 1].stream);
    }
  }
  std::printf("%s", describe(m, true).c_str());
  // It runs from the file as it does in memory (two stream workers).
  std::vector<Tensor> in = test::random_inputs(*g);
  core::Executable exe(g, *env, {"ascend", 1});
  const std::vector<Tensor> want = exe.run(in);
  const std::string path = temp_path("two_streams.om");
  core::save_plan(*g, *env, "ascend", path);
  std::shared_ptr<LoadedPlan> plan = LoadedPlan::load(path, env, PlanLoadOptions{{}, 2});
  fs::remove(path);
  const std::vector<Tensor> got = plan->run(in);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(bitwise_equal(got[0], want[0]));
}

class AscendOfflineModelRefusals : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    env_ = test::ascend_env("force_fp16").release();
    graph_ = compile_for_ascend(test::parse(*env_, R"(graph refusals opset(ai.onnx=13, ge=1) {
  input %x: f32[1,5,9,9]
  const %w: f32[7,5,3,3]
  const %b: f32[7]
  %y: f32[1,7,9,9] = Conv(%x, %w, %b) {pads=[1,1,1,1]}
  %r: f32[1,7,9,9] = Relu(%y)
  %p: f32[1,7,4,4] = MaxPool(%r) {kernel_shape=[2,2], strides=[2,2]}
  %out: f32[1,112] = Flatten(%p) {axis=1}
  output %out
})"), *env_);
    bytes_ = new std::vector<uint8_t>(core::serialize_plan(*graph_, *env_, "ascend"));
  }
  static core::Environment* env_;
  static std::shared_ptr<Graph> graph_;
  static std::vector<uint8_t>* bytes_;

  /// The node at issue position i, with the label the validator uses for its kernel task.
  static std::string kernel_label(size_t task, const Node* n) {
    return "task " + std::to_string(task) + " (kernel '" + n->name() + "' " +
           (n->domain().empty() ? "" : n->domain() + ".") + n->op_type() + ")";
  }
};
core::Environment* AscendOfflineModelRefusals::env_;
std::shared_ptr<Graph> AscendOfflineModelRefusals::graph_;
std::vector<uint8_t>* AscendOfflineModelRefusals::bytes_;

TEST_F(AscendOfflineModelRefusals, IntactLoads) { EXPECT_EQ(refusal(*bytes_, *env_), ""); }

TEST_F(AscendOfflineModelRefusals, ChangedBlockDimNamesTheTask) {
  // The third node's kernel task (one stream: task index = node index).
  const Node* n = graph_->nodes()[2];
  std::vector<uint8_t> b = *bytes_;
  size_t at = find(b, "\"node\":\"" + n->name() + "\"");
  ASSERT_NE(at, std::string::npos);
  const int64_t bd = n->attrs.get_int("ascend_block_dim", 1);
  ASSERT_LT(bd, 9);
  patch(b, "\"block_dim\":" + std::to_string(bd), "\"block_dim\":" + std::to_string(bd + 1), at);
  EXPECT_EQ(refusal(b, *env_), "plan 't.om': section 'ascend.om': " + kernel_label(2, n) + ": block_dim is " +
                                   std::to_string(bd + 1) + " in the offline model, the graph gives " + std::to_string(bd));
}

TEST_F(AscendOfflineModelRefusals, ChangedArenaOffsetNamesTheTaskAndOperand) {
  // The first node whose output lies at a non-zero arena offset: change its offset's first digit.
  size_t idx = 0;
  const Node* n = nullptr;
  for (; idx < graph_->nodes().size(); ++idx)
    if (graph_->nodes()[idx]->output(0)->arena_offset > 0) {
      n = graph_->nodes()[idx];
      break;
    }
  ASSERT_NE(n, nullptr);
  const std::string off = std::to_string(n->output(0)->arena_offset);
  std::string bad = off;
  bad[0] = bad[0] == '9' ? '1' : static_cast<char>(bad[0] + 1);
  std::vector<uint8_t> b = *bytes_;
  size_t at = find(b, "\"outputs\":[{\"value\":\"" + n->output(0)->name() + "\"");
  ASSERT_NE(at, std::string::npos);
  patch(b, "\"arena_offset\":" + off, "\"arena_offset\":" + bad, at);
  EXPECT_EQ(refusal(b, *env_), "plan 't.om': section 'ascend.om': " + kernel_label(idx, n) + ": outputs[0].arena_offset is " +
                                   bad + " in the offline model, the graph gives " + off);
}

TEST_F(AscendOfflineModelRefusals, AnotherSocIsRefused) {
  std::unique_ptr<core::Environment> e310 = [] {
    core::Manifest mf = core::load_manifest(GE_ASCEND_MANIFEST);
    core::apply_override(mf, "ascend.soc_version=\"Ascend310\"");
    return core::load_environment(mf);
  }();
  EXPECT_EQ(refusal(*bytes_, *e310),
            "plan 't.om': section 'ascend.om': offline model compiled for soc_version 'Ascend910A', but this environment "
            "runs 'Ascend310' (ascend.soc_version; run it with --soc-version Ascend910A, or without --soc-version, or "
            "recompile it)");
  // A stored soc_version that differs from the one requested (here: edited) is refused the same way.
  std::unique_ptr<core::Environment> e910 = [] {
    core::Manifest mf = core::load_manifest(GE_ASCEND_MANIFEST);
    core::apply_override(mf, "ascend.soc_version=\"Ascend910A\"");
    return core::load_environment(mf);
  }();
  std::vector<uint8_t> b = *bytes_;
  patch(b, "\"soc_version\":\"Ascend910A\"", "\"soc_version\":\"Ascend910B\"");
  EXPECT_NE(refusal(b, *e910).find("offline model compiled for soc_version 'Ascend910B', but this environment runs "
                                   "'Ascend910A'"),
            std::string::npos);
  // Asked for no SoC (ascend.toml sets none), the .om runs on its own; one whose nodes were tiled
  // for another SoC than it names is refused, naming the first such node.
  EXPECT_EQ(refusal(*bytes_, *env_), "");
  const std::string r = refusal(b, *env_);
  EXPECT_EQ(r.rfind("plan 't.om': section 'ascend.om': offline model compiled for soc_version 'Ascend910B', but node '", 0), 0u) << r;
  EXPECT_NE(r.find("' was tiled for 'Ascend910A' (ascend_soc_version)"), std::string::npos) << r;
}

TEST_F(AscendOfflineModelRefusals, KernelRefusalAtLoadNamesThePlan) {
  // A node whose tiling lost its SoC (resealed): the file's checks and the section's validator
  // accept it, the kernel refuses it at build, and the message starts with the plan.
  std::vector<uint8_t> b = *bytes_;
  patch(b, "ascend_soc_version", "ascend_soc_versioX");
  EXPECT_EQ(refusal(b, *env_), "");
  std::shared_ptr<const core::Environment> env(env_, [](const core::Environment*) {});  // the fixture owns it
  std::shared_ptr<const LoadedPlan> plan = LoadedPlan::load_bytes(std::make_shared<const std::vector<uint8_t>>(b), "t.om", env);
  try {
    plan->new_session();
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("plan 't.om': ascend: node '", 0), 0u) << m;
    EXPECT_NE(m.find("): corrupted tiling: no ascend_soc_version attribute"), std::string::npos) << m;
  }
}

TEST_F(AscendOfflineModelRefusals, UnknownOrMalformedSectionIsRefused) {
  std::vector<uint8_t> b = *bytes_;
  patch(b, "ascend.om", "ascend.ox");  // the section's name (the first occurrence)
  EXPECT_EQ(refusal(b, *env_),
            "plan 't.om': section 'ascend.ox' (written by plugin 'ascend_backend') is read by no plugin of this "
            "environment (load that plugin's manifest)");
  b = *bytes_;
  patch(b, "\"tasks\":[", "\"tasks\":{");
  EXPECT_EQ(refusal(b, *env_), "plan 't.om': section 'ascend.om': offline model: not a JSON object");
  b = *bytes_;
  patch(b, "\"kind\":\"kernel\"", "\"kind\":\"kernex\"");
  EXPECT_EQ(refusal(b, *env_),
            "plan 't.om': section 'ascend.om': offline model: tasks[0].kind 'kernex' is not kernel, event_record or "
            "event_wait");
  b = *bytes_;
  patch(b, "\"weights_bytes\":", "\"weights_bytez\":");
  EXPECT_EQ(refusal(b, *env_), "plan 't.om': section 'ascend.om': offline model: om.weights_bytes is missing");
}

TEST(AscendOfflineModel, JsonRoundTripKeepsEveryField) {
  OfflineModel m;
  m.soc_version = "Ascend310";
  m.feature_map_bytes = 4096;
  m.weights_bytes = 128;
  m.streams = 2;
  m.weights.push_back({"w", "f16", "FRACTAL_Z", {16, 16, 1, 1}, 0, 512});
  m.events.push_back({"a", "b"});
  Task k;
  k.stream = 1;
  k.node = "b";
  k.op_type = "ge.FusedConv";
  k.engine = "cube";
  k.block_dim = 2;
  k.tiling = {1, 1, 1, 16, 16, 16, 16, 16, 16, 16, 1, 2};
  k.inputs = {{"x", 0, 1024, static_cast<int>(Format::NC1HWC0)}, {"w", -1, 512, static_cast<int>(Format::FRACTAL_Z)}};
  k.outputs = {{"y", 1024, 1024, static_cast<int>(Format::NC1HWC0)}};
  m.tasks = {Task{Task::Kind::EventWait, 1, {}, {}, {}, 1, {}, {}, {}, 0}, k};
  const OfflineModel r = offline_model_from_json(to_json(m));
  EXPECT_NO_THROW(check_same(r, m));
  EXPECT_EQ(to_json(r), to_json(m));
  OfflineModel other = m;
  other.tasks[1].tiling[5] = 32;
  try {
    check_same(other, m);
    ADD_FAILURE() << "a changed tiling must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "task 1 (kernel 'b' ge.FusedConv): tiling is [1,1,1,16,16,32,16,16,16,16,1,2] in the "
                                     "offline model, the graph gives [1,1,1,16,16,16,16,16,16,16,1,2]");
  }
}

// An integer field holds an integer in its type's range: nlohmann's conversion alone casts a float
// (undefined behaviour past the range) or a too-large integer silently (a fuzz finding:
// tests/fuzz/regressions/om_section/).
TEST(AscendOfflineModel, IntegerFieldsRefuseFloatsAndOutOfRangeValues) {
  OfflineModel m;
  m.soc_version = "Ascend310";
  m.streams = 1;
  Task k;
  k.node = "a";
  k.op_type = "Relu";
  k.engine = "vector";
  k.block_dim = 1;
  k.tiling = {4};
  k.inputs = {{"x", 0, 1024, static_cast<int>(Format::ND)}};
  k.outputs = {{"y", 1024, 1024, static_cast<int>(Format::ND)}};
  m.tasks = {k};
  const std::string json = to_json(m);
  auto refusal = [&](const std::string& from, const std::string& to) {
    std::string j = json;
    const size_t at = j.find(from);
    if (at == std::string::npos) return "'" + from + "' not in " + json;
    j.replace(at, from.size(), to);
    try {
      offline_model_from_json(j);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(loads)");
  };
  EXPECT_EQ(refusal("\"bytes\":1024", "\"bytes\":1E24"), "offline model: tasks[0].inputs[0].bytes is not an integer (number)");
  EXPECT_EQ(refusal("\"bytes\":1024", "\"bytes\":1024.5"), "offline model: tasks[0].inputs[0].bytes is not an integer (number)");
  EXPECT_EQ(refusal("\"streams\":1", "\"streams\":4294967297"), "offline model: om.streams is out of range (4294967297)");
  EXPECT_EQ(refusal("\"weights_bytes\":0", "\"weights_bytes\":-1"), "offline model: om.weights_bytes is out of range (-1)");
  EXPECT_EQ(refusal("\"tiling\":[4]", "\"tiling\":[4.0]"), "offline model: tasks[0].tiling[0] is not an integer (number)");
  EXPECT_EQ(refusal("\"streams\":1", "\"streams\":1"), "(loads)");
}

}  // namespace
}  // namespace ge::ascend
