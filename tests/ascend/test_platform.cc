// Platform files: every number docs/ascend.md "Platform data" lists present with its value, and loader errors that
// name the file and the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ge/sdk/error.h"
#include "platform.h"

namespace ge::ascend {
namespace {

TEST(AscendPlatform, Ascend910AHasTheIssueNumbers) {
  const Platform p = load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend910A");
  EXPECT_EQ(p.get_int("ai_cores"), 32);
  EXPECT_DOUBLE_EQ(p.get("clock_ghz"), 1.0);
  EXPECT_EQ(p.get_int("cube.fp16_m") * p.get_int("cube.fp16_k") * p.get_int("cube.fp16_n"), 4096);
  EXPECT_EQ(p.get_int("cube.int8_m") * p.get_int("cube.int8_k") * p.get_int("cube.int8_n"), 8192);
  EXPECT_EQ(p.get_int("vector.fp16_lanes"), 128);
  EXPECT_EQ(p.get_int("buffers.l1"), 1 << 20);
  EXPECT_EQ(p.get_int("buffers.l0a"), 64 << 10);
  EXPECT_EQ(p.get_int("buffers.l0b"), 64 << 10);
  EXPECT_EQ(p.get_int("buffers.l0c"), 256 << 10);
  EXPECT_EQ(p.get_int("buffers.ub"), 256 << 10);
  EXPECT_EQ(p.get_int("bandwidth.gm_to_l1"), 32);
  EXPECT_EQ(p.get_int("bandwidth.l1_to_l0a"), 512);
  EXPECT_EQ(p.get_int("bandwidth.l1_to_l0b"), 256);
  EXPECT_EQ(p.get_int("bandwidth.l1_to_ub"), 128);
  EXPECT_EQ(p.get_int("bandwidth.l0c_to_ub"), 256);
  EXPECT_EQ(p.get_int("bandwidth.ub_to_gm"), 64);
  EXPECT_EQ(p.get_int("alignment.ub"), 32);
  EXPECT_EQ(p.get_int("alignment.l1"), 32);
  EXPECT_EQ(p.get_int("alignment.l0a"), 512);
  EXPECT_EQ(p.get_int("alignment.l0b"), 512);
  // Every number names a source; the unconfirmed ones say why.
  for (auto& [k, n] : p.numbers) {
    EXPECT_FALSE(n.source.empty()) << k;
    if (n.assumption) {
      EXPECT_FALSE(n.why.empty()) << k;
    }
  }
  EXPECT_FALSE(p.numbers.at("cube.fp16_m").assumption);  // Hot Chips 31: 4096 fp16 MACs
  EXPECT_TRUE(p.numbers.at("buffers.l0a").assumption);
}

TEST(AscendPlatform, Ascend310) {
  const Platform p = load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend310");
  EXPECT_EQ(p.get_int("ai_cores"), 2);
  EXPECT_DOUBLE_EQ(p.get("peak.fp16_tflops"), 8.0);
  EXPECT_TRUE(p.numbers.at("clock_ghz").assumption);
}

std::string error_of(const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("ge_ascend_platform_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "Bad.toml") << text;
  }
  try {
    load_platform(dir.string(), "Bad");
  } catch (const Error& e) {
    std::filesystem::remove_all(dir);
    return e.what();
  }
  std::filesystem::remove_all(dir);
  return "";
}

TEST(AscendPlatform, ErrorsNameTheFileAndTheKey) {
  std::ifstream in(std::string(GE_ASCEND_PLATFORM_DIR) + "/Ascend910A.toml");
  std::string full((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = full;
    const size_t p = t.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    return t.replace(p, from.size(), to);
  };
  std::string base = replace("name = \"Ascend910A\"", "name = \"Bad\"");
  full = base;
  std::string e = error_of(replace("ub  = { value = 262144", "xx  = { value = 262144"));
  EXPECT_NE(e.find("Bad.toml"), std::string::npos) << e;
  EXPECT_NE(e.find("'buffers.xx'"), std::string::npos) << e;  // unknown key
  e = error_of(replace("\n[peak]\nfp16_tflops = { value = 256.0, source = \"[910] 256 TFLOPS fp16\" }\n", "\n"));
  EXPECT_NE(e.find("key 'peak.fp16_tflops': missing"), std::string::npos) << e;
  e = error_of(replace("value = 32\nsource = \"[910] 32 Da Vinci Max AI cores\"", "value = \"32\"\nsource = \"x\""));
  EXPECT_NE(e.find("key 'ai_cores': 'value' must be a number"), std::string::npos) << e;
  e = error_of(replace(", assumption = true, why = \"as l1\" }", ", assumption = true }"));
  EXPECT_NE(e.find("assumption = true needs 'why'"), std::string::npos) << e;
  e = error_of("name = \"Bad\"\n[cube\n");
  EXPECT_NE(e.find("Bad.toml':2"), std::string::npos) << e;  // syntax error with its line
}

TEST(AscendPlatform, UnknownSocListsTheKnownOnes) {
  try {
    load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend999");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown soc_version 'Ascend999'"), std::string::npos) << m;
    EXPECT_NE(m.find("Ascend310"), std::string::npos) << m;
    EXPECT_NE(m.find("Ascend910A"), std::string::npos) << m;
  }
}

TEST(AscendPlatform, EmptySocIsRefusedListingTheKnownOnes) {
  // gec --soc-version "" used to mean the default SoC.
  EXPECT_EQ(known_soc_versions(GE_ASCEND_PLATFORM_DIR), "Ascend310, Ascend910A");
  try {
    load_platform(GE_ASCEND_PLATFORM_DIR, "");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), std::string("ascend.soc_version (gec --soc-version) is empty: name an SoC (known: "
                                                 "Ascend310, Ascend910A; the files of ") +
                                         GE_ASCEND_PLATFORM_DIR + ")");
  }
}

}  // namespace
}  // namespace ge::ascend
