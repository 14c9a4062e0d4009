// ge/sdk/options.h — (ABI 1.6) typed options: what a plugin declares about each manifest key it
// reads, and the one parser of option values (TOML, through TOML++; docs/manifest.md "Options").
//
// A plugin declares its options at registration (Registrar::declare_option): the key
// "section.key", the type, the default, an inclusive range (int, float) or the allowed values
// (string, strings), a help line, and whether the key matters at compile time or at run time.
// The host checks every manifest value and every `--set` against the declarations when it loads
// the environment, so a wrong type or value is a ge::ConfigError naming the manifest file and
// line (or the --set), the key and the allowed values, before any pass runs. `gec plugins
// --options` lists every declared option. A plugin's own section `[NAME]` (NAME = its manifest
// name) holds the options it declares under "NAME.key".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ge {

enum class OptionType { Bool, Int, Float, String, Strings };
/// When a key matters: while compiling (passes, schedulers, planners) or when a plan runs.
enum class OptionPhase { Compile, Run };

/// A parsed option value: bool, int64_t, double, std::string or std::vector<std::string>, by
/// OptionType in that order.
using OptionData = std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;

struct OptionDecl {
  std::string key;  ///< "section.key", e.g. "scheduler.streams"
  OptionType type = OptionType::String;
  OptionData default_value = std::string();  ///< of `type`
  std::optional<double> min, max;            ///< Int / Float: inclusive bounds
  std::vector<std::string> choices;          ///< String / Strings: allowed values (empty: any)
  std::string help;
  OptionPhase phase = OptionPhase::Compile;
  std::string plugin;  ///< the declaring plugin (filled by the host; "core" for the core's own)
};

std::string_view option_type_name(OptionType t);  ///< "bool", "int", "float", "string", "strings"
/// What a value must be, in words: "an integer in [1, 64]", "one of \"latency\", \"throughput\"".
std::string option_allowed(const OptionDecl& d);
/// The value as TOML text (strings quoted, arrays bracketed).
std::string option_data_toml(const OptionData& v);

/// Parses `toml_text` (the TOML of one value, e.g. "2", "\"auto\"", "[\"a\", \"b\"]") as `d`
/// requires. Throws ge::ConfigError "'KEY' must be ALLOWED, not TEXT (a TYPE)" on a wrong type,
/// a value out of range or not among the choices. An int is accepted where a float is declared.
OptionData parse_option(const OptionDecl& d, const std::string& toml_text);

/// The TOML type of one value's text: "string", "integer", "float", "boolean", "array",
/// "date-time", … ("unparsable" when it is no TOML value).
std::string toml_value_type(const std::string& toml_text);

/// Reads a value of an undeclared key with the same parser: the TOML value of `toml_text` as
/// `type`, `what` naming the key in errors. (Declared keys: parse_option.)
OptionData parse_option_as(OptionType type, const std::string& what, const std::string& toml_text);

}  // namespace ge
