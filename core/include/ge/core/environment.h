// ge/core/environment.h — everything a manifest loaded: registries filled by plugins.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/core/manifest.h"
#include "ge/sdk/device_sim.h"
#include "ge/sdk/frontend.h"
#include "ge/sdk/kernel.h"
#include "ge/sdk/op_registry.h"
#include "ge/sdk/pass.h"
#include "ge/sdk/plan_section.h"
#include "ge/sdk/schedule.h"

namespace ge::core {

/// What one loaded plugin is and what it registered.
struct PluginInfo {
  std::string name, version, file, sha256;
  uint32_t abi_major = 0, abi_minor = 0;
  double load_ms = 0;
  std::vector<std::string> ops, kernels, backends, frontends, passes, fusion_rules, memory_planners, schedulers;
  std::vector<std::string> format_preferences;  ///< backends whose format preferences it registered
  std::vector<std::string> plan_sections;       ///< backend plan sections it registered (names)
  std::vector<std::string> cost_models, device_simulators;  ///< backends whose timing models it registered
  std::vector<std::string> options;  ///< option keys it declared (Registrar::declare_option)
};

/// The registries of one deployment (one manifest). Plugins stay loaded for the process.
class Environment {
 public:
  Manifest manifest;
  OpRegistry ops;
  KernelRegistry kernels;
  std::map<std::string, std::shared_ptr<Backend>> backends;
  std::vector<std::shared_ptr<Frontend>> frontends;
  /// Passes and fusion rules with the plugin that registered each.
  std::vector<std::pair<std::shared_ptr<Pass>, std::string>> passes;
  std::vector<std::pair<std::shared_ptr<FusionRule>, std::string>> fusion_rules;
  std::map<std::string, std::shared_ptr<MemoryPlanner>> memory_planners;
  /// Format preference function of each backend (Registrar::add_format_preference): the
  /// functions of every plugin that registered one for it, the latest registered asked first,
  /// the first answer taken (format_preference_chain: by plugin, in registration order).
  std::map<std::string, FormatPreferenceFn> format_preferences;
  std::map<std::string, std::vector<std::pair<std::string, FormatPreferenceFn>>> format_preference_chain;
  std::map<std::string, std::shared_ptr<Scheduler>> schedulers;
  /// Backend sections of plan files (Registrar::add_plan_section) with the plugin that
  /// registered each, in registration order.
  std::vector<std::pair<PlanSectionDef, std::string>> plan_sections;
  /// Node latency estimates for schedulers and reports: the roofline model over this machine's
  /// calibration (ge/core/calibration.h), or its conservative defaults when none is cached.
  std::shared_ptr<const CostModel> cost_model;
  /// A backend's own cost model and device simulation (Registrar::add_cost_model /
  /// add_device_simulator, ge/sdk/device_sim.h), by backend.
  std::map<std::string, CostModelFactory> cost_model_factories;
  std::map<std::string, DeviceSimulatorFn> device_simulators;
  std::vector<PluginInfo> plugins;
  /// Declared options by "section.key" (Registrar::declare_option; the core's own with plugin
  /// "core"). Manifest values are checked against them when the environment is loaded.
  std::map<std::string, OptionDecl> option_decls;

  /// Reads the manifest's options ("section.key" → TOML text), for the factories above.
  OptionReader option_reader() const;
  /// The cost model for graphs compiled for `backend`: the backend's own (built now from the
  /// manifest's options) when it registered one, else `cost_model`.
  std::shared_ptr<const CostModel> cost_model_for(const std::string& backend) const;
  /// Simulates `g` on `backend`'s device; std::nullopt when the backend registered no simulator.
  std::optional<DeviceSimulation> simulate_device(const std::string& backend, const Graph& g) const;

  /// The backend named `name`; throws ge::Error listing the registered backends, the manifest
  /// and the backend manifests beside the plugins (backend_manifests()).
  Backend& backend(const std::string& name) const;
  /// The frontend that accepts `path`; throws ge::Error naming the file.
  const Frontend& frontend_for(const std::string& path) const;
};

/// Loads the plugins a manifest lists (see plugin_host.cc for every check) and registers the
/// built-in ONNX frontend. Throws ge::Error naming the plugin and file at fault.
std::unique_ptr<Environment> load_environment(const Manifest& manifest);

/// The manifest installed beside the plugins (<exe>/../lib/ge/plugins/default.toml), or the one
/// in GE_MANIFEST when set.
std::string default_manifest_path();

/// The manifest of a backend the default manifest does not load: `NAME.toml` in the default
/// manifest's directory (e.g. lib/ge/plugins/ascend.toml for backend "ascend"), or "" when
/// there is none. gec uses it for `--backend NAME` and for plans of backend NAME.
std::string backend_manifest_path(const std::string& backend);
/// The backend manifests found there (file stems, sorted), for error messages.
std::vector<std::string> backend_manifests();

}  // namespace ge::core
