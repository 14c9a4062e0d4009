// The plugin host: loads the libraries a manifest lists through Boost.DLL, checks each one
// (file, loader, entry symbol, SDK ABI, version requirement, sha256, name) and lets it fill
// the environment's registries. A plugin whose registration throws leaves nothing behind.
#include <dlfcn.h>
#include <sys/stat.h>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "ge/core/calibration.h"
#include "elf_check.h"
#include "ge/core/environment.h"
#include "ge/core/file_io.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/plan.h"
#include "ge/core/plugin_loading.h"
#include "ge/core/semver.h"
#include "ge/core/sha256.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"
#include "ge/sdk/plugin.h"

namespace ge::core {

namespace fs = std::filesystem;

namespace {

// Libraries are never unloaded while the process runs (DESIGN.md, Plugins); every kernel a
// plugin creates also holds its library, so the rule survives a future change to unloading.
using LibPtr = std::shared_ptr<boost::dll::shared_library>;
std::vector<LibPtr>& loaded_libraries() {
  static auto* libs = new std::vector<LibPtr>();
  return *libs;
}

class LibraryBoundKernel : public Kernel {
 public:
  LibraryBoundKernel(std::unique_ptr<Kernel> k, LibPtr lib) : inner_(std::move(k)), lib_(std::move(lib)) {}
  ~LibraryBoundKernel() override { inner_.reset(); }
  void run(KernelIO& io) override { inner_->run(io); }
  std::string impl_name() const override { return inner_->impl_name(); }

 private:
  std::unique_ptr<Kernel> inner_;
  LibPtr lib_;
};

/// The format preference of `backend` the layout pass asks: every plugin's function for that
/// backend, the latest registered first (a plugin loaded after the backend answers for its own
/// kernels' ops, and may override the backend's answer); the first answer given is taken, none
/// means plain layouts only.
void compose_format_preferences(Environment& env, const std::string& backend) {
  auto& chain = env.format_preference_chain[backend];
  if (chain.empty()) {
    env.format_preferences.erase(backend);
    env.format_preference_chain.erase(backend);
    return;
  }
  std::vector<FormatPreferenceFn> fns;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) fns.push_back(it->second);
  env.format_preferences[backend] = [fns = std::move(fns)](const Node& n) -> std::optional<NodeFormats> {
    for (const FormatPreferenceFn& f : fns)
      if (std::optional<NodeFormats> r = f(n)) return r;
    return std::nullopt;
  };
}

/// Adds a declaration (Registrar::declare_option): "section.key" with a section that is not the
/// manifest's own, a default of the declared type and within its range, declared once.
void declare_option_in(Environment& env, OptionDecl d, const std::string& plugin) {
  const std::string who = plugin == "core" ? "the core" : "plugin '" + plugin + "'";
  const size_t dot = d.key.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == d.key.size() || d.key.find('.', dot + 1) != std::string::npos)
    throw Error(who + " declares option '" + d.key + "': the key must be SECTION.KEY");
  const std::string section = d.key.substr(0, dot);
  if (section == "include" || section == "plugin" || section == "compile" || section == "backend")
    throw Error(who + " declares option '" + d.key + "' in [" + section + "], a section of the manifest itself");
  if (auto it = env.option_decls.find(d.key); it != env.option_decls.end())
    throw Error("option '" + d.key + "' declared twice: by " + (it->second.plugin == "core" ? "the core" : "plugin '" + it->second.plugin + "'") +
                " and by " + who);
  try {
    parse_option(d, option_data_toml(d.default_value));
  } catch (const ConfigError& e) {
    throw Error(who + " declares option '" + d.key + "' with a default that is not valid: " + e.what());
  }
  d.plugin = plugin;
  env.option_decls.emplace(d.key, std::move(d));
}

