// Running a model in stages (ge/core/staging.h; docs/plan.md, "Data-dependent shapes"): the
// Staging of one binding, the eager evaluation of the cut node, and the executor's staged run.
#include <limits>

#include "ge/core/dynamic.h"
#include "ge/core/importer.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"
#include "stages.h"

namespace ge::core {

namespace {

// A spec for a stage model: the options of `base`, the bytes and signature of `bytes`.
DynamicSpec stage_spec(const DynamicSpec& base, std::string bytes, const std::string& name) {
  auto owned = std::make_shared<const std::string>(std::move(bytes));
  DynamicSpec s = spec_from_bytes(owned, name, onnx_signature(*owned, name));
  s.cache_size = base.cache_size;
  s.opt_level = base.opt_level;
  s.strict_numerics = base.strict_numerics;
  s.disabled = base.disabled;
  s.backend = base.backend;
  s.allow_empty = true;  // a stage takes what the one before computed: NonZero of zeros is [r, 0]
  return s;
}

}  // namespace

std::shared_ptr<Staging> make_staging(const DynamicSpec& spec, const Binding& b, const Environment& env,
                                      const CompileOptions& base, const Graph& g, const DataDependentShapeError& e) {
  const std::string what = "model '" + spec.source_name + "' at " + (b.empty() ? std::string("its shapes") : binding_str(b));
  auto known = [&](const std::string& name) -> const Tensor* {
    const Value* v = g.find_value(name);
    return v && v->data ? v->data.get() : nullptr;
  };
  auto type_of = [&](const std::string& name, DataType* dt, std::vector<int64_t>* dims) {
    const Value* v = g.find_value(name);
    if (!v || v->dtype == DataType::Undefined) return false;
    *dt = v->dtype;
    *dims = v->shape.dims();
    return true;
  };
  auto st = std::make_shared<Staging>();
  st->cut = cut_model(spec.source_bytes(), what, e.outputs, known, type_of);
  st->base = spec;
  st->env = &env;
  st->compile = base;
  log(LogLevel::Info, what + ": " + e.what() + "; it runs in stages cut at " + st->cut.node +
                          " (the node evaluated on the host, what follows specialized per shape)");
  if (!st->cut.prefix_bytes.empty()) {
    auto pp = std::make_shared<DynamicPlan>();
    pp->spec = stage_spec(spec, st->cut.prefix_bytes, spec.source_name + " before " + st->cut.node);
    st->prefix = pp;
    st->prefix_cache = std::make_shared<SpecializationCache>(pp, env, base);
  }
  return st;
}

// ---- stages

std::pair<std::shared_ptr<const DynamicPlan>, std::shared_ptr<SpecializationCache>> Staging::suffix_for(
    const std::vector<Tensor>& inputs) {
  const std::string key = rank_signature(inputs);
  std::lock_guard<std::mutex> lock(mu);
  auto it = suffixes.find(key);
  if (it != suffixes.end()) return it->second;
  auto sp = std::make_shared<DynamicPlan>();
  sp->spec = stage_spec(base, suffix_model(cut, inputs), base.source_name + " after " + cut.node);
  auto cache = std::make_shared<SpecializationCache>(sp, *env, compile);
  return suffixes[key] = {sp, cache};
}

std::vector<Tensor> Staging::run_eager(const std::vector<Tensor>& inputs) const {
  const std::string what = base.source_name + ": " + cut.node;
  FrontendOptions fo;
  for (size_t k = 0; k < inputs.size(); ++k) fo.input_shapes[cut.eager_input_names[k]] = inputs[k].shape().dims();
  std::unique_ptr<Graph> g = load_onnx_bytes(eager_model(cut, inputs), what, "", fo);
  for (size_t k = 0; k < inputs.size(); ++k) {
    Value* v = g->find_value(cut.eager_input_names[k]);
    v->dtype = inputs[k].dtype();
    v->shape = inputs[k].shape();
    v->data = std::make_shared<const Tensor>(inputs[k]);
  }
  ImportOptions io;
  io.backend = "";  // evaluated by the host backend's kernels, whatever the plan's backend
  io.host_backend = compile.host_backend;
  io.fold_limit_elements = std::numeric_limits<int64_t>::max();
  try {
    propagate_shapes(*g, *env, io);
  } catch (const DataDependentShapeError& e) {
    throw Error(what + ": its output shape depends on its input values and no " + io.host_backend +
                " kernel evaluates it (" + e.what() + ")");
  }
  std::vector<Tensor> out;
  for (const Value* v : g->outputs()) {
    if (!v->data)
      throw Error(what + ": output '" + v->name() + "' was not evaluated on the host (" + io.host_backend +
                  " has no kernel that runs it at these inputs)");
    out.push_back(*v->data);
  }
  return out;
}

DynamicExecutor::~DynamicExecutor() = default;

std::vector<Tensor> DynamicExecutor::run_stages(const std::string& key, const std::shared_ptr<Staging>& st,
                                                const std::vector<Tensor>& inputs, DynamicRunInfo& info) {
  StagedRun* r = nullptr;
  for (auto it = staged_.begin(); it != staged_.end(); ++it)
    if (it->first == key) {
      staged_.splice(staged_.begin(), staged_, it);
      r = staged_.front().second.get();
      break;
    }
  if (!r || r->staging != st) {  // new, or the cache compiled this binding again after an eviction
    if (r) staged_.pop_front();
    staged_.emplace_front(key, std::make_unique<StagedRun>());
    r = staged_.front().second.get();
    r->staging = st;
    while (staged_.size() > std::max<size_t>(1, plan_->spec.cache_size)) staged_.pop_back();
  }
  const StageCut& cut = st->cut;
  info.cut_node = cut.node;
  info.arena_bytes = 0;
  auto note = [&](const DynamicExecutor& ex) {
    const DynamicRunInfo& s = ex.last_run();
    info.stages.push_back(s);
    info.compiled |= s.compiled;
    info.compile_ms += s.compiled ? s.compile_ms : 0;
    info.built |= s.built;
    info.build_ms += s.built ? s.build_ms : 0;
    info.arena_bytes += s.arena_bytes;
  };
  std::vector<Tensor> pre, eager, post;
  auto pick = [&](const StageSource& s) -> const Tensor& {
    switch (s.kind) {
      case StageSource::Input: return inputs.at(s.index);
      case StageSource::Prefix: return pre.at(s.index);
      case StageSource::Eager: return eager.at(s.index);
      case StageSource::Suffix: return post.at(s.index);
    }
    throw Error("a staged run names a stage it does not have");
  };
  if (st->prefix) {
    if (!r->prefix) r->prefix = std::make_unique<DynamicExecutor>(st->prefix, st->prefix_cache, env_, opts_);
    std::vector<Tensor> in;
    for (size_t k : cut.prefix_inputs) in.push_back(inputs.at(k));
    pre = r->prefix->run(in);
    note(*r->prefix);
  }
  {
    std::vector<Tensor> in;
    for (const StageSource& s : cut.eager_inputs) in.push_back(pick(s));
    eager = st->run_eager(in);
  }
  if (!cut.suffix_template.empty()) {
    std::vector<Tensor> in;
    for (const StageSource& s : cut.suffix_inputs) in.push_back(pick(s));
    auto [plan, cache] = st->suffix_for(in);
    std::unique_ptr<DynamicExecutor>& ex = r->suffix[rank_signature(in)];
    if (!ex) ex = std::make_unique<DynamicExecutor>(plan, cache, env_, opts_);
    post = ex->run(in);
    note(*ex);
  }
  std::vector<Tensor> out;
  for (const StageSource& s : cut.outputs) out.push_back(pick(s));
  last_exe_ = nullptr;
  return out;
}

}  // namespace ge::core
