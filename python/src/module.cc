// The `ge._ge` extension: GE's C++ API for Python (python/ge/__init__.py re-exports it).
#include <pybind11/stl.h>

#include "context.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"

PYBIND11_MODULE(_ge, m) {
  m.doc() = "GE graph compiler and runtime (C++ core; see docs/python.md)";
  namespace py = pybind11;
  // ge::Error → ge.Error (a RuntimeError), subclasses → subclasses; the message is gec's.
  static py::exception<ge::Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<ge::UnsupportedError> unsupported(m, "UnsupportedError", error.ptr());
  static py::exception<ge::InvalidGraphError> invalid(m, "InvalidGraphError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ge::UnsupportedError& e) {
      PyErr_SetString(unsupported.ptr(), e.what());
    } catch (const ge::InvalidGraphError& e) {
      PyErr_SetString(invalid.ptr(), e.what());
    } catch (const ge::Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  m.def(
      "plugins",
      [](const std::string& manifest) {
        std::vector<std::string> names;
        for (const auto& p : gepy::environment(manifest)->plugins) names.push_back(p.name);
        return names;
      },
      py::arg("manifest") = "", "Names of the plugins the manifest loads ('' = the default manifest).");
  m.def(
      "fusion_rules",
      [](const std::string& manifest) {
        std::vector<std::string> names;
        for (const auto& [r, src] : gepy::environment(manifest)->fusion_rules) names.push_back(r->info().name);
        return names;
      },
      py::arg("manifest") = "", "Names of the fusion rules the manifest's plugins register.");
  m.def(
      "passes",
      [](const std::string& manifest) {
        std::vector<std::string> names;
        for (const auto& [p, src] : gepy::environment(manifest)->passes) names.push_back(p->info().name);
        return names;
      },
      py::arg("manifest") = "", "Names of the passes the manifest's plugins register.");
  m.def(
      "default_manifest", [] { return ge::core::default_manifest_path(); },
      "Path of the default manifest (beside the plugins, or GE_MANIFEST).");
  m.def(
      "set_log_level", [](const std::string& level) { ge::set_log_level(level); }, py::arg("level"),
      "trace, debug, info, warn (default), error, off — as gec's --log-level.");
  gepy::bind_graph(m);
  gepy::bind_compile(m);
  gepy::bind_plan(m);
  gepy::bind_profile(m);
}
