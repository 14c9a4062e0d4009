// gec and execution plans: `gec compile MODEL -o M.gep` writes one, `gec run M.gep` (and any
// subcommand that calls load_plan_model) runs it without importing or compiling.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "common.h"
#include "ge/core/plan.h"
#include "ge/sdk/error.h"

namespace gec {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
}  // namespace

Compiled load_plan_model(const std::string& path, const ge::core::Environment& env, const CommonOptions& common) {
  Compiled c;
  // Compile-time settings cannot change a compiled plan: refuse them rather than ignore them.
  auto refuse = [&](const std::string& what) {
    throw ge::Error(what + " applies when compiling; '" + path + "' is a compiled plan (compile the model with it)");
  };
  if (!common.input_shapes.empty()) refuse("--input-shape");
  if (!common.disable.empty()) refuse("--disable");
  if (!common.opt_level.empty()) refuse("-O");
  if (!common.numerics.empty()) refuse("--numerics");
  if (!common.scheduler.empty()) refuse("--scheduler");
  if (!common.print_after.empty()) refuse("--print-after");
  for (const std::string& s : common.sets) {
    const std::string key = s.substr(0, s.find('='));
    if (ge::core::is_compile_time_option(key, env)) refuse("--set " + key);
  }
  auto t0 = Clock::now();
  ge::core::PlanContents plan = ge::core::load_plan(path, env);
  // A --manifest given for the run that sets a compile-time key to another value than the plan
  // was compiled with would otherwise be ignored: refused, naming its file and line.
  if (!common.manifest.empty()) ge::core::check_manifest_matches_plan(plan, env, path);
  if (plan.dynamic)
    throw ge::Error("plan '" + path + "' is dynamic (symbolic input dims, or output shapes that depend on values): "
                    "`gec run` it with --inputs or --check (the shapes come from the inputs); `gec inspect` lists its gears");
  // Only runtime_safe passes run at load; gec keeps every output, so nothing is pruned.
  ge::core::run_load_time_passes(*plan.graph, env, plan.backend, {});
  if (!common.backend.empty() && common.backend != plan.backend)
    throw ge::Error(plan_backend_refusal(path, plan.backend, common.backend));
  c.graph = plan.graph;
  c.options.backend = plan.backend;
  c.nodes_before = c.graph->num_nodes();
  c.threads = common.thread_count(env);
  c.env = &env;
  const double file_ms = ms_since(t0);
  // A kernel that refuses its node at build (a corrupted tiling, an attribute it cannot run)
  // names the node; the plan it came from is said first, as for every other refusal of the file.
  try {
    c.exe = std::make_unique<ge::core::Executable>(c.graph, env, ge::core::ExecOptions{plan.backend, c.threads});
  } catch (const ge::Error& e) {
    const std::string prefix = "plan '" + path + "'";
    if (std::string(e.what()).rfind(prefix, 0) == 0) throw;
    throw ge::Error(prefix + ": " + e.what());
  }
  // From file to a runnable executable: map, checksum, parse, load-time passes, kernel builds.
  c.plan_load_ms = ms_since(t0);
  std::printf("plan %s: %llu bytes (header %llu, weights %llu), loaded in %.1f ms (file %.1f ms, kernels %.1f ms)\n",
              path.c_str(), static_cast<unsigned long long>(plan.file_bytes),
              static_cast<unsigned long long>(plan.header_bytes), static_cast<unsigned long long>(plan.weights_bytes),
              c.plan_load_ms, file_ms, c.plan_load_ms - file_ms);
  return c;
}

void write_plan(const Compiled& c, const ge::core::Environment& env, const std::string& path) {
  auto t0 = Clock::now();
  ge::core::save_plan(*c.graph, env, c.options.backend, path);
  std::printf("plan: wrote %s in %.1f ms\n", path.c_str(), ms_since(t0));
}

}  // namespace gec
