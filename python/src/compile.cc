// ge._optimize, ge._fuse_operators, ge._schedule and ge.Schedule: the pipeline with a
// configuration's manifest overrides (python/ge/config.py turns OptimizeConfig / ScheduleConfig
// into those overrides, one manifest key per field).
#include <pybind11/stl.h>

#include "context.h"
#include "ge/sdk/error.h"

namespace gepy {
namespace {

/// What the schedule stage decided for a graph (Graph::schedule, sdk/include/ge/sdk/ir.h).
struct Schedule {
  std::shared_ptr<PyGraph> graph;
};

}  // namespace

void bind_compile(py::module_& m) {
  m.def(
      "_optimize",
      [](const PyGraph& g, const std::vector<std::string>& overrides, const std::string& manifest) {
        return std::make_shared<PyGraph>(run_pipeline(g, manifest.empty() ? g.manifest : manifest, overrides, std::nullopt));
      },
      py::arg("graph"), py::arg("overrides"), py::arg("manifest") = "");
  m.def(
      "_fuse_operators",
      [](const PyGraph& g, const std::vector<std::string>& overrides, const std::string& manifest) {
        return std::make_shared<PyGraph>(
            run_pipeline(g, manifest.empty() ? g.manifest : manifest, overrides, std::set<ge::Stage>{ge::Stage::Fusion}));
      },
      py::arg("graph"), py::arg("overrides"), py::arg("manifest") = "");

  py::class_<Schedule>(m, "Schedule", "A scheduled graph and what the schedule stage decided (Graph::schedule).")
      .def_property_readonly("graph", [](const Schedule& s) { return s.graph; }, "The compiled, scheduled ge.Graph.")
      .def_property_readonly("schedule_strategy", [](const Schedule& s) { return s.graph->graph->schedule.scheduler; },
                             "Name of the scheduler that ran ('' when no scheduler plugin ran).")
      .def_property_readonly("streams", [](const Schedule& s) { return s.graph->graph->schedule.streams; })
      .def_property_readonly("pipeline_stages", [](const Schedule& s) { return s.graph->graph->schedule.pipeline_stages; })
      .def_property_readonly("events",
                             [](const Schedule& s) {
                               std::vector<std::pair<std::string, std::string>> e;
                               for (auto& ev : s.graph->graph->schedule.events) e.emplace_back(ev.record_after, ev.wait_before);
                               return e;
                             },
                             "Cross-stream events as (record_after, wait_before) node names.")
      .def_property_readonly("reason", [](const Schedule& s) { return s.graph->graph->schedule.reason; },
                             "Why this schedule (the auto scheduler's choice).")
      .def("estimate_latency", [](const Schedule& s) { return s.graph->graph->schedule.estimated_latency_ms; },
           "The cost model's latency estimate for one inference, in ms (0 when none was made).")
      .def("__repr__", [](const Schedule& s) {
        const ge::ScheduleInfo& i = s.graph->graph->schedule;
        return "<ge.Schedule '" + i.scheduler + "' streams=" + std::to_string(i.streams) +
               " estimated_latency_ms=" + std::to_string(i.estimated_latency_ms) + ">";
      });

  m.def(
      "_schedule",
      [](const PyGraph& g, const std::vector<std::string>& overrides, const std::string& manifest) {
        // The whole pipeline: the schedule stage sees the graph after fusion and layout, and the
        // memory stage plans lifetimes along the schedule's streams, exactly as `gec compile`.
        auto out = std::make_shared<PyGraph>(
            run_pipeline(g, manifest.empty() ? g.manifest : manifest, overrides, std::nullopt));
        return Schedule{out};
      },
      py::arg("graph"), py::arg("overrides"), py::arg("manifest") = "");
}

}  // namespace gepy
