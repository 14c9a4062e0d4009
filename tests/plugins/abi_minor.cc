// A plugin built against a newer SDK minor than the host's: must be refused at load.
#include "ge/sdk/plugin.h"
static void reg(ge::Registrar&) {}
extern "C" __attribute__((visibility("default"))) const GePluginDescriptor* ge_plugin_entry() {
  static const GePluginDescriptor d{GE_SDK_ABI_MAJOR, GE_SDK_ABI_MINOR + 1, "abi_minor", "1.0.0", &reg};
  return &d;
}
