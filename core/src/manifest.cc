// Manifest reading (TOML++). Every key is checked; unknown keys are errors with file:line.
#include "ge/core/manifest.h"
#include "ge/core/file_io.h"

#include <toml++/toml.h>

#include <algorithm>
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

// Sections whose keys belong to passes and plugins; the pass manager checks every key against
// the options the loaded passes declare.
const std::set<std::string> kOptionSections = {"fusion", "simplify", "layout", "memory",
                                               "scheduler", "registry", "profiler", "ascend", "cpu"};

/// The option keys the core reads itself (rule and pass names, registry files): arrays of
/// strings, checked here where the value's line is known (a datetime or a number was read as an
/// empty list).
const std::set<std::string> kStringArrayOptions = {"fusion.enable", "fusion.disable", "registry.files"};

/// A value's TOML text in one normal form: basic (double-quoted) strings, arrays as [a, b], so
/// that readers of the option text need to handle one spelling only.
std::string toml_text(const toml::node& n) {
  std::ostringstream os;
  if (n.is_string()) {
    os << '"';
    for (char c : **n.as_string()) {
      if (c == '"' || c == '\\') os << '\\' << c;
      else if (c == '\n') os << "\\n";
      else os << c;
    }
    os << '"';
  } else if (n.is_array()) {
    os << '[';
    bool first = true;
    for (auto& e : *n.as_array()) {
      os << (first ? "" : ", ") << toml_text(e);
      first = false;
    }
    os << ']';
  } else if (n.is_table()) {
    os << *n.as_table();
  } else if (n.is_integer()) {
    os << **n.as_integer();
  } else if (n.is_floating_point()) {
    os << **n.as_floating_point();
  } else if (n.is_boolean()) {
    os << (**n.as_boolean() ? "true" : "false");
  }
  return os.str();
}

void parse_into(Manifest& m, const std::string& path, std::vector<std::string>& stack) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error("manifest '" + path + "' does not exist" + (ec ? ": " + ec.message() : ""));
  std::string canon = fs::weakly_canonical(path, ec).string();
  if (ec) throw Error("manifest '" + path + "' cannot be resolved: " + ec.message());
  for (auto& s : stack)
    if (s == canon) throw Error("manifest '" + canon + "' includes itself (through " + stack.front() + ")");
  stack.push_back(canon);
  Reader r{canon};
  toml::table root;
  // A regular file of bounded size: a FIFO or /dev/zero would block or read without end, a
  // directory would parse as an empty manifest.
  const std::string text = read_regular_file(canon, "manifest", uint64_t{16} << 20);
  try {
    root = toml::parse(text, canon);
  } catch (const toml::parse_error& e) {
    throw Error(canon + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  fs::path base = fs::path(canon).parent_path();

  std::set<std::string> top = {"include", "plugin", "compile", "backend"};
  top.insert(kOptionSections.begin(), kOptionSections.end());
  r.check_keys(root, top, "the manifest's top level");

  // include = "base.toml": the base is read first; this file overrides it key by key, and its
  // [[plugin]] entries replace the base's entries of the same name.
  if (const toml::node* inc = root.get("include")) {
    if (!inc->is_string()) r.fail(*inc, "'include' must be a string (a manifest path relative to this file)");
    fs::path ip(**inc->as_string());
    fs::path full = (ip.is_absolute() ? ip : base / ip).lexically_normal();
    parse_into(m, full.string(), stack);
    m.includes.push_back(full.string());
  }

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
      if (!seen.insert(pe.name).second) r.fail(t, "plugin '" + pe.name + "' is listed twice");
      auto old = std::find_if(m.plugins.begin(), m.plugins.end(), [&](auto& x) { return x.name == pe.name; });
      bool overrides = old != m.plugins.end();
      std::string rel = r.str(t, "path", "plugin." + pe.name, "");
      if (rel.empty() && !overrides) r.fail(t, "plugin '" + pe.name + "' has no 'path'");
      if (!rel.empty()) {
        fs::path pp(rel);
        pe.path = (pp.is_absolute() ? pp : base / pp).lexically_normal().string();
      } else {
        pe.path = old->path;  // an override of an included entry may change only its options
      }
      pe.version = r.str(t, "version", "plugin." + pe.name, overrides ? old->version : "");
      pe.sha256 = r.str(t, "sha256", "plugin." + pe.name, overrides ? old->sha256 : "");
      pe.enabled = r.boolean(t, "enabled", "plugin." + pe.name, overrides ? old->enabled : true);
      if (overrides) *old = std::move(pe);
      else m.plugins.push_back(std::move(pe));
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
    if (t.get("disable")) m.disabled_passes = r.strings(t, "disable", "compile");
  }
  if (const toml::node* b = root.get("backend")) {
    const toml::table& t = r.table(*b, "backend");
    r.check_keys(t, {"name", "threads"}, "[backend]");
    m.backend = r.str(t, "name", "backend", m.backend);
    m.threads = static_cast<int>(r.integer(t, "threads", "backend", m.threads));
    if (m.threads < 0) r.fail(*t.get("threads"), "'backend.threads' must be >= 0");
  }
  for (const std::string& s : kOptionSections) {
    if (const toml::node* n = root.get(s)) {
      const toml::table& t = r.table(*n, s);
      for (auto&& [k, v] : t) {
        const std::string key(k.str());
        if (kStringArrayOptions.count(s + "." + key)) r.strings(t, key.c_str(), s);
        m.sections[s][key] = OptionValue{toml_text(v), r.at(v)};
      }
    }
  }
  stack.pop_back();
}

}  // namespace

