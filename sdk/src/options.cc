// Typed options (ge/sdk/options.h): the one parser of option values, through TOML++.
#include "ge/sdk/options.h"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "ge/sdk/error.h"

namespace ge {

namespace {

/// The value of `text` parsed as the TOML of one value; nullopt when it is not one.
std::optional<toml::table> parse_value(const std::string& text) {
  try {
    return toml::parse("v = " + text);
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
}

std::string type_of(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::array: return "array";
    case toml::node_type::table: return "table";
    case toml::node_type::date: return "date";
    case toml::node_type::time: return "time";
    case toml::node_type::date_time: return "date-time";
    default: return "value";
  }
}

std::string quoted_list(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& c : v) s += (s.empty() ? "\"" : ", \"") + c + "\"";
  return s;
}

std::string number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

std::string_view option_type_name(OptionType t) {
  switch (t) {
    case OptionType::Bool: return "bool";
    case OptionType::Int: return "int";
    case OptionType::Float: return "float";
    case OptionType::String: return "string";
    case OptionType::Strings: return "strings";
  }
  return "?";
}

std::string option_allowed(const OptionDecl& d) {
  auto range = [&](const char* what) {
    std::string s = what;
    if (d.min && d.max) return s + " in [" + number(*d.min) + ", " + number(*d.max) + "]";
    if (d.min) return s + " >= " + number(*d.min);
    if (d.max) return s + " <= " + number(*d.max);
    return s;
  };
  switch (d.type) {
    case OptionType::Bool: return "true or false";
    case OptionType::Int: return range("an integer");
    case OptionType::Float: return range("a number");
    case OptionType::String:
      return d.choices.empty() ? "a string" : "one of " + quoted_list(d.choices);
    case OptionType::Strings:
      return d.choices.empty() ? "an array of strings" : "an array of strings from " + quoted_list(d.choices);
  }
  return "?";
}

std::string option_data_toml(const OptionData& v) {
  struct V {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double x) const {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, x);  // the shortest text that reads back as x
      std::string t(buf, r.ptr);
      if (t.find_first_of(".eEn") == std::string::npos) t += ".0";  // a TOML float, not an integer
      return t;
    }
    std::string operator()(const std::string& s) const {  // a TOML basic string
      std::string t = "\"";
      for (char c : s) {
        if (c == '"' || c == '\\') t += '\\', t += c;
        else if (c == '\n') t += "\\n";
        else if (c == '\t') t += "\\t";
        else t += c;
      }
      return t + "\"";
    }
    std::string operator()(const std::vector<std::string>& a) const {
      std::string s = "[";
      for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + (*this)(a[i]);
      return s + "]";
    }
  };
  return std::visit(V{}, v);
}

std::string toml_value_type(const std::string& toml_text) {
  auto t = parse_value(toml_text);
  if (!t) return "unparsable";
  return type_of(*t->get("v"));
}

OptionData parse_option_as(OptionType type, const std::string& what, const std::string& toml_text) {
  OptionDecl d;
  d.key = what;
  d.type = type;
  return parse_option(d, toml_text);
}

OptionData parse_option(const OptionDecl& d, const std::string& text) {
  auto t = parse_value(text);
  // "(a string)" says why a value of the wrong type is wrong; a value of the right type out of
  // range or outside the choices needs no reason beyond the allowed values.
  auto fail = [&](const std::string& why) -> OptionData {
    throw ConfigError("'" + d.key + "' must be " + option_allowed(d) + ", not " + text + (why.empty() ? "" : " (" + why + ")"));
  };
  if (!t) return fail("no TOML value");
  const toml::node& n = *t->get("v");
  const std::string type = type_of(n);
  const std::string got = (type[0] == 'a' || type[0] == 'i' ? "an " : "a ") + type;
  switch (d.type) {
    case OptionType::Bool:
      if (!n.is_boolean()) return fail(got);
      return **n.as_boolean();
    case OptionType::Int: {
      if (!n.is_integer()) return fail(got);
      const int64_t v = **n.as_integer();
      if ((d.min && static_cast<double>(v) < *d.min) || (d.max && static_cast<double>(v) > *d.max)) return fail("");
      return v;
    }
    case OptionType::Float: {
      double v;
      if (n.is_floating_point()) v = **n.as_floating_point();
      else if (n.is_integer()) v = static_cast<double>(**n.as_integer());
      else return fail(got);
      if (!std::isfinite(v) || (d.min && v < *d.min) || (d.max && v > *d.max)) return fail("");
      return v;
    }
    case OptionType::String: {
      if (!n.is_string()) return fail(got);
      std::string v(**n.as_string());
      if (!d.choices.empty() && std::find(d.choices.begin(), d.choices.end(), v) == d.choices.end())
        return fail("");
      return v;
    }
    case OptionType::Strings: {
      if (!n.is_array()) return fail(got);
      std::vector<std::string> out;
      for (const toml::node& e : *n.as_array()) {
        if (!e.is_string()) return fail("an array holding a " + type_of(e));
        std::string v(**e.as_string());
        if (!d.choices.empty() && std::find(d.choices.begin(), d.choices.end(), v) == d.choices.end())
          return fail("\"" + v + "\" is not a known value");
        out.push_back(std::move(v));
      }
      return out;
    }
  }
  return fail(got);
}

}  // namespace ge
