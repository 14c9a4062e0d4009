// plugins/ascend_backend/overflow_check.h — the compile-time fp16 overflow diagnosis
// (`ascend.overflow_check`): runs the fp32 graph once on the host backend (PassContext::evaluate,
// node by node on a clone) with seeded inputs and records, per node, the largest magnitude among
// its float outputs and non-constant float inputs. A node computing in fp16 whose value exceeds
// fp16's largest finite number (65504) would overflow at run time — on the calibration input; a
// different input can still overflow where this one does not (the run-time check stays).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "ge/sdk/pass.h"

namespace ge::ascend {

/// fp16's largest finite value (IEEE 754 binary16: (2 − 2^−10) · 2^15).
constexpr double kFp16Max = 65504.0;

struct OverflowScan {
  /// node name → max |x| over its float outputs and its non-constant float inputs.
  std::map<std::string, double> max_abs;
  std::string input_desc;  ///< how the inputs were made, for messages
};

/// The check's inputs: the files of `dir` (overflow_inputs.h) when it is set, else seeded —
/// floats uniform in [lo, hi) from std::mt19937(seed), integers 0, bool false.
struct CheckInputs {
  std::string dir;
  double lo = -1.0, hi = 1.0;
  uint32_t seed = 1234;
};

/// Throws ge::ConfigError naming the node when the host backend has no kernel for one or its
/// kernel fails, and naming the file for a bad input file.
OverflowScan scan_fp32_ranges(const Graph& g, PassContext& ctx, const CheckInputs& in);

}  // namespace ge::ascend