class HostRegistrar : public Registrar {
 public:
  HostRegistrar(Environment& env, PluginInfo& info, std::string dir, LibPtr lib)
      : env_(env), info_(info), dir_(std::move(dir)), lib_(std::move(lib)) {}
  const std::string& plugin_name() const override { return info_.name; }
  const std::string& plugin_dir() const override { return dir_; }
  std::string options_toml() const override {
    auto it = env_.manifest.sections.find(info_.name);
    if (it == env_.manifest.sections.end()) return "";
    std::string text;
    for (auto& [k, v] : it->second) text += k + " = " + v.toml + "\n";
    return text;
  }
  void add_op(OpDef def) override {
    if (info_.abi_major == 1 && info_.abi_minor < 6)
      throw Error("plugin '" + info_.name + "' (SDK ABI 1." + std::to_string(info_.abi_minor) + ") registers op '" +
                  def.op_type + "', but OpDef changed in SDK ABI 1.6 (op contracts): rebuild the plugin against this SDK");
    def.source = info_.name;
    std::string label = def.op_type + (def.domain.empty() ? "" : "@" + def.domain) + "-" + std::to_string(def.since_version);
    env_.ops.add(std::move(def));
    info_.ops.push_back(label);
  }
  void set_shape_inference(const std::string& domain, const std::string& op_type, ShapeInferenceFn fn) override {
    // Another plugin's definitions get this inference: keep them as they were, for roll_back.
    if (!replaced_infer_.count({domain, op_type})) {
      std::vector<OpDef>& before = replaced_infer_[{domain, op_type}];
      for (const OpDef* d : env_.ops.all())
        if (d->domain == domain && d->op_type == op_type && d->source != info_.name) before.push_back(*d);
    }
    LibPtr lib = lib_;
    env_.ops.set_infer(domain, op_type, [fn = std::move(fn), lib](InferContext& c) { fn(c); });
  }
  void add_function_expander(const std::string& domain, const std::string& op_type, FunctionExpander fx) override {
    if (!replaced_expanders_.count({domain, op_type})) {
      const FunctionExpander* old = env_.ops.expander(domain, op_type);
      replaced_expanders_[{domain, op_type}] = old ? std::optional<FunctionExpander>(*old) : std::nullopt;
    }
    fx.source = info_.name;
    LibPtr lib = lib_;
    auto has = std::move(fx.has_body);
    auto expand = std::move(fx.expand);
    fx.has_body = [has = std::move(has), lib](int64_t opset) { return has(opset); };
    fx.expand = [expand = std::move(expand), lib](Node& n, int64_t opset) { return expand(n, opset); };
    env_.ops.set_expander(domain, op_type, std::move(fx));
  }
  void add_kernel(KernelDef def) override {
    if (info_.abi_major == 1 && info_.abi_minor < 7)
      throw Error("plugin '" + info_.name + "' (SDK ABI 1." + std::to_string(info_.abi_minor) + ") registers kernel '" +
                  def.backend + ":" + def.op_type +
                  "', but KernelDef and KernelBuildContext changed in SDK ABI 1.7 (kernels that allocate their outputs): "
                  "rebuild the plugin against this SDK");
    def.source = info_.name;
    LibPtr lib = lib_;
    KernelFactory inner = std::move(def.factory);
    def.factory = [inner, lib](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
      return std::make_unique<LibraryBoundKernel>(inner(ctx), lib);
    };
    info_.kernels.push_back(def.backend + ":" + def.op_type);
    env_.kernels.add(std::move(def));
  }
  void add_backend(std::shared_ptr<Backend> b) override {
    std::string n = b->name();
    if (env_.backends.count(n)) throw Error("backend '" + n + "' registered twice");
    env_.backends[n] = keep_alive(std::move(b));
    info_.backends.push_back(n);
    added_backends_.push_back(n);
  }
  void add_frontend(std::shared_ptr<Frontend> f) override {
    info_.frontends.push_back(f->name());
    env_.frontends.push_back(std::move(f));
    ++added_frontends_;
  }
  void add_pass(std::shared_ptr<Pass> p) override {
    if (info_.abi_major == 1 && info_.abi_minor < 6)
      throw Error("plugin '" + info_.name + "' (SDK ABI 1." + std::to_string(info_.abi_minor) +
                  ") registers a pass, but PassInfo changed in SDK ABI 1.6 (after, before): rebuild the plugin against this SDK");
    std::string n = p->info().name;
    for (auto& [q, src] : env_.passes)
      if (q->info().name == n) throw Error("pass '" + n + "' registered twice: by '" + src + "' and by '" + info_.name + "'");
    env_.passes.emplace_back(keep_alive(std::move(p)), info_.name);
    info_.passes.push_back(n);
  }
  void add_fusion_rule(std::shared_ptr<FusionRule> r) override {
    std::string n = r->info().name;
    for (auto& [q, src] : env_.fusion_rules)
      if (q->info().name == n)
        throw Error("fusion rule '" + n + "' registered twice: by '" + src + "' and by '" + info_.name + "'");
    env_.fusion_rules.emplace_back(keep_alive(std::move(r)), info_.name);
    info_.fusion_rules.push_back(n);
  }
  void add_memory_planner(std::shared_ptr<MemoryPlanner> p) override {
    std::string n = p->name();
    if (env_.memory_planners.count(n)) throw Error("memory planner '" + n + "' registered twice");
    env_.memory_planners[n] = keep_alive(std::move(p));
    info_.memory_planners.push_back(n);
    added_planners_.push_back(n);
  }
  void add_format_preference(const std::string& backend, FormatPreferenceFn fn) override {
    auto& chain = env_.format_preference_chain[backend];
    for (auto& [who, f] : chain)
      if (who == info_.name)
        throw Error("format preferences of backend '" + backend + "' registered twice by plugin '" + info_.name + "'");
    LibPtr lib = lib_;
    chain.emplace_back(info_.name, [fn = std::move(fn), lib](const Node& n) { return fn(n); });
    compose_format_preferences(env_, backend);
    added_preferences_.push_back(backend);
    info_.format_preferences.push_back(backend);
  }
  void add_scheduler(std::shared_ptr<Scheduler> s) override {
    std::string n = s->name();
    if (env_.schedulers.count(n)) throw Error("scheduler '" + n + "' registered twice");
    for (OptionDecl& d : s->option_decls()) {
      if (d.key.rfind("scheduler.", 0) != 0)
        throw Error("scheduler '" + n + "' of plugin '" + info_.name + "' declares option '" + d.key + "' outside [scheduler]");
      declare_option(std::move(d));
    }
    env_.schedulers[n] = keep_alive(std::move(s));
    info_.schedulers.push_back(n);
    added_schedulers_.push_back(n);
  }
  void add_plan_section(PlanSectionDef def) override {
    std::string who = "plan section '" + def.name + "' of plugin '" + info_.name + "'";
    if (def.name.empty() || def.backend.empty()) throw Error("a plan section of plugin '" + info_.name + "' has no name or backend");
    if (!def.write || !def.validate) throw Error(who + " has no writer or no validator");
    for (auto& [d, src] : env_.plan_sections)
      if (d.name == def.name) throw Error("plan section '" + def.name + "' registered twice: by '" + src + "' and by '" + info_.name + "'");
    // Each function holds the plugin's library, like every other object a plugin hands out.
    LibPtr lib = lib_;
    def.write = [f = std::move(def.write), lib](const PlanSectionContext& c) { return f(c); };
    def.validate = [f = std::move(def.validate), lib](const PlanSectionContext& c, const std::string& b) { f(c, b); };
    if (def.describe)
      def.describe = [f = std::move(def.describe), lib](const std::string& b, bool detail) { return f(b, detail); };
    info_.plan_sections.push_back(def.name);
    env_.plan_sections.emplace_back(std::move(def), info_.name);
  }
  void add_cost_model(const std::string& backend, CostModelFactory factory) override {
    if (env_.cost_model_factories.count(backend))
      throw Error("cost model of backend '" + backend + "' registered twice (second by plugin '" + info_.name + "')");
    LibPtr lib = lib_;
    env_.cost_model_factories[backend] = [factory = std::move(factory), lib](const OptionReader& o) { return factory(o); };
    added_cost_models_.push_back(backend);
    info_.cost_models.push_back(backend);
  }
  void add_device_simulator(const std::string& backend, DeviceSimulatorFn fn) override {
    if (info_.abi_major == 1 && info_.abi_minor < 4)
      throw Error("plugin '" + info_.name + "' (SDK ABI 1." + std::to_string(info_.abi_minor) +
                  ") registers a device simulator for backend '" + backend +
                  "', but DeviceSimulation changed in SDK ABI 1.4 (bound_us): rebuild the plugin against this SDK");
    if (env_.device_simulators.count(backend))
      throw Error("device simulator of backend '" + backend + "' registered twice (second by plugin '" + info_.name + "')");
    LibPtr lib = lib_;
    env_.device_simulators[backend] = [fn = std::move(fn), lib](const Graph& g, const OptionReader& o) { return fn(g, o); };
    added_simulators_.push_back(backend);
    info_.device_simulators.push_back(backend);
  }
  void declare_option(OptionDecl decl) override {
    const std::string key = decl.key;
    declare_option_in(env_, std::move(decl), info_.name);
    info_.options.push_back(key);
  }
  /// Removes everything this plugin registered.
  void roll_back() {
    for (auto& k : info_.options) env_.option_decls.erase(k);
    for (auto& b : added_cost_models_) env_.cost_model_factories.erase(b);
    for (auto& b : added_simulators_) env_.device_simulators.erase(b);
    for (auto& b : added_preferences_) {
      std::erase_if(env_.format_preference_chain[b], [&](auto& e) { return e.first == info_.name; });
      compose_format_preferences(env_, b);
    }
    for (auto& n : added_planners_) env_.memory_planners.erase(n);
    for (auto& n : added_schedulers_) env_.schedulers.erase(n);
    auto mine = [&](auto& entry) { return entry.second == info_.name; };
    std::erase_if(env_.passes, mine);
    std::erase_if(env_.fusion_rules, mine);
    std::erase_if(env_.plan_sections, mine);
    env_.ops.remove_source(info_.name);
    // Other plugins' definitions and expanders this one replaced get theirs back (set_infer
    // null first: a definition that had no inference must not keep this plugin's).
    for (auto& [op, defs] : replaced_infer_) {
      if (!env_.ops.find_any(op.first, op.second)) continue;
      env_.ops.set_infer(op.first, op.second, nullptr);
      for (const OpDef& d : defs) env_.ops.add_or_replace(d);
    }
    for (auto& [op, fx] : replaced_expanders_)
      if (fx && env_.ops.find_any(op.first, op.second)) env_.ops.set_expander(op.first, op.second, *fx);
    env_.kernels.remove_source(info_.name);
    for (auto& b : added_backends_) env_.backends.erase(b);
    env_.frontends.resize(env_.frontends.size() - added_frontends_);
  }

