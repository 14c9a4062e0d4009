#include "ge/sdk/pass.h"

#include "ge/sdk/error.h"

namespace ge {

namespace {
constexpr std::string_view kStages[] = {"import", "canonicalize", "simplify", "fusion",
                                        "layout", "schedule",     "memory",   "codegen"};
}

std::optional<OptionData> PassContext::typed_option(const std::string& section, const std::string& key,
                                                   OptionType type) const {
  std::optional<std::string> text = option(section, key);
  if (!text) return std::nullopt;
  return parse_option_as(type, section + "." + key, *text);
}

std::string PassContext::string_option(const std::string& section, const std::string& key, const std::string& dflt) const {
  auto v = typed_option(section, key, OptionType::String);
  return v ? std::get<std::string>(*v) : dflt;
}

int64_t PassContext::int_option(const std::string& section, const std::string& key, int64_t dflt) const {
  auto v = typed_option(section, key, OptionType::Int);
  return v ? std::get<int64_t>(*v) : dflt;
}

bool PassContext::bool_option(const std::string& section, const std::string& key, bool dflt) const {
  auto v = typed_option(section, key, OptionType::Bool);
  return v ? std::get<bool>(*v) : dflt;
}

std::vector<std::string> PassContext::strings_option(const std::string& section, const std::string& key,
                                                     const std::vector<std::string>& dflt) const {
  auto v = typed_option(section, key, OptionType::Strings);
  return v ? std::get<std::vector<std::string>>(*v) : dflt;
}

std::string_view stage_name(Stage s) { return kStages[static_cast<size_t>(s)]; }

Stage stage_from_name(std::string_view s) {
  for (size_t i = 0; i < std::size(kStages); ++i)
    if (kStages[i] == s) return static_cast<Stage>(i);
  throw Error("unknown pipeline stage '" + std::string(s) + "'");
}

OptLevel opt_level_from_name(std::string_view s) {
  if (s == "O0") return OptLevel::O0;
  if (s == "O1") return OptLevel::O1;
  if (s == "O2") return OptLevel::O2;
  if (s == "O3") return OptLevel::O3;
  throw Error("unknown optimization level '" + std::string(s) + "' (O0, O1, O2, O3)");
}

std::string_view numerics_effect_name(NumericsEffect e) {
  switch (e) {
    case NumericsEffect::Exact: return "exact";
    case NumericsEffect::Reassociates: return "reassociates";
    case NumericsEffect::ReducesPrecision: return "reduces_precision";
  }
  return "?";
}

}  // namespace ge
