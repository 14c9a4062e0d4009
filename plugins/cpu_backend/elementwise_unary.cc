// plugins/cpu_backend/elementwise_unary.cc — unary math (ONNX Operators.md: Abs, Neg,
// Reciprocal, Floor, Ceil, Round, Sign, Exp, Log, Sqrt, Erf, Sin ... Atanh, IsNaN, IsInf, Not)
// on every dtype of their schemas; float16/bfloat16 are computed in float32 (elementwise_common.h).
#include <cmath>
#include <limits>
#include <type_traits>

#include "elementwise_common.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {

/// -x with two's-complement wrap, so Neg(INT_MIN) = INT_MIN as numpy gives (C++ `-x` is
/// undefined there).
template <class T> T negate(T x) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::make_unsigned_t<T>(0) - static_cast<std::make_unsigned_t<T>>(x));
  } else {
    return -x;
  }
}

struct AbsOp {
  template <class T> T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) return x;
    else if constexpr (std::is_integral_v<T>) return x < 0 ? negate(x) : x;  // Abs(INT_MIN) = INT_MIN
    else return std::fabs(x);
  }
};
struct NegOp {
  template <class T> T operator()(T x) const { return negate(x); }
};
struct ReciprocalOp {
  template <class T> T operator()(T x) const { return T(1) / x; }
};
struct FloorOp {
  template <class T> T operator()(T x) const { return std::floor(x); }
};
struct CeilOp {
  template <class T> T operator()(T x) const { return std::ceil(x); }
};
/// Round-11: halves go to the even neighbour (np.round), i.e. IEEE roundTiesToEven, which
/// nearbyint gives under the default rounding mode.
struct RoundOp {
  template <class T> T operator()(T x) const { return std::nearbyint(x); }
};
/// Sign-13: -1, 0 or 1; NaN stays NaN (np.sign).
struct SignOp {
  template <class T> T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) return x > 0 ? T(1) : T(0);
    else if constexpr (std::is_integral_v<T>) return x > 0 ? T(1) : (x < 0 ? T(-1) : T(0));
    else return x > 0 ? T(1) : (x < 0 ? T(-1) : (x == 0 ? T(0) : x));
  }
};
struct ExpOp {
  template <class T> T operator()(T x) const { return std::exp(x); }
  void bulk(const float* x, float* y, int64_t n) const { vec::exp(x, y, n); }
};
struct LogOp {
  template <class T> T operator()(T x) const { return std::log(x); }
  void bulk(const float* x, float* y, int64_t n) const { vec::log(x, y, n); }
};
/// Sqrt-13: y = x^0.5; negative x gives NaN (IEEE), as in the ONNX reference (np.sqrt).
struct SqrtOp {
  template <class T> T operator()(T x) const { return std::sqrt(x); }
};
/// Erf-13 (every numeric type): float32 through vecmath.h; integers through double, the
/// result cast back (np.erf then astype).
struct ErfOp {
  template <class T> T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(std::erf(static_cast<double>(x)));
    else return std::erf(x);
  }
  void bulk(const float* x, float* y, int64_t n) const { vec::erf(x, y, n); }
};

#define GE_STD_UNARY(Name, fn) \
  struct Name {                \
    template <class T> T operator()(T x) const { return std::fn(x); } \
  };
GE_STD_UNARY(SinOp, sin)
GE_STD_UNARY(CosOp, cos)
GE_STD_UNARY(TanOp, tan)
GE_STD_UNARY(AsinOp, asin)
GE_STD_UNARY(AcosOp, acos)
GE_STD_UNARY(AtanOp, atan)
GE_STD_UNARY(SinhOp, sinh)
GE_STD_UNARY(CoshOp, cosh)
GE_STD_UNARY(AsinhOp, asinh)
GE_STD_UNARY(AcoshOp, acosh)
GE_STD_UNARY(AtanhOp, atanh)
#undef GE_STD_UNARY

