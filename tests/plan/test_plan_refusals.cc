// Refusals: every truncation and every bit flip of a plan is refused with a ge::Error (checksum
// or bounds), a seeded mutation loop never crashes the loader, and plans from other plugin sets,
// format versions or files that are not plans are refused with messages that say why.
#include <chrono>
#include <random>

#include "ge/sdk/error.h"
#include "plan_test_util.h"

using namespace plan_test;

namespace {

const std::vector<uint8_t>& tiny_plan() {
  static std::vector<uint8_t> b = ge::core::serialize_plan(*compile(tiny_cnn_dir() + "/model.onnx"), *env(), "cpu");
  return b;
}

// Preamble fields (ge/core/plan.h): format version at 8, header size at 32.
void put_u32(std::vector<uint8_t>& b, size_t off, uint32_t v) { std::memcpy(b.data() + off, &v, 4); }

}  // namespace

TEST(PlanRefusals, EveryTruncationIsRefused) {
  const auto& b = tiny_plan();
  ASSERT_EQ(refusal(b, b.size(), *env()), "");
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 512 && n < b.size(); ++n) lengths.push_back(n);
  for (size_t n = 512; n < b.size(); n += std::max<size_t>(1, b.size() / 997)) lengths.push_back(n);
  lengths.push_back(b.size() - 1);
  for (size_t n : lengths) {
    std::string m = refusal(b, n, *env());
    ASSERT_NE(m, "") << "a plan truncated to " << n << " bytes loaded";
    if (n >= 128) {
      EXPECT_NE(m.find("truncated"), std::string::npos) << m;
    }
    EXPECT_NE(m.find("t.gep"), std::string::npos) << m;
  }
}

TEST(PlanRefusals, EveryBitFlipIsRefused) {
  std::vector<uint8_t> b = tiny_plan();
  std::mt19937 rng(7);
  // Every bit of the preamble and the header; a sample of the weights (each costs one checksum).
  size_t flips = 0;
  auto flip = [&](size_t pos, int bit) {
    b[pos] ^= static_cast<uint8_t>(1u << bit);
    std::string m = refusal(b, b.size(), *env());
    b[pos] ^= static_cast<uint8_t>(1u << bit);
    ASSERT_NE(m, "") << "flipping bit " << bit << " of byte " << pos << " went unnoticed";
    ++flips;
  };
  uint64_t header_end = 0;
  std::memcpy(&header_end, b.data() + 32, 8);
  header_end += 128;
  for (size_t pos = 0; pos < header_end && pos < b.size(); ++pos)
    for (int bit = 0; bit < 8; bit += (pos < 128 ? 1 : 3)) flip(pos, bit);
  for (int i = 0; i < 1000; ++i) flip(rng() % b.size(), static_cast<int>(rng() % 8));
  EXPECT_GT(flips, 2000u);
}

