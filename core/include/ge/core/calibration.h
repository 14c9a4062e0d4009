// ge/core/calibration.h — this machine's cost-model ceilings: measuring and caching them.
//
// measure_ceilings runs the microbenchmarks (docs/scheduling.md); `gec calibrate` calls it and
// writes JSON to calibration_path():
//   $GE_CALIBRATION, else $XDG_CACHE_HOME/ge/calibration-<GE version>-<machine>.json, else
//   ~/.cache/ge/calibration-<GE version>-<machine>.json (<machine>: a hash of the CPU model and
//   the core count, so a cache copied to another machine or kept across a GE upgrade is not used).
// Without GE_CALIBRATION and without a cached file, an environment's cost model calibrates itself
// the first time an estimate is asked for (a few seconds, once per machine and GE version) and
// caches the result there. With GE_CALIBRATION naming a missing file the defaults are used, never
// a measurement (the tests rely on that: their estimates must not depend on the machine).
// Fields (units in the names): gemm_gflops_1t, gemm_gflops_nt, threads_nt, mem_gbps_1t,
// mem_gbps_nt, launch_us, event_us, efficiency {class: fraction}, plus "machine" (CPU model) and
// "date" for people. Missing file → MachineCeilings' defaults with calibrated = false.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ge/sdk/cost_model.h"

namespace ge::core {

struct Environment;

/// The cache file (rules above); "" when no variable gives a directory.
std::string calibration_path();
/// The cached ceilings, or the defaults (calibrated = false) when the file does not exist.
/// Throws ge::Error naming the file and field when it exists but cannot be read.
MachineCeilings load_calibration(const std::string& path = calibration_path());
/// Writes the ceilings as JSON (temporary file + rename), creating the directory.
void save_calibration(const MachineCeilings& c, const std::string& path = calibration_path());
/// The CPU model from /proc/cpuinfo ("unknown" when absent).
std::string cpu_model_name();
/// True when GE_CALIBRATION names the file (no self-calibration then).
bool calibration_path_is_explicit();

struct CalibrateOptions {
  int threads = 2;          ///< threads of the multi-thread measurements (at least 2 are measured)
  double budget_s = 0.4;    ///< time spent timing each benchmark (at least 5 runs each)
  std::function<void(const std::string&)> progress;  ///< one line per figure measured (may be empty)
};
/// Measures the ceilings on single-op graphs run through `env`'s pipeline and cpu kernels
/// (calibrated = true; source left empty). Throws ge::Error when a benchmark cannot run.
MachineCeilings measure_ceilings(const Environment& env, const CalibrateOptions& o);

/// The machine's measured peaks (`gec calibrate --peaks`; the bench's "% peak" divides by
/// them): per thread count (1 and CalibrateOptions::threads),
/// - gemm: GFLOP/s (2·n³ / time) of a square fp32 MatMul n×n · n×n (constant B) through the
///   pipeline and the cpu kernels, for each n of peak_gemm_sizes(); gemm_gflops is the maximum;
/// - fma_gflops: an FMA-throughput loop (12 independent chains of the widest FMA, `isa`), on
///   `threads` threads at once — the arithmetic ceiling the GEMM is judged against;
/// - copy_gbps / triad_gbps: STREAM copy and triad over 64 MiB arrays (McCalpin's byte counts).
/// Best of several runs each; budget_s per GEMM shape. Throws ge::Error without AVX2.
struct MachinePeaks {
  struct GemmPoint {
    int64_t n = 0;
    double gflops = 0;
  };
  struct PerThreads {
    int threads = 1;
    std::vector<GemmPoint> gemm;
    double gemm_gflops = 0;
    int64_t gemm_size = 0;  ///< the n of the maximum
    double fma_gflops = 0, copy_gbps = 0, triad_gbps = 0;
  };
  int threads = 1;
  std::string isa;  ///< "avx512f" or "avx2"
  std::vector<PerThreads> per_threads;
};
std::vector<int64_t> peak_gemm_sizes();
MachinePeaks measure_peaks(const Environment& env, const CalibrateOptions& o);

/// The cost model an environment starts with: the cached calibration when there is one (or the
/// defaults when GE_CALIBRATION names a missing file); otherwise a model that runs
/// measure_ceilings on `env` the first time it is asked for an estimate (budget 0.1 s per
/// benchmark, logged at info level), saves the result to calibration_path() and answers from it.
/// `env` must outlive the model (it owns it).
std::shared_ptr<const CostModel> make_machine_cost_model(const Environment& env);

namespace detail {
/// True on a thread while measure_ceilings runs: a self-calibrating model then answers from the
/// defaults (the benchmarks' own compilations must not start a second measurement).
bool& measuring_on_this_thread();
}  // namespace detail

}  // namespace ge::core
