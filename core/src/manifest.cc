// Manifest reading (TOML++). Every key is checked; unknown keys are errors with file:line.
#include "ge/core/manifest.h"

#include <toml++/toml.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "ge/sdk/error.h"

namespace ge::core {

namespace fs = std::filesystem;

namespace {

struct Reader {
  std::string file;
  std::string at(const toml::node& n) const { return file + ":" + std::to_string(n.source().begin.line); }
  [[noreturn]] void fail(const toml::node& n, const std::string& msg) const { throw Error(at(n) + ": " + msg); }

  void check_keys(const toml::table& t, const std::set<std::string>& allowed, const std::string& section) const {
    for (auto&& [k, v] : t) {
      if (!allowed.count(std::string(k.str()))) {
        std::string list;
        for (auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(v, "unknown key '" + std::string(k.str()) + "' in " + section + " (known: " + list + ")");
      }
    }
  }
  std::string str(const toml::table& t, const char* key, const std::string& section, std::string dflt) const {
    const toml::node* n = t.get(key);
    if (!n) return dflt;
    if (!n->is_string()) fail(*n, "'" + section + "." + key + "' must be a string");
    return **n->as_string();
  }
  bool boolean(const toml::table& t, const char* key, const std::string& section, bool dflt) const {
    const toml::node* n = t.get(key);
    if (!n) return dflt;
    if (!n->is_boolean()) fail(*n, "'" + section + "." + key + "' must be true or false");
    return **n->as_boolean();
  }
  int64_t integer(const toml::table& t, const char* key, const std::string& section, int64_t dflt) const {
    const toml::node* n = t.get(key);
    if (!n) return dflt;
    if (!n->is_integer()) fail(*n, "'" + section + "." + key + "' must be an integer");
    return **n->as_integer();
  }
  std::vector<std::string> strings(const toml::table& t, const char* key, const std::string& section) const {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (!n) return out;
    if (!n->is_array()) fail(*n, "'" + section + "." + key + "' must be an array of strings");
    for (auto& e : *n->as_array()) {
      if (!e.is_string()) fail(e, "'" + section + "." + key + "' must be an array of strings");
      out.push_back(**e.as_string());
    }
    return out;
  }
  const toml::table& table(const toml::node& n, const std::string& section) const {
    if (!n.is_table()) fail(n, "'" + section + "' must be a table");
    return *n.as_table();
  }
};

// Sections whose keys belong to plugins (passes, planners, schedulers); the core keeps them as
// text. The plugin that owns each one validates its keys.
const std::set<std::string> kPluginSections = {"fusion", "layout", "memory", "scheduler", "registry", "profiler"};

}  // namespace

Manifest load_manifest(const std::string& path) {
  if (!fs::exists(path)) throw Error("manifest '" + path + "' does not exist");
  Reader r{fs::weakly_canonical(path).string()};
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw Error(path + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  Manifest m;
  m.path = r.file;
  fs::path base = fs::path(m.path).parent_path();

  std::set<std::string> top = {"plugin", "compile", "backend"};
  top.insert(kPluginSections.begin(), kPluginSections.end());
  r.check_keys(root, top, "the manifest's top level");

  if (const toml::node* p = root.get("plugin")) {
    if (!p->is_array_of_tables()) r.fail(*p, "'plugin' must be an array of tables ([[plugin]])");
    std::set<std::string> seen;
    for (auto& e : *p->as_array()) {
      const toml::table& t = *e.as_table();
      r.check_keys(t, {"name", "path", "version", "sha256", "enabled"}, "[[plugin]]");
      PluginEntry pe;
      pe.origin = r.at(t);
      pe.name = r.str(t, "name", "[[plugin]]", "");
      if (pe.name.empty()) r.fail(t, "[[plugin]] entry without 'name'");
      std::string rel = r.str(t, "path", "plugin." + pe.name, "");
      if (rel.empty()) r.fail(t, "plugin '" + pe.name + "' has no 'path'");
      fs::path pp(rel);
      pe.path = (pp.is_absolute() ? pp : base / pp).lexically_normal().string();
      pe.version = r.str(t, "version", "plugin." + pe.name, "");
      pe.sha256 = r.str(t, "sha256", "plugin." + pe.name, "");
      pe.enabled = r.boolean(t, "enabled", "plugin." + pe.name, true);
      if (!seen.insert(pe.name).second) r.fail(t, "plugin '" + pe.name + "' is listed twice");
      m.plugins.push_back(std::move(pe));
    }
  }
  if (const toml::node* c = root.get("compile")) {
    const toml::table& t = r.table(*c, "compile");
    r.check_keys(t, {"opt_level", "numerics", "disable"}, "[compile]");
    m.opt_level = r.str(t, "opt_level", "compile", m.opt_level);
    if (m.opt_level != "O0" && m.opt_level != "O1" && m.opt_level != "O2" && m.opt_level != "O3")
      r.fail(*t.get("opt_level"), "'compile.opt_level' must be one of O0, O1, O2, O3");
    m.numerics = r.str(t, "numerics", "compile", m.numerics);
    if (m.numerics != "relaxed" && m.numerics != "strict")
      r.fail(*t.get("numerics"), "'compile.numerics' must be \"relaxed\" or \"strict\"");
    m.disabled_passes = r.strings(t, "disable", "compile");
  }
  if (const toml::node* b = root.get("backend")) {
    const toml::table& t = r.table(*b, "backend");
    r.check_keys(t, {"name", "threads"}, "[backend]");
    m.backend = r.str(t, "name", "backend", m.backend);
    m.threads = static_cast<int>(r.integer(t, "threads", "backend", 0));
    if (m.threads < 0) r.fail(*t.get("threads"), "'backend.threads' must be >= 0");
  }
  for (const std::string& s : kPluginSections) {
    if (const toml::node* n = root.get(s)) {
      std::ostringstream os;
      os << r.table(*n, s);
      m.sections[s] = os.str();
    }
  }
  return m;
}

}  // namespace ge::core
