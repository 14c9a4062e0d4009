// ge/core/compare.h — comparing outputs with references.
#pragma once
#include <optional>
#include <string>

#include "ge/sdk/tensor.h"

namespace ge::core {

struct Tolerance {
  /// Relative L2 error bound ‖out − ref‖₂ / ‖ref‖₂; negative disables the check.
  double max_rel_l2 = 1e-5;
  /// Elementwise |out − ref| ≤ atol + rtol·|ref| (numpy.isclose's rule).
  double rtol = 1e-4;
  /// When unset: 1e-6 × max|ref| of that output.
  std::optional<double> atol;
  /// false: only the relative L2 bound decides (`gec run --max-rel-l2 X` without --rtol/--atol:
  /// reduced-precision runs, e.g. fp16 on the Ascend backend, whose per-element errors on small
  /// logits exceed any useful rtol while the whole output is close). Integer outputs stay exact.
  bool elementwise = true;
};

struct Comparison {
  bool ok = false;
  double rel_l2 = 0, max_abs = 0, atol = 0;
  int64_t worst_index = -1;  ///< flat index of the element with the largest |out−ref| / (atol + rtol·|ref|)
  double worst_out = 0, worst_ref = 0;
  std::string message;  ///< one line: figures and the worst element; the reason when !ok
};

/// Compares out with ref: same dtype and shape required; integer and bool tensors must be equal;
/// float tensors must meet both bounds. NaN in out where ref is not NaN fails.
Comparison compare_tensors(const Tensor& out, const Tensor& ref, const Tolerance& tol);

}  // namespace ge::core
