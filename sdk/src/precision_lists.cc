// sdk/src/precision_lists.cc — the mixed-precision lists and keep_dtype (ge/sdk/precision_lists.h),
// shared by the Ascend and cpu backends.
#include "ge/sdk/precision_lists.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "ge/sdk/error.h"

namespace ge {

// sdk/data/precision_lists.toml, embedded by CMake (precision_lists_data.cc).
extern const char* const kShippedPrecisionLists;

std::string mix_class_name(MixClass c) {
  switch (c) {
    case MixClass::White: return "white";
    case MixClass::Black: return "black";
    case MixClass::Gray: return "gray";
  }
  return "?";
}

std::string op_key(const Node& n) { return n.domain().empty() ? n.op_type() : n.domain() + "." + n.op_type(); }

MixClass MixLists::of(const Node& n) const {
  auto it = ops.find(op_key(n));
  return it == ops.end() ? MixClass::Gray : it->second;
}

namespace {

/// True when `key` ("Conv", "ge.FusedConv", "com.x.Op") names an op type the registry defines.
bool known_op(const std::string& key, const OpRegistry& ops) {
  const size_t dot = key.rfind('.');
  if (dot == std::string::npos) return ops.find_any("", key) != nullptr;
  return ops.find_any(key.substr(0, dot), key.substr(dot + 1)) != nullptr;
}

[[noreturn]] void fail(const std::string& section, const std::string& file, const std::string& key, const std::string& what) {
  throw ConfigError(section + " precision lists '" + file + "': key '" + key + "': " + what);
}

std::string read_text(const std::string& section, const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw ConfigError(section + ": cannot read " + what + " '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

toml::table parse_toml(const std::string& section, const std::string& text, const std::string& path, const std::string& what) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw ConfigError(section + " " + what + " '" + path + "': line " + std::to_string(e.source().begin.line) + ": " +
                      std::string(e.description()));
  }
}

std::vector<std::string> toml_strings(const std::string& section, const std::string& file, const std::string& key, const toml::node& n) {
  const toml::array* a = n.as_array();
  if (!a) fail(section, file, key, "must be an array of op types");
  std::vector<std::string> out;
  for (const toml::node& e : *a) {
    if (!e.is_string()) fail(section, file, key, "every entry must be a string (an op type)");
    out.push_back(*e.value<std::string>());
  }
  return out;
}

/// One list's edits in the vendor's modify_mixlist format.
struct ListEdit {
  std::vector<std::string> add, remove;
};

ListEdit json_edit(const std::string& section, const std::string& file, const std::string& list, const nlohmann::json& j) {
  ListEdit e;
  if (!j.is_object()) fail(section, file, list, "must be an object with \"to-add\" and/or \"to-remove\"");
  for (auto& [k, v] : j.items()) {
    if (k != "to-add" && k != "to-remove") fail(section, file, list + "." + k, "unknown key (known: to-add, to-remove)");
    if (!v.is_array()) fail(section, file, list + "." + k, "must be an array of op types");
    for (const auto& s : v) {
      if (!s.is_string()) fail(section, file, list + "." + k, "every entry must be a string (an op type)");
      (k == "to-add" ? e.add : e.remove).push_back(s.get<std::string>());
    }
  }
  return e;
}

ListEdit toml_edit(const std::string& section, const std::string& file, const std::string& list, const toml::node& n) {
  ListEdit e;
  const toml::table* t = n.as_table();
  if (!t) fail(section, file, list, "must be a table with to-add and/or to-remove");
  for (auto&& [k, v] : *t) {
    const std::string key(k.str());
    if (key != "to-add" && key != "to-remove") fail(section, file, list + "." + key, "unknown key (known: to-add, to-remove)");
    (key == "to-add" ? e.add : e.remove) = toml_strings(section, file, list + "." + key, v);
  }
  return e;
}

/// "line L, column C: unexpected 'X'" for a JSON parse error at `byte` (nlohmann::json's
/// parse_error::byte: 1-based index of the last character read; past the end at end of input).
std::string json_error_place(const std::string& text, size_t byte) {
  const size_t at = byte == 0 ? 0 : std::min(byte - 1, text.size());
  const size_t line_start = text.rfind('\n', at == 0 ? 0 : at - 1);
  const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  const size_t column = line_start == std::string::npos || at == 0 ? at + 1 : at - line_start;
  std::string what;
  if (at >= text.size()) {
    what = "unexpected end of file";
  } else {
    const unsigned char c = static_cast<unsigned char>(text[at]);
    char buf[16];
    if (c >= 0x20 && c < 0x7f) std::snprintf(buf, sizeof buf, "'%c'", c);
    else std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
    what = std::string("unexpected ") + buf;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
}

/// "ascend.keep_dtype" or "ascend.keep_dtype file 'F'" for messages.
std::string keep_where(const std::string& section, const std::string& origin) {
  return origin.empty() ? section + ".keep_dtype" : section + ".keep_dtype file '" + origin + "'";
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

MixLists shipped_mix_lists(const OpRegistry& ops, const std::string& section) {
  return parse_mix_lists(kShippedPrecisionLists, "ge_sdk:precision_lists.toml", ops, section);
}

MixLists load_mix_lists(const std::string& path, const OpRegistry& ops, const std::string& section) {
  return parse_mix_lists(read_text(section, path, "precision lists"), path, ops, section);
}

MixLists parse_mix_lists(const std::string& text, const std::string& path, const OpRegistry& ops,
                         const std::string& section) {
  const toml::table t = parse_toml(section, text, path, "precision lists");
  MixLists m;
  m.origin = path;
  std::map<std::string, std::string> seen;  // op → list it was first given in
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    MixClass c;
    if (key == "white") c = MixClass::White;
    else if (key == "black") c = MixClass::Black;
    else if (key == "gray") c = MixClass::Gray;
    else fail(section, path, key, "unknown key (known: white, black, gray)");
    for (const std::string& op : toml_strings(section, path, key, v)) {
      if (!known_op(op, ops)) fail(section, path, key, "op type '" + op + "' is not defined by any loaded plugin");
      if (auto [it, fresh] = seen.emplace(op, key); !fresh) fail(section, path, key, "op type '" + op + "' is also in '" + it->second + "'");
      if (c != MixClass::Gray) m.ops[op] = c;
    }
  }
  return m;
}

void modify_mix_lists(MixLists& lists, const std::string& path, const OpRegistry& ops, const std::string& section) {
  std::map<std::string, ListEdit> edits;  // "black-list" / "white-list"
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  if (json) {
    nlohmann::json j;
    const std::string text = read_text(section, path, "modify_mixlist file");
    try {
      j = nlohmann::json::parse(text, nullptr, true, /*ignore_comments=*/true);
    } catch (const nlohmann::json::parse_error& e) {
      throw ConfigError(section + ".modify_mixlist file '" + path + "' is not valid JSON: " + json_error_place(text, e.byte));
    }
    if (!j.is_object()) fail(section, path, "(top level)", "must be an object with \"black-list\" and/or \"white-list\"");
    for (auto& [k, v] : j.items()) {
      if (k != "black-list" && k != "white-list") fail(section, path, k, "unknown key (known: black-list, white-list)");
      edits[k] = json_edit(section, path, k, v);
    }
  } else {
    const toml::table t = parse_toml(section, read_text(section, path, "modify_mixlist file"), path, "modify_mixlist file");
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      if (key != "black-list" && key != "white-list") fail(section, path, key, "unknown key (known: black-list, white-list)");
      edits[key] = toml_edit(section, path, key, v);
    }
  }
  for (auto& [list, e] : edits)
    for (const auto* v : {&e.add, &e.remove})
      for (const std::string& op : *v)
        if (!known_op(op, ops)) fail(section, path, list, "op type '" + op + "' is not defined by any loaded plugin");
  // Removals first, checked against the lists as shipped (the vendor's rule: the op must be in it).
  for (auto& [list, e] : edits) {
    const MixClass c = list == "black-list" ? MixClass::Black : MixClass::White;
    for (const std::string& op : e.remove) {
      auto it = lists.ops.find(op);
      if (it == lists.ops.end() || it->second != c)
        fail(section, path, list + ".to-remove", "op type '" + op + "' is not in the " + mix_class_name(c) + " list (it is " +
                                            mix_class_name(it == lists.ops.end() ? MixClass::Gray : it->second) + ")");
      lists.ops.erase(it);
    }
  }
  std::set<std::string> added;
  for (auto& [list, e] : edits) {
    const MixClass c = list == "black-list" ? MixClass::Black : MixClass::White;
    for (const std::string& op : e.add) {
      if (!added.insert(op).second) fail(section, path, list + ".to-add", "op type '" + op + "' is added to both lists");
      lists.ops[op] = c;
    }
  }
  lists.origin += " + " + path;
}

KeepDtype parse_keep_dtype(const std::vector<std::string>& entries, const std::string& origin, const std::string& section) {
  KeepDtype k;
  k.origin = origin;
  k.section = section;
  static const std::string kType = "OpType::";
  for (const std::string& raw : entries) {
    const std::string e = trim(raw);
    if (e.empty() || e[0] == '#') continue;
    if (e.rfind(kType, 0) == 0) {
      const std::string t = trim(e.substr(kType.size()));
      if (t.empty()) throw ConfigError(keep_where(section, origin) + ": entry '" + e + "' names no op type");
      k.op_types.insert(t);
    } else {
      k.nodes.insert(e);
    }
  }
  return k;
}

KeepDtype load_keep_dtype_file(const std::string& path, const std::string& section) {
  std::istringstream in(read_text(section, path, "keep_dtype file"));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return parse_keep_dtype(lines, path, section);
}

void check_keep_dtype(const KeepDtype& k, const Graph& g, const OpRegistry& ops, const std::string& pass) {
  std::set<std::string> names;
  for (const Node* n : g.nodes()) names.insert(n->name());
  std::string missing;
  for (const std::string& n : k.nodes)
    if (!names.count(n)) missing += (missing.empty() ? "'" : ", '") + n + "'";
  if (!missing.empty())
    throw ConfigError(keep_where(k.section, k.origin) + ": no node named " + missing +
                      " in the graph after fusion (a node fused into another keeps only the anchor's name, "
                      "e.g. a Conv's; `gec run MODEL --print-after " + pass + "` prints the names)");
  for (const std::string& t : k.op_types)
    if (!known_op(t, ops)) throw ConfigError(keep_where(k.section, k.origin) + ": OpType::" + t + " is not an op type any loaded plugin defines");
}

KeepDtype keep_dtype_option(const std::optional<std::string>& text, const std::string& section) {
  if (!text) return {};
  const std::string key = section + ".keep_dtype";
  toml::table v;
  try {
    v = toml::parse("v = " + *text);
  } catch (const toml::parse_error& e) {
    throw ConfigError(key + ": cannot read value " + *text + ": " + std::string(e.description()));
  }
  if (v["v"].is_string()) return load_keep_dtype_file(*v["v"].value<std::string>(), section);
  const toml::array* a = v["v"].as_array();
  if (!a) throw ConfigError(key + ": value " + *text + " must be an array of node names (or \"OpType::X\") or a file name");
  std::vector<std::string> entries;
  for (const toml::node& e : *a) {
    if (!e.is_string()) throw ConfigError(key + ": every entry must be a string (in " + *text + ")");
    entries.push_back(*e.value<std::string>());
  }
  return parse_keep_dtype(entries, "", section);
}

}  // namespace ge
