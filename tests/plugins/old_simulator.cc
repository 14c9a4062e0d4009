// A plugin built against SDK ABI 1.3 that registers a device simulator: DeviceSimulation gained
// fields in 1.4, so the host must refuse the simulator (its returned struct has the old layout).
#include "ge/sdk/device_sim.h"
#include "ge/sdk/plugin.h"
static void reg(ge::Registrar& r) {
  r.add_device_simulator("old_device", [](const ge::Graph&, const ge::OptionReader&) { return ge::DeviceSimulation{}; });
}
extern "C" __attribute__((visibility("default"))) const GePluginDescriptor* ge_plugin_entry() {
  static const GePluginDescriptor d{GE_SDK_ABI_MAJOR, 3, "old_simulator", "1.0.0", &reg};
  return &d;
}
