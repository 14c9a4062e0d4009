// ge::LoadedPlan and ge::Session: a plan loaded once, run from many threads, each Session with
// its own Executable (arena, buffers, kernels) over the one shared, read-only graph.
#include "ge/core/session.h"

#include <chrono>

#include "ge/sdk/error.h"

namespace ge {

std::shared_ptr<LoadedPlan> LoadedPlan::load(const std::string& path, const PlanLoadOptions& opts) {
  // A plan of a backend with its own manifest beside the plugins (ascend.toml) loads through it.
  std::string backend_manifest;
  try {
    if (core::is_plan_file(path)) backend_manifest = core::backend_manifest_path(core::plan_backend(path));
  } catch (const Error&) {
    // Unreadable: load_plan reports what is wrong with the file.
  }
  return load(path, backend_manifest.empty() ? core::default_manifest_path() : backend_manifest, opts);
}

std::shared_ptr<LoadedPlan> LoadedPlan::load(const std::string& path, const std::string& manifest,
                                             const PlanLoadOptions& opts) {
  std::shared_ptr<const core::Environment> env = core::load_environment(core::load_manifest(manifest));
  return load(path, std::move(env), opts);
}

std::shared_ptr<LoadedPlan> LoadedPlan::load(const std::string& path, std::shared_ptr<const core::Environment> env,
                                             const PlanLoadOptions& opts) {
  auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<LoadedPlan> p(new LoadedPlan());
  p->env_ = std::move(env);
  p->threads_ = std::max(1, opts.threads);
  p->contents_ = core::load_plan(path, *p->env_);
  p->finish_load(path, opts);
  p->load_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

std::shared_ptr<LoadedPlan> LoadedPlan::load_bytes(std::shared_ptr<const std::vector<uint8_t>> bytes,
                                                   const std::string& what,
                                                   std::shared_ptr<const core::Environment> env,
                                                   const PlanLoadOptions& opts) {
  auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<LoadedPlan> p(new LoadedPlan());
  p->env_ = std::move(env);
  p->threads_ = std::max(1, opts.threads);
  const uint8_t* data = bytes->data();
  const size_t size = bytes->size();
  p->contents_ = core::parse_plan(data, size, std::const_pointer_cast<std::vector<uint8_t>>(bytes), *p->env_, what);
  p->finish_load(what, opts);
  p->load_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

void LoadedPlan::finish_load(const std::string& what, const PlanLoadOptions& opts) {
  what_ = what;
  label_ = opts.source_kind + " '" + what + "'";
  if (contents_.dynamic) {
    core::DynamicPlan& dp = *contents_.dynamic;
    if (!opts.load.outputs.empty())
      throw Error(label_ + " is dynamic: keeping only some outputs at load is not supported for it");
    try {
      for (core::GearGraph& g : dp.gears) load_passes_ = core::run_load_time_passes(*g.graph, *env_, contents_.backend, opts.load);
    } catch (const Error& e) {
      throw Error(label_ + ": " + e.what());
    }
    auto info = [](const core::SymbolicTensor& t) {
      std::vector<int64_t> dims;
      for (const core::SymbolicDim& d : t.dims) dims.push_back(d.symbolic() ? -1 : d.value);
      return TensorInfo{t.name, t.dtype, Shape(dims), t.dims_str()};
    };
    for (const core::SymbolicTensor& t : dp.spec.inputs) inputs_.push_back(info(t));
    for (const core::SymbolicTensor& t : dp.spec.outputs) outputs_.push_back(info(t));
    core::CompileOptions base = core::CompileOptions::from_manifest(env_->manifest);
    base.threads = threads_;
    spec_cache_ = std::make_shared<core::SpecializationCache>(contents_.dynamic, *env_, base);
    return;
  }
  try {
    load_passes_ = core::run_load_time_passes(*contents_.graph, *env_, contents_.backend, opts.load);
  } catch (const Error& e) {
    throw Error(label_ + ": " + e.what());
  }
  for (const Value* v : contents_.graph->inputs()) inputs_.push_back({v->name(), v->dtype, v->shape, ""});
  for (const Value* v : contents_.graph->outputs()) outputs_.push_back({v->name(), v->dtype, v->shape, ""});
}

core::SpecializationStats LoadedPlan::specialization_stats() const {
  return spec_cache_ ? spec_cache_->stats() : core::SpecializationStats{};
}

Session LoadedPlan::new_session() const {
  if (contents_.dynamic)
    return Session(shared_from_this(),
                   std::make_unique<core::DynamicExecutor>(contents_.dynamic, spec_cache_, *env_,
                                                           core::ExecOptions{contents_.backend, threads_}));
  std::unique_ptr<core::Executable> exe;
  {
    std::lock_guard<std::mutex> lock(build_mutex_);
    // A kernel's refusal at build names its node; the plan it came from is said first.
    try {
      exe = std::make_unique<core::Executable>(contents_.graph, *env_, core::ExecOptions{contents_.backend, threads_});
    } catch (const UnsupportedError& e) {
      throw UnsupportedError(label_ + ": " + e.what());
    } catch (const Error& e) {
      throw Error(label_ + ": " + e.what());
    }
  }
  return Session(shared_from_this(), std::move(exe));
}

std::vector<Tensor> LoadedPlan::run(const std::vector<Tensor>& inputs) const { return new_session().run(inputs); }

Session::Session(std::shared_ptr<const LoadedPlan> plan, std::unique_ptr<core::Executable> exe)
    : plan_(std::move(plan)), exe_(std::move(exe)) {}

Session::Session(std::shared_ptr<const LoadedPlan> plan, std::unique_ptr<core::DynamicExecutor> dyn)
    : plan_(std::move(plan)), dyn_(std::move(dyn)) {}

std::vector<Tensor> Session::run(const std::vector<Tensor>& inputs) {
  if (!dyn_) return exe_->run(inputs);
  std::vector<Tensor> out;
  try {
    out = dyn_->run(inputs);
  } catch (const UnsupportedError& e) {
    throw UnsupportedError(plan_->label_ + ": " + e.what());
  } catch (const Error& e) {
    throw Error(plan_->label_ + ": " + e.what());
  }
  ran_ = true;
  return out;
}

const core::DynamicRunInfo* Session::last_run() const { return dyn_ && ran_ ? &dyn_->last_run() : nullptr; }

std::vector<Tensor> Session::run(const std::map<std::string, Tensor>& inputs) {
  std::vector<Tensor> ordered;
  for (const TensorInfo& i : plan_->inputs()) {
    auto it = inputs.find(i.name);
    if (it == inputs.end()) throw Error("input '" + i.name + "' is not bound");
    ordered.push_back(it->second);
  }
  for (auto& [name, t] : inputs) {
    bool known = false;
    for (const TensorInfo& i : plan_->inputs()) known |= i.name == name;
    if (!known) throw Error("'" + name + "' is not an input of the plan");
  }
  return run(ordered);
}

}  // namespace ge
