// ge.Plan, ge.generate_plan, ge.load_plan, ge.Session and ge.Executor: plan files (core/plan.h)
// and the application API (core/session.h) with numpy inputs and outputs.
#include <pybind11/stl.h>

#include <filesystem>
#include <fstream>
#include <mutex>

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
    // A dynamic plan's output without a declared shape (its shape depends on values): None, not ().
    r.append(py::make_tuple(t.name, t.dims == "(no shape)" ? py::object(py::none()) : py::object(py::tuple(py::cast(t.shape.dims()))),
                            numpy_dtype_name(t.dtype)));
  return r;
}

/// A plan's inputs, bound from a Python feed: a dict names every input (unknown and missing keys
/// are one error naming both); a TF-style name ("x:0") and its bare form ("x") bind the same input.
std::vector<ge::Tensor> bind_inputs(const ge::LoadedPlan& plan, const py::object& feed, std::vector<py::object>& keep) {
  const std::vector<ge::TensorInfo>& ins = plan.inputs();
  auto view = [&](const py::handle& h, const std::string& what) {
    if (!py::isinstance<py::array>(h))
      throw ge::Error("input " + what + " is a " + py::str(py::type::of(h).attr("__name__")).cast<std::string>() +
                      ", not a numpy array");
    keep.emplace_back();
    return tensor_view(py::reinterpret_borrow<py::array>(h), keep.back());
  };
  auto names = [&]() {
    std::string l;
    for (const ge::TensorInfo& i : ins) l += (l.empty() ? "'" : ", '") + i.name + "'";
    return l;
  };
  std::vector<ge::Tensor> ordered;
  if (py::isinstance<py::dict>(feed)) {
    py::dict d = py::reinterpret_borrow<py::dict>(feed);
    std::vector<int> given(ins.size(), 0);
    std::vector<std::string> unknown;
    std::vector<std::pair<size_t, py::handle>> bound;
    for (auto& [k, v] : d) {
      if (!py::isinstance<py::str>(k)) throw ge::Error("run(): input names are str, got " + py::repr(k).cast<std::string>());
      const std::string name = k.cast<std::string>();
      size_t found = ins.size();
      for (size_t i = 0; i < ins.size(); ++i)
        if (ins[i].name == name || ins[i].name == name + ":0" || name == ins[i].name + ":0") found = i;
      if (found == ins.size()) {
        unknown.push_back(name);
        continue;
      }
      if (given[found]++)
        throw ge::Error("run(): input '" + ins[found].name + "' is given twice (as '" + name + "' and another key)");
      bound.emplace_back(found, v);
    }
    std::vector<std::string> missing;
    for (size_t i = 0; i < ins.size(); ++i)
      if (!given[i]) missing.push_back(ins[i].name);
    if (!unknown.empty() || !missing.empty()) {
      std::string m = "run():";
      auto list = [](const std::vector<std::string>& l) {
        std::string s;
        for (const std::string& x : l) s += (s.empty() ? "'" : ", '") + x + "'";
        return s;
      };
      if (!unknown.empty()) m += " unknown input" + std::string(unknown.size() > 1 ? "s " : " ") + list(unknown) + ";";
      if (!missing.empty()) m += " missing input" + std::string(missing.size() > 1 ? "s " : " ") + list(missing) + ";";
      throw ge::Error(m + " the plan's inputs are " + names());
    }
    ordered.resize(ins.size());
    for (auto& [i, v] : bound) ordered[i] = view(v, "'" + ins[i].name + "'");
  } else if (py::isinstance<py::array>(feed)) {
    if (ins.size() != 1)
      throw ge::Error("run(): the plan has " + std::to_string(ins.size()) + " inputs (" + names() +
                      "): pass a dict {name: ndarray} or a list in input order");
    ordered.push_back(view(feed, "'" + ins[0].name + "'"));
  } else if (py::isinstance<py::list>(feed) || py::isinstance<py::tuple>(feed)) {
    py::sequence s = py::reinterpret_borrow<py::sequence>(feed);
    if (s.size() != ins.size())
      throw ge::Error("run(): the plan has " + std::to_string(ins.size()) + " inputs (" + names() + "), " +
                      std::to_string(s.size()) + " given");
    for (size_t i = 0; i < s.size(); ++i) ordered.push_back(view(s[i], "'" + ins[i].name + "'"));
  } else {
    throw ge::Error("run() takes a dict {name: ndarray}, an ndarray or a list of ndarrays, not " +
                    py::str(py::type::of(feed).attr("__name__")).cast<std::string>());
  }
  return ordered;
}

