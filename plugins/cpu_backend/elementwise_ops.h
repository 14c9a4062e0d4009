// plugins/cpu_backend/elementwise_ops.h — the elementwise functors (ONNX semantics per op) that
// the unfused kernels (elementwise_unary.cc, elementwise_activation.cc, elementwise_variadic.cc)
// and ge.FusedElementwise (fused_elementwise.cc) share, so a fused program computes the same
// bits as the ops it replaced. Each is called on the compute type (float for float16/bfloat16);
// bulk() is the vectorized float32 path where one exists (vecmath.h).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "vecmath.h"

namespace ge::cpu::ops {


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


/// Relu-14: y = max(0, x). Written as a select so NaN propagates like np.maximum does in the
/// reference, and so it vectorizes to a compare + blend.
struct ReluOp {
  template <class T> T operator()(T x) const { return x < T(0) ? T(0) : x; }
};
/// Sigmoid-13: y = 1 / (1 + exp(-x)). For x << 0, exp(-x) overflows to +inf and y is the
/// correct limit 0, so no special case is needed. float32 runs vectorized (vecmath.h).
struct SigmoidOp {
  template <class T> T operator()(T x) const { return T(1) / (T(1) + std::exp(-x)); }
  void bulk(const float* x, float* y, int64_t n) const { vec::sigmoid(x, y, n); }
};
struct TanhOp {
  template <class T> T operator()(T x) const { return std::tanh(x); }
  void bulk(const float* x, float* y, int64_t n) const { vec::tanh(x, y, n); }
};
/// LeakyRelu-16: x < 0 ? alpha x : x (alpha default 0.01).
struct LeakyReluOp {
  float alpha = 0.01f;
  template <class T> T operator()(T x) const { return x < T(0) ? static_cast<T>(alpha) * x : x; }
};
/// Elu-6: x < 0 ? alpha (exp(x) - 1) : x (alpha default 1).
struct EluOp {
  float alpha = 1.f;
  template <class T> T operator()(T x) const { return x < T(0) ? static_cast<T>(alpha) * std::expm1(x) : x; }
};
/// Selu-6: gamma (x > 0 ? x : alpha (exp(x) - 1)); defaults are the float32 values of the
/// constants of Klambauer et al. 2017 that the schema states.
struct SeluOp {
  float alpha = 1.67326319217681884765625f, gamma = 1.05070102214813232421875f;
  template <class T> T operator()(T x) const {
    return static_cast<T>(gamma) * (x > T(0) ? x : static_cast<T>(alpha) * std::expm1(x));
  }
};
/// Celu-12: max(0, x) + min(0, alpha (exp(x / alpha) - 1)) (alpha default 1).
struct CeluOp {
  float alpha = 1.f;
  template <class T> T operator()(T x) const {
    const T a = static_cast<T>(alpha);
    return x > T(0) ? x : a * std::expm1(x / a);
  }
};
/// ThresholdedRelu-10: x > alpha ? x : 0 (alpha default 1).
struct ThresholdedReluOp {
  float alpha = 1.f;
  template <class T> T operator()(T x) const { return x > static_cast<T>(alpha) ? x : T(0); }
};
/// HardSigmoid-6: max(0, min(1, alpha x + beta)) (alpha 0.2, beta 0.5).
struct HardSigmoidOp {
  float alpha = 0.2f, beta = 0.5f;
  template <class T> T operator()(T x) const {
    const T v = static_cast<T>(alpha) * x + static_cast<T>(beta);
    return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
  }
};
/// HardSwish-14: x * max(0, min(1, x / 6 + 1 / 2)).
struct HardSwishOp {
  template <class T> T operator()(T x) const {
    const T v = x / T(6) + T(0.5);
    return x * (v < T(0) ? T(0) : (v > T(1) ? T(1) : v));
  }
};
/// Softplus-1: log(1 + exp(x)), written as max(x, 0) + log1p(exp(-|x|)) so it neither
/// overflows for large x nor loses the small values for very negative x.
struct SoftplusOp {
  template <class T> T operator()(T x) const {
    return (x > T(0) ? x : T(0)) + std::log1p(std::exp(-std::fabs(x)));
  }
};
/// Softsign-1: x / (1 + |x|).
struct SoftsignOp {
  template <class T> T operator()(T x) const { return x / (T(1) + std::fabs(x)); }
};
/// Shrink-9 (every numeric type): x < -lambd ? x + bias : x > lambd ? x - bias : 0, computed
/// with the float attributes as ORT's shrink.cc does, the result cast back to the input type.
struct ShrinkOp {
  float bias = 0.f, lambd = 0.5f;
  template <class T> T operator()(T x) const {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const C v = static_cast<C>(x);
    if (v < -static_cast<C>(lambd)) return static_cast<T>(v + static_cast<C>(bias));
    if (v > static_cast<C>(lambd)) return static_cast<T>(v - static_cast<C>(bias));
    return T(0);
  }
};


/// float^float: x · x for an exponent of 2 (the correctly rounded square; glibc's powf may be an
/// ulp off it), powf otherwise. The Pow kernel, its constant-exponent-2 map and
/// ge.FusedElementwise's Pow all compute this, so that fusing a Pow changes no bit (strict).
inline float pow_f32(float x, float y) { return y == 2.0f ? x * x : std::pow(x, y); }

/// np.minimum / np.maximum: a NaN in either operand gives NaN (ORT's Min/Max do the same).
struct MinOp {
  template <class T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return b < a ? b : a;
  }
};
struct MaxOp {
  template <class T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return a < b ? b : a;
  }
};
}  // namespace ge::cpu::ops
