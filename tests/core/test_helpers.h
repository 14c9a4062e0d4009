// Temporary manifests for plugin host tests.
#pragma once
#include <filesystem>
#include <fstream>
#include <string>

namespace ge::test {

/// Writes `text` to a fresh temporary .toml file and returns its path.
inline std::string write_temp_manifest(const std::string& text, const std::string& stem = "manifest") {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path() / ("ge_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto p = dir / (stem + std::to_string(counter++) + ".toml");
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace ge::test