/// A loaded plan ready to run from any number of threads at once. A ge::Session (arena, buffers,
/// kernels: core/session.h) runs one inference at a time, so each call takes an idle Session from
/// a pool — making one when all are busy — and returns it when its outputs are copied out: calls
/// from N threads run concurrently on N Sessions, and a pool never holds more Sessions than the
/// most calls that were ever running together.
struct Executor {
  std::shared_ptr<ge::LoadedPlan> plan;
  int threads = 1;
  std::mutex mu;
  std::vector<std::unique_ptr<ge::Session>> idle;
  size_t made = 0;

  std::unique_ptr<ge::Session> take() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!idle.empty()) {
        std::unique_ptr<ge::Session> s = std::move(idle.back());
        idle.pop_back();
        return s;
      }
    }
    auto s = std::make_unique<ge::Session>(plan->new_session());  // thread-safe (LoadedPlan's build lock)
    std::lock_guard<std::mutex> lock(mu);
    ++made;
    return s;
  }
  /// What the last finished run() ran (a plan with symbolic input dims; docs/plan.md).
  std::optional<ge::core::DynamicRunInfo> last;

  void give_back(std::unique_ptr<ge::Session> s) {
    std::lock_guard<std::mutex> lock(mu);
    if (const ge::core::DynamicRunInfo* i = s->last_run()) last = *i;
    idle.push_back(std::move(s));
  }

  py::list run(const py::object& feed) {
    std::vector<py::object> keep;  // arrays the input views point into, alive until the run ends
    std::vector<ge::Tensor> inputs = bind_inputs(*plan, feed, keep);
    std::unique_ptr<ge::Session> s;
    std::vector<ge::Tensor> outs;
    {
      py::gil_scoped_release nogil;
      s = take();
      try {
        outs = s->run(inputs);
      } catch (...) {
        give_back(std::move(s));
        throw;
      }
    }
    py::list r;
    try {
      for (const ge::Tensor& t : outs) r.append(array_from_tensor(t));  // copies: the Session's buffers are reused
    } catch (...) {
      give_back(std::move(s));
      throw;
    }
    give_back(std::move(s));
    return r;
  }
};

/// One DynamicRunInfo as a dict; a staged run also has cut_node and its stages' dicts.
py::dict run_info_dict(const ge::core::DynamicRunInfo& r) {
  const ge::core::DynamicRunInfo* i = &r;
  py::dict d;
  d["kind"] = i->kind;
  d["binding"] = ge::core::binding_str(i->binding);
  d["ran"] = ge::core::binding_str(i->ran);
  d["gear"] = i->gear;
  d["compiled"] = i->compiled;
  d["compile_ms"] = i->compile_ms;
  d["arena_bytes"] = i->arena_bytes;
  if (!i->cut_node.empty()) {
    d["cut_node"] = i->cut_node;
    py::list stages;
    for (const ge::core::DynamicRunInfo& s : i->stages) stages.append(run_info_dict(s));
    d["stages"] = stages;
  }
  return d;
}

/// Executor.last_run (docs/plan.md, "Dynamic shapes").
py::object executor_last_run(Executor& e) {
  std::optional<ge::core::DynamicRunInfo> last;
  {
    std::lock_guard<std::mutex> lock(e.mu);
    last = e.last;
  }
  if (!last) return py::none();
  return run_info_dict(*last);
}

}  // namespace

