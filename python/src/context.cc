// Environments, the compile path and PyGraph (python/src/context.h).
#include "context.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "ge/core/manifest.h"
#include "ge/core/request.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"

namespace gepy {

std::shared_ptr<const ge::core::Environment> environment(const std::string& manifest,
                                                         const std::vector<std::string>& overrides) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const ge::core::Environment>> cache;
  const std::string path = manifest.empty() ? ge::core::default_manifest_path() : manifest;
  std::string key = path;
  for (const std::string& o : overrides) key += "\n" + o;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  // The same request gec builds from its command line (ge/core/request.h).
  ge::core::CompileRequest request;
  request.manifest = path;
  request.sets = overrides;
  std::shared_ptr<const ge::core::Environment> env = request.load_environment();
  cache[key] = env;
  return env;
}

int thread_count(const ge::core::Environment& env, int requested) {
  ge::core::CompileRequest request;
  request.threads = requested;
  return request.thread_count(env);
}

ge::Value* PyGraph::find(const std::string& name) const {
  if (ge::Value* v = graph->find_value(name)) return v;
  if (name.size() > 2 && name.compare(name.size() - 2, 2, ":0") == 0) return graph->find_value(name.substr(0, name.size() - 2));
  return graph->find_value(name + ":0");
}

ge::Value* PyGraph::value(const std::string& name) const {
  ge::Value* v = find(name);
  if (!v) throw ge::Error("'" + name + "' is not a tensor of graph '" + graph->name + "'");
  return v;
}

namespace {
/// CompileOptions::threads — the thread budget of one inference, which schedulers split between
/// streams and their cost model simulates. Set as gec does (the run's thread count), so that
/// estimates agree.
template <class Options>
void set_thread_budget(Options& o, int threads) {
  if constexpr (requires { o.threads = threads; }) o.threads = threads;
}
}  // namespace

PyGraph run_pipeline(const PyGraph& in, const std::string& manifest, const std::vector<std::string>& overrides,
                     const std::optional<std::set<ge::Stage>>& stages) {
  PyGraph out;
  out.manifest = manifest;
  out.overrides = overrides;
  out.env = environment(manifest, overrides);
  ge::core::CompileOptions opts = ge::core::CompileOptions::from_manifest(out.env->manifest);
  opts.fail_on_pass_error = true;
  set_thread_budget(opts, thread_count(*out.env, 0));
  if (stages) {
    std::vector<std::string> only;
    for (auto& [r, src] : out.env->fusion_rules)
      if (stages->count(ge::Stage::Fusion)) only.push_back(r->info().name);
    for (auto& [p, src] : out.env->passes)
      if (stages->count(p->info().stage)) only.push_back(p->info().name);
    opts.only = only;
  }
  std::shared_ptr<ge::Graph> g = in.graph->clone();
  if (g->outputs().empty()) {
    // A graph built without mark_output returns what a framework's module returns: the tensors
    // no operator reads. With none, compiling would remove every node: an error, not an empty plan.
    std::string marked;
    for (ge::Node* n : g->nodes())
      for (ge::Value* v : n->outputs())
        if (v && v->uses().empty()) {
          g->mark_output(v);
          marked += (marked.empty() ? "'" : ", '") + v->name() + "'";
        }
    if (marked.empty())
      throw ge::Error("graph '" + g->name + "' has no outputs and no operator result to take as one (" +
                      std::to_string(g->num_nodes()) + " operators): mark_output(name) the tensors it computes");
    ge::log(ge::LogLevel::Info, "graph '" + g->name + "' marks no outputs; compiling with the tensors no operator reads as outputs: " + marked);
  }
  {
    py::gil_scoped_release nogil;
    out.result = ge::core::compile_graph(*g, *out.env, opts);
  }
  out.graph = std::move(g);
  // Only a full compilation yields a graph ready to serialize (memory planned after the last rewrite).
  out.compiled_for = stages ? "" : opts.backend;
  return out;
}

// ---- numpy

namespace {
const std::vector<std::pair<ge::DataType, const char*>>& dtype_table() {
  static const std::vector<std::pair<ge::DataType, const char*>> t = {
      {ge::DataType::Float32, "float32"}, {ge::DataType::Float64, "float64"}, {ge::DataType::Float16, "float16"},
      {ge::DataType::Int8, "int8"},       {ge::DataType::Int16, "int16"},     {ge::DataType::Int32, "int32"},
      {ge::DataType::Int64, "int64"},     {ge::DataType::UInt8, "uint8"},     {ge::DataType::UInt16, "uint16"},
      {ge::DataType::UInt32, "uint32"},   {ge::DataType::UInt64, "uint64"},   {ge::DataType::Bool, "bool"}};
  return t;
}
}  // namespace

std::string numpy_dtype_name(ge::DataType t) {
  for (auto& [d, n] : dtype_table())
    if (d == t) return n;
  throw ge::Error("dtype " + std::string(ge::dtype_name(t)) + " has no numpy equivalent");
}

ge::DataType dtype_from_numpy(const std::string& name) {
  std::string known;
  for (auto& [d, n] : dtype_table()) {
    if (name == n) return d;
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  throw ge::Error("dtype '" + name + "' is not supported (supported: " + known + ")");
}

static ge::Shape shape_of(const py::array& a) {
  std::vector<int64_t> dims(a.shape(), a.shape() + a.ndim());
  return ge::Shape(dims);
}

ge::Tensor tensor_from_array(const py::array& a) {
  ge::DataType dt = dtype_from_numpy(py::str(a.dtype()).cast<std::string>());
  py::array c = py::array::ensure(a, py::array::c_style);
  ge::Tensor t = ge::Tensor::allocate(dt, shape_of(c));
  if (t.nbytes()) std::memcpy(t.data(), c.data(), t.nbytes());
  return t;
}

ge::Tensor tensor_view(const py::array& a, py::object& keep) {
  ge::DataType dt = dtype_from_numpy(py::str(a.dtype()).cast<std::string>());
  py::array c = py::array::ensure(a, py::array::c_style);
  keep = c;
  return ge::Tensor::view(dt, shape_of(c), const_cast<void*>(c.data()));
}

py::array array_from_tensor(const ge::Tensor& t) {
  // A copy: run outputs may be buffers the next run overwrites, constants may view a plan file.
  auto* owner = new ge::Tensor(t.clone());
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<ge::Tensor*>(p); });
  std::vector<py::ssize_t> shape(t.shape().dims().begin(), t.shape().dims().end());
  py::dtype dt(numpy_dtype_name(t.dtype()));
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t s = static_cast<py::ssize_t>(ge::dtype_size(t.dtype()));
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<py::ssize_t>(shape[i], 1);
  }
  return py::array(dt, shape, strides, const_cast<void*>(owner->data()), free_when_done);
}

}  // namespace gepy
