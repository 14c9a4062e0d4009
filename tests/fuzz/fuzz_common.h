// tests/fuzz/fuzz_common.h — what every fuzz target shares (docs/fuzzing.md).
//
// A target's LLVMFuzzerTestOneInput feeds the bytes to one of GE's parsers. The contract it
// checks is ge/sdk/error.h's: bad input ends in a ge::Error whose message names what is wrong;
// anything else — a crash, a sanitizer report, another exception type (an "internal error" in
// gec's terms) — is a bug, reported by abort() so that libFuzzer (or the replay driver) stops on
// it with the input.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "ge/sdk/error.h"
#include "ge/sdk/log.h"

namespace ge::fuzz {

/// Runs `f`; returns the ge::Error message, "" when `f` succeeded. Any other exception aborts.
template <class F>
std::string expect_clear_error(const char* target, F&& f) {
  try {
    f();
    return "";
  } catch (const ge::Error& e) {
    std::string m = e.what();
    if (m.empty()) {
      std::fprintf(stderr, "%s: ge::Error with an empty message\n", target);
      std::abort();
    }
    return m;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error (not a ge::Error): %s\n", target, e.what());
    std::abort();
  }
}

/// The directory of the running executable (build*/bin): the build tree's lib/ge/plugins is
/// beside it, as default_manifest_path() finds it.
inline std::string exe_dir() { return std::filesystem::read_symlink("/proc/self/exe").parent_path().string(); }

/// Silences GE's log (warnings about mismatching declared shapes would flood the fuzzer's output)
/// unless GE_FUZZ_LOG is set.
inline void quiet_log() {
  if (!std::getenv("GE_FUZZ_LOG")) set_log_level("error");
}

/// A private scratch directory (created once per process) under $TMPDIR or /tmp.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("ge_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d.string();
  }();
  return dir;
}

}  // namespace ge::fuzz
