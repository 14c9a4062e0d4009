// Registers format preferences for backend "cpu", which the CPU backend already registers:
// loading both fails, naming the backend and this plugin.
#include "ge/sdk/plugin.h"
static void reg(ge::Registrar& r) {
  r.add_format_preference("cpu", [](const ge::Node&) -> std::optional<ge::NodeFormats> { return std::nullopt; });
}
GE_PLUGIN("dup_format_preference", "1.0.0", reg)
