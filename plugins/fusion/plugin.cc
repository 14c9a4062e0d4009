// The fusion plugin: simplify passes (constant folding, DCE, CSE, no-op removal), fusion rules
// and the definitions of the fused op types they create.
#include "registration.h"

GE_PLUGIN("fusion", "0.1.0", ge::fusion::register_all)