TEST(PlanRefusals, MutationLoopNeverCrashes) {
  // 10000 seeded mutations (about a second). Half are resealed (checksum recomputed) so that they reach the protobuf
  // parser and the graph checks behind the checksum; the rest must fail the checksum or bounds.
  const auto& orig = tiny_plan();
  uint64_t hsize = 0;
  std::memcpy(&hsize, orig.data() + 32, 8);
  std::mt19937 rng(12345);
  auto t0 = std::chrono::steady_clock::now();
  int loaded = 0, refused = 0, deep = 0;  // deep: refused behind the checksum (parser, graph checks)
  for (int i = 0; i < 10000; ++i) {
    std::vector<uint8_t> b = orig;
    int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) {
      size_t pos = 128 + rng() % hsize;  // mostly the header: that is where structure lives
      switch (rng() % 4) {
        case 0: b[pos] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
        case 1: b[pos] = static_cast<uint8_t>(rng()); break;
        case 2: b[pos] = 0xff; break;
        default: b[rng() % b.size()] = static_cast<uint8_t>(rng()); break;
      }
    }
    if (i % 2 == 0) ge::core::reseal_plan(b);
    try {
      ge::core::PlanContents p = ge::core::parse_plan(b.data(), b.size(), nullptr, *env(), "fuzz.gep");
      ++loaded;  // a mutation can still describe a valid graph (e.g. another float in a weight)
    } catch (const ge::Error& e) {
      ++refused;
      deep += std::string(e.what()).find("checksum") == std::string::npos;
      EXPECT_NE(std::string(e.what()).find("fuzz.gep"), std::string::npos) << e.what();
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(loaded + refused, 10000);
  EXPECT_GT(refused, 5000);
  EXPECT_GT(deep, 500) << "resealed mutations should reach the header parser and the graph checks";
  std::printf("mutations: %d loaded, %d refused (%d behind the checksum) in %.2f s\n", loaded, refused, deep, s);
  EXPECT_LT(s, 10.0);
}

TEST(PlanRefusals, WrongMagicVersionAndGarbage) {
  std::vector<uint8_t> b = tiny_plan();
  std::vector<uint8_t> onnx(b.begin(), b.begin() + 200);
  onnx[0] = 0x08;
  EXPECT_NE(refusal(onnx, onnx.size(), *env()).find("is not a GE plan (wrong magic bytes)"), std::string::npos);
  put_u32(b, 8, 1);  // version 1 (SHA-256 checksums) is no longer read
  ge::core::reseal_plan(b);
  EXPECT_NE(refusal(b, b.size(), *env()).find("has format version 1; this GE reads version 2"), std::string::npos)
      << refusal(b, b.size(), *env());
  std::vector<uint8_t> longer = tiny_plan();
  longer.push_back(0);
  EXPECT_NE(refusal(longer, longer.size(), *env()).find("bytes after its end"), std::string::npos);
  std::vector<uint8_t> garbage(4096);
  std::mt19937 rng(3);
  for (auto& c : garbage) c = static_cast<uint8_t>(rng());
  std::memcpy(garbage.data(), ge::core::kPlanMagic, 8);
  EXPECT_NE(refusal(garbage, garbage.size(), *env()), "");
  std::string path = temp_path("empty.gep");
  write_bytes(path, {});
  EXPECT_THROW(ge::core::load_plan(path, *env()), ge::Error);
  std::filesystem::remove(path);
  EXPECT_THROW(ge::core::load_plan(temp_path("missing.gep"), *env()), ge::Error);
}

TEST(PlanRefusals, MissingPluginOrOtherMajorVersion) {
  const auto& b = tiny_plan();
  ge::core::Environment& e = *env();
  auto it = std::find_if(e.plugins.begin(), e.plugins.end(), [](auto& p) { return p.name == "fusion"; });
  ASSERT_NE(it, e.plugins.end());
  const std::string version = it->version;
  std::string head = "plan 't.gep' was produced by plugin 'fusion' " + version + "; this environment has ";
  it->name = "fusion_renamed";  // as if the manifest did not load it
  std::string missing = refusal(b, b.size(), e);
  it->name = "fusion";
  EXPECT_EQ(missing, head + "none");

  ge::core::Version v = ge::core::parse_version(version, "");
  it->version = std::to_string(v.major + 2) + ".0.0";
  std::string major = refusal(b, b.size(), e);
  it->version = std::to_string(v.major) + "." + std::to_string(v.minor + 1) + ".7";
  std::string minor = refusal(b, b.size(), e);
  it->version = version;
  EXPECT_EQ(major, head + std::to_string(v.major + 2) + ".0.0 (major differs)");
  EXPECT_EQ(minor, "") << "a newer minor version of a plugin still loads the plan";
}

// Behind a valid checksum: a node without a required input (kernels read input 0 unchecked)
// and arena offsets that make a node's input partly overlap its output (overlapping copies).
TEST(PlanRefusals, InvariantsAreRecheckedBehindTheChecksum) {
  std::shared_ptr<ge::Graph> g = compile(tiny_cnn_dir() + "/model.onnx");
  ge::Node* victim = nullptr;
  for (ge::Node* n : g->nodes())
    if (!victim && n->num_inputs() > 0 && n->input(0) && !n->input(0)->is_constant()) victim = n;
  ASSERT_NE(victim, nullptr);
  ge::Value* in = victim->input(0);
  g->set_input(victim, 0, nullptr);
  std::vector<uint8_t> b = ge::core::serialize_plan(*g, *env(), "cpu");
  std::string m = refusal(b, b.size(), *env());
  EXPECT_NE(m.find("required input 0"), std::string::npos) << m;
  g->set_input(victim, 0, in);

  ge::Node* copy = nullptr;  // a node whose input and output both live in the arena
  for (ge::Node* n : g->nodes())
    if (!copy && n->num_outputs() == 1 && n->output(0)->arena_offset >= 0 && n->input(0) &&
        n->input(0)->arena_offset >= 0 && n->input(0)->nbytes() > 64)
      copy = n;
  ASSERT_NE(copy, nullptr);
  const int64_t keep = copy->output(0)->arena_offset;
  copy->output(0)->arena_offset = copy->input(0)->arena_offset + 64;
  if (static_cast<uint64_t>(copy->output(0)->arena_offset) + copy->output(0)->nbytes() > g->arena_bytes)
    g->arena_bytes = copy->output(0)->arena_offset + copy->output(0)->nbytes();
  b = ge::core::serialize_plan(*g, *env(), "cpu");
  m = refusal(b, b.size(), *env());
  EXPECT_NE(m.find("partly overlaps output"), std::string::npos) << m;
  copy->output(0)->arena_offset = keep;
}
