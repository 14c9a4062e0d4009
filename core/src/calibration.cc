// Cached cost-model ceilings (ge/core/calibration.h).
#include "ge/core/calibration.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ge/core/file_io.h"
#include "ge/sdk/error.h"

namespace ge::core {

namespace fs = std::filesystem;

std::string calibration_path() {
  if (const char* p = std::getenv("GE_CALIBRATION"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "ge" / "calibration.json").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "ge" / "calibration.json").string();
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

}  // namespace ge::core
