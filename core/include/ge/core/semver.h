// ge/core/semver.h — plugin versions (Semantic Versioning 2.0.0, semver.org) and requirements
// such as ">=1.2, <2" (comma = and; operators = == != >= <= > < ^ ~; a bare version means ==).
#pragma once
#include <string>

namespace ge::core {

struct Version {
  int major = 0, minor = 0, patch = 0;
  auto operator<=>(const Version&) const = default;
};

/// Parses "MAJOR[.MINOR[.PATCH]]" (pre-release/build suffixes are ignored); throws ge::Error
/// prefixed by `what` on a malformed string.
Version parse_version(const std::string& s, const std::string& what);
/// True when v meets every comparator of `requirement`; throws ge::Error on a malformed one.
bool version_satisfies(const Version& v, const std::string& requirement, const std::string& what);

}  // namespace ge::core
