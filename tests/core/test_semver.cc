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
