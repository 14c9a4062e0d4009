#include "ge/sdk/pass.h"

#include "ge/sdk/error.h"

namespace ge {

namespace {
constexpr std::string_view kStages[] = {"import", "canonicalize", "simplify", "fusion",
                                        "layout", "schedule",     "memory",   "codegen"};
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
