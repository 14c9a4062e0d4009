// Parses operator definitions from TOML (format: registry/README.md).
#include <toml++/toml.h>

#include <set>
#include <sstream>

#include "ge/sdk/error.h"
#include "ge/sdk/op_registry.h"

namespace ge {

namespace {

struct Ctx {
  const std::string& origin;
  [[noreturn]] void fail(const toml::node& n, const std::string& msg) const {
    throw Error(origin + ":" + std::to_string(n.source().begin.line) + ": " + msg);
  }
};

void check_keys(const Ctx& c, const toml::table& t, const std::set<std::string>& allowed, const std::string& where) {
  for (auto&& [k, v] : t) {
    if (!allowed.count(std::string(k.str())))
      c.fail(v, "unknown key '" + std::string(k.str()) + "' in " + where);
  }
}

std::string get_string(const Ctx& c, const toml::table& t, const std::string& key, const std::string& dflt, bool required,
                       const std::string& where) {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) c.fail(t, "missing key '" + key + "' in " + where);
    return dflt;
  }
  if (!n->is_string()) c.fail(*n, "key '" + key + "' in " + where + " must be a string");
  return **n->as_string();
}

bool get_bool(const Ctx& c, const toml::table& t, const std::string& key, bool dflt, const std::string& where) {
  const toml::node* n = t.get(key);
  if (!n) return dflt;
  if (!n->is_boolean()) c.fail(*n, "key '" + key + "' in " + where + " must be a boolean");
  return **n->as_boolean();
}

AttrType parse_attr_type(const Ctx& c, const toml::node& n, const std::string& s) {
  static const std::pair<const char*, AttrType> names[] = {
      {"int", AttrType::Int},       {"float", AttrType::Float},     {"string", AttrType::String},
      {"ints", AttrType::Ints},     {"floats", AttrType::Floats},   {"strings", AttrType::Strings},
      {"tensor", AttrType::Tensor}};
  for (auto& [nm, t] : names)
    if (s == nm) return t;
  c.fail(n, "unknown attribute type '" + s + "'");
}

[[noreturn]] void bad_default(const Ctx& c, const toml::node& n, AttrType t, const std::string& where) {
  c.fail(n, "default of " + where + " does not match its type " + std::string(attr_type_name(t)));
}

AttrValue parse_default(const Ctx& c, const toml::node& n, AttrType t, const std::string& where) {
  auto bad = [&]() { bad_default(c, n, t, where); };
  switch (t) {
    case AttrType::Int:
      if (!n.is_integer()) bad();
      return static_cast<int64_t>(**n.as_integer());
    case AttrType::Float:
      if (n.is_floating_point()) return static_cast<float>(**n.as_floating_point());
      if (n.is_integer()) return static_cast<float>(**n.as_integer());
      bad_default(c, n, t, where);
    case AttrType::String:
      if (!n.is_string()) bad();
      return std::string(**n.as_string());
    case AttrType::Ints: {
      if (!n.is_array()) bad();
      std::vector<int64_t> v;
      for (auto& e : *n.as_array()) {
        if (!e.is_integer()) bad();
        v.push_back(**e.as_integer());
      }
      return v;
    }
    case AttrType::Floats: {
      if (!n.is_array()) bad();
      std::vector<float> v;
      for (auto& e : *n.as_array()) {
        if (e.is_floating_point()) v.push_back(static_cast<float>(**e.as_floating_point()));
        else if (e.is_integer()) v.push_back(static_cast<float>(**e.as_integer()));
        else bad();
      }
      return v;
    }
    case AttrType::Strings: {
      if (!n.is_array()) bad();
      std::vector<std::string> v;
      for (auto& e : *n.as_array()) {
        if (!e.is_string()) bad();
        v.push_back(**e.as_string());
      }
      return v;
    }
    case AttrType::Tensor: c.fail(n, where + ": tensor attributes cannot have a default");
  }
  bad_default(c, n, t, where);
}

