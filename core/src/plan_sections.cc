// Backend sections of plan files (ge/sdk/plan_section.h): the core stores and checks presence;
// what a section means is the registering plugin's business (write / validate).
#include <map>
#include <set>

#include "ge/core/environment.h"
#include "ge/sdk/error.h"
#include "plan_graph.h"

namespace ge::core::plan_detail {

namespace {

/// The context a writer or validator sees: the graph, the environment's manifest options, and
/// where each constant lies in the weights section (read from the header's values by name).
class Context final : public PlanSectionContext {
 public:
  Context(const Graph& g, const Environment& env, const std::string& backend, const planfile::Header& h,
          uint64_t weights_bytes)
      : g_(g), env_(env), backend_(backend), weights_bytes_(weights_bytes) {
    for (const auto& v : h.values())
      if (v.has_data() && !v.data().is_inline()) ranges_[v.name()] = WeightsRange{v.data().offset(), v.data().size()};
  }
  const Graph& graph() const override { return g_; }
  const std::string& backend() const override { return backend_; }
  std::optional<std::string> option(const std::string& section, const std::string& key) const override {
    auto s = env_.manifest.sections.find(section);
    if (s == env_.manifest.sections.end()) return std::nullopt;
    auto k = s->second.find(key);
    if (k == s->second.end()) return std::nullopt;
    return k->second.toml;
  }
  std::optional<WeightsRange> weights_range(const Value& v) const override {
    auto it = ranges_.find(v.name());
    if (it == ranges_.end()) return std::nullopt;
    return it->second;
  }
  uint64_t weights_bytes() const override { return weights_bytes_; }

 private:
  const Graph& g_;
  const Environment& env_;
  std::string backend_;
  uint64_t weights_bytes_;
  std::map<std::string, WeightsRange> ranges_;
};

}  // namespace

void write_sections(const Graph& g, const Environment& env, const std::string& backend, planfile::Header& h,
                    uint64_t weights_bytes) {
  Context ctx(g, env, backend, h, weights_bytes);
  for (const auto& [def, plugin] : env.plan_sections) {
    if (def.backend != backend) continue;
    std::string bytes;
    try {
      bytes = def.write(ctx);
    } catch (const Error& e) {
      throw Error("section '" + def.name + "' (plugin '" + plugin + "'): " + e.what());
    }
    auto* s = h.add_sections();
    s->set_name(def.name);
    s->set_plugin(plugin);
    s->set_data(std::move(bytes));
  }
}

void validate_sections(const Graph& g, const Environment& env, const planfile::Header& h, uint64_t weights_bytes) {
  Context ctx(g, env, h.backend(), h, weights_bytes);
  std::set<std::string> seen;
  for (const auto& s : h.sections()) {
    const std::string& name = s.name();
    if (!seen.insert(name).second) throw Error("section '" + name + "' appears twice");
    const PlanSectionDef* def = nullptr;
    for (const auto& [d, plugin] : env.plan_sections)
      if (d.name == name) def = &d;
    if (!def)
      throw Error("section '" + name + "' (written by plugin '" + s.plugin() +
                  "') is read by no plugin of this environment (load that plugin's manifest)");
    try {
      def->validate(ctx, s.data());
    } catch (const Error& e) {
      throw Error("section '" + name + "': " + e.what());
    }
  }
  // A plan of a backend whose plugin writes a section must carry it: without it the device
  // runtime would be handed nothing it checked.
  for (const auto& [d, plugin] : env.plan_sections)
    if (d.backend == h.backend() && !seen.count(d.name))
      throw Error("it was compiled for backend '" + h.backend() + "' but lacks section '" + d.name + "' (plugin '" +
                  plugin + "' requires it; recompile the model)");
}

}  // namespace ge::core::plan_detail
