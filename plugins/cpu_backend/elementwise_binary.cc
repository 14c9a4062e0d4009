// plugins/cpu_backend/elementwise_binary.cc — Add, Sub, Mul, Div, Pow, Mod, BitShift with numpy
// multidirectional broadcasting (ONNX docs/Broadcasting.md).
//
// The broadcast plan is built at kernel build time (broadcast.h); run() walks output rows and
// picks one of four contiguous inner loops (vector-vector, vector-scalar, scalar-vector,
// scalar-scalar), which GCC vectorizes for the arithmetic ops.
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "broadcast.h"
#include "elementwise_ops.h"
#include "elementwise_common.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

struct AddOp {
  template <class T> T operator()(T a, T b) const { return wrapping(a, b, [](auto x, auto y) { return x + y; }); }
};
struct SubOp {
  template <class T> T operator()(T a, T b) const { return wrapping(a, b, [](auto x, auto y) { return x - y; }); }
};
struct MulOp {
  template <class T> T operator()(T a, T b) const { return wrapping(a, b, [](auto x, auto y) { return x * y; }); }
};

/// Integer Div truncates toward zero: the ONNX reference computes np.divide in float64 and
/// casts back to the input type (onnx/reference/ops/op_div.py), which is C's `/` for
/// representable results. Division by zero yields 0 and INT_MIN / -1 wraps instead of raising
/// SIGFPE: a kernel must never abort the process.
struct DivOp {
  template <class T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return a / b;
    } else {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(a));
      }
      return static_cast<T>(a / b);
    }
  }
};

/// Integer power by squaring, wrapping modulo 2^bits like numpy's integer power.
template <class T, class E> T int_pow(T base, E exp) {
  using U = std::make_unsigned_t<T>;
  U result = 1, b = static_cast<U>(base);
  auto e = static_cast<std::make_unsigned_t<E>>(exp);
  while (e) {
    if (e & 1) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
    e >>= 1;
  }
  return static_cast<T>(result);
}

/// Pow (ONNX Pow-15): output type = base type. The reference computes np.power and casts to
/// the base type, so mixed types go through double; float^float stays in float (powf).
struct PowOp {
  template <class A, class B> A operator()(A x, B y) const {
    if constexpr (std::is_same_v<A, float> && std::is_same_v<B, float>) {
      return ops::pow_f32(x, y);
    } else if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
      if constexpr (std::is_signed_v<B>) {
        if (y < 0) {
          // Only |x| == 1 has an integer result; numpy refuses negative integer powers.
          if (x == 1) return A(1);
          if constexpr (std::is_signed_v<A>) {
            if (x == -1) return (y & 1) ? A(-1) : A(1);
          }
          return A(0);
        }
      }
      return int_pow(x, y);
    } else {
      const double r = std::pow(static_cast<double>(x), static_cast<double>(y));
      if constexpr (std::is_integral_v<A>) {
        // Casting a non-finite or out-of-range double to an integer is undefined in C++.
        if (!(r > static_cast<double>(std::numeric_limits<A>::lowest()) - 1.0 &&
              r < static_cast<double>(std::numeric_limits<A>::max()) + 1.0)) {
          return std::numeric_limits<A>::lowest();
        }
      }
      return static_cast<A>(r);
    }
  }
};

/// Mod-13 (ONNX Operators.md#Mod). fmod = 0 (integers only): the remainder takes the
/// divisor's sign, like Python's % (np.mod); fmod = 1: the dividend's sign, like C's fmod
/// (np.fmod). x mod 0 is 0 for integers (numpy gives 0 with a warning) instead of SIGFPE, and
/// INT_MIN mod -1 is 0.
struct ModOp {
  bool fmod = false;
  template <class T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);  // the schema requires fmod = 1 for floats (checked at build)
    } else {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);
      }
      const T r = static_cast<T>(a % b);
      if constexpr (std::is_signed_v<T>) {
        if (!fmod && r != 0 && ((r < 0) != (b < 0))) return static_cast<T>(r + b);
      }
      return r;
    }
  }
};

/// BitShift-11 (unsigned integers): shifting by the width or more gives 0 (numpy's
/// left_shift/right_shift), where C++ leaves it undefined.
struct BitShiftOp {
  bool left = true;
  template <class T> T operator()(T a, T b) const {
    if (b >= static_cast<T>(sizeof(T) * 8)) return T(0);
    return left ? static_cast<T>(a << b) : static_cast<T>(a >> b);
  }
};

