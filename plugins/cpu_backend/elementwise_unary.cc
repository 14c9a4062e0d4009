// plugins/cpu_backend/elementwise_unary.cc — unary math: Sqrt, Erf (float32, float64).
#include <cmath>

#include "elementwise_common.h"

namespace ge::cpu {
namespace {

/// Sqrt-13: y = x^0.5; negative x gives NaN (IEEE), as in the ONNX reference (np.sqrt).
struct SqrtOp {
  template <class T> T operator()(T x) const { return std::sqrt(x); }
};
/// Erf-13: the Gauss error function; std::erf is accurate to a few ulp, enough for the ONNX
/// node tests (atol 1e-7 around values of order 1) and for Gelu's erf form.
struct ErfOp {
  template <class T> T operator()(T x) const { return std::erf(x); }
};

}  // namespace

void register_unary_kernels(Registrar& r) {
  add_cpu_kernel(r, "Sqrt", unary_factory<SqrtOp>("Sqrt", FloatTypes{}));
  add_cpu_kernel(r, "Erf", unary_factory<ErfOp>("Erf", FloatTypes{}));
}

}  // namespace ge::cpu
