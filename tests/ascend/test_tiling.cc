// The ascend_tiling pass and the emulator's tile-by-tile execution (docs/ascend.md, "Tiling"):
// every AI Core node of every shared model gets a tiling that fits its platform's buffers with
// double buffering (both platforms) and every node a placement reason; a hand-checked Conv
// tiling; stored tilings that overflow a buffer or no longer match their node are refused when
// the kernels are built, naming the node; tile-by-tile results are bit-identical to the
// whole-tensor Cube and Vector computation.
#include <cstring>
#include <filesystem>
#include <random>

#include "ascend_harness.h"
#include "cube.h"
#include "ge/core/onnx_frontend.h"
#include "placement_cost.h"
#include "shared_models.h"
#include "tensor_io.h"
#include "task.h"
#include "tiling.h"
#include "tiling_choose.h"

namespace ge::ascend {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<core::Environment> env_for(const std::string& soc, const std::string& mode = "force_fp16") {
  core::Manifest m = core::load_manifest(GE_ASCEND_MANIFEST);
  core::apply_override(m, "ascend.precision_mode=\"" + mode + "\"");
  core::apply_override(m, "ascend.soc_version=\"" + soc + "\"");
  return core::load_environment(m);
}

/// Compiles `g` for ascend at O2 (no run).
std::shared_ptr<Graph> compile(std::unique_ptr<Graph> g, core::Environment& env, std::map<std::string, int64_t>* counters = nullptr) {
  core::CompileOptions o = core::CompileOptions::from_manifest(env.manifest);
  o.opt_level = OptLevel::O2;
  o.backend = "ascend";
  o.fail_on_pass_error = true;
  auto r = core::compile_graph(*g, env, o);
  if (counters) *counters = r.counters;
  return std::shared_ptr<Graph>(std::move(g));
}

struct Counts {
  int cube = 0, vector = 0, aicpu = 0, view = 0;  // view: stored as aicpu, no task (task.h is_view_node)
};

/// Every node: the four attributes, a reason naming its engine; AI Core tilings decode, pass
/// check() on `p`, match the node's problem and use min(ai_cores, tiles) cores.
void verify_graph(const Graph& g, const Platform& p, const std::string& label, Counts& c) {
  const int64_t cores = p.get_int("ai_cores");
  for (const Node* n : g.nodes()) {
    SCOPED_TRACE(label + " node " + n->name());
    EXPECT_TRUE(n->attrs.has(kAttrEngine));
    EXPECT_TRUE(n->attrs.has(kAttrBlockDim));
    EXPECT_TRUE(n->attrs.has(kAttrReason));
    const std::string e = n->attrs.get_string(kAttrEngine, "");
    const std::string reason = n->attrs.get_string(kAttrReason, "");
    EXPECT_EQ(reason.rfind(e + ":", 0), 0u) << reason;
    EXPECT_EQ(n->attrs.get_string(kAttrSoc, ""), p.name);
    if (e == "aicpu") {
      ++(is_view_node(*n) ? c.view : c.aicpu);
      EXPECT_EQ(n->attrs.get_int(kAttrBlockDim, 0), 1);
      EXPECT_FALSE(n->attrs.has(kAttrTiling));
    } else if (e == "cube") {
      ++c.cube;
      const CubeTiling t = decode_cube(n->attrs.get_ints(kAttrTiling), n->name());
      EXPECT_NO_THROW(check(t, p, n->name()));
      EXPECT_LE(t.l0a_bytes(), p.get_int("buffers.l0a"));
      EXPECT_LE(t.l0b_bytes(), p.get_int("buffers.l0b"));
      EXPECT_LE(t.l0c_bytes(), p.get_int("buffers.l0c"));
      EXPECT_LE(t.l1_bytes(), p.get_int("buffers.l1"));
      EXPECT_TRUE(t.double_buffer);
      if (t.blocked()) {  // one block per core, more than half the cores busy
        EXPECT_EQ(t.block_dim, t.blocks());
        EXPECT_GT(2 * t.block_dim, std::min(cores, t.output_tiles()));
      } else {
        EXPECT_EQ(t.block_dim, std::min(cores, t.output_tiles()));
      }
      EXPECT_EQ(n->attrs.get_int(kAttrBlockDim, 0), t.block_dim);
      const auto prob = cube_problem(*n);
      EXPECT_TRUE(prob.has_value());
      if (prob) {
        EXPECT_EQ(t.M, prob->M);
        EXPECT_EQ(t.N, prob->N);
        EXPECT_EQ(t.K, prob->K);
        EXPECT_EQ(t.batch, prob->batch);
      }
    } else {
      EXPECT_EQ(e, "vector");
      ++c.vector;
      const VectorTiling t = decode_vector(n->attrs.get_ints(kAttrTiling), n->name());
      EXPECT_NO_THROW(check(t, p, n->name()));
      EXPECT_LE(t.ub_bytes(), p.get_int("buffers.ub"));
      EXPECT_TRUE(t.double_buffer);
      EXPECT_EQ(t.block_dim, std::min(cores, t.tiles()));
      EXPECT_EQ(n->attrs.get_int(kAttrBlockDim, 0), t.block_dim);
    }
  }
}

std::string label_of(const fs::path& model) {
  const std::string dir = model.parent_path().filename().string();
  return model.parent_path().parent_path().filename() == "onnx-light" ? "onnx-light/" + dir : dir;
}

TEST(AscendTiling, EverySharedModelFitsTheBuffersOnBothPlatforms) {
  const auto models = ge::test::shared_models();
  if (models.empty()) GTEST_SKIP() << "no shared models";
  for (const char* soc : {"Ascend910A", "Ascend310"}) {
    auto env = env_for(soc);
    const Platform p = load_platform(GE_ASCEND_PLATFORM_DIR, soc);
    for (const fs::path& m : models) {
      core::ImportOptions io;
      std::map<std::string, int64_t> counters;
      auto g = compile(core::import_model(*env, m.string(), io), *env, &counters);
      Counts c;
      verify_graph(*g, p, label_of(m), c);
      std::printf("%-10s %-22s AI Core cube %3d vector %3d  AI CPU %3d  views (no task) %3d\n", soc, label_of(m).c_str(), c.cube, c.vector,
                  c.aicpu, c.view);
      EXPECT_GT(c.cube, 0) << label_of(m);
      EXPECT_EQ(counters["ascend.placement.final.aicore.cube"], c.cube);
      EXPECT_EQ(counters["ascend.placement.final.aicore.vector"], c.vector);
      EXPECT_EQ(counters["ascend.placement.final.aicpu"], c.aicpu);
      EXPECT_EQ(counters["ascend.placement.final.view"], c.view);
      int64_t per_node = 0;  // one ascend.placement.node.<node>:<engine> counter per node
      for (auto& [k, v] : counters) per_node += k.rfind("ascend.placement.node.", 0) == 0;
      EXPECT_EQ(per_node, static_cast<int64_t>(g->num_nodes()));
    }
  }
}

// Conv X[1,16,8,8] * W[32,16,3,3], pad 1: M = 8·8 = 64, N = 32, K = 16·3·3 = 144. Every (m, n)
// fits L0C and k_tile = k_l1 = 144 (all of K) fits L0A/L0B/L1, so the A and B panels stay resident.
// The chooser takes the fewest cycles of the cycle model (cycle_model.h), per K-step (one here):
// the feature map is 1·16·64 fp16 = 2048 B and im2col A is 64·144·2 = 18432 B → expansion e = 9;
// the output is NC1HWC0 fp16, 2 B per element.
//   MTE2 (m·144·2/9 + 144·n·2)/32 = m + 9n     MTE1 m·144·2/512 + 144·n·2/256 = (9m + 18n)/16
//   Cube (m/16)(n/16)·9                        V m·n·4/256 + m·n/128 = 3mn/128     MTE3 m·n·2/64
//  Ascend910A (32 cores): 16×16 → 8 tiles, one per core, one item: 160 + 27 + 9 + 6 + 8 = 210,
//  beating 32×16 (176+36+18+12+16 = 258), 16×32 (304+45+18+12+16 = 395), 32×32 (466)
//  → [1,2,1,64,32,144,16,16,144,144,1,8,0], "cube: 210 cycles".
//  Ascend310 (2 cores): 16×16, core 0 takes tiles 0, 2, 4, 6 = (m 0..3, n 0): the B panel stays
//  resident, so tiles 2–4 load only A (16·144·2/9/32 = 16 cycles). Flow shop finish times
//  [MTE2, MTE1, Cube, V, MTE3]: tile 1 [160, 187, 196, 202, 210], tile 2 [176, 214, 223, 229, 237],
//  tile 3 [192, 241, 250, 256, 264], tile 4 [208, 268, 277, 283, 291] — MTE1-bound at 27 per
//  tile → 291 cycles. 32×16 (2 tiles per core, B reused: [176,212,230,242,258] then
//  [208,248,266,278,294]) 294; 64×16 (one tile each) 208+54+36+24+32 = 354; 16×32 (440);
//  32×32 (466) → [1,2,1,64,32,144,16,16,144,144,1,2,0], "cube: 291 cycles".
const char* kConv = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,8,8]
  const %w: f32[32,16,3,3]
  const %b: f32[32]
  %y: f32[1,32,8,8] = Conv(%x, %w, %b) {pads=[1,1,1,1]}
  %out: f32[1,2048] = Flatten(%y) {axis=1}
  output %out
})";

