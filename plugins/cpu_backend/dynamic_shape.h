// plugins/cpu_backend/dynamic_shape.h — ops whose output shape depends on input values
// (NonZero, Compress, Unique, NonMaxSuppression). Built for a planned graph (the importer took
// the model's declared shape), such a kernel computes its result size first and stops the run
// when it differs from the planned buffer: never an out-of-bounds write, never a silent
// truncation. Built with KernelBuildContext::dynamic_outputs (the host's eager evaluation of
// the node, which a plan's stages rely on when no shape is declared), it allocates its outputs.
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

/// Output k for the computed shape `got`: allocated as `dt` when the kernel was built with
/// dynamic outputs, else the planned buffer after expect_planned_shape.
inline Tensor& sized_output(KernelIO& io, size_t k, bool dynamic, DataType dt, const Shape& got, const std::string& node,
                            const std::string& what) {
  if (dynamic) io.outputs[k] = Tensor::allocate(dt, got);
  else expect_planned_shape(node, what, got, io.outputs[k].shape());
  return io.outputs[k];
}

/// Registers a cpu kernel whose factory honours KernelBuildContext::dynamic_outputs.
inline void add_allocating_cpu_kernel(Registrar& r, const std::string& op, KernelFactory f) {
  KernelDef d{"cpu", "", op, std::move(f), ""};
  d.allocates_outputs = true;
  r.add_kernel(std::move(d));
}

}  // namespace ge::cpu