Manifest load_manifest(const std::string& path) {
  Manifest m;
  std::vector<std::string> stack;
  parse_into(m, path, stack);
  m.path = fs::weakly_canonical(path).string();
  return m;
}

void apply_override(Manifest& m, const std::string& assignment) {
  auto eq = assignment.find('=');
  auto dot = assignment.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || dot + 1 == eq)
    throw Error("--set '" + assignment + "': expected SECTION.KEY=VALUE");
  std::string section = assignment.substr(0, dot), key = assignment.substr(dot + 1, eq - dot - 1);
  std::string value = assignment.substr(eq + 1);
  // VALUE is TOML; a bare word (O1, auto) is taken as a string.
  toml::table t;
  try {
    t = toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    t = toml::table{{"v", value}};
  }
  const toml::node& v = *t.get("v");
  std::string what = "--set " + section + "." + key;
  auto need_string = [&]() -> std::string {
    if (!v.is_string()) throw Error(what + ": expected a string");
    return **v.as_string();
  };
  if (section == "compile") {
    if (key == "opt_level") {
      std::string s = need_string();
      if (s != "O0" && s != "O1" && s != "O2" && s != "O3") throw Error(what + ": must be one of O0, O1, O2, O3");
      m.opt_level = s;
    } else if (key == "numerics") {
      std::string s = need_string();
      if (s != "relaxed" && s != "strict") throw Error(what + ": must be relaxed or strict");
      m.numerics = s;
    } else if (key == "disable") {
      m.disabled_passes.push_back(need_string());
    } else {
      throw Error(what + ": unknown key '" + key + "' in [compile] (known: disable, numerics, opt_level)");
    }
  } else if (section == "backend") {
    if (key == "name") {
      m.backend = need_string();
    } else if (key == "threads") {
      if (!v.is_integer() || **v.as_integer() < 0) throw Error(what + ": must be an integer >= 0");
      m.threads = static_cast<int>(**v.as_integer());
    } else {
      throw Error(what + ": unknown key '" + key + "' in [backend] (known: name, threads)");
    }
  } else if (kOptionSections.count(section)) {
    if (kStringArrayOptions.count(section + "." + key)) {
      bool ok = v.is_array();
      if (ok)
        for (auto& e : *v.as_array()) ok &= e.is_string();
      if (!ok) throw Error(what + ": must be an array of strings, e.g. [\"a\", \"b\"]");
    }
    m.sections[section][key] = OptionValue{toml_text(v), "--set"};
  } else {
    throw Error(what + ": unknown section '" + section + "'");
  }
}

}  // namespace ge::core