const Node* only(const Graph& g, const std::string& op) {
  const Node* found = nullptr;
  for (const Node* n : g.nodes())
    if (n->op_type() == op) {
      EXPECT_EQ(found, nullptr) << "two " << op;
      found = n;
    }
  EXPECT_NE(found, nullptr) << "no " << op;
  return found;
}

TEST(AscendTiling, HandCheckedConvTiling) {
  for (auto [soc, m_tile, n_tile, block_dim, cycles] :
       {std::tuple{"Ascend310", 16, 16, 2, "291"}, std::tuple{"Ascend910A", 16, 16, 8, "210"}}) {
    SCOPED_TRACE(soc);
    auto env = env_for(soc);
    auto g = compile(test::parse(*env, kConv), *env);
    const Node* conv = only(*g, "Conv");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->attrs.get_string(kAttrEngine, ""), "cube");
    // [kind, version, batch, M, N, K, m_tile, n_tile, k_tile, k_l1, double_buffer, block_dim, order,
    //  single_core_m, single_core_n, k_l1_b, single_core_k] — one tile per core: round-robin (a block
    //  partition prices the same), one L1 depth, no split-K
    const std::vector<int64_t> want{1, 4, 1, 64, 32, 144, m_tile, n_tile, 144, 144, 1, block_dim, 0, 0, 0, 144, 0};
    EXPECT_EQ(conv->attrs.get_ints(kAttrTiling), want);
    EXPECT_EQ(conv->attrs.get_int(kAttrBlockDim, 0), block_dim);
    const std::string reason = conv->attrs.get_string(kAttrReason, "");
    EXPECT_EQ(reason.rfind(std::string("cube: ") + cycles + " cycles est.", 0), 0u) << reason;
    // The Flatten follows the Conv's fp16 output (a dtype follower): a view before the output's Cast.
    EXPECT_EQ(only(*g, "Flatten")->attrs.get_string(kAttrReason, ""),
              "aicpu: a view, no task (its output is its input's bytes); an AI CPU copy if the memory plan does not alias it");
  }
  // Under must_keep_origin_dtype the Conv stays fp32: AI CPU by the hard rule.
  auto env = env_for("Ascend910A", "must_keep_origin_dtype");
  auto g = compile(test::parse(*env, kConv), *env);
  EXPECT_EQ(only(*g, "Conv")->attrs.get_string(kAttrReason, ""), "aicpu: fp32 input (the Cube multiplies fp16 only)");
}

