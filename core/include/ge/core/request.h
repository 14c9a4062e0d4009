// ge/core/request.h — one compile or run request: what a caller (gec's command line, the Python
// module) asks for, turned into the manifest, the environment and the compile options in one
// place, so that both callers mean the same by the same words (docs/manifest.md).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/core/manifest.h"
#include "ge/core/pipeline.h"

namespace ge::core {

struct CompileRequest {
  /// Manifest file; "" = the backend's own manifest beside the plugins (NAME.toml, e.g.
  /// ascend.toml) when `backend` (or the plan's backend) has one, else the default manifest.
  std::string manifest;
  /// The model or plan file the request is about ("" = none yet). A plan runs on the backend it
  /// was compiled for: another `backend` is refused before any manifest is read.
  std::string model;
  std::string backend;             ///< "" = the plan's, else the manifest's [backend] name
  std::vector<std::string> sets;   ///< manifest overrides SECTION.KEY=VALUE (apply_override), in order
  std::string opt_level;           ///< "O0".."O3"; "" = the manifest's
  std::string numerics;            ///< "strict" | "relaxed"; "" = the manifest's
  std::string scheduler;           ///< = scheduler.name; "" = the manifest's
  std::optional<std::string> soc_version;  ///< = ascend.soc_version (given even as "")
  std::vector<std::string> disable;        ///< passes and fusion rules, added to [compile] disable
  int threads = 0;                 ///< kernel threads; 0 = the manifest's [backend] threads, else all cores
  // How compilation behaves (not manifest settings).
  bool verify_each = false, fail_on_pass_error = false;
  std::vector<std::string> print_after;

  /// The manifest with every override of the request applied, in the order: `sets`, then
  /// opt_level, numerics, backend, scheduler, soc_version, disable. Throws ge::Error naming the
  /// override at fault.
  Manifest resolve_manifest() const;
  /// Loads the resolved manifest's plugins (their option values checked, ge/sdk/options.h) and
  /// refuses, before any import, a backend no plugin registers (Environment::backend), a plan
  /// asked to run on another backend, and a soc_version no loaded plugin reads.
  std::unique_ptr<Environment> load_environment() const;
  /// CompileOptions::from_manifest(env.manifest) with this request's behaviour and thread budget.
  CompileOptions compile_options(const Environment& env) const;
  /// `threads`, else the manifest's [backend] threads, else the hardware threads (>= 1).
  int thread_count(const Environment& env) const;
};

/// The refusal of `--backend asked` for a plan compiled for `plan_backend` (a plan runs on its own).
std::string plan_backend_refusal(const std::string& plan, const std::string& plan_backend, const std::string& asked);

}  // namespace ge::core
