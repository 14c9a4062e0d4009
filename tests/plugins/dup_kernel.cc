// Registers a "cpu" kernel for Relu, which the CPU backend already provides: loading both fails.
#include "ge/sdk/plugin.h"
static void reg(ge::Registrar& r) {
  r.add_kernel({"cpu", "", "Relu", [](const ge::KernelBuildContext&) -> std::unique_ptr<ge::Kernel> { return nullptr; }, ""});
}
GE_PLUGIN("dup_kernel", "1.0.0", reg)