/// Builds the kernels of `g` after `mutate` changed the Conv's (or `op`'s) attributes; expects
/// an error containing every piece of `want` and the node's name.
void expect_refused(const std::string& text, const std::string& op, const std::function<void(Node&)>& mutate,
                    const std::vector<std::string>& want) {
  auto env = env_for("Ascend910A");
  auto g = compile(test::parse(*env, text), *env);
  Node* n = const_cast<Node*>(only(*g, op));
  ASSERT_NE(n, nullptr);
  mutate(*n);
  try {
    core::Executable exe(g, *env, {"ascend", 1});
    ADD_FAILURE() << "built";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'" + n->name() + "'"), std::string::npos) << msg;
    for (const std::string& w : want) EXPECT_NE(msg.find(w), std::string::npos) << "want '" << w << "' in: " << msg;
  }
}

void set_field(Node& n, size_t i, int64_t v) {
  auto t = n.attrs.get_ints(kAttrTiling);
  t.at(i) = v;
  n.attrs.set(kAttrTiling, t);
}

TEST(AscendTiling, CorruptedOrOverflowingTilingsAreRefusedAtBuild) {
  // Cube encoding: [1, 4, batch, M, N, K, m_tile, n_tile, k_tile, k_l1, double_buffer, block_dim, order,
  //                 single_core_m, single_core_n, k_l1_b, single_core_k]
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 3, 65); }, {"corrupted tiling: M = 65", "give 64"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 5, 160); }, {"corrupted tiling: K = 160"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 11, 0); }, {"block_dim 0 outside 1..8"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 11, 33); }, {"block_dim 33 outside", "32 AI Cores"});
  // m_tile 512 × k_tile 144 × 2 B × 2 buffers = 294912 B > L0A 65536.
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 6, 512); }, {"294912 bytes of l0a", "65536"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 7, 24); }, {"n_tile = 24 is not a multiple of 16"});
  expect_refused(kConv, "Conv", [](Node& n) { n.attrs.set(kAttrBlockDim, int64_t{4}); }, {"ascend_block_dim = 4", "give 8"});
  expect_refused(kConv, "Conv", [](Node& n) { n.attrs.erase(kAttrEngine); }, {"no ascend_engine attribute", "recompile"});
  expect_refused(kConv, "Conv", [](Node& n) { n.attrs.set(kAttrSoc, std::string("Ascend999")); },
                 {"ascend_soc_version 'Ascend999'", "unknown soc_version"});
  expect_refused(kConv, "Conv", [](Node& n) { n.attrs.set(kAttrTiling, std::vector<int64_t>{2, 1, 3}); }, {"is not a cube tiling"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 12, 2); }, {"tiling field order = 2", "0 (MN) or 1 (NM)"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 1, 5); }, {"has version 5", "reads version 1 to 4"});
  expect_refused(kConv, "Conv", [](Node& n) {  // version 1 has no order field: 12 values
    auto t = n.attrs.get_ints(kAttrTiling);
    t[1] = 1;
    n.attrs.set(kAttrTiling, t);
  }, {"has 17 values; a cube tiling has 12"});
  expect_refused(kConv, "Conv", [](Node& n) {  // version 2 has no block fields: 13 values
    auto t = n.attrs.get_ints(kAttrTiling);
    t[1] = 2;
    n.attrs.set(kAttrTiling, t);
  }, {"has 17 values; a cube tiling has 13"});
  expect_refused(kConv, "Conv", [](Node& n) {  // version 3 has one L1 depth and no split-K: 15 values
    auto t = n.attrs.get_ints(kAttrTiling);
    t[1] = 3;
    n.attrs.set(kAttrTiling, t);
  }, {"has 17 values; a cube tiling has 15"});
  // Block partitions of the 64 × 32 output in 16 × 16 tiles (4 × 2 tiles, block_dim 8): fields 13, 14.
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 13, 32), set_field(n, 14, 16); },
                 {"block partition 32 x 16 cuts the output into 4 blocks", "block_dim is 8"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 13, 24), set_field(n, 14, 16); },
                 {"single_core_m = 24 is not a positive multiple of m_tile = 16 up to 64"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 13, 16); }, {"single_core_n = 0 is not a positive multiple"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 13, 16), set_field(n, 14, 48); },
                 {"single_core_n = 48 is not a positive multiple of n_tile = 16 up to 32"});
  // Version 4's fields 15 (k_l1_b) and 16 (single_core_k), refused at build naming the node.
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 15, 100); }, {"k_l1_b = 100 is not a multiple of k_tile = 144"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 16, 48); }, {"single_core_k = 48 is not a positive multiple of k_tile = 144"});
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 16, 144); },
                 {"single_core_k = 144 is not a positive multiple of k_tile = 144 below K rounded up to 16 = 144"});
  // More blocks than AI Cores: block_dim must equal the blocks, and it is at most ai_cores.
  expect_refused(kConv, "Conv", [](Node& n) { set_field(n, 11, 33), set_field(n, 13, 16), set_field(n, 14, 16); },
                 {"block_dim 33 outside", "32 AI Cores"});
  // A Flatten of the graph input stays fp32 and is an AI CPU copy (a kernel).
  const char* flat = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,8,8]
  %out: f32[1,1024] = Flatten(%x) {axis=1}
  output %out
})";
  expect_refused(flat, "Flatten", [](Node& n) { n.attrs.set(kAttrEngine, std::string("vector")); },
                 {"corrupted tiling", "Flatten"});
  // Vector: [2, 1, units, unit_elements, ub_bytes_per_unit, tile_units, double_buffer, block_dim]
  const char* relu = R"(graph g opset(ai.onnx=13) {
  input %x: f32[64,1024]
  %r: f32[64,1024] = Relu(%x)
  %out: f32[64,1024] = Sigmoid(%r)
  output %out
  output %r
})";  // %r is a graph output too, so elementwise_chain leaves the Relu unfused
  // 4096 units of 64 B (fp16 in + out) → tile_units 128 (4096/32 cores); 4096 × 64 × 2 > 262144.
  expect_refused(relu, "Relu", [](Node& n) { set_field(n, 5, 4096), set_field(n, 7, 1); }, {"524288 bytes of ub", "262144"});
  expect_refused(relu, "Relu", [](Node& n) { set_field(n, 2, 4000); }, {"corrupted tiling: units = 4000", "give 4096"});
  expect_refused(relu, "Relu", [](Node& n) { set_field(n, 4, 32); }, {"corrupted tiling: ub_bytes_per_unit = 32"});
}

