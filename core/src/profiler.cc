#include "ge/core/profiler.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <sstream>

namespace ge::core {

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

double nominal_peak_gflops(int cores, std::string* how) {
  double mhz = 0;
  bool avx512 = false, fma = false;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      auto c = line.find(':');
      if (c != std::string::npos) mhz = std::max(mhz, std::atof(line.c_str() + c + 1));
    } else if (line.rfind("flags", 0) == 0) {
      avx512 = line.find(" avx512f") != std::string::npos;
      fma = line.find(" fma") != std::string::npos;
    }
  }
  if (mhz <= 0) mhz = 2000;  // no clock reported (some VMs): an assumed 2 GHz, said so below
  // Two FMA pipes × lanes × 2 FLOP: 16 lanes with AVX-512, 8 with AVX2+FMA; 8 FLOP/cycle without FMA.
  const int per_cycle = avx512 ? 64 : fma ? 32 : 8;
  double peak = cores * (mhz / 1000.0) * per_cycle;
  if (how) {
    std::ostringstream os;
    os.precision(3);
    os << "nominal: " << cores << " core" << (cores == 1 ? "" : "s") << " x " << mhz / 1000.0
       << " GHz (/proc/cpuinfo 'cpu MHz'; turbo clocks run higher) x " << per_cycle << " fp32 FLOP/cycle ("
       << (avx512 ? "AVX-512" : fma ? "AVX2+FMA" : "no FMA") << ", 2 FMA pipes) = " << peak
       << " GFLOP/s (an assumption, not measured; --peak-gflops overrides)";
    *how = os.str();
  }
  return peak;
}

std::vector<NodeProfile> Profile::top(int k) const {
  std::vector<NodeProfile> v = nodes;
  std::stable_sort(v.begin(), v.end(), [](const NodeProfile& a, const NodeProfile& b) { return a.median_us > b.median_us; });
  if (k > 0 && static_cast<size_t>(k) < v.size()) v.resize(k);
  return v;
}

Profile make_profile(const Executable& exe, std::vector<StepTimes> runs, double peak_gflops,
                     const std::string& peak_source) {
  Profile p;
  p.iterations = static_cast<int>(runs.size());
  p.peak_gflops = peak_gflops;
  p.peak_source = peak_source;
  p.arena_bytes = exe.arena_bytes();
  for (const Value* v : exe.graph().values())
    if (v->is_constant()) p.weight_bytes += v->nbytes();
  const size_t steps = exe.num_kernels();
  std::vector<double> run_ms;
  // With several streams the last step in execution order need not end last.
  for (const StepTimes& r : runs)
    if (!r.steps.empty()) {
      int64_t b = r.steps.front().start_ns, e = r.steps.front().end_ns;
      for (const StepSpan& sp : r.steps) b = std::min(b, sp.start_ns), e = std::max(e, sp.end_ns);
      run_ms.push_back((e - b) / 1e6);
    }
  if (!run_ms.empty()) {
    p.run_median_ms = median_of(run_ms);
    p.run_mean_ms = std::accumulate(run_ms.begin(), run_ms.end(), 0.0) / run_ms.size();
    p.run_min_ms = *std::min_element(run_ms.begin(), run_ms.end());
  }
  for (size_t i = 0; i < steps; ++i) {
    const Node& n = exe.step_node(i);
    NodeProfile np;
    np.step = i;
    np.name = n.name();
    np.op_type = n.op_type();
    np.domain = n.domain();
    np.kernel = exe.step_kernel(i);
    np.stream = exe.step_stream(i);
    std::vector<double> us;
    for (const StepTimes& r : runs)
      if (i < r.steps.size()) us.push_back((r.steps[i].end_ns - r.steps[i].start_ns) / 1e3);
    np.median_us = median_of(us);
    np.mean_us = us.empty() ? 0 : std::accumulate(us.begin(), us.end(), 0.0) / us.size();
    np.flops = node_flops(n);
    np.gflops = np.median_us > 0 ? np.flops / (np.median_us * 1e3) : 0;  // FLOP/ns = GFLOP/s
    np.efficiency = peak_gflops > 0 ? np.gflops / peak_gflops : 0;
    np.bytes = node_bytes(n);
    p.nodes_total_us += np.median_us;
    p.total_flops += np.flops;
    p.nodes.push_back(std::move(np));
  }
  for (NodeProfile& np : p.nodes) np.share = p.nodes_total_us > 0 ? np.median_us / p.nodes_total_us : 0;
  p.runs = std::move(runs);
  return p;
}

std::string chrome_trace(const Profile& p, const std::string& process_name) {
  using nlohmann::json;
  json events = json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 0}, {"args", {{"name", process_name}}}});
  std::set<int> streams;
  for (const NodeProfile& n : p.nodes) streams.insert(n.stream);
  for (int s : streams)
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", s + 1},
                      {"args", {{"name", "stream " + std::to_string(s)}}}});
  int64_t t0 = 0;
  for (const StepTimes& r : p.runs)
    if (!r.steps.empty()) {
      t0 = r.steps.front().start_ns;
      for (const StepSpan& sp : r.steps) t0 = std::min(t0, sp.start_ns);
      break;
    }
  for (size_t it = 0; it < p.runs.size(); ++it) {
    const StepTimes& r = p.runs[it];
    for (size_t i = 0; i < r.steps.size() && i < p.nodes.size(); ++i) {
      const NodeProfile& n = p.nodes[i];
      // Integer-ns spans printed as fractional µs: adjacent steps never overlap after rounding.
      double ts = (r.steps[i].start_ns - t0) / 1e3, dur = (r.steps[i].end_ns - r.steps[i].start_ns) / 1e3;
      std::string op = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
      events.push_back({{"name", n.name}, {"cat", op}, {"ph", "X"}, {"pid", 1}, {"tid", n.stream + 1},
                        {"ts", ts}, {"dur", dur},
                        {"args", {{"op_type", op}, {"kernel", n.kernel}, {"flops", n.flops}, {"iteration", it}, {"step", i}}}});
    }
  }
  json doc = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  return doc.dump() + "\n";
}

}  // namespace ge::core
