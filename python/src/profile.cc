// ge.profile and ge.Profile: per-operator timing of a graph or plan (core/profiler.h), the same
// figures `gec profile` prints.
#include <pybind11/stl.h>

#include <cstdio>
#include <fstream>

#include "context.h"
#include "ge/core/file_io.h"
#include "ge/core/inputs.h"
#include "ge/core/profiler.h"
#include "ge/core/session.h"
#include "ge/sdk/error.h"

namespace gepy {
namespace {

struct OperatorTime {
  ge::core::NodeProfile n;
};

struct ProfilePy {
  ge::core::Profile p;
  std::string name;
  int threads = 1;
};

std::string op_name(const ge::core::NodeProfile& n) { return n.domain.empty() ? n.op_type : n.domain + "." + n.op_type; }

}  // namespace

py::object profile_graph(std::shared_ptr<const ge::Graph> graph, const ge::core::Environment& env,
                         const std::string& backend, int iterations, int threads, uint32_t seed,
                         const std::string& name) {
  if (iterations < 1) throw ge::Error("--iterations must be at least 1");
  ProfilePy r{{}, name, threads};
  py::gil_scoped_release nogil;  // reacquired to build the result
  ge::core::Executable exe(graph, env, ge::core::ExecOptions{backend, threads});
  std::vector<ge::Tensor> inputs = ge::core::random_inputs(exe.graph(), seed);
  exe.run(inputs);  // warm-up, as gec profile
  std::vector<ge::core::StepTimes> runs(iterations);
  for (int i = 0; i < iterations; ++i) exe.run(inputs, ge::core::RunOptions{&runs[i]});
  // The peak compute_efficiency is measured against: the calibrated GEMM rate at these threads
  // (the cost model calibrates itself on first use), else the nominal peak (profiler.h).
  std::string peak_source;
  double peak = 0;
  if (const ge::MachineCeilings& cc = env.cost_model->ceilings(); cc.calibrated) {
    peak = ge::RooflineCostModel(cc).gflops(threads);
    peak_source = "measured (MatMul 512x512x512 at " + std::to_string(threads) + " thread(s), " + cc.source + ")";
  } else {
    peak = ge::core::nominal_peak_gflops(threads, &peak_source);
  }
  r.p = ge::core::make_profile(exe, std::move(runs), peak, peak_source);
  py::gil_scoped_acquire gil;
  return py::cast(std::move(r));
}

void bind_profile(py::module_& m) {
  py::class_<OperatorTime>(m, "OperatorTime", "One operator's time in a profile.")
      .def_property_readonly("name", [](const OperatorTime& o) { return o.n.name; })
      .def_property_readonly("op_type", [](const OperatorTime& o) { return op_name(o.n); },
                             "Op type; fused ops as 'ge.FusedConv'.")
      .def_property_readonly("kernel", [](const OperatorTime& o) { return o.n.kernel; })
      .def_property_readonly("execution_time_ms", [](const OperatorTime& o) { return o.n.median_us / 1e3; },
                             "Median time over the iterations, in ms.")
      .def_property_readonly("mean_time_ms", [](const OperatorTime& o) { return o.n.mean_us / 1e3; })
      .def_property_readonly("share", [](const OperatorTime& o) { return o.n.share; },
                             "Fraction of the sum of per-operator medians.")
      .def_property_readonly("flops", [](const OperatorTime& o) { return o.n.flops; }, "FLOPs per run (profiler.h formulas).")
      .def_property_readonly("gflops", [](const OperatorTime& o) { return o.n.gflops; }, "Achieved GFLOP/s.")
      .def_property_readonly("bytes", [](const OperatorTime& o) { return o.n.bytes; }, "Bytes of its inputs and outputs.")
      .def("__repr__", [](const OperatorTime& o) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.4f", o.n.median_us / 1e3);
        return "<ge.OperatorTime '" + o.n.name + "' " + op_name(o.n) + " " + buf + " ms>";
      });