// The cost rule itself: with a (hypothetical) 1 ms AI Core launch, a small Relu is cheaper on the
// AI CPU (10 µs at 8 GFLOP/s + 20 µs launch); with the platform's 5 µs it goes to the Vector unit.
TEST(AscendTiling, PlacementFollowsTheCostEstimate) {
  auto env = env_for("Ascend910A");
  auto g = test::parse(*env, R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,8,8]
  %out: f32[1,16,8,8] = Relu(%x)
  output %out
})");
  for (Value* v : g->values()) v->dtype = DataType::Float16;  // as after force_fp16
  Platform p = load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend910A");
  const Node& relu = *g->nodes().front();
  const PlacementChoice vec = place(relu, p);
  EXPECT_EQ(vec.engine, Engine::Vector);
  EXPECT_EQ(vec.reason.rfind("vector: ", 0), 0u) << vec.reason;
  EXPECT_LT(vec.aicore_us, vec.aicpu_us);
  p.numbers["launch.aicore_us"].value = 1000;
  const PlacementChoice cpu = place(relu, p);
  EXPECT_EQ(cpu.engine, Engine::AiCpu);
  EXPECT_FALSE(cpu.vector.has_value());
  EXPECT_NE(cpu.reason.find("(launch-bound)"), std::string::npos) << cpu.reason;
  EXPECT_EQ(cpu.reason.rfind("aicpu: est. ", 0), 0u) << cpu.reason;
}

