// The data-movement kernels Transpose, Slice, Gather (move_kernels.cc, move_ops.h) on the AI Core
// against the CPU backend, bit for bit (they only copy): fp32 graphs as written, and fp16 graphs
// (ge.Cast to fp16 around the op) on inputs that are fp16 values, so every cast is exact too.
// Covers shufflenet's channel shuffle (Reshape to 5-D, Transpose perm 0,2,1,3,4, Reshape back),
// bert's attention heads (perm 0,2,1,3) and key transpose (0,2,3,1: the innermost dim moves, a
// strided row), strided and negative-step Slices, Gather of rows and on the last axis. Also: the
// stored tiling is the documented one and a corrupted one is refused naming the node; int64
// Gathers (shape arithmetic) and bad indices stay / fail as before.
#include <cstring>

#include "ascend_harness.h"
#include <random>
#include "placement_cost.h"
#include "platform.h"
#include "task.h"
#include "tiling.h"

namespace ge::ascend {
namespace {

class AscendMoveKernels : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cpu_ = test::cpu_env().release();
    asc_ = test::ascend_env("must_keep_origin_dtype").release();
  }
  static core::Environment *cpu_, *asc_;

  /// Inputs of `text`'s graph: float inputs random fp16 values (as float32), int64 inputs `ints`.
  static std::vector<Tensor> inputs(const Graph& g, const std::vector<int64_t>& ints) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<Tensor> in;
    for (const Value* v : g.inputs()) {
      Tensor t = Tensor::allocate(v->dtype, v->shape);
      if (v->dtype == DataType::Int64) {
        EXPECT_EQ(static_cast<size_t>(t.numel()), ints.size());
        std::memcpy(t.data(), ints.data(), ints.size() * sizeof(int64_t));
      } else {
        for (float& x : t.span<float>()) x = half_to_float(float_to_half(u(rng)));  // an fp16 value
      }
      in.push_back(std::move(t));
    }
    return in;
  }

  /// Runs `cpu_text` on the CPU backend and `asc_text` (the same computation, possibly through
  /// fp16) on the emulator; expects equal outputs and `op` stored on engine `engine`.
  static test::Run check(const std::string& name, const std::string& cpu_text, const std::string& asc_text, const std::string& op,
                         const std::string& engine, const std::vector<int64_t>& ints = {}) {
    SCOPED_TRACE(name);
    auto in = inputs(*test::parse(*cpu_, cpu_text), ints);
    auto ref = test::compile_and_run(test::parse(*cpu_, cpu_text), *cpu_, "cpu", in);
    auto r = test::compile_and_run(test::parse(*asc_, asc_text), *asc_, "ascend", in);
    EXPECT_EQ(r.outputs.size(), ref.outputs.size());
    const auto a = r.outputs.at(0).to_double_vector(), b = ref.outputs.at(0).to_double_vector();
    EXPECT_EQ(a, b) << "not bit for bit";
    EXPECT_EQ(r.outputs[0].shape(), ref.outputs[0].shape());
    int found = 0;
    for (const Node* n : r.graph->nodes())
      if (n->op_type() == op) {
        ++found;
        EXPECT_EQ(n->attrs.get_string(kAttrEngine, ""), engine) << n->name() << ": " << n->attrs.get_string(kAttrReason, "");
      }
    EXPECT_GE(found, 1) << op;
    std::printf("%-34s %zu elements bit for bit, %s on %s\n", name.c_str(), a.size(), op.c_str(), engine.c_str());
    return r;
  }

  /// Checks `body` (one op from %x to %y, shapes with dtype placeholder T) in fp32 and in fp16.
  static void both(const std::string& name, const std::string& input, const std::string& consts, const std::string& body,
                   const std::string& yshape, const std::string& op, const std::vector<int64_t>& ints = {},
                   const std::string& extra_input = "") {
    auto subst = [](std::string s, const std::string& t) {
      for (size_t p; (p = s.find("T[")) != std::string::npos;) s.replace(p, 1, t);
      return s;
    };
    const std::string head = "graph g opset(ai.onnx=13, ge=1) {\n  input %x: f32" + input + "\n" + extra_input + consts;
    const std::string f32 = head + subst(body, "f32") + "\n  %out: f32" + yshape + " = Relu(%y)\n  output %out\n}";
    // Relu after the op keeps the op's output off the graph output (and is exact).
    check(name + " fp32", f32, f32, op, "vector", ints);
    const std::string f16 = head + "  %xh: f16" + input + " = ge.Cast(%x) {to=10}\n" +
                            [&] {
                              std::string b = subst(body, "f16");
                              const size_t p = b.find("(%x");
                              return b.replace(p, 3, "(%xh");
                            }() +
                            "\n  %yf: f32" + yshape + " = ge.Cast(%y) {to=1}\n  %out: f32" + yshape + " = Relu(%yf)\n  output %out\n}";
    check(name + " fp16", f32, f16, op, "vector", ints);
  }
};
core::Environment *AscendMoveKernels::cpu_, *AscendMoveKernels::asc_;