struct IsNaNOp {
  template <class T> bool operator()(T x) const { return x != x; }
};
/// IsInf-10: detect_positive / detect_negative select which infinities count.
struct IsInfOp {
  bool pos = true, neg = true;
  template <class T> bool operator()(T x) const {
    return (pos && x == std::numeric_limits<T>::infinity()) || (neg && x == -std::numeric_limits<T>::infinity());
  }
};
struct NotOp {
  bool operator()(bool x) const { return !x; }
};

}  // namespace

void register_unary_kernels(Registrar& r) {
  // Types per the schemas at opset 13 (Abs, Sign: every numeric type; Neg: the signed ones;
  // Round and the trigonometric family: float16/32/64, bfloat16 accepted as well).
  add_cpu_kernel(r, "Abs", unary_factory<AbsOp>("Abs", AnyNumericTypes{}));
  add_cpu_kernel(r, "Neg", unary_factory<NegOp>("Neg", AnySignedTypes{}));
  add_cpu_kernel(r, "Sign", unary_factory<SignOp>("Sign", AnyNumericTypes{}));
  add_cpu_kernel(r, "Reciprocal", unary_factory<ReciprocalOp>("Reciprocal", AnyFloatTypes{}));
  add_cpu_kernel(r, "Floor", unary_factory<FloorOp>("Floor", AnyFloatTypes{}));
  add_cpu_kernel(r, "Ceil", unary_factory<CeilOp>("Ceil", AnyFloatTypes{}));
  add_cpu_kernel(r, "Round", unary_factory<RoundOp>("Round", AnyFloatTypes{}));
  add_cpu_kernel(r, "Exp", unary_factory<ExpOp>("Exp", AnyFloatTypes{}));
  add_cpu_kernel(r, "Log", unary_factory<LogOp>("Log", AnyFloatTypes{}));
  add_cpu_kernel(r, "Sqrt", unary_factory<SqrtOp>("Sqrt", AnyFloatTypes{}));
  add_cpu_kernel(r, "Erf", unary_factory<ErfOp>("Erf", AnyNumericTypes{}));
  add_cpu_kernel(r, "Sin", unary_factory<SinOp>("Sin", AnyFloatTypes{}));
  add_cpu_kernel(r, "Cos", unary_factory<CosOp>("Cos", AnyFloatTypes{}));
  add_cpu_kernel(r, "Tan", unary_factory<TanOp>("Tan", AnyFloatTypes{}));
  add_cpu_kernel(r, "Asin", unary_factory<AsinOp>("Asin", AnyFloatTypes{}));
  add_cpu_kernel(r, "Acos", unary_factory<AcosOp>("Acos", AnyFloatTypes{}));
  add_cpu_kernel(r, "Atan", unary_factory<AtanOp>("Atan", AnyFloatTypes{}));
  add_cpu_kernel(r, "Sinh", unary_factory<SinhOp>("Sinh", AnyFloatTypes{}));
  add_cpu_kernel(r, "Cosh", unary_factory<CoshOp>("Cosh", AnyFloatTypes{}));
  add_cpu_kernel(r, "Asinh", unary_factory<AsinhOp>("Asinh", AnyFloatTypes{}));
  add_cpu_kernel(r, "Acosh", unary_factory<AcoshOp>("Acosh", AnyFloatTypes{}));
  add_cpu_kernel(r, "Atanh", unary_factory<AtanhOp>("Atanh", AnyFloatTypes{}));
  add_cpu_kernel(r, "IsNaN", map_factory<IsNaNOp, bool>("IsNaN", AnyFloatTypes{}, [](const KernelBuildContext&) {
                   return IsNaNOp{};
                 }));
  add_cpu_kernel(r, "IsInf", map_factory<IsInfOp, bool>("IsInf", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return IsInfOp{c.node.attrs.get_int("detect_positive", 1) != 0,
                                  c.node.attrs.get_int("detect_negative", 1) != 0};
                 }));
  add_cpu_kernel(r, "Not", unary_factory<NotOp>("Not", Types<bool>{}));
}

}  // namespace ge::cpu
