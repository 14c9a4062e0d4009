// gec calibrate: measures this machine's cost-model ceilings on microbenchmarks
// (ge::core::measure_ceilings, core/src/calibrate.cc) and caches them (ge/core/calibration.h,
// docs/scheduling.md).
#include <algorithm>
#include <cstdio>

#include "common.h"
#include "ge/core/calibration.h"

namespace gec {

int cmd_calibrate(const CommonOptions& common, const std::string& out_path) {
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
