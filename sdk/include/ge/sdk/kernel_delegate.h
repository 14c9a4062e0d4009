// ge/sdk/kernel_delegate.h — a backend that runs another backend's kernels: the Ascend backend's
// AI CPU engine runs the cpu backend's kernel for an op (CANN's AI CPU operators are CPU code
// run on the device's ARM cores on ND-format data; docs/ascend.md, "AI CPU engine"). Plugins
// still see only the SDK: the delegate's kernels are found at kernel build through the registry,
// by backend name, never by linking the other plugin.
//
// A backend declares its delegate with one KernelDef, kernel_delegate_def(backend, delegate, f),
// registered with Registrar::add_kernel like any kernel (domain kKernelDelegateDomain, op type =
// the delegate backend's name: no ONNX op can collide with it). From then on
// KernelRegistry::find(backend, domain, op) returns that declaration for every op the delegate
// backend has a kernel for (whether or not `backend` has one of its own), so the importer expands
// no function body the delegate can run and the runtime builds the node through `f`; ops only
// `backend` has keep their own definition. While `f` runs, delegated_kernels() names both
// candidates for the node's op: `backend`'s own kernel (or null) and the delegate's — `f`
// decides which one builds the node. One declaration per backend; a second one, or a backend
// naming itself, throws ge::Error from KernelRegistry::add naming both sources.
//
// No struct or class of the SDK changes layout for this (free functions and a reserved domain
// only), so plugins built against the same ABI keep working.
#pragma once
#include <string>

#include "ge/sdk/kernel.h"

namespace ge {

/// The reserved domain of delegate declarations.
inline constexpr const char* kKernelDelegateDomain = "ge.kernel_delegate";

/// The declaration that `backend` runs `delegate`'s kernels, built by `factory` (which reads
/// delegated_kernels()). Register it with Registrar::add_kernel.
KernelDef kernel_delegate_def(const std::string& backend, const std::string& delegate, KernelFactory factory);

/// The two kernels a delegate declaration's factory chooses between for the node being built.
struct DelegatedKernels {
  const KernelDef* own = nullptr;       ///< the declaring backend's own kernel for the op, or null
  const KernelDef* delegate = nullptr;  ///< the delegate backend's kernel for the op (never null)
};
/// Inside a delegate declaration's factory: the kernels for the node being built; null anywhere
/// else (per thread).
const DelegatedKernels* delegated_kernels();

/// The backend `backend` delegates to in `reg` (its declaration's op type), or "".
std::string kernel_delegate_of(const KernelRegistry& reg, const std::string& backend);

/// For "no kernel" errors: "ascend, cpu" when `backend` delegates to cpu, else "ascend".
std::string kernel_backends_searched(const KernelRegistry& reg, const std::string& backend);

}  // namespace ge