std::vector<IoDef> parse_ios(const Ctx& c, const toml::table& op, const std::string& key, const std::string& where) {
  std::vector<IoDef> out;
  const toml::node* n = op.get(key);
  if (!n) return out;
  if (!n->is_array()) c.fail(*n, "'" + key + "' of " + where + " must be an array of tables");
  for (auto& e : *n->as_array()) {
    if (!e.is_table()) c.fail(e, "'" + key + "' of " + where + " must be an array of tables");
    const toml::table& t = *e.as_table();
    std::string w = where + " " + key;
    check_keys(c, t, {"name", "types", "optional", "variadic", "doc"}, w);
    IoDef io;
    io.name = get_string(c, t, "name", "", true, w);
    io.optional = get_bool(c, t, "optional", false, w);
    io.variadic = get_bool(c, t, "variadic", false, w);
    if (const toml::node* ty = t.get("types")) {
      if (!ty->is_array()) c.fail(*ty, "'types' of " + w + " '" + io.name + "' must be an array of strings");
      for (auto& te : *ty->as_array()) {
        if (!te.is_string()) c.fail(te, "'types' of " + w + " '" + io.name + "' must be an array of strings");
        DataType dt = dtype_from_name(**te.as_string());
        if (dt == DataType::Undefined && **te.as_string() != "string")
          c.fail(te, "unknown dtype '" + std::string(**te.as_string()) + "' in " + w + " '" + io.name + "'");
        io.types.push_back(**te.as_string() == "string" ? DataType::String : dt);
      }
    }
    out.push_back(std::move(io));
  }
  return out;
}

