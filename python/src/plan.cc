// ge.Plan, ge.generate_plan, ge.load_plan, ge.Session and ge.Executor: plan files (core/plan.h)
// and the application API (core/session.h) with numpy inputs and outputs.
#include <pybind11/stl.h>

#include <filesystem>
#include <fstream>

#include "context.h"
#include "ge/core/environment.h"
#include "ge/core/file_io.h"
#include "ge/core/plan.h"
#include "ge/core/session.h"
#include "ge/sdk/error.h"

namespace gepy {
namespace {

/// A serialized plan (the bytes of a .gep file) and where it came from.
struct Plan {
  std::shared_ptr<const std::vector<uint8_t>> bytes;
  std::string what;  ///< file path, or "<generated from graph 'g'>"
  std::string backend;
  std::vector<ge::TensorInfo> inputs, outputs;
  std::string manifest;  ///< the manifest it was checked against ('' = the default)
};

/// A plan with symbolic input dims: its declared inputs and outputs, -1 for a symbolic dim.
void dynamic_io(const ge::core::DynamicPlan& d, std::vector<ge::TensorInfo>& ins, std::vector<ge::TensorInfo>& outs) {
  auto info = [](const ge::core::SymbolicTensor& t) {
    std::vector<int64_t> dims;
    for (const ge::core::SymbolicDim& x : t.dims) dims.push_back(x.symbolic() ? -1 : x.value);
    return ge::TensorInfo{t.name, t.dtype, ge::Shape(dims), t.dims_str()};
  };
  for (const auto& t : d.spec.inputs) ins.push_back(info(t));
  for (const auto& t : d.spec.outputs) outs.push_back(info(t));
}

/// Parses `bytes` against `env` (every check of a plan file) and fills the plan's description.
Plan make_plan(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& what,
               const ge::core::Environment& env, const std::string& manifest) {
  ge::core::PlanContents c = ge::core::parse_plan(bytes->data(), bytes->size(),
                                                  std::const_pointer_cast<std::vector<uint8_t>>(bytes), env, what);
  Plan p{bytes, what, c.backend, {}, {}, manifest};
  if (c.dynamic) {
    dynamic_io(*c.dynamic, p.inputs, p.outputs);
    return p;
  }
  for (const ge::Value* v : c.graph->inputs()) p.inputs.push_back({v->name(), v->dtype, v->shape, ""});
  for (const ge::Value* v : c.graph->outputs()) p.outputs.push_back({v->name(), v->dtype, v->shape, ""});
  return p;
}

py::list io_list(const std::vector<ge::TensorInfo>& l) {
  py::list r;
  for (const ge::TensorInfo& t : l)
    r.append(py::make_tuple(t.name, py::tuple(py::cast(t.shape.dims())), numpy_dtype_name(t.dtype)));
  return r;
}

/// One run context of a loaded plan (ge::Session in C++).
struct Executor {
  std::shared_ptr<ge::LoadedPlan> plan;
  std::unique_ptr<ge::Session> session;

