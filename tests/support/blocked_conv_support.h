// tests/support/blocked_conv_support.h — whether this machine's oneDNN has an optimized
// (non-reference) convolution on nChw16c. Where it has none (a CPU without AVX-512: oneDNN 2.6
// blocks by 8 channels there and runs 16-channel blocks only in its reference loop), the CPU
// backend's format preferences keep every Conv in NCHW (plugins/cpu_backend/layout_preferences.cc)
// and the tests of the blocked layout have nothing to check; they say why and skip.
#pragma once

namespace ge::test {

/// The CPU has AVX-512 (oneDNN 2.6's optimized nChw16c convolutions need it). Read from the CPU
/// itself, not from GE's preferences, so that a regression there fails the tests instead of
/// skipping them.
inline bool cpu_runs_blocked_convs() { return __builtin_cpu_supports("avx512f"); }

}  // namespace ge::test

/// Skips the test (with the reason) on a machine whose oneDNN has no optimized nChw16c convolution.
#define GE_REQUIRE_BLOCKED_CONVS()                                                                      \
  do {                                                                                                   \
    if (!::ge::test::cpu_runs_blocked_convs())                                                           \
      GTEST_SKIP() << "oneDNN has no optimized nChw16c convolution on this CPU (no AVX-512): the CPU "   \
                      "backend keeps NCHW and there is no blocked layout to check";                     \
  } while (0)
