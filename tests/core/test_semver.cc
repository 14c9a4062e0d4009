#include <gtest/gtest.h>

#include "ge/core/semver.h"
#include "ge/sdk/error.h"

using namespace ge::core;

TEST(Semver, ParsesAndCompares) {
  EXPECT_EQ(parse_version("1.2.3", "t"), (Version{1, 2, 3}));
  EXPECT_EQ(parse_version("2", "t"), (Version{2, 0, 0}));
  EXPECT_EQ(parse_version("0.1.0-beta+7", "t"), (Version{0, 1, 0}));
  EXPECT_THROW(parse_version("1.x", "t"), ge::Error);
}

TEST(Semver, Requirements) {
  Version v{1, 2, 3};
  EXPECT_TRUE(version_satisfies(v, ">=1.2, <2", "t"));
  EXPECT_FALSE(version_satisfies(v, ">=1.3", "t"));
  EXPECT_TRUE(version_satisfies(v, "^1.0", "t"));
  EXPECT_FALSE(version_satisfies(v, "~1.1", "t"));
  EXPECT_TRUE(version_satisfies(v, "1.2.3", "t"));
  EXPECT_TRUE(version_satisfies(v, "", "t"));
  EXPECT_THROW(version_satisfies(v, "=>1", "t"), ge::Error);
}

// A version number past INT_MAX once escaped as std::out_of_range from std::stoi ("gec:
// internal error", exit 3); it is a ge::Error naming the version.
TEST(Semver, NumberAboveIntMaxIsAnError) {
  try {
    parse_version("4294967296.0.0", "plugin 'x'");
    FAIL() << "parsed";
  } catch (const ge::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'4294967296.0.0' has a version number above 999999999"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(version_satisfies(Version{1, 0, 0}, ">=99999999999", "t"), ge::Error);
  EXPECT_EQ(parse_version("999999999.0.1", "t"), (Version{999999999, 0, 1}));
}
