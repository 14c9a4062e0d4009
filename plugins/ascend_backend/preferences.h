// plugins/ascend_backend/preferences.h — registration of backend "ascend"'s format preferences.
#pragma once
#include "ge/sdk/plugin.h"

namespace ge::ascend {
void register_preferences(Registrar& r);
}  // namespace ge::ascend