TEST_F(AscendMoveKernels, ChannelShuffleTransposeAsShufflenet) {
  const std::string consts = "  const %s5: i64[5] = [2,2,12,5,7]\n  const %s4: i64[4] = [2,24,5,7]\n";
  both("channel shuffle 0,2,1,3,4", "[2,24,5,7]", consts,
       "  %r: T[2,2,12,5,7] = Reshape(%x, %s5)\n  %t: T[2,12,2,5,7] = Transpose(%r) {perm=[0,2,1,3,4]}\n"
       "  %y: T[2,24,5,7] = Reshape(%t, %s4)",
       "[2,24,5,7]", "Transpose");
}

TEST_F(AscendMoveKernels, AttentionHeadTransposesAsBert) {
  both("heads 0,2,1,3", "[2,9,4,16]", "", "  %y: T[2,4,9,16] = Transpose(%x) {perm=[0,2,1,3]}", "[2,4,9,16]", "Transpose");
  both("key 0,2,3,1 (strided rows)", "[2,9,4,16]", "", "  %y: T[2,4,16,9] = Transpose(%x) {perm=[0,2,3,1]}", "[2,4,16,9]",
       "Transpose");
  both("default perm (reverse)", "[3,5,6]", "", "  %y: T[6,5,3] = Transpose(%x)", "[6,5,3]", "Transpose");
}

TEST_F(AscendMoveKernels, Slices) {
  both("channel halves", "[1,24,5,7]",
       "  const %st: i64[1] = [12]\n  const %en: i64[1] = [24]\n  const %ax: i64[1] = [1]\n",
       "  %y: T[1,12,5,7] = Slice(%x, %st, %en, %ax)", "[1,12,5,7]", "Slice");
  both("steps 2 and -1", "[4,10,9]",
       "  const %st: i64[2] = [1,-1]\n  const %en: i64[2] = [9,-100]\n  const %ax: i64[2] = [1,2]\n  const %sp: i64[2] = [2,-1]\n",
       "  %y: T[4,4,9] = Slice(%x, %st, %en, %ax, %sp)", "[4,4,9]", "Slice");
}

TEST_F(AscendMoveKernels, GatherRowsAndLastAxis) {
  both("embedding rows", "[11,24]", "", "  %y: T[2,3,24] = Gather(%x, %i) {axis=0}", "[2,3,24]", "Gather", {0, 10, -1, 3, 3, 7},
       "  input %i: i64[2,3]\n");
  both("last axis", "[3,4,10]", "", "  %y: T[3,4,5] = Gather(%x, %i) {axis=2}", "[3,4,5]", "Gather", {9, 0, -2, 4, 4},
       "  input %i: i64[5]\n");
}

// The stored tiling of bert's head transpose: one unit per output row of 16 fp32 elements,
// [2,1,units 72, unit_elements 16, ub 64 (row in) + 64 (row out), ...]; a corrupted one is
// refused at build naming the node.
TEST_F(AscendMoveKernels, StoredTilingAndCorruptionRefused) {
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,9,4,16]
  %y: f32[2,4,9,16] = Transpose(%x) {perm=[0,2,1,3]}
  %out: f32[2,4,9,16] = Relu(%y)
  output %out
})";
  auto in = inputs(*test::parse(*asc_, text), {});
  auto r = test::compile_and_run(test::parse(*asc_, text), *asc_, "ascend", in);
  const Node* t = nullptr;
  for (const Node* n : r.graph->nodes())
    if (n->op_type() == "Transpose") t = n;
  ASSERT_NE(t, nullptr);
  const auto tiling = t->attrs.get_ints(kAttrTiling);
  ASSERT_EQ(tiling.size(), 8u);
  EXPECT_EQ(tiling[2], 72);   // units: 2·4·9 rows
  EXPECT_EQ(tiling[3], 16);   // row length
  EXPECT_EQ(tiling[4], 128);  // 64 B in + 64 B out (rows 64-byte aligned: no extra block)
  const std::string reason = t->attrs.get_string(kAttrReason, "");
  EXPECT_EQ(reason.rfind("vector: ", 0), 0u) << reason;
  EXPECT_NE(reason.find("(data movement)"), std::string::npos) << reason;
  // The key transpose (0,2,3,1): 9 strided elements per row, one 32-byte block each, + 64 B out.
  const std::string key = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,9,4,16]
  %y: f32[2,4,16,9] = Transpose(%x) {perm=[0,2,3,1]}
  %out: f32[2,4,16,9] = Relu(%y)
  output %out
})";
  auto k = test::compile_and_run(test::parse(*asc_, key), *asc_, "ascend", in);
  for (const Node* n : k.graph->nodes()) {
    if (n->op_type() == "Transpose") {
      EXPECT_EQ(n->attrs.get_ints(kAttrTiling).at(4), 9 * 32 + 64);
    }
  }

  Node* mut = const_cast<Node*>(t);
  auto bad = tiling;
  bad[2] = 71;
  mut->attrs.set(kAttrTiling, bad);
  try {
    core::Executable exe(r.graph, *asc_, {"ascend", 1});
    ADD_FAILURE() << "built";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'" + t->name() + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("corrupted tiling: units = 71"), std::string::npos) << msg;
  }
}

