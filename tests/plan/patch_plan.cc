// patch_plan IN OUT FROM TO — copies plan file IN to OUT with the first occurrence of the bytes
// FROM replaced by TO (same length, so the protobuf header keeps its framing) and the checksum
// recomputed: the CLI tests' way to make a plan that only a later check (a section validator, a
// kernel at build) can refuse. Exit 1 when FROM is not found or the lengths differ.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ge/core/plan.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: patch_plan IN OUT FROM TO\n");
    return 1;
  }
  const std::string from = argv[3], to = argv[4];
  if (from.size() != to.size()) {
    std::fprintf(stderr, "patch_plan: FROM and TO differ in length\n");
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto it = std::search(b.begin(), b.end(), from.begin(), from.end());
  if (!in.eof() && !in.good()) return 1;
  if (it == b.end()) {
    std::fprintf(stderr, "patch_plan: '%s' not found in %s\n", from.c_str(), argv[1]);
    return 1;
  }
  std::copy(to.begin(), to.end(), it);
  ge::core::reseal_plan(b);
  std::ofstream out(argv[2], std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  return out ? 0 : 1;
}