 private:
  Environment& env_;
  PluginInfo& info_;
  std::string dir_;
  LibPtr lib_;
  std::vector<std::string> added_preferences_;
  std::vector<std::string> added_cost_models_, added_simulators_;
  /// (domain, op_type) → the definitions of other plugins before set_shape_inference, and the
  /// expander before add_function_expander (none: there was none).
  std::map<std::pair<std::string, std::string>, std::vector<OpDef>> replaced_infer_;
  std::map<std::pair<std::string, std::string>, std::optional<FunctionExpander>> replaced_expanders_;
  /// The same object, owning a reference to the plugin's library as well.
  template <class T>
  std::shared_ptr<T> keep_alive(std::shared_ptr<T> obj) {
    T* raw = obj.get();
    return std::shared_ptr<T>(raw, [obj, lib = lib_](T*) mutable { obj.reset(); });
  }
  std::vector<std::string> added_backends_, added_planners_, added_schedulers_;
  size_t added_frontends_ = 0;
};

std::string where(const PluginEntry& e) { return "plugin '" + e.name + "' (" + e.path + ", listed at " + e.origin + ")"; }

void load_one(Environment& env, const PluginEntry& e) {
  auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  if (!fs::exists(e.path, ec)) throw Error(where(e) + ": file does not exist" + (ec ? ": " + ec.message() : ""));
  // A regular, complete ELF object for this machine: dlopen of a FIFO blocks, of a truncated
  // library faults when its missing pages are touched.
  const std::string bytes = read_regular_file(e.path, where(e) + ": file", uint64_t{1} << 30);
  check_elf_shared_object(bytes, where(e));
  PluginInfo info;
  info.file = e.path;
  info.sha256 = sha256_hex(bytes);
  if (!e.sha256.empty() && info.sha256 != e.sha256)
    throw Error(where(e) + ": sha256 mismatch: the manifest pins " + e.sha256 + ", the file has " + info.sha256);

  // dlopen first ourselves: Boost.DLL reports most failures generically, dlerror() has the
  // loader's reason (BUILD-NOTES.md). The handle is released once Boost holds its own.
  void* probe = dlopen(e.path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!probe) {
    const char* why = dlerror();
    throw Error(where(e) + ": not a loadable shared library: " + std::string(why ? why : "unknown loader error"));
  }
  LibPtr lib;
  try {
    lib = std::make_shared<boost::dll::shared_library>(
        e.path, boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& ex) {
    dlclose(probe);
    throw Error(where(e) + ": not a loadable shared library: " + ex.what());
  }
  dlclose(probe);
  if (!lib->has(GE_PLUGIN_ENTRY_SYMBOL))
    throw Error(where(e) + ": entry symbol '" GE_PLUGIN_ENTRY_SYMBOL "' is missing (not a GE plugin)");
  auto entry = lib->get<const GePluginDescriptor*()>(GE_PLUGIN_ENTRY_SYMBOL);
  const GePluginDescriptor* d = entry();
  if (!d) throw Error(where(e) + ": entry symbol returned no descriptor");
  std::string abi = std::to_string(d->abi_major) + "." + std::to_string(d->abi_minor);
  std::string host_abi = std::to_string(GE_SDK_ABI_MAJOR) + "." + std::to_string(GE_SDK_ABI_MINOR);
  if (d->abi_major != GE_SDK_ABI_MAJOR)
    throw Error(where(e) + ": built for SDK ABI " + abi + ", this host has ABI " + host_abi +
                " (the major version must match; rebuild the plugin against this SDK)");
  if (d->abi_minor > GE_SDK_ABI_MINOR)
    throw Error(where(e) + ": built for SDK ABI " + abi + ", newer than this host's ABI " + host_abi +
                " (upgrade GE or rebuild the plugin against this SDK)");
  info.name = d->name ? d->name : "";
  info.version = d->version ? d->version : "";
  info.abi_major = d->abi_major;
  info.abi_minor = d->abi_minor;
  if (info.name != e.name)
    throw Error(where(e) + ": the library calls itself '" + info.name + "', not '" + e.name + "'");
  for (auto& p : env.plugins)
    if (p.name == info.name) throw Error(where(e) + ": a plugin named '" + info.name + "' is already loaded from " + p.file);
  if (!e.version.empty()) {
    Version v = parse_version(info.version, where(e) + ": plugin version");
    if (!version_satisfies(v, e.version, where(e) + ": version requirement"))
      throw Error(where(e) + ": version " + info.version + " does not satisfy the requirement '" + e.version + "'");
  }
  if (!d->register_fn) throw Error(where(e) + ": descriptor has no registration callback");

  env.plugins.push_back(std::move(info));
  PluginInfo& stored = env.plugins.back();
  HostRegistrar reg(env, stored, fs::path(e.path).parent_path().string(), lib);
  try {
    d->register_fn(reg);
  } catch (const std::exception& ex) {
    reg.roll_back();
    env.plugins.pop_back();
    throw Error(where(e) + ": registration failed: " + ex.what());
  } catch (...) {
    reg.roll_back();
    env.plugins.pop_back();
    throw Error(where(e) + ": registration failed with an unknown exception");
  }
  loaded_libraries().push_back(lib);
  stored.load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  log(LogLevel::Debug, "loaded plugin " + stored.name + " " + stored.version + " from " + e.path);
}

/// `[registry] files = [...]`: op definitions as data, relative to the manifest that names them.
/// An entry for an existing (op, version) replaces its metadata and keeps its shape inference.
void load_registry_files(Environment& env) {
  auto sec = env.manifest.sections.find("registry");
  if (sec == env.manifest.sections.end() || !sec->second.count("files")) return;
  const OptionValue& v = sec->second.at("files");
  std::string origin_file = v.origin == "--set" ? "." : v.origin.substr(0, v.origin.rfind(':'));
  fs::path base = fs::path(origin_file).parent_path();
  // Checked against its declaration by check_option_values.
  const OptionData files = parse_option(env.option_decls.at("registry.files"), v.toml);
  for (const std::string& file : std::get<std::vector<std::string>>(files)) {
    fs::path p(file);
    fs::path full = p.is_absolute() ? p : base / p;
    const std::string text = read_regular_file(full.string(), v.origin + ": registry file", uint64_t{16} << 20);
    for (OpDef& d : parse_op_defs_toml(text, full.string())) {
      d.source = "registry file " + full.filename().string();
      env.ops.add_or_replace(std::move(d));
    }
    for (const OpMeta& m : parse_op_meta_toml(text, full.string())) env.ops.apply_meta(m);
  }
}

}  // namespace