// A Vector op stored as an AI CPU task (what the cost rule may choose) runs whole on the AI CPU
// with the same per-element arithmetic: bit-identical to the tiled Vector result.
TEST(AscendTiling, VectorOpPlacedOnTheAiCpuRunsThereWithTheSameBits) {
  auto env = env_for("Ascend910A");
  const char* text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[3,1000]
  %r: f32[3,1000] = Sigmoid(%x)
  %out: f32[3000] = Flatten(%r) {axis=0}
  output %out
})";
  auto in = test::random_inputs(*test::parse(*env, text));
  auto tiled = test::compile_and_run(test::parse(*env, text), *env, "ascend", in);
  auto g = compile(test::parse(*env, text), *env);
  Node* n = const_cast<Node*>(only(*g, "Sigmoid"));
  n->attrs.set(kAttrEngine, std::string("aicpu"));
  n->attrs.set(kAttrBlockDim, int64_t{1});
  n->attrs.erase(kAttrTiling);
  core::Executable exe(g, *env, {"ascend", 1});
  const auto out = exe.run(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::memcmp(out[0].data(), tiled.outputs[0].data(), out[0].nbytes()), 0);
}

// ---- bit identity of the tiled execution ---------------------------------------------------

std::vector<float> fp16_values(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = round_fp16(u(rng));
  return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(AscendTiling, TiledConvIsBitIdenticalToTheWholeTensorCube) {
  // 2 images, 20 channels (padded to 32 in K), 2 groups, 3×3, stride 1, pad 1.
  ConvGeometry g{2, 20, 9, 7, 12, 3, 3, 9, 7, 2, 1, 1, 1, 1, 1, 1};
  const auto x = fp16_values(2 * 20 * 9 * 7, 1), w = fp16_values(12 * 10 * 3 * 3, 2), b = fp16_values(12, 3);
  const std::vector<float> want = conv2d(x, w, b, g, true);
  CubeTiling t;
  t.batch = 2, t.M = 2 * 9 * 7, t.N = 6, t.K = 16 * 9;
  const Platform p = load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend910A");
  std::vector<CubeTiling> tilings{choose_cube_tiling(t, p, "test")};
  for (auto [m, n, k, kl1] : {std::tuple{16, 16, 16, 16}, std::tuple{48, 16, 32, 64}, std::tuple{128, 16, 144, 144}, std::tuple{32, 16, 48, 96}}) {
    CubeTiling c = t;
    c.m_tile = m, c.n_tile = n, c.k_tile = k, c.k_l1 = kl1, c.block_dim = 1;
    tilings.push_back(c);
  }
  for (const CubeTiling& c : tilings) {
    SCOPED_TRACE(std::to_string(c.m_tile) + "x" + std::to_string(c.n_tile) + "x" + std::to_string(c.k_tile) + " l1 " + std::to_string(c.k_l1));
    EXPECT_TRUE(same_bits(conv2d_tiled(x, w, b, g, c), want));
  }
}

TEST(AscendTiling, TiledSmallChannelConvIsBitIdenticalToTheWholeTensorCube) {
  // 2 images, 3 channels, 7×7, stride 2, pad 3: FRACTAL_Z_C04's K = 208 (13 fractals).
  ConvGeometry g{2, 3, 13, 11, 20, 7, 7, 7, 6, 1, 2, 2, 1, 1, 3, 3};
  const auto x = fp16_values(2 * 3 * 13 * 11, 7, -8, 8), w = fp16_values(20 * 3 * 49, 8, -8, 8), b = fp16_values(20, 9);
  const std::vector<float> want = conv2d(x, w, b, g, true);
  CubeTiling t;
  t.batch = 1, t.M = 2 * 7 * 6, t.N = 20, t.K = 208;
  const Platform p = load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend910A");
  std::vector<CubeTiling> tilings{choose_cube_tiling(t, p, "test")};
  for (auto [m, n, k, kl1] : {std::tuple{16, 16, 16, 16}, std::tuple{48, 32, 32, 64}, std::tuple{96, 32, 208, 208}, std::tuple{32, 16, 48, 96}}) {
    CubeTiling c = t;
    c.m_tile = m, c.n_tile = n, c.k_tile = k, c.k_l1 = kl1, c.block_dim = 1;
    tilings.push_back(c);
  }
  for (const CubeTiling& c : tilings) {
    SCOPED_TRACE(std::to_string(c.m_tile) + "x" + std::to_string(c.n_tile) + "x" + std::to_string(c.k_tile) + " l1 " + std::to_string(c.k_l1));
    EXPECT_TRUE(same_bits(conv2d_tiled(x, w, b, g, c), want));
  }
  // A FRACTAL_Z K (16·49) is not this convolution's problem.
  CubeTiling fz = tilings.front();
  fz.K = 784;
  EXPECT_THROW(conv2d_tiled(x, w, b, g, fz), Error);
}

TEST(AscendTiling, SmallChannelConvGetsAC04Tiling) {
  // Compiled for Ascend910A: the stored tiling of a 3-channel 7×7 conv has K = 208 and passes
  // check(); a 3-channel 3×3 conv has K = 48.
  auto env = env_for("Ascend910A");
  const std::string text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,32,32]
  const %w: f32[16,3,7,7]
  const %w2: f32[8,16,3,3]
  const %w3: f32[4,3,3,3]
  %y: f32[2,16,16,16] = Conv(%x, %w) {pads=[3,3,3,3], strides=[2,2]}
  %z: f32[2,8,16,16] = Conv(%y, %w2) {pads=[1,1,1,1]}
  %u: f32[2,4,32,32] = Conv(%x, %w3) {pads=[1,1,1,1]}
  output %z
  output %u
})";
  auto g = compile(test::parse(*env, text), *env);
  const Platform p = load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend910A");
  std::map<int64_t, int64_t> k_of_cin;  // weight's input channels -> tiling K
  std::map<int64_t, int64_t> k_of_kernel;
  int convs = 0;
  for (const Node* n : g->nodes()) {
    if (n->op_type() != "Conv" && n->op_type() != "FusedConv") continue;
    ++convs;
    ASSERT_EQ(n->attrs.get_string(kAttrEngine, ""), "cube") << n->name();
    const CubeTiling t = decode_cube(n->attrs.get_ints(kAttrTiling), n->name());
    EXPECT_NO_THROW(check(t, p, n->name()));
    const Shape& ws = n->input(1)->shape;
    if (ws[1] == 3) k_of_kernel[ws[2]] = t.K;
    else EXPECT_EQ(t.K, 16 * 9) << n->name();
  }
  EXPECT_EQ(convs, 3);
  EXPECT_EQ(k_of_kernel[7], 208);
  EXPECT_EQ(k_of_kernel[3], 48);
}

