#include <gtest/gtest.h>

#include "ge/core/manifest.h"
#include "ge/sdk/error.h"
#include "test_helpers.h"

using namespace ge;

namespace {
std::string error_of(const std::string& text) {
  try {
    core::load_manifest(test::write_temp_manifest(text, "m"));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Manifest, ReadsPluginsAndSections) {
  std::string p = test::write_temp_manifest(
      "[[plugin]]\nname = \"a\"\npath = \"sub/liba.so\"\nversion = \">=1\"\n\n[compile]\nopt_level = \"O1\"\n"
      "numerics = \"strict\"\ndisable = [\"cse\"]\n[backend]\nname = \"cpu\"\nthreads = 2\n[memory]\nplanner = \"auto\"\n");
  core::Manifest m = core::load_manifest(p);
  ASSERT_EQ(m.plugins.size(), 1u);
  EXPECT_EQ(m.plugins[0].path, (std::filesystem::path(p).parent_path() / "sub/liba.so").string());
  EXPECT_EQ(m.opt_level, "O1");
  EXPECT_EQ(m.numerics, "strict");
  EXPECT_EQ(m.disabled_passes, std::vector<std::string>{"cse"});
  EXPECT_EQ(m.threads, 2);
  EXPECT_EQ(m.sections.at("memory").at("planner").toml, "\"auto\"");
}

TEST(Manifest, UnknownKeyNamesKeyFileAndLine) {
  std::string e = error_of("[compile]\nopt_level = \"O2\"\noptlevel = \"O3\"\n");
  EXPECT_NE(e.find(".toml:3: unknown key 'optlevel' in [compile]"), std::string::npos) << e;
}

TEST(Manifest, WrongTypeIsAnError) {
  std::string e = error_of("[backend]\nthreads = \"two\"\n");
  EXPECT_NE(e.find(".toml:2: 'backend.threads' must be an integer"), std::string::npos) << e;
}

TEST(Manifest, BadOptLevelIsAnError) {
  std::string e = error_of("[compile]\nopt_level = \"O9\"\n");
  EXPECT_NE(e.find("must be one of O0, O1, O2, O3"), std::string::npos) << e;
}

TEST(Manifest, DuplicatePluginIsAnError) {
  std::string e = error_of("[[plugin]]\nname = \"a\"\npath = \"x.so\"\n[[plugin]]\nname = \"a\"\npath = \"y.so\"\n");
  EXPECT_NE(e.find("plugin 'a' is listed twice"), std::string::npos) << e;
}

TEST(Manifest, SyntaxErrorNamesTheLine) {
  std::string e = error_of("[compile]\nopt_level = \n");
  EXPECT_NE(e.find(".toml:2:"), std::string::npos) << e;
}
