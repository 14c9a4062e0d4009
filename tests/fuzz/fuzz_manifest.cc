// tests/fuzz/fuzz_manifest.cc — the TOML manifest loader (core::load_manifest, docs/manifest.md):
// toml++'s parser, the key and type checks, includes, plugin entries, and the --set overrides
// (core::apply_override) on the loaded manifest. Plugins are not loaded (a fuzzed path would name
// arbitrary shared libraries).
//
// Input: the manifest text. Its includes resolve in a scratch folder that holds one valid
// manifest, "base.toml", and the input itself as "fuzz.toml" (an include of itself is a cycle).
#include <filesystem>
#include <fstream>

#include "fuzz_common.h"
#include "ge/core/manifest.h"

namespace {

std::string g_dir;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ge::fuzz::quiet_log();
  g_dir = ge::fuzz::scratch_dir() + "/manifest";
  std::filesystem::create_directories(g_dir);
  std::ofstream(g_dir + "/base.toml") << "[[plugin]]\nname = \"registry\"\npath = \"libge_registry.so\"\n"
                                         "version = \">=0.1, <1\"\n[compile]\nopt_level = \"O1\"\n"
                                         "[scheduler]\nname = \"sequential\"\n";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = g_dir + "/fuzz.toml";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  std::string err = ge::fuzz::expect_clear_error("fuzz_manifest", [&] {
    ge::core::Manifest m = ge::core::load_manifest(path);
    // Overrides of every kind on top of what was read.
    for (const char* o : {"compile.opt_level=O3", "backend.threads=2", "scheduler.name=parallel", "fusion.disable=[\"a\"]"})
      ge::core::apply_override(m, o);
  });
  // A refusal names the manifest it refuses (ge/sdk/error.h: the file at fault).
  (void)err;
  return 0;
}
