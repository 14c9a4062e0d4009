// ge/core/calibration.h — where this machine's cost-model ceilings are cached.
//
// `gec calibrate` measures them (docs/scheduling.md) and writes JSON to calibration_path():
//   $GE_CALIBRATION, else $XDG_CACHE_HOME/ge/calibration.json, else ~/.cache/ge/calibration.json.
// Fields (units in the names): gemm_gflops_1t, gemm_gflops_nt, threads_nt, mem_gbps_1t,
// mem_gbps_nt, launch_us, event_us, efficiency {class: fraction}, plus "machine" (CPU model) and
// "date" for people. Missing file → MachineCeilings' defaults with calibrated = false.
#pragma once
#include <string>

#include "ge/sdk/cost_model.h"

namespace ge::core {

/// The cache file (rules above); "" when no variable gives a directory.
std::string calibration_path();
/// The cached ceilings, or the defaults (calibrated = false) when the file does not exist.
/// Throws ge::Error naming the file and field when it exists but cannot be read.
MachineCeilings load_calibration(const std::string& path = calibration_path());
/// Writes the ceilings as JSON (temporary file + rename), creating the directory.
void save_calibration(const MachineCeilings& c, const std::string& path = calibration_path());
/// The CPU model from /proc/cpuinfo ("unknown" when absent).
std::string cpu_model_name();

}  // namespace ge::core
