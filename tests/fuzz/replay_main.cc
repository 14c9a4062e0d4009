// tests/fuzz/replay_main.cc — the driver that replays a fuzz target's inputs without libFuzzer
// (the normal gcc build, ctest): runs LLVMFuzzerInitialize once, then LLVMFuzzerTestOneInput on
// every file of the folders (or files) named on the command line, in name order. A target aborts
// on a finding (fuzz_common.h), so the test fails on the first input that crashes GE, raises
// anything but a ge::Error, or (under the sanitize build) trips a sanitizer. Fails as well when
// it finds no input at all: a replay of nothing would pass whatever GE does.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "%s: no inputs in the folders given\n", argv[0]);
    return 1;
  }
  LLVMFuzzerInitialize(&argc, &argv);
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("replay %s (%zu bytes)\n", f.string().c_str(), bytes.size());
    std::fflush(stdout);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%zu inputs replayed: each ended in success or a ge::Error\n", files.size());
  return 0;
}