TEST(AscendTiling, TiledGemmIsBitIdenticalToTheWholeTensorCube) {
  // K = 100: the last fractal is 4 wide; values up to 64 so that the fp32 sums round.
  const int64_t M = 37, N = 45, K = 100;
  const auto A = fp16_values(M * K, 4, -64, 64), B = fp16_values(K * N, 5, -64, 64), init = fp16_values(N, 6);
  const std::vector<float> want = gemm(A, B, init, M, N, K, 16);
  for (auto [m, n, k, kl1] : {std::tuple{16, 16, 16, 16}, std::tuple{48, 48, 112, 112}, std::tuple{32, 16, 32, 64}, std::tuple{16, 64, 48, 48}}) {
    CubeTiling c;
    c.M = M, c.N = N, c.K = K, c.m_tile = m, c.n_tile = n, c.k_tile = k, c.k_l1 = kl1;
    std::vector<float> got(static_cast<size_t>(M * N));
    cube_batch_tiles(A.data(), B.data(), init.data(), got.data(), c, 0);
    EXPECT_TRUE(same_bits(got, want)) << m << "x" << n << "x" << k;
  }
}

// Cube tiling encoding version 1 (before the order field; plans and offline models written then)
// still decodes, as order MN; version 2 round-trips both orders.
TEST(AscendTiling, CubeEncodingVersion1IsStillReadAsOrderMN) {
  const CubeTiling v1 = decode_cube({1, 1, 1, 64, 32, 144, 16, 16, 144, 144, 1, 8}, "old plan");
  EXPECT_EQ(v1.order, CubeOrder::MN);
  EXPECT_EQ(v1.m_tile, 16);
  EXPECT_EQ(v1.block_dim, 8);
  CubeTiling t = v1;
  t.order = CubeOrder::NM;
  EXPECT_EQ(encode(t), (std::vector<int64_t>{1, 4, 1, 64, 32, 144, 16, 16, 144, 144, 1, 8, 1, 0, 0, 144, 0}));
  EXPECT_EQ(decode_cube(encode(t), "x").order, CubeOrder::NM);
  // Version 2 (order, no block fields) still decodes as round-robin.
  const CubeTiling v2 = decode_cube({1, 2, 1, 64, 32, 144, 16, 16, 144, 144, 1, 8, 1}, "v2 plan");
  EXPECT_EQ(v2.order, CubeOrder::NM);
  EXPECT_FALSE(v2.blocked());
  EXPECT_EQ(v2.core_tile_count(3), 1);
  // Version 4 round-trips a block partition (version 3 decodes the same fields, test_tiling_depth.cc).
  t.single_core_m = 32, t.single_core_n = 16, t.block_dim = 4;
  const CubeTiling v3 = decode_cube(encode(t), "x");
  EXPECT_EQ(std::tuple(v3.single_core_m, v3.single_core_n, v3.blocks()), std::tuple(int64_t{32}, int64_t{16}, int64_t{4}));
  // The tile order: 4 m tiles × 2 n tiles; MN walks n fastest, NM walks m fastest.
  int64_t bi, mi, ni;
  v1.tile_indices(3, bi, mi, ni);
  EXPECT_EQ(std::tuple(bi, mi, ni), std::tuple(int64_t{0}, int64_t{1}, int64_t{1}));
  t.tile_indices(3, bi, mi, ni);
  EXPECT_EQ(std::tuple(bi, mi, ni), std::tuple(int64_t{0}, int64_t{3}, int64_t{0}));
}

