// gec calibrate: measures this machine's cost-model ceilings on microbenchmarks
// (ge::core::measure_ceilings, core/src/calibrate.cc) and caches them (ge/core/calibration.h,
// docs/scheduling.md).
#include <algorithm>
#include <cstdio>

#include "common.h"
#include "ge/core/calibration.h"
#include "ge/core/file_io.h"
#include "nlohmann/json.hpp"

namespace gec {

namespace {
/// `gec calibrate --peaks`: the peaks only (ge::core::measure_peaks), printed and, with -o, as JSON.
int cmd_peaks(const CommonOptions& common, const std::string& out_path) {
  auto env = common.load_environment();
  ge::core::CalibrateOptions o;
  o.threads = common.thread_count(*env);
  o.budget_s = 0.2;
  o.progress = [](const std::string& line) { std::printf("%s\n", line.c_str()); };
  std::printf("measuring peaks on %s (1 and %d threads) ...\n", ge::core::cpu_model_name().c_str(), o.threads);
  const ge::core::MachinePeaks p = ge::core::measure_peaks(*env, o);
  nlohmann::json j = {{"cpu", ge::core::cpu_model_name()}, {"isa", p.isa}, {"threads", nlohmann::json::array()}};
  for (const auto& r : p.per_threads) {
    nlohmann::json gemm = nlohmann::json::array();
    for (const auto& g : r.gemm) gemm.push_back({{"n", g.n}, {"gflops", g.gflops}});
    j["threads"].push_back({{"threads", r.threads}, {"gemm_gflops", r.gemm_gflops}, {"gemm_n", r.gemm_size},
                            {"gemm_sweep", gemm}, {"fma_gflops", r.fma_gflops}, {"stream_copy_gbps", r.copy_gbps},
                            {"stream_triad_gbps", r.triad_gbps}});
  }
  if (!out_path.empty()) {
    ge::core::write_file_atomically(out_path, j.dump(2) + "\n");
    std::printf("written to %s\n", out_path.c_str());
  }
  return 0;
}
}  // namespace

int cmd_calibrate(const CommonOptions& common, const std::string& out_path, bool peaks) {
  if (peaks) return cmd_peaks(common, out_path);
  auto env = common.load_environment();
  ge::core::CalibrateOptions o;
  o.threads = std::max(2, common.thread_count(*env));
  o.progress = [](const std::string& line) { std::printf("%s\n", line.c_str()); };
  const std::string path = out_path.empty() ? ge::core::calibration_path() : out_path;
  std::printf("calibrating on %s (%d threads) ...\n", ge::core::cpu_model_name().c_str(), o.threads);
  ge::MachineCeilings c = ge::core::measure_ceilings(*env, o);
  c.source = path;
  ge::core::save_calibration(c, path);
  std::printf("efficiency (1 thread / %d threads):", o.threads);
  for (auto& [k, v] : c.efficiency)
    std::printf(" %s %.2f/%.2f", k.c_str(), v, c.efficiency_nt.count(k) ? c.efficiency_nt[k] : v);
  std::printf("\nwritten to %s\n", path.c_str());
  return 0;
}

}  // namespace gec
