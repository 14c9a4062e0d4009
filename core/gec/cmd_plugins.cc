// gec plugins: what the manifest loaded.
#include <cstdio>
#include <set>

#include "common.h"

namespace gec {

namespace {
void print_list(const char* label, const std::vector<std::string>& items) {
  if (items.empty()) return;
  std::printf("    %-10s %zu:", label, items.size());
  size_t col = 20;
  for (auto& s : items) {
    if (col + s.size() > 110) {
      std::printf("\n                   ");
      col = 20;
    }
    std::printf(" %s", s.c_str());
    col += s.size() + 1;
  }
  std::printf("\n");
}
}  // namespace

int cmd_plugins(const CommonOptions& common) {
  auto env = common.load_environment();
  std::printf("manifest: %s\n", env->manifest.path.c_str());
  for (auto& p : env->plugins) {
    std::printf("%s %s  (SDK ABI %u.%u, loaded in %.1f ms)\n", p.name.c_str(), p.version.c_str(), p.abi_major,
                p.abi_minor, p.load_ms);
    std::printf("    file       %s\n    sha256     %s\n", p.file.c_str(), p.sha256.c_str());
    print_list("backends", p.backends);
    print_list("frontends", p.frontends);
    print_list("ops", p.ops);
    print_list("kernels", p.kernels);
    print_list("passes", p.passes);
    print_list("fusion", p.fusion_rules);
    print_list("planners", p.memory_planners);
    print_list("formats", p.format_preferences);
    print_list("schedulers", p.schedulers);
    print_list("sections", p.plan_sections);
    print_list("cost model", p.cost_models);
    print_list("simulator", p.device_simulators);
  }
  for (auto& e : env->manifest.plugins)
    if (!e.enabled) std::printf("%s  (disabled in the manifest: %s)\n", e.name.c_str(), e.path.c_str());
  std::printf("built-in frontends: onnx\n");
  return 0;
}

int cmd_plugin_options(const CommonOptions& common) {
  auto env = common.load_environment();
  std::printf("manifest: %s\n", env->manifest.path.c_str());
  std::printf("%-32s %-8s %-14s %-8s %-14s %s\n", "option", "type", "default", "phase", "plugin", "allowed; help");
  for (const auto& [key, d] : env->option_decls) {
    std::string dflt = ge::option_data_toml(d.default_value);
    std::printf("%-32s %-8s %-14s %-8s %-14s %s; %s\n", key.c_str(), std::string(ge::option_type_name(d.type)).c_str(),
                dflt.c_str(), d.phase == ge::OptionPhase::Compile ? "compile" : "run", d.plugin.c_str(),
                ge::option_allowed(d).c_str(), d.help.c_str());
  }
  // Keys passes read without declaring them (a third-party plugin's): known, but untyped.
  std::set<std::string> undeclared;
  for (auto& [p, src] : env->passes)
    for (const std::string& o : p->info().options)
      if (!env->option_decls.count(o)) undeclared.insert(o + " (pass " + p->info().name + ", plugin " + src + ")");
  for (const std::string& u : undeclared) std::printf("%-32s undeclared: read as TOML text\n", u.c_str());
  return 0;
}

}  // namespace gec
