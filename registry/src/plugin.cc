// registry/src/plugin.cc — libge_registry.so: the standard ONNX operator definitions.
#include "ge/registry/standard_ops.h"

GE_PLUGIN("registry", "0.1.0", ge::registry::register_standard_ops)
