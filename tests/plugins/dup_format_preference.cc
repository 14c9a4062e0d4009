// Registers format preferences for backend "cpu", which the CPU backend already registers: the
// host composes them (this plugin's asked first). It answers for Relu only — an NC1HWC0 Relu that
// follows its neighbours — and has no opinion on every other op, which the CPU backend answers.
// Registering a second function for "cpu" from the same plugin is refused.
#include <cstdlib>

#include "ge/sdk/plugin.h"
static void reg(ge::Registrar& r) {
  r.add_format_preference("cpu", [](const ge::Node& n) -> std::optional<ge::NodeFormats> {
    if (n.op_type() != "Relu") return std::nullopt;
    ge::NodeFormats f;
    f.inputs = {ge::Format::NC1HWC0};
    f.outputs = {ge::Format::NC1HWC0};
    f.follows = true;
    return f;
  });
  if (!r.plugin_dir().empty() && std::getenv("GE_TEST_DUP_PREFERENCE_TWICE"))
    r.add_format_preference("cpu", [](const ge::Node&) -> std::optional<ge::NodeFormats> { return std::nullopt; });
}
GE_PLUGIN("dup_format_preference", "1.0.0", reg)
