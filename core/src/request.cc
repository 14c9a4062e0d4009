// One compile or run request (ge/core/request.h): manifest + overrides → environment and options.
#include "ge/core/request.h"

#include <algorithm>
#include <thread>

#include "ge/core/plan.h"
#include "ge/sdk/error.h"

namespace ge::core {

std::string plan_backend_refusal(const std::string& plan, const std::string& plan_backend, const std::string& asked) {
  return "--backend " + asked + ": plan '" + plan + "' was compiled for backend '" + plan_backend +
         "'; a compiled plan runs on its own backend (drop --backend, or recompile the model with --backend " + asked + ")";
}

namespace {

/// The backend the request needs loaded: `backend`, else the one a plan file was compiled for
/// (when no manifest is named). Refuses another backend than a plan's.
std::string wanted_backend(const CompileRequest& r) {
  std::string want = r.backend;
  if (!r.model.empty() && is_plan_file(r.model)) {
    std::string planned;
    try {
      planned = plan_backend(r.model);
    } catch (const Error&) {
      // Unreadable: load_plan reports what is wrong with the file.
    }
    // Refused before any manifest is loaded (that manifest may not even hold the plan's plugins).
    if (!r.backend.empty() && !planned.empty() && r.backend != planned)
      throw Error(plan_backend_refusal(r.model, planned, r.backend));
    if (want.empty() && r.manifest.empty()) want = planned;
  }
  return want;
}

}  // namespace

Manifest CompileRequest::resolve_manifest() const {
  const std::string want = wanted_backend(*this);
  std::string path = manifest;
  if (path.empty()) {
    path = want.empty() ? "" : backend_manifest_path(want);
    if (path.empty()) path = default_manifest_path();
  }
  Manifest m = load_manifest(path);
  for (const std::string& s : sets) apply_override(m, s);
  if (!opt_level.empty()) apply_override(m, "compile.opt_level=\"" + opt_level + "\"");
  if (!numerics.empty()) apply_override(m, "compile.numerics=\"" + numerics + "\"");
  if (!backend.empty()) m.backend = backend;
  if (!scheduler.empty()) apply_override(m, "scheduler.name=\"" + scheduler + "\"");
  if (soc_version) apply_override(m, "ascend.soc_version=\"" + *soc_version + "\"");
  for (const std::string& d : disable) m.disabled_passes.push_back(d);
  return m;
}

std::unique_ptr<Environment> CompileRequest::load_environment() const {
  const std::string want = wanted_backend(*this);
  std::unique_ptr<Environment> env = core::load_environment(resolve_manifest());
  // Refused here, before any import or load.
  if (!want.empty()) env->backend(want);
  // A soc_version without the ascend plugin (no backend ascend, no .om): said before import, in
  // terms of the option given (the generic check would blame "--set" after the import).
  if (soc_version && !env->option_decls.count("ascend.soc_version")) {
    bool read = false;
    for (auto& [p, src] : env->passes)
      for (const std::string& o : p->info().options) read |= o == "ascend.soc_version";
    if (!read)
      throw Error("--soc-version applies to backend ascend, and no loaded plugin reads ascend.soc_version "
                  "(add --backend ascend, or run an .om; docs/ascend.md)");
  }
  return env;
}

CompileOptions CompileRequest::compile_options(const Environment& env) const {
  CompileOptions o = CompileOptions::from_manifest(env.manifest);
  o.verify_each = verify_each;
  o.print_after = print_after;
  o.fail_on_pass_error = fail_on_pass_error;
  o.threads = thread_count(env);
  return o;
}

int CompileRequest::thread_count(const Environment& env) const {
  if (threads > 0) return threads;
  if (env.manifest.threads > 0) return env.manifest.threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace ge::core