  py::class_<ProfilePy>(m, "Profile", "Per-operator timing of repeated runs (gec profile's figures).")
      .def("top_operators",
           [](const ProfilePy& p, int k) {
             std::vector<OperatorTime> r;
             for (auto& n : p.p.top(k)) r.push_back({n});
             return r;
           },
           py::arg("k") = 10, "The k slowest operators by median time (all when k <= 0).")
      .def_property_readonly("operators",
                             [](const ProfilePy& p) {
                               std::vector<OperatorTime> r;
                               for (auto& n : p.p.nodes) r.push_back({n});
                               return r;
                             },
                             "Every operator that ran, in execution order.")
      .def_property_readonly("iterations", [](const ProfilePy& p) { return p.p.iterations; })
      .def_property_readonly("threads", [](const ProfilePy& p) { return p.threads; })
      .def_property_readonly("latency_ms", [](const ProfilePy& p) { return p.p.run_median_ms; },
                             "Median whole-run time with profiling on, in ms.")
      .def_property_readonly("arena_bytes", [](const ProfilePy& p) { return p.p.arena_bytes; })
      .def_property_readonly("weight_bytes", [](const ProfilePy& p) { return p.p.weight_bytes; })
      .def_property_readonly("memory_usage_mb",
                             [](const ProfilePy& p) { return (p.p.arena_bytes + p.p.weight_bytes) / 1048576.0; },
                             "Arena plus weights, in MiB (2^20 bytes), as gec profile's 'memory:' line.")
      .def_property_readonly("total_flops", [](const ProfilePy& p) { return p.p.total_flops; }, "FLOPs per run.")
      .def_property_readonly("peak_gflops", [](const ProfilePy& p) { return p.p.peak_gflops; },
                             "Nominal peak of the threads used (profiler.h), GFLOP/s.")
      .def_property_readonly("peak_source", [](const ProfilePy& p) { return p.p.peak_source; })
      .def_property_readonly("compute_efficiency",
                             [](const ProfilePy& p) {
                               double on = p.p.run_median_ms;
                               double achieved = on > 0 ? p.p.total_flops / (on * 1e6) : 0;
                               return p.p.peak_gflops > 0 ? achieved / p.p.peak_gflops : 0.0;
                             },
                             "Achieved GFLOP/s over the peak (.peak_gflops: the calibrated GEMM rate at these threads, "
                             "else the nominal peak; .peak_source says which), a fraction.")
      .def("save_trace",
           [](const ProfilePy& p, const std::string& path) {
             ge::core::write_file_atomically(path, ge::core::chrome_trace(p.p, "ge.profile " + p.name), "trace");
           },
           py::arg("path"), "Writes a Chrome trace (JSON; open in Perfetto or chrome://tracing).")
      .def("__repr__", [](const ProfilePy& p) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "<ge.Profile '%s': %zu operators, %d iterations, %.3f ms median, %d thread(s)>",
                      p.name.c_str(), p.p.nodes.size(), p.p.iterations, p.p.run_median_ms, p.threads);
        return std::string(buf);
      });

  m.def(
      "_profile_graph",
      [](const PyGraph& g, int iterations, int threads, uint32_t seed, std::vector<std::string> extra) {
        std::vector<std::string> overrides = g.overrides;
        overrides.insert(overrides.end(), extra.begin(), extra.end());
        PyGraph compiled = g.compiled_for.empty() ? run_pipeline(g, g.manifest, overrides, std::nullopt) : g;
        const int t = thread_count(*compiled.env, threads);
        return profile_graph(compiled.graph, *compiled.env, compiled.compiled_for, iterations, t, seed,
                             compiled.graph->name);
      },
      py::arg("graph"), py::arg("iterations"), py::arg("threads"), py::arg("seed"),
      py::arg("overrides") = std::vector<std::string>{});
}

}  // namespace gepy