  py::list run(const py::object& feed) {
    std::vector<ge::Tensor> outs;
    std::vector<py::object> keep;  // arrays the input views point into, alive until the run ends
    auto view = [&](const py::handle& h, const std::string& what) {
      if (!py::isinstance<py::array>(h)) throw ge::Error("input " + what + " is not a numpy array");
      keep.emplace_back();
      return tensor_view(py::reinterpret_borrow<py::array>(h), keep.back());
    };
    if (py::isinstance<py::dict>(feed)) {
      std::map<std::string, ge::Tensor> named;
      for (auto& [k, v] : py::reinterpret_borrow<py::dict>(feed)) {
        std::string name = k.cast<std::string>();
        named[name] = view(v, "'" + name + "'");
      }
      py::gil_scoped_release nogil;
      outs = session->run(named);
    } else {
      std::vector<ge::Tensor> ordered;
      if (py::isinstance<py::array>(feed)) {
        if (plan->inputs().size() != 1)
          throw ge::Error("the plan has " + std::to_string(plan->inputs().size()) +
                          " inputs: pass a dict {name: ndarray} or a list in input order");
        ordered.push_back(view(feed, "'" + plan->inputs()[0].name + "'"));
      } else if (py::isinstance<py::list>(feed) || py::isinstance<py::tuple>(feed)) {
        py::sequence s = py::reinterpret_borrow<py::sequence>(feed);
        if (s.size() != plan->inputs().size())
          throw ge::Error("the plan has " + std::to_string(plan->inputs().size()) + " inputs, " +
                          std::to_string(s.size()) + " given");
        for (size_t i = 0; i < s.size(); ++i) ordered.push_back(view(s[i], "'" + plan->inputs()[i].name + "'"));
      } else {
        throw ge::Error("run() takes a dict {name: ndarray}, an ndarray or a list of ndarrays");
      }
      py::gil_scoped_release nogil;
      outs = session->run(ordered);
    }
    py::list r;
    for (const ge::Tensor& t : outs) r.append(array_from_tensor(t));
    return r;
  }
};

/// Executor.last_run (docs/plan.md, "Dynamic shapes").
py::object executor_last_run(const Executor& e) {
  const ge::core::DynamicRunInfo* i = e.session ? e.session->last_run() : nullptr;
  if (!i) return py::none();
  py::dict d;
  d["kind"] = i->kind;
  d["binding"] = ge::core::binding_str(i->binding);
  d["ran"] = ge::core::binding_str(i->ran);
  d["gear"] = i->gear;
  d["compiled"] = i->compiled;
  d["compile_ms"] = i->compile_ms;
  d["arena_bytes"] = i->arena_bytes;
  return d;
}

}  // namespace

void bind_plan(py::module_& m) {
  py::class_<Plan>(m, "Plan", "An execution plan: the compiled graph, kernels, arena offsets and weights (a .gep file).")
      .def_readonly("backend", &Plan::backend)
      .def_property_readonly("inputs", [](const Plan& p) { return io_list(p.inputs); }, "[(name, shape, dtype)]")
      .def_property_readonly("outputs", [](const Plan& p) { return io_list(p.outputs); }, "[(name, shape, dtype)]")
      .def_property_readonly("nbytes", [](const Plan& p) { return p.bytes->size(); }, "Size of the plan file in bytes.")
      .def("save",
           [](const Plan& p, const std::string& path) {
             ge::core::write_file_atomically(path, std::string(p.bytes->begin(), p.bytes->end()), "plan");
           },
           py::arg("path"), "Writes the plan file (through a temporary file and a rename).")
      .def("__repr__", [](const Plan& p) {
        return "<ge.Plan " + p.what + " backend=" + p.backend + " " + std::to_string(p.bytes->size()) + " bytes>";
      });

  m.def(
      "_generate_plan",
      [](const PyGraph& g, const std::string& backend, const std::string& manifest, std::vector<std::string> overrides) {
        std::string man = manifest.empty() ? g.manifest : manifest;
        // As `gec compile --backend NAME`: a backend the graph's manifest lacks comes from the
        // backend's own manifest beside the plugins (<plugin dir>/NAME.toml) when there is one.
        if (manifest.empty() && !environment(man)->backends.count(backend)) {
          const std::string own = ge::core::backend_manifest_path(backend);
          if (!own.empty()) man = own;
        }
        environment(man)->backend(backend);  // an unknown backend: the registered ones, as gec says
        // A graph compiled for this backend with the same settings is serialized as it is;
        // anything else goes through the whole pipeline first (as `gec compile -o`).
        PyGraph compiled;
        if (g.compiled_for == backend && man == g.manifest && overrides.empty()) {
          compiled = g;
        } else {
          overrides.push_back("backend.name=\"" + backend + "\"");
          compiled = run_pipeline(g, man, overrides, std::nullopt);
        }
        auto bytes = std::make_shared<std::vector<uint8_t>>();
        {
          py::gil_scoped_release nogil;
          *bytes = ge::core::serialize_plan(*compiled.graph, *compiled.env, backend);
        }
        return make_plan(bytes, "<generated from graph '" + g.graph->name + "'>", *compiled.env, man);
      },
      py::arg("graph"), py::arg("backend"), py::arg("manifest"), py::arg("overrides"));

  m.def(
      "load_plan",
      [](const std::string& path, const std::string& manifest) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw ge::Error("plan '" + path + "' cannot be opened");
        auto bytes = std::make_shared<std::vector<uint8_t>>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        // As gec: without a manifest, a plan of a backend with its own manifest loads through it.
        std::string man = manifest;
        if (man.empty()) {
          std::string backend;
          try {
            backend = ge::core::plan_backend(path);
          } catch (const ge::Error&) {  // unreadable header: the full load below names the problem
          }
          man = backend.empty() ? "" : ge::core::backend_manifest_path(backend);
        }
        return make_plan(bytes, path, *environment(man), man);
      },
      py::arg("path"), py::arg("manifest") = "",
      "Reads a plan file and checks it (magic, version, checksum, plugins, kernels) against the "
      "manifest's plugins. Raises ge.Error naming the file (gec's messages).");