toml::table parse_root(const Ctx& c, const std::string& text) {
  toml::table root;
  try {
    root = toml::parse(text, c.origin);
  } catch (const toml::parse_error& e) {
    throw Error(c.origin + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  check_keys(c, root, {"op", "meta"}, "registry file");
  return root;
}

const std::set<std::string> kContractKeys = {"view", "inplace", "max_operands", "elementwise_instruction",
                                             "cost_class"};

/// The contract keys (registry/README.md "Contracts") of an [[op]] or [[meta]] table, into `m`.
void parse_contracts(const Ctx& c, const toml::table& t, const std::string& where, OpMeta& m) {
  if (t.get("view")) m.view = get_bool(c, t, "view", false, where);
  if (t.get("elementwise_instruction"))
    m.elementwise_instruction = get_bool(c, t, "elementwise_instruction", false, where);
  if (const toml::node* n = t.get("inplace")) {
    std::vector<int> ins;
    if (n->is_string() && **n->as_string() == "any") {
      ins.push_back(OpDef::kInplaceAnyInput);
    } else if (n->is_array()) {
      for (auto& e : *n->as_array()) {
        if (!e.is_integer() || **e.as_integer() < 0 || **e.as_integer() > 1024)
          c.fail(e, "'inplace' of " + where + " must be \"any\" or an array of input indices (integers >= 0)");
        ins.push_back(static_cast<int>(**e.as_integer()));
      }
    } else {
      c.fail(*n, "'inplace' of " + where + " must be \"any\" or an array of input indices (integers >= 0)");
    }
    m.inplace_inputs = std::move(ins);
  }
  if (const toml::node* n = t.get("max_operands")) {
    if (!n->is_integer() || **n->as_integer() < 1 || **n->as_integer() > (1 << 20))
      c.fail(*n, "'max_operands' of " + where + " must be an integer in [1, 1048576]");
    m.max_operands = static_cast<int>(**n->as_integer());
  }
  if (t.get("cost_class")) {
    static const std::set<std::string> classes = {"gemm", "elementwise", "reduce", "data", "transdata", "other"};
    std::string cls = get_string(c, t, "cost_class", "", true, where);
    if (!classes.count(cls))
      c.fail(*t.get("cost_class"), "unknown cost_class '" + cls + "' in " + where +
                                       " (known: gemm, elementwise, reduce, data, transdata, other)");
    m.cost_class = std::move(cls);
  }
}

std::set<std::string> with_contracts(std::set<std::string> keys) {
  keys.insert(kContractKeys.begin(), kContractKeys.end());
  return keys;
}

}  // namespace

std::vector<OpMeta> parse_op_meta_toml(const std::string& text, const std::string& origin) {
  Ctx c{origin};
  toml::table root = parse_root(c, text);
  std::vector<OpMeta> out;
  const toml::node* metas = root.get("meta");
  if (!metas) return out;
  if (!metas->is_array_of_tables()) c.fail(*metas, "'meta' must be an array of tables ([[meta]])");
  for (auto& e : *metas->as_array()) {
    const toml::table& t = *e.as_table();
    const std::string where = "[[meta]]";
    check_keys(c, t, with_contracts({"ops", "domain", "since", "pattern", "fuse_flag", "numerics", "foldable"}), where);
    OpMeta m;
    m.origin = origin + ":" + std::to_string(t.source().begin.line);
    const toml::node* ops = t.get("ops");
    if (!ops || !ops->is_array() || ops->as_array()->empty())
      c.fail(ops ? *ops : static_cast<const toml::node&>(t), "'ops' of " + where + " must be a non-empty array of op types");
    for (auto& o : *ops->as_array()) {
      if (!o.is_string()) c.fail(o, "'ops' of " + where + " must be an array of strings");
      m.op_types.push_back(**o.as_string());
    }
    m.domain = get_string(c, t, "domain", "", false, where);
    if (const toml::node* s = t.get("since")) {
      if (!s->is_integer() || **s->as_integer() < 1) c.fail(*s, "'since' of " + where + " must be an integer >= 1");
      m.since_min = static_cast<int>(**s->as_integer());
    }
    try {
      if (t.get("pattern")) m.pattern = op_pattern_from_name(get_string(c, t, "pattern", "", true, where));
      if (t.get("fuse_flag")) m.fuse_flag = fuse_flag_from_name(get_string(c, t, "fuse_flag", "", true, where));
    } catch (const Error& err) {
      c.fail(t, std::string(err.what()) + " in " + where);
    }
    if (t.get("numerics")) m.numerics = get_string(c, t, "numerics", "", true, where);
    if (t.get("foldable")) m.foldable = get_bool(c, t, "foldable", true, where);
    parse_contracts(c, t, where, m);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<OpDef> parse_op_defs_toml(const std::string& text, const std::string& origin) {
  Ctx c{origin};
  toml::table root = parse_root(c, text);
  std::vector<OpDef> defs;
  const toml::node* ops = root.get("op");
  if (!ops) return defs;
  if (!ops->is_array_of_tables()) c.fail(*ops, "'op' must be an array of tables ([[op]])");
  for (auto& e : *ops->as_array()) {
    const toml::table& t = *e.as_table();
    OpDef d;
    d.op_type = get_string(c, t, "name", "", true, "[[op]]");
    std::string where = "op '" + d.op_type + "'";
    check_keys(c, t,
               with_contracts({"name", "domain", "since", "pattern", "fuse_flag", "numerics", "foldable", "doc",
                               "inputs", "outputs", "attrs"}),
               where);
    d.domain = get_string(c, t, "domain", "", false, where);
    if (const toml::node* s = t.get("since")) {
      if (!s->is_integer()) c.fail(*s, "'since' of " + where + " must be an integer");
      d.since_version = static_cast<int>(**s->as_integer());
    }
    try {
      d.pattern = op_pattern_from_name(get_string(c, t, "pattern", "opaque", false, where));
      d.fuse_flag = fuse_flag_from_name(get_string(c, t, "fuse_flag", "fusable", false, where));
    } catch (const Error& err) {
      c.fail(t, std::string(err.what()) + " in " + where);
    }
    d.numerics = get_string(c, t, "numerics", "", false, where);
    d.doc = get_string(c, t, "doc", "", false, where);
    d.foldable = get_bool(c, t, "foldable", true, where);
    OpMeta contracts;
    parse_contracts(c, t, where, contracts);
    apply_meta_to(d, contracts);
    d.inputs = parse_ios(c, t, "inputs", where);
    d.outputs = parse_ios(c, t, "outputs", where);
    if (const toml::node* a = t.get("attrs")) {
      if (!a->is_array()) c.fail(*a, "'attrs' of " + where + " must be an array of tables");
      for (auto& ae : *a->as_array()) {
        if (!ae.is_table()) c.fail(ae, "'attrs' of " + where + " must be an array of tables");
        const toml::table& at = *ae.as_table();
        check_keys(c, at, {"name", "type", "default", "required", "doc"}, where + " attrs");
        AttrDef ad;
        ad.name = get_string(c, at, "name", "", true, where + " attrs");
        std::string aw = where + " attribute '" + ad.name + "'";
        ad.type = parse_attr_type(c, at, get_string(c, at, "type", "", true, aw));
        ad.required = get_bool(c, at, "required", false, aw);
        if (const toml::node* dn = at.get("default")) ad.default_value = parse_default(c, *dn, ad.type, aw);
        d.attrs.push_back(std::move(ad));
      }
    }
    defs.push_back(std::move(d));
  }
  return defs;
}

}  // namespace ge
