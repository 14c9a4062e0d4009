// A plugin built against SDK ABI 1.6 that registers a kernel: KernelDef and KernelBuildContext
// gained fields in 1.7 (kernels that allocate their outputs), so the host must refuse it.
#include "ge/sdk/kernel.h"
#include "ge/sdk/plugin.h"
static void reg(ge::Registrar& r) {
  r.add_kernel(ge::KernelDef{"cpu", "", "OldRelu", [](const ge::KernelBuildContext&) -> std::unique_ptr<ge::Kernel> {
                               return nullptr;
                             }, ""});
}
extern "C" __attribute__((visibility("default"))) const GePluginDescriptor* ge_plugin_entry() {
  static const GePluginDescriptor d{GE_SDK_ABI_MAJOR, 6, "old_kernel", "1.0.0", &reg};
  return &d;
}
