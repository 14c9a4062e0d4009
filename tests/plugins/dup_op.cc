// Registers Relu-14, which the standard registry already defines: loading both must fail.
#include "ge/sdk/plugin.h"
static void reg(ge::Registrar& r) {
  ge::OpDef d;
  d.op_type = "Relu";
  d.since_version = 14;
  r.add_op(d);
}
GE_PLUGIN("dup_op", "1.0.0", reg)