template <class Op> Op no_attrs(const KernelBuildContext&) { return Op{}; }

// Pow-15: T (base and output) int32, int64, float16/32/64, bfloat16; T1 every numeric type.
using PowBaseTypes = Types<float, double, half, bfloat16, int32_t, int64_t>;
using PowExpTypes = AnyNumericTypes;

/// x · x: Pow of float32 by a constant exponent 2 (RMSNorm's and T5's variance, x ** 2 in
/// PyTorch exports), a multiply per element where powf's general path costs ~7 ns.
struct SquareOp {
  float operator()(float x) const { return x * x; }
};

/// The value of a constant one-element float exponent, else nullopt.
std::optional<double> constant_exponent(const KernelBuildContext& ctx) {
  const Tensor* e = ctx.input_data(1);
  if (!e || e->numel() != 1) return std::nullopt;
  if (e->dtype() == DataType::Float32) return e->data_as<float>()[0];
  if (e->dtype() == DataType::Float64) return e->data_as<double>()[0];
  return std::nullopt;
}

std::unique_ptr<Kernel> make_pow(const KernelBuildContext& ctx) {
  if (ctx.input_type(0) == DataType::Float32 && ctx.output_shape(0) == ctx.input_shape(0) &&
      constant_exponent(ctx) == 2.0)
    return std::make_unique<MapKernel<float, float, SquareOp>>(SquareOp{}, ctx.threads, "Pow:square");
  auto plan = loops::broadcast_plan(ctx.output_shape(0), {ctx.input_shape(0), ctx.input_shape(1)}, ctx.node.describe());
  std::unique_ptr<Kernel> k;
  bool exp_ok = true;
  const bool base_ok = visit_type(PowBaseTypes{}, ctx.input_type(0), [&](auto base) {
    exp_ok = visit_type(PowExpTypes{}, ctx.input_type(1), [&](auto exp) {
      using A = typename decltype(base)::type;
      using B = typename decltype(exp)::type;
      k = std::make_unique<BinaryKernel<A, B, A, PowOp>>(std::move(plan), PowOp{}, ctx.threads, "Pow");
    });
  });
  if (!base_ok) unsupported_node_dtype(ctx, ctx.input_type(0), "base");
  if (!exp_ok) unsupported_node_dtype(ctx, ctx.input_type(1), "exponent");
  return k;
}

}  // namespace

void register_binary_kernels(Registrar& r) {
  add_cpu_kernel(r, "Add", binary_factory<AddOp>("Add", AnyNumericTypes{}, no_attrs<AddOp>));
  add_cpu_kernel(r, "Sub", binary_factory<SubOp>("Sub", AnyNumericTypes{}, no_attrs<SubOp>));
  add_cpu_kernel(r, "Mul", binary_factory<MulOp>("Mul", AnyNumericTypes{}, no_attrs<MulOp>));
  add_cpu_kernel(r, "Div", binary_factory<DivOp>("Div", AnyNumericTypes{}, no_attrs<DivOp>));
  add_cpu_kernel(r, "Pow", make_pow);
  add_cpu_kernel(r, "Mod", binary_factory<ModOp>("Mod", AnyNumericTypes{}, [](const KernelBuildContext& c) {
                   const bool fmod = c.node.attrs.get_int("fmod", 0) != 0;
                   if (!fmod && dtype_is_float(c.input_type(0)))
                     throw InvalidGraphError(c.node.describe() + ": Mod of " + std::string(dtype_name(c.input_type(0))) +
                                             " needs fmod = 1 (ONNX Mod-13)");
                   return ModOp{fmod};
                 }));
  add_cpu_kernel(r, "BitShift",
                 binary_factory<BitShiftOp>("BitShift", Types<uint8_t, uint16_t, uint32_t, uint64_t>{},
                                            [](const KernelBuildContext& c) {
                                              const std::string d = c.node.attrs.get_string("direction", "");
                                              if (d != "LEFT" && d != "RIGHT")
                                                throw InvalidGraphError(c.node.describe() +
                                                                        ": direction must be LEFT or RIGHT, got '" + d + "'");
                                              return BitShiftOp{d == "LEFT"};
                                            }));
}

void register_elementwise_kernels(Registrar& r) {
  register_binary_kernels(r);
  register_unary_kernels(r);
  register_activation_kernels(r);
  register_sum_kernels(r);
  register_variadic_kernels(r);
  register_compare_kernels(r);
  register_cast_kernels(r);
}

}  // namespace ge::cpu