Backend& Environment::backend(const std::string& name) const {
  auto it = backends.find(name);
  if (it != backends.end()) return *it->second;
  std::string known;
  for (auto& [n, b] : backends) known += (known.empty() ? "" : ", ") + n;
  // Backends with their own manifest beside the plugins (ascend.toml): gec --backend NAME and
  // plans of backend NAME load them without --manifest.
  std::string own;
  for (const std::string& n : backend_manifests()) own += (own.empty() ? "" : ", ") + n;
  throw Error("backend '" + name + "' is not registered by any loaded plugin (registered: " +
              (known.empty() ? "none" : known) + "; manifest " + manifest.path +
              "; backend manifests beside the plugins: " + (own.empty() ? "none" : own) + ")");
}

const Frontend& Environment::frontend_for(const std::string& path) const {
  std::string head(16, '\0');
  // Only a regular file is read: opening a FIFO would block, /dev/zero would be read as a model.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
    throw Error("model file '" + path + "' is not a regular file (a FIFO, device or socket)");
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    head.resize(std::fread(head.data(), 1, head.size(), f));
    std::fclose(f);
  } else {
    throw Error("model file '" + path + "' cannot be opened");
  }
  for (auto it = frontends.rbegin(); it != frontends.rend(); ++it)
    if ((*it)->accepts(path, head)) return **it;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error("model file '" + path + "' is a directory");
  if (is_plan_file(path))
    throw Error("model file '" + path + "' is a compiled plan, not a model (gec run / profile / inspect take it; "
                "compile the model it came from)");
  std::string names;
  for (const auto& f : frontends) names += (names.empty() ? "" : ", ") + f->name();
  throw Error("model file '" + path + "': no frontend reads this format (frontends: " + names +
              "; an ONNX model is recognised by its extension .onnx)");
}