  py::class_<Executor>(m, "Executor", "A loaded plan ready to run (one inference at a time; one per thread).")
      .def("run", &Executor::run, py::arg("inputs"),
           "inputs: {name: ndarray}, one ndarray (single-input plans) or a list in input order; each must "
           "match the input's dtype and shape. Returns the outputs as a list of ndarrays in output order. "
           "Raises ge.Error naming a missing, unknown or mismatched input.")
      .def_property_readonly("inputs", [](const Executor& e) { return io_list(e.plan->inputs()); }, "[(name, shape, dtype)]")
      .def_property_readonly("outputs", [](const Executor& e) { return io_list(e.plan->outputs()); }, "[(name, shape, dtype)]")
      .def_property_readonly("load_ms", [](const Executor& e) { return e.plan->load_ms(); },
                             "Plan bytes → runnable plan (parse, checks, load-time passes), in ms.")
      .def_property_readonly("last_run", &executor_last_run,
                             "A plan with symbolic input dims: what the last run() ran, {kind: 'gear' | 'padded gear' | "
                             "'specialization', binding, ran, gear, compiled, compile_ms, arena_bytes}; None for a "
                             "static plan or before any run.");

  m.def(
      "_profile_plan",
      [](const Plan& p, int iterations, int threads, uint32_t seed, const std::string& manifest) {
        // As Session.load_plan: without a manifest, the plugins the plan was checked against.
        auto env = environment(manifest.empty() ? p.manifest : manifest);
        ge::PlanLoadOptions o;
        o.threads = thread_count(*env, threads);
        std::shared_ptr<ge::LoadedPlan> lp;
        {
          py::gil_scoped_release nogil;
          lp = ge::LoadedPlan::load_bytes(p.bytes, p.what, env, o);
        }
        return profile_graph(lp->contents().graph, *env, lp->contents().backend, iterations, o.threads, seed, p.what);
      },
      py::arg("plan"), py::arg("iterations"), py::arg("threads"), py::arg("seed"), py::arg("manifest"));

  struct SessionPy {
    std::string manifest;
    int threads = 0;
  };
  py::class_<SessionPy>(m, "Session", "Runs plans with the plugins of a manifest.")
      .def(py::init([](const std::string& manifest, int threads) {
             environment(manifest);  // load the plugins now: a bad manifest fails here
             return SessionPy{manifest, threads};
           }),
           py::arg("manifest") = "", py::arg("threads") = 0,
           "manifest: TOML file ('' = the default); threads: intra-op threads per run (0 = the "
           "manifest's [backend] threads, else all cores).")
      .def("load_plan",
           [](const SessionPy& s, const py::object& plan) {
             // A Session without a manifest runs a plan with the plugins it was checked against
             // (its backend's own manifest, e.g. ascend.toml, when it has one), as gec does.
             std::string man = s.manifest;
             if (man.empty() && py::isinstance<Plan>(plan)) man = plan.cast<const Plan&>().manifest;
             if (man.empty() && py::isinstance<py::str>(plan)) {
               try {
                 man = ge::core::backend_manifest_path(ge::core::plan_backend(plan.cast<std::string>()));
               } catch (const ge::Error&) {  // unreadable header: the full load below names the problem
               }
             }
             auto env = environment(man);
             ge::PlanLoadOptions o;
             o.threads = thread_count(*env, s.threads);
             Executor e;
             if (py::isinstance<py::str>(plan)) {
               const std::string path = plan.cast<std::string>();
               py::gil_scoped_release nogil;
               e.plan = ge::LoadedPlan::load(path, env, o);
             } else {
               const Plan& p = plan.cast<const Plan&>();
               py::gil_scoped_release nogil;
               e.plan = ge::LoadedPlan::load_bytes(p.bytes, p.what, env, o);
             }
             e.session = std::make_unique<ge::Session>(e.plan->new_session());
             return e;
           },
           py::arg("plan"), "plan: a ge.Plan or a plan file path. Returns an Executor (kernels built).");
}

}  // namespace gepy