// The emulator walks the tiles in the stored order; NM gives the same bits as MN.
TEST(AscendTiling, TiledGemmInOrderNMIsBitIdenticalToo) {
  const int64_t M = 37, N = 45, K = 100;
  const auto A = fp16_values(M * K, 7, -64, 64), B = fp16_values(K * N, 8, -64, 64), init = fp16_values(N, 9);
  const std::vector<float> want = gemm(A, B, init, M, N, K, 16);
  CubeTiling c;
  c.M = M, c.N = N, c.K = K, c.m_tile = 16, c.n_tile = 32, c.k_tile = 32, c.k_l1 = 64, c.order = CubeOrder::NM;
  std::vector<float> got(static_cast<size_t>(M * N));
  cube_batch_tiles(A.data(), B.data(), init.data(), got.data(), c, 0);
  EXPECT_TRUE(same_bits(got, want));
}

// Elementwise on the emulator (NC1HWC0 operands after the layout pass: Add broadcast → Sigmoid,
// 20 channels so the last C1 block is padded; elementwise_chain fuses them into one
// ge.FusedElementwise) equals the whole-tensor arithmetic: fp16 operands, fp32 inside the fused
// op, one rounding of the output.
TEST(AscendTiling, TiledVectorOpsAreBitIdenticalToTheWholeTensorResult) {
  auto env = env_for("Ascend910A");
  const char* text = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,20,9,7]
  input %c: f32[20,1,1]
  %a: f32[2,20,9,7] = Add(%x, %c)
  %s: f32[2,20,9,7] = Sigmoid(%a)
  %out: f32[2,1260] = Flatten(%s) {axis=1}
  output %out
})";
  auto in = test::random_inputs(*test::parse(*env, text));
  auto r = test::compile_and_run(test::parse(*env, text), *env, "ascend", in);
  int fused = 0;
  for (const Node* n : r.graph->nodes()) {
    EXPECT_NE(n->op_type(), "Add");
    if (n->op_type() == "FusedElementwise") {
      ++fused;
      EXPECT_EQ(n->attrs.get_string(kAttrEngine, ""), "vector");
      EXPECT_GT(decode_vector(n->attrs.get_ints(kAttrTiling), "t").tiles(), 1);
    }
  }
  EXPECT_EQ(fused, 1);
  const float* x = in[0].data_as<float>();
  const float* c = in[1].data_as<float>();
  std::vector<float> want(2 * 20 * 63);
  for (int64_t i = 0; i < static_cast<int64_t>(want.size()); ++i) {
    const float a = round_fp16(x[i]) + round_fp16(c[(i / 63) % 20]);  // fp32, not rounded
    want[i] = round_fp16(1.f / (1.f + std::exp(-a)));
  }
  ASSERT_EQ(r.outputs.size(), 1u);
  const float* got = r.outputs[0].data_as<float>();
  EXPECT_EQ(std::memcmp(got, want.data(), want.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace ge::ascend

namespace ge::ascend {
namespace {

// The block partition (version 3): core b walks one contiguous block; here 4 × 3 tiles of a
// 64 × 48 output in 16 × 16 tiles cut 2 × 2 (blocks of 2 × 2 tiles; the last column of blocks
// is 1 tile wide). Core 1 (M block 0, N block 1) holds m tiles 0..1 of n tile 2.
TEST(AscendTiling, BlockPartitionMapsEachCoreToItsContiguousBlock) {
  CubeTiling t;
  t.M = 64, t.N = 48, t.K = 16, t.single_core_m = 32, t.single_core_n = 32, t.block_dim = 4;
  EXPECT_EQ(t.blocks(), 4);
  std::vector<int> seen(static_cast<size_t>(t.output_tiles()), 0);
  for (int64_t b = 0; b < 4; ++b)
    for (int64_t i = 0; i < t.core_tile_count(b); ++i) {
      int64_t bi, mi, ni;
      t.core_tile(b, i, bi, mi, ni);
      ++seen[static_cast<size_t>(mi * 3 + ni)];
    }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 12);  // every tile exactly once
  EXPECT_EQ(t.core_tile_count(0), 4);
  EXPECT_EQ(t.core_tile_count(1), 2);
  int64_t bi, mi, ni;
  t.order = CubeOrder::MN;  // n fastest inside the block
  t.core_tile(0, 1, bi, mi, ni);
  EXPECT_EQ(std::tuple(mi, ni), std::tuple(int64_t{0}, int64_t{1}));
  t.order = CubeOrder::NM;  // m fastest inside the block
  t.core_tile(0, 1, bi, mi, ni);
  EXPECT_EQ(std::tuple(mi, ni), std::tuple(int64_t{1}, int64_t{0}));
  t.core_tile(1, 1, bi, mi, ni);
  EXPECT_EQ(std::tuple(mi, ni), std::tuple(int64_t{1}, int64_t{2}));
}

// Block partitions only reassign whole output tiles to cores: the tiled walk stays bit-identical
// to the whole-tensor Cube for every block shape and order, and per batch for batch 2.
TEST(AscendTiling, TiledGemmUnderBlockPartitionsIsBitIdentical) {
  const int64_t M = 37, N = 45, K = 100;  // 3 × 3 tiles of 16
  const auto A = fp16_values(M * K, 10, -64, 64), B = fp16_values(K * N, 11, -64, 64), init = fp16_values(N, 12);
  const std::vector<float> want = gemm(A, B, init, M, N, K, 16);
  const Platform p = load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend910A");
  for (auto [sm, sn, batch] : {std::tuple{16, 16, 1}, std::tuple{32, 16, 1}, std::tuple{48, 48, 1}, std::tuple{32, 48, 1},
                               std::tuple{16, 32, 2}})
    for (CubeOrder o : {CubeOrder::MN, CubeOrder::NM}) {
      CubeTiling c;
      c.batch = batch, c.M = M, c.N = N, c.K = K, c.m_tile = 16, c.n_tile = 16, c.k_tile = 32, c.k_l1 = 64, c.order = o;
      c.single_core_m = sm, c.single_core_n = sn;
      c.block_dim = c.blocks();
      EXPECT_NO_THROW(check(c, p, "test"));
      for (int64_t bi = 0; bi < batch; ++bi) {
        std::vector<float> got(static_cast<size_t>(M * N), -1.f);
        cube_batch_tiles(A.data(), B.data(), init.data(), got.data(), c, bi);
        EXPECT_TRUE(same_bits(got, want)) << sm << "x" << sn << " order " << int(o) << " batch " << bi;
      }
    }
}

}  // namespace
}  // namespace ge::ascend