void load_plugin(Environment& env, const PluginEntry& entry) { load_one(env, entry); }

/// The options the core reads itself (docs/manifest.md).
void declare_core_options(Environment& env) {
  auto strings = [&](const char* key, const char* help) {
    OptionDecl d;
    d.key = key;
    d.type = OptionType::Strings;
    d.default_value = std::vector<std::string>{};
    d.help = help;
    declare_option_in(env, std::move(d), "core");
  };
  strings("fusion.enable", "only these fusion rules run (default: every rule the level allows)");
  strings("fusion.disable", "fusion rules and passes that do not run");
  strings("registry.files", "registry TOML files ([[op]], [[meta]]) relative to the manifest (registry/README.md)");
  env.option_decls.at("registry.files").phase = OptionPhase::Run;  // a plan loads them too
}

/// Every manifest value of a declared option parses as its declaration says (type, range,
/// choices); the error names the manifest file and line, or the --set, and the allowed values.
void check_option_values(const Environment& env) {
  for (const auto& [section, keys] : env.manifest.sections)
    for (const auto& [key, val] : keys) {
      auto d = env.option_decls.find(section + "." + key);
      if (d == env.option_decls.end()) continue;  // unknown keys: the pass manager's check
      try {
        parse_option(d->second, val.toml);
      } catch (const ConfigError& e) {
        throw ConfigError((val.origin.empty() ? "--set" : val.origin) + ": " + e.what());
      }
    }
}