void bind_plan(py::module_& m) {
  py::class_<Plan>(m, "Plan", "An execution plan: the compiled graph, kernels, arena offsets and weights (a .gep file).")
      .def_readonly("backend", &Plan::backend)
      .def_property_readonly("inputs", [](const Plan& p) { return io_list(p.inputs); }, "[(name, shape, dtype)]; -1 for a symbolic dim")
      .def_property_readonly("outputs", [](const Plan& p) { return io_list(p.outputs); }, "[(name, shape, dtype)]; shape None for an output declared without one")
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

  py::class_<Executor, std::shared_ptr<Executor>>(
      m, "Executor",
      "A loaded plan ready to run. Safe to call from several threads at once: each run takes an idle "
      "run context (arena, buffers, kernels) from the Executor's pool, making one when all are busy.")
      .def("run", &Executor::run, py::arg("inputs"),
           "inputs: {name: ndarray}, one ndarray (single-input plans) or a list in input order; each must "
           "match the input's dtype and shape. Returns the outputs as a list of ndarrays in output order. "
           "Raises ge.Error naming a missing, unknown or mismatched input.")
      .def_property_readonly("inputs", [](const Executor& e) { return io_list(e.plan->inputs()); }, "[(name, shape, dtype)]; -1 for a symbolic dim")
      .def_property_readonly("outputs", [](const Executor& e) { return io_list(e.plan->outputs()); }, "[(name, shape, dtype)]; shape None for an output declared without one")
      .def_property_readonly("load_ms", [](const Executor& e) { return e.plan->load_ms(); },
                             "Plan bytes → runnable plan (parse, checks, load-time passes), in ms.")
      .def_property_readonly("threads", [](const Executor& e) { return e.threads; }, "Intra-op threads of each run.")
      .def_property_readonly("contexts", [](Executor& e) {
        std::lock_guard<std::mutex> lock(e.mu);
        return e.made;
      }, "Run contexts (arenas) the pool has made: the most runs that were ever in flight together.")
      .def("__repr__", [](Executor& e) {
        std::string ins;
        for (const ge::TensorInfo& i : e.plan->inputs()) ins += (ins.empty() ? "" : ", ") + i.name + i.shape.str();
        std::lock_guard<std::mutex> lock(e.mu);
        return "<ge.Executor backend=" + e.plan->contents().backend + " inputs=[" + ins + "] threads=" +
               std::to_string(e.threads) + " contexts=" + std::to_string(e.made) + ">";
      })
      .def_property_readonly("last_run", &executor_last_run,
                             "A plan with symbolic input dims: what the last run() ran, {kind: 'gear' | 'padded gear' | "
                             "'specialization' | 'stages', binding, ran, gear, compiled, compile_ms, arena_bytes}, and "
                             "for 'stages' (a node whose output shape depends on values) cut_node and stages (the "
                             "prefix's and the suffix's dicts); None for a static plan or before any run.");

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
             if (threads < 0)
               throw py::value_error("Session(threads=" + std::to_string(threads) +
                                     "): threads must be 0 (the manifest's, else all cores) or a positive count");
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
             auto e = std::make_shared<Executor>();
             e->threads = o.threads;
             if (py::isinstance<py::str>(plan)) {
               const std::string path = plan.cast<std::string>();
               py::gil_scoped_release nogil;
               e->plan = ge::LoadedPlan::load(path, env, o);
             } else if (py::isinstance<Plan>(plan)) {
               const Plan& p = plan.cast<const Plan&>();
               py::gil_scoped_release nogil;
               e->plan = ge::LoadedPlan::load_bytes(p.bytes, p.what, env, o);
             } else {
               throw py::type_error("load_plan() takes a ge.Plan or a plan file path (str), not " +
                                    py::str(py::type::of(plan).attr("__name__")).cast<std::string>());
             }
             py::gil_scoped_release nogil;
             e->give_back(e->take());  // the first run context now: a kernel's refusal fails here
             return e;
           },
           py::arg("plan"), "plan: a ge.Plan or a plan file path. Returns an Executor (kernels built).")
      .def("__repr__", [](const SessionPy& s) {
        return "<ge.Session manifest=" + (s.manifest.empty() ? std::string("default") : "'" + s.manifest + "'") +
               " threads=" + (s.threads ? std::to_string(s.threads) : std::string("auto")) + ">";
      });
}

}  // namespace gepy
