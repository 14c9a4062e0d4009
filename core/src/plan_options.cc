// core/src/plan_options.cc — a run-time manifest checked against the options a plan was
// compiled with (ge/core/plan.h, docs/manifest.md "Plans").
#include <algorithm>

#include "ge/core/plan.h"
#include "ge/sdk/error.h"
#include "ge/sdk/options.h"

namespace ge::core {
namespace {

/// The value of `toml` as the key's declaration reads it; for an undeclared key, as the first
/// option type that parses it (so `2` and `2.0`, or "a" and 'a', compare equal); nullopt when it
/// parses as none.
std::optional<OptionData> typed(const std::string& key, const std::string& toml, const Environment& env) {
  if (auto d = env.option_decls.find(key); d != env.option_decls.end()) {
    try {
      return parse_option(d->second, toml);
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  for (OptionType t : {OptionType::Bool, OptionType::Int, OptionType::Float, OptionType::String, OptionType::Strings}) {
    try {
      return parse_option_as(t, key, toml);
    } catch (const Error&) {
    }
  }
  return std::nullopt;
}

}  // namespace

bool is_compile_time_option(const std::string& key, const Environment& env) {
  if (key.rfind("compile.", 0) == 0) return true;
  if (auto d = env.option_decls.find(key); d != env.option_decls.end()) return d->second.phase == OptionPhase::Compile;
  for (const auto& [p, src] : env.passes) {
    const PassInfo i = p->info();
    if (!i.runtime_safe && std::find(i.options.begin(), i.options.end(), key) != i.options.end()) return true;
  }
  return false;
}

void check_manifest_matches_plan(const PlanContents& plan, const Environment& env, const std::string& plan_path) {
  if (!plan.compile_options) return;
  for (const auto& [section, keys] : env.manifest.sections)
    for (const auto& [name, val] : keys) {
      const std::string key = section + "." + name;
      if (!is_compile_time_option(key, env)) continue;
      const auto rec = plan.compile_options->find(key);
      std::string compiled_text;
      std::optional<OptionData> compiled;
      if (rec != plan.compile_options->end()) {
        compiled_text = rec->second;
        compiled = typed(key, rec->second, env);
      } else if (auto d = env.option_decls.find(key); d != env.option_decls.end()) {
        compiled = d->second.default_value;
        compiled_text = option_data_toml(*compiled) + " (the default)";
      } else {
        compiled_text = "nothing (the key was not set)";
      }
      const std::optional<OptionData> asked = typed(key, val.toml, env);
      // Typed values compare when both parse (2 and 2.0, "a" and 'a'); else the recorded text.
      const bool recorded = rec != plan.compile_options->end();
      const bool same = asked && compiled ? *asked == *compiled : recorded && val.toml == rec->second;
      if (same) continue;
      throw ConfigError((val.origin.empty() ? "--set" : val.origin) + ": '" + key + "' = " + val.toml + " disagrees with plan '" +
                        plan_path + "', compiled with " + compiled_text +
                        "; compile-time options take effect when compiling (recompile the model with this manifest, or "
                        "drop the key)");
    }
}

}  // namespace ge::core
