// plugins/cpu_backend/dynamic_shape.h — the run-time check of ops whose output shape depends on
// input values (NonZero, Compress, Unique, NonMaxSuppression). GE plans static shapes (the
// importer takes the model's declared shape when ONNX cannot infer one), so such a kernel
// computes its result size first and stops the run when it differs from the planned buffer:
// never an out-of-bounds write, never a silent truncation.
#pragma once
#include <string>

#include "ge/sdk/error.h"
#include "ge/sdk/plugin.h"
#include "ge/sdk/types.h"

namespace ge::cpu {

void register_select_kernels(Registrar& r);  // NonZero Compress Unique (tensor_select.cc)
void register_nms_kernels(Registrar& r);     // NonMaxSuppression (nonmax_suppression.cc)

/// Throws ge::Error "<node>: <what> has computed shape <got> but the planned output shape is
/// <planned>" unless they are equal.
inline void expect_planned_shape(const std::string& node, const std::string& what, const Shape& got,
                                 const Shape& planned) {
  if (got != planned) {
    throw Error(node + ": " + what + " has computed shape " + got.str() + " at run time but the planned output shape is " +
                planned.str() + " (the model's declared shape does not fit these input values)");
  }
}

}  // namespace ge::cpu
