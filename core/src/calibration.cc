// Cached cost-model ceilings (ge/core/calibration.h).
#include "ge/core/calibration.h"

#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ge/core/environment.h"
#include "ge/core/file_io.h"
#include "ge/sdk/log.h"
#include "ge/sdk/error.h"

namespace ge::core {

namespace fs = std::filesystem;

namespace {
/// "calibration-<GE version>-<machine>.json": FNV-1a of the CPU model and core count.
std::string cache_file_name() {
  const std::string machine = cpu_model_name() + "/" + std::to_string(std::thread::hardware_concurrency());
  uint32_t h = 2166136261u;
  for (unsigned char c : machine) h = (h ^ c) * 16777619u;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", h);
  return std::string("calibration-") + GE_VERSION_STRING + "-" + buf + ".json";
}
}  // namespace

bool calibration_path_is_explicit() {
  const char* p = std::getenv("GE_CALIBRATION");
  return p && *p;
}

std::string calibration_path() {
  if (const char* p = std::getenv("GE_CALIBRATION"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "ge" / cache_file_name()).string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "ge" / cache_file_name()).string();
  return "";
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto c = line.find(':');
      if (c != std::string::npos) return line.substr(line.find_first_not_of(' ', c + 1));
    }
  return "unknown";
}

MachineCeilings load_calibration(const std::string& path) {
  MachineCeilings c;
  std::error_code ec;
  if (path.empty() || !fs::exists(path, ec)) return c;
  const std::string text = read_regular_file(path, "calibration file", uint64_t{1} << 20);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw Error("calibration file '" + path + "' is not valid JSON (" + e.what() + "); rerun `gec calibrate` or delete it");
  }
  auto num = [&](const char* key, double& field) {
    if (!j.contains(key)) return;
    if (!j[key].is_number() || j[key].get<double>() <= 0)
      throw Error("calibration file '" + path + "': field '" + key + "' must be a positive number");
    field = j[key].get<double>();
  };
  num("gemm_gflops_1t", c.gemm_gflops_1t);
  num("gemm_gflops_nt", c.gemm_gflops_nt);
  num("mem_gbps_1t", c.mem_gbps_1t);
  num("mem_gbps_nt", c.mem_gbps_nt);
  num("launch_us", c.launch_us);
  num("event_us", c.event_us);
  double t = c.threads_nt;
  num("threads_nt", t);
  c.threads_nt = static_cast<int>(t);
  for (const char* field : {"efficiency", "efficiency_nt"}) {
    if (!j.contains(field)) continue;
    if (!j[field].is_object())
      throw Error("calibration file '" + path + "': field '" + field + "' must be an object");
    std::map<std::string, double>& to = std::string(field) == "efficiency" ? c.efficiency : c.efficiency_nt;
    for (auto& [k, v] : j[field].items()) {
      if (!v.is_number() || v.get<double>() <= 0 || v.get<double>() > 4)
        throw Error("calibration file '" + path + "': " + field + "." + k + " must be a number in (0, 4]");
      to[k] = v.get<double>();
    }
  }
  c.calibrated = true;
  c.source = path;
  return c;
}

void save_calibration(const MachineCeilings& c, const std::string& path) {
  if (path.empty()) throw Error("no calibration path: set GE_CALIBRATION, XDG_CACHE_HOME or HOME");
  nlohmann::json j = {{"gemm_gflops_1t", c.gemm_gflops_1t}, {"gemm_gflops_nt", c.gemm_gflops_nt},
                      {"threads_nt", c.threads_nt},         {"mem_gbps_1t", c.mem_gbps_1t},
                      {"mem_gbps_nt", c.mem_gbps_nt},       {"launch_us", c.launch_us},
                      {"event_us", c.event_us},             {"efficiency", c.efficiency}, {"efficiency_nt", c.efficiency_nt},
                      {"machine", cpu_model_name()}};
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  j["date"] = buf;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  write_file_atomically(path, j.dump(2) + "\n", "calibration file");
}

namespace {

/// Answers from the defaults until first asked, then measures once (make_machine_cost_model).
class SelfCalibratingCostModel final : public CostModel {
 public:
  explicit SelfCalibratingCostModel(const Environment& env) : env_(env), defaults_({}, &env.ops) {}
  double node_us(const Node& n, int threads) const override { return model().node_us(n, threads); }
  double event_us() const override { return model().event_us(); }
  const MachineCeilings& ceilings() const override { return model().ceilings(); }

 private:
  const RooflineCostModel& model() const {
    // The benchmarks compile graphs, whose schedule stage asks this model for estimates: those
    // (on this thread, during the measurement) get the defaults.
    bool& measuring = detail::measuring_on_this_thread();
    if (measuring) return defaults_;
    std::call_once(once_, [&] {
      const std::string path = calibration_path();
      try {
        MachineCeilings c = load_calibration(path);  // another process may have written it meanwhile
        if (!c.calibrated) {
          log(LogLevel::Info, "cost model: no calibration for this machine yet; measuring it once (a few seconds; "
                              "`gec calibrate` redoes it) into " + path);
          CalibrateOptions o;
          o.threads = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
          o.budget_s = 0.1;
          c = measure_ceilings(env_, o);
          c.source = path;
          save_calibration(c, path);
        }
        model_ = std::make_unique<RooflineCostModel>(c, &env_.ops);
      } catch (const std::exception& e) {
        log(LogLevel::Warn, std::string("cost model: calibration failed (") + e.what() +
                                "); estimates use the defaults (calibrated: false). Run `gec calibrate` to retry");
      }
    });
    return model_ ? *model_ : defaults_;
  }

  const Environment& env_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<RooflineCostModel> model_;
  RooflineCostModel defaults_;
};

}  // namespace

bool& detail::measuring_on_this_thread() {
  thread_local bool measuring = false;
  return measuring;
}

std::shared_ptr<const CostModel> make_machine_cost_model(const Environment& env) {
  const std::string path = calibration_path();
  std::error_code ec;
  if (calibration_path_is_explicit() || path.empty() || fs::exists(path, ec))
    return std::make_shared<RooflineCostModel>(load_calibration(path), &env.ops);
  return std::make_shared<SelfCalibratingCostModel>(env);
}

}  // namespace ge::core
