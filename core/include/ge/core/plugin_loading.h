// ge/core/plugin_loading.h — loading one more plugin into an environment (load_environment
// loads every enabled plugin of its manifest this way).
#pragma once

#include "ge/core/environment.h"
#include "ge/core/manifest.h"

namespace ge::core {

/// Loads the plugin of `entry` into `env` and runs its registration. Throws ge::Error naming the
/// plugin when it cannot be loaded or its registration throws; `env` is then as it was before
/// (its ops, shape inference, expanders, kernels, passes and the rest rolled back).
void load_plugin(Environment& env, const PluginEntry& entry);

}  // namespace ge::core