std::unique_ptr<Environment> load_environment(const Manifest& manifest) {
  auto env = std::make_unique<Environment>();
  env->manifest = manifest;
  env->frontends.push_back(make_onnx_frontend());
  declare_core_options(*env);
  for (const PluginEntry& e : manifest.plugins)
    if (e.enabled) load_one(*env, e);
  check_option_values(*env);
  load_registry_files(*env);
  env->cost_model = make_machine_cost_model(*env);
  return env;
}

std::string backend_manifest_path(const std::string& backend) {
  // A name that is a plain file stem only: "--backend ../x" must not reach another directory.
  if (backend.empty() || backend.find_first_of("/\\") != std::string::npos || backend[0] == '.') return "";
  fs::path p = fs::path(default_manifest_path()).parent_path() / (backend + ".toml");
  std::error_code ec;
  return fs::is_regular_file(p, ec) ? p.string() : "";
}

std::vector<std::string> backend_manifests() {
  std::vector<std::string> out;
  fs::path dir = fs::path(default_manifest_path()).parent_path();
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".toml" && e.path().stem() != "default") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

OptionReader Environment::option_reader() const {
  return [this](const std::string& section, const std::string& key) -> std::optional<std::string> {
    auto s = manifest.sections.find(section);
    if (s == manifest.sections.end()) return std::nullopt;
    auto k = s->second.find(key);
    if (k == s->second.end()) return std::nullopt;
    return k->second.toml;
  };
}

std::shared_ptr<const CostModel> Environment::cost_model_for(const std::string& backend) const {
  auto it = cost_model_factories.find(backend);
  if (it == cost_model_factories.end()) return cost_model;
  std::shared_ptr<const CostModel> m = it->second(option_reader());
  return m ? m : cost_model;
}

std::optional<DeviceSimulation> Environment::simulate_device(const std::string& backend, const Graph& g) const {
  auto it = device_simulators.find(backend);
  if (it == device_simulators.end()) return std::nullopt;
  return it->second(g, option_reader());
}

std::string default_manifest_path() {
  if (const char* m = std::getenv("GE_MANIFEST")) return m;
  // <prefix>/lib/libge_core.so → <prefix>/lib/ge/plugins/default.toml (the build tree mirrors
  // the install tree), so gec, tests and bindings find it from any working directory.
  fs::path lib = boost::dll::this_line_location().native();
  return (lib.parent_path() / "ge" / "plugins" / "default.toml").string();
}

}  // namespace ge::core
