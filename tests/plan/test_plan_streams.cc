// Multi-stream plans: the schedule (Node::stream, Node::pipeline_stage, Graph::schedule) survives
// save and load, a loaded multi-stream plan runs on one worker per stream with the outputs of
// the serial run, 4 application threads run it at once, and a bad schedule in a plan is refused
// at load naming the edge or event.
#include <atomic>
#include <cmath>
#include <thread>

#include "ge/core/session.h"
#include "ge/sdk/error.h"
#include "ge/sdk/stream_order.h"
#include "plan_test_util.h"
#include "random_streams.h"

using namespace plan_test;

namespace {

/// The model compiled at O2, then put on random streams and re-planned for them.
std::shared_ptr<ge::Graph> compile_multi_stream(const std::string& model, int streams, uint32_t seed) {
  std::shared_ptr<ge::Graph> g = compile(model);
  ge::test::assign_random_streams(*g, streams, seed);
  ge::core::CompileOptions o;
  o.opt_level = ge::OptLevel::O0;
  o.only = std::vector<std::string>{"plan_memory"};
  o.fail_on_pass_error = true;
  ge::core::compile_graph(*g, *env(), o);
  return g;
}

std::vector<ge::Tensor> inputs_of(const std::string& data_dir, size_t n) {
  std::vector<ge::Tensor> in;
  for (size_t i = 0; i < n; ++i) in.push_back(ge::core::read_tensor_file(data_dir + "/input_" + std::to_string(i) + ".pb"));
  return in;
}

void round_trip_and_threads(const std::string& model, const std::string& data_dir) {
  std::shared_ptr<ge::Graph> g = compile_multi_stream(model, 2, 11);
  g->schedule.estimated_latency_ms = 1.25;
  for (ge::Node* n : g->nodes()) n->pipeline_stage = 0;
  std::string path = temp_path("streams.gep");
  ge::core::save_plan(*g, *env(), "cpu", path);
  std::shared_ptr<ge::LoadedPlan> plan = ge::LoadedPlan::load(path, env(), {{}, 2});
  std::shared_ptr<ge::LoadedPlan> serial = ge::LoadedPlan::load(path, env(), {{}, 1});
  std::filesystem::remove(path);

  // The schedule is preserved, field by field and node by node.
  const ge::ScheduleInfo &a = g->schedule, &b = plan->graph().schedule;
  EXPECT_EQ(b.scheduler, "random_streams");
  EXPECT_EQ(b.scheduler, a.scheduler);
  EXPECT_EQ(b.streams, 2);
  EXPECT_EQ(b.pipeline_stages, a.pipeline_stages);
  EXPECT_EQ(b.events, a.events);
  EXPECT_FALSE(b.events.empty());
  EXPECT_EQ(b.estimated_latency_ms, 1.25);
  EXPECT_EQ(b.reason, a.reason);
  ASSERT_EQ(plan->graph().num_nodes(), g->num_nodes());
  int on_stream1 = 0;
  for (const ge::Node* n : g->nodes()) {
    const ge::Node* m = plan->graph().find_node(n->name());
    ASSERT_NE(m, nullptr) << n->name();
    EXPECT_EQ(m->stream, n->stream) << n->name();
    on_stream1 += m->stream == 1;
  }
  EXPECT_GT(on_stream1, 0);

  std::vector<ge::Tensor> in = inputs_of(data_dir, plan->inputs().size());
  // Threads 1: serial in graph order; threads 2: two workers × 1 intra-op thread. Same kernels
  // (one intra-op thread each), so the outputs agree bit for bit.
  std::vector<ge::Tensor> want = serial->run(in);
  std::vector<ge::Tensor> got = plan->run(in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(bitwise_equal(got[k], want[k])) << "output " << k;
  for (size_t k = 0; k < want.size(); ++k) {
    ge::Tensor ref = ge::core::read_tensor_file(data_dir + "/output_" + std::to_string(k) + ".pb");
    auto x = want[k].to_double_vector(), y = ref.to_double_vector();
    ASSERT_EQ(x.size(), y.size());
    double d = 0, nrm = 0;
    for (size_t i = 0; i < x.size(); ++i) d += (x[i] - y[i]) * (x[i] - y[i]), nrm += y[i] * y[i];
    EXPECT_LE(std::sqrt(d / std::max(nrm, 1e-30)), 1e-4) << "output " << k;
  }

  // 4 application threads × 50 runs, each Session with its own two stream workers.
  plan_test::expect_concurrent_runs_bitwise(*plan, in, want);
}

std::string refusal_of(const ge::Graph& g) {
  std::vector<uint8_t> bytes = ge::core::serialize_plan(g, *env(), "cpu");
  return refusal(bytes, bytes.size(), *env());
}

}  // namespace

TEST(PlanStreams, TinyCnnRoundTripAndFourThreads) {
  round_trip_and_threads(tiny_cnn_dir() + "/model.onnx", tiny_cnn_dir() + "/test_data_set_0");
}

TEST(PlanStreams, SqueezenetRoundTripAndFourThreads) {
  std::string d = squeezenet_dir();
  if (d.empty()) GTEST_SKIP() << "GE_SHARED_DIR/models/squeezenet1_1 absent";
  round_trip_and_threads(d + "/squeezenet1_1.onnx", d + "/test_data_set_0");
}

TEST(PlanStreams, BadSchedulesAreRefusedAtLoad) {
  std::shared_ptr<ge::Graph> g = compile_multi_stream(tiny_cnn_dir() + "/model.onnx", 2, 5);
  ASSERT_FALSE(g->schedule.events.empty());
  EXPECT_EQ(refusal_of(*g), "");

  {  // a needed event dropped: the edge it ordered is named
    auto bad = g->clone();
    ge::StreamEvent e = bad->schedule.events.front();
    bad->schedule.events.erase(bad->schedule.events.begin());
    std::string r = refusal_of(*bad);
    EXPECT_NE(r.find("plan 't.gep'"), std::string::npos) << r;
    EXPECT_NE(r.find("no event orders them"), std::string::npos) << r;
    EXPECT_NE(r.find(e.wait_before), std::string::npos) << r;
  }
  {  // an event waiting for a node issued later: a cycle, never a deadlock
    auto bad = g->clone();
    ge::StreamEvent e = bad->schedule.events.front();
    bad->schedule.events.push_back({e.wait_before, e.record_after});
    std::string r = refusal_of(*bad);
    EXPECT_NE(r.find("cycle"), std::string::npos) << r;
  }
  {  // an event naming no node
    auto bad = g->clone();
    bad->schedule.events.push_back({"no_such_node", bad->nodes().back()->name()});
    std::string r = refusal_of(*bad);
    EXPECT_NE(r.find("'no_such_node'"), std::string::npos) << r;
    EXPECT_NE(r.find("names no node"), std::string::npos) << r;
  }
  {  // a stream outside the schedule's range
    auto bad = g->clone();
    bad->nodes().front()->stream = 5;
    std::string r = refusal_of(*bad);
    EXPECT_NE(r.find("stream 5, outside 0..1"), std::string::npos) << r;
  }
  {  // absurd stream counts from a corrupted header
    auto bad = g->clone();
    bad->schedule.streams = 1 << 30;
    EXPECT_NE(refusal_of(*bad).find("streams = "), std::string::npos);
  }
  {  // the runtime refuses the same schedule when handed the graph directly
    auto bad = g->clone();
    bad->schedule.events.clear();
    EXPECT_THROW((void)ge::core::Executable(std::shared_ptr<const ge::Graph>(std::move(bad)), *env(), {"cpu", 2}), ge::Error);
  }
}

// Pruning outputs at load removes nodes that events name: the events are rerouted so that the
// remaining nodes stay ordered, and the pruned plan runs on its streams.
//   x → sig (s1) → s → mid (s1) → m (output "m") ; s → relu (s0) → r (output "r")
//   relu waits for sig; pruning "m" removes mid and keeps sig → relu.
TEST(PlanStreams, PruneOutputsKeepsTheScheduleValid) {
  ge::Graph g("prune");
  g.opsets[""] = 17;
  ge::Value* x = g.add_input("x", ge::DataType::Float32, ge::Shape{4});
  auto node = [&](const std::string& op, const std::string& name, ge::Value* in, int stream) {
    ge::Value* o = g.add_value(name + "_out", ge::DataType::Float32, ge::Shape{4});
    g.add_node(op, name, {in}, {o})->stream = stream;
    return o;
  };
  ge::Value* s = node("Sigmoid", "sig", x, 1);
  ge::Value* m = node("Sqrt", "mid", s, 1);
  ge::Value* r = node("Relu", "relu", s, 0);
  g.mark_output(m);
  g.mark_output(r);
  g.schedule.streams = 2;
  g.schedule.events = ge::derive_events(g);
  ASSERT_EQ(g.schedule.events.size(), 1u);
  std::string path = temp_path("prune_streams.gep");
  ge::core::save_plan(g, *env(), "cpu", path);
  auto only_r = ge::LoadedPlan::load(path, env(), {{{"relu_out"}}, 2});
  auto only_m = ge::LoadedPlan::load(path, env(), {{{"mid_out"}}, 2});
  std::filesystem::remove(path);
  EXPECT_EQ(only_r->graph().num_nodes(), 2u);
  EXPECT_EQ(only_r->graph().schedule.events, g.schedule.events);
  EXPECT_EQ(only_m->graph().num_nodes(), 2u);
  EXPECT_TRUE(only_m->graph().schedule.events.empty());  // relu gone: nothing waits for sig
  ge::Tensor xs = ge::Tensor::allocate(ge::DataType::Float32, ge::Shape{4});
  for (int i = 0; i < 4; ++i) xs.data_as<float>()[i] = static_cast<float>(i) - 2;
  ge::Session sr = only_r->new_session();
  std::vector<ge::Tensor> out = sr.run({xs});
  ASSERT_EQ(out.size(), 1u);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[0].data_as<float>()[i], 1 / (1 + std::exp(2.0 - i)), 1e-6);
  EXPECT_NEAR(only_m->run({xs})[0].data_as<float>()[0], std::sqrt(1 / (1 + std::exp(2.0))), 1e-6);
}

// drop_from_schedule by hand: a (s0) → b (s1) → c (s0) with events a→b, b→c; removing b must
// leave a ordered before c, which now holds by stream order alone.
TEST(PlanStreams, DropFromScheduleReroutesEvents) {
  ge::Graph g("chain");
  ge::Value* x = g.add_input("x", ge::DataType::Float32, ge::Shape{4});
  auto node = [&](const std::string& name, int stream) {
    ge::Value* o = g.add_value(name + "_out", ge::DataType::Float32, ge::Shape{4});
    ge::Node* n = g.add_node("Relu", name, {x}, {o});
    n->stream = stream;
    return n;
  };
  node("a", 0);
  ge::Node* b = node("b", 1);
  node("d", 2);
  node("c", 0);
  node("e", 2);
  g.schedule.streams = 3;
  // a → b → e (b waits for a, e waits for b): removing b must keep a before e.
  g.schedule.events = {{"a", "b"}, {"b", "e"}};
  ge::drop_from_schedule(g, b);
  std::vector<ge::StreamEvent> want = {{"a", "e"}};
  EXPECT_EQ(g.schedule.events, want);
}