// The channel shuffle's Reshapes are views: the memory plan aliases them, the offline model's
// task list holds no task for them (CANN emits none), one per other node; a Reshape that is a
// graph output is a copy and keeps its (AI CPU) task.
TEST_F(AscendMoveKernels, ViewsHaveNoTask) {
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,24,5,7]
  const %s5: i64[5] = [2,2,12,5,7]
  const %s4: i64[4] = [2,24,5,7]
  const %s2: i64[2] = [2,840]
  %a: f32[2,24,5,7] = Relu(%x)
  %r: f32[2,2,12,5,7] = Reshape(%a, %s5)
  %t: f32[2,12,2,5,7] = Transpose(%r) {perm=[0,2,1,3,4]}
  %y: f32[2,24,5,7] = Reshape(%t, %s4)
  %out: f32[2,24,5,7] = Relu(%y)
  %flat: f32[2,840] = Reshape(%out, %s2)
  output %flat
})";
  auto r = test::compile_and_run(test::parse(*asc_, text), *asc_, "ascend", inputs(*test::parse(*asc_, text), {}));
  EXPECT_EQ(r.counters["ascend.placement.final.view"], 2);
  EXPECT_EQ(r.counters["ascend.placement.final.aicpu"], 1);  // the graph-output Reshape: a copy
  int views = 0;
  for (const Node* n : r.graph->nodes())
    if (n->op_type() == "Reshape" && is_view_node(*n)) {
      ++views;
      EXPECT_EQ(n->output(0)->arena_offset, n->input(0)->arena_offset);
    }
  EXPECT_EQ(views, 2);
  const std::vector<Task> tasks = build_tasks(*r.graph);
  size_t kernels = 0;
  for (const Task& t : tasks) {
    if (t.kind != Task::Kind::Kernel) continue;
    ++kernels;
    const Node* n = r.graph->find_node(t.node);
    ASSERT_NE(n, nullptr);
    EXPECT_FALSE(is_view_node(*n)) << t.node;
  }
  EXPECT_EQ(kernels, r.graph->num_nodes() - 2);
}

// The cost rule for data movement: bert's head Transpose [1,128,4,64] fp32 moves 2 × 128 KiB;
// the AI CPU at 4 GB/s takes 65.5 µs + 20 µs launch = 85.5 µs, the AI Core a few cycles + 5 µs.
// With a (hypothetical) 1 ms AI Core launch the AI CPU wins. A blocked input and int64 data
// (shape arithmetic) stay on the AI CPU with the reason.
TEST_F(AscendMoveKernels, PlacementByBytesAndTheAiCpuCases) {
  auto g = parse_graph(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,128,4,64]
  input %s: i64[4]
  input %i: i64[1]
  %y: f32[1,4,128,64] = Transpose(%x) {perm=[0,2,1,3]}
  %n: i64[1] = Gather(%s, %i) {axis=0}
  output %y
  output %n
})", "place");
  Platform p = load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend910A");
  const Node& tr = *g->nodes()[0];
  const PlacementChoice c = place(tr, p);
  EXPECT_EQ(c.engine, Engine::Vector) << c.reason;
  EXPECT_DOUBLE_EQ(c.aicpu_us, 20 + 2 * 128 * 4 * 64 * 4 / 4e3);
  EXPECT_LT(c.aicore_us, 6.0);
  ASSERT_TRUE(c.vector.has_value());
  EXPECT_EQ(c.vector->units, 512);
  EXPECT_EQ(c.vector->ub_bytes_per_unit, 256 + 256);
  const PlacementChoice i64 = place(*g->nodes()[1], p);
  EXPECT_EQ(i64.engine, Engine::AiCpu);
  EXPECT_NE(i64.reason.find("non-float input"), std::string::npos) << i64.reason;
  g->nodes()[0]->input(0)->format = Format::NC1HWC0;
  const PlacementChoice blocked = place(tr, p);
  EXPECT_EQ(blocked.engine, Engine::AiCpu);
  EXPECT_NE(blocked.reason.find("NC1HWC0 (the data-movement kernels read plain layouts)"), std::string::npos) << blocked.reason;
  g->nodes()[0]->input(0)->format = Format::NCHW;
  p.numbers["launch.aicore_us"].value = 1000;
  const PlacementChoice slow = place(tr, p);
  EXPECT_EQ(slow.engine, Engine::AiCpu);
  EXPECT_NE(slow.reason.find("(launch-bound)"), std::string::npos) << slow.reason;
}

TEST_F(AscendMoveKernels, GatherIndexOutOfRangeFailsNamingTheNode) {
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[5,8]
  input %i: i64[2]
  %y: f32[2,8] = Gather(%x, %i) {axis=0}
  %out: f32[2,8] = Relu(%y)
  output %out
})";
  auto in = inputs(*test::parse(*asc_, text), {1, 5});
  try {
    test::compile_and_run(test::parse(*asc_, text), *asc_, "ascend", in);
    ADD_FAILURE() << "ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index 5 out of range [-5, 5)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ge::ascend
