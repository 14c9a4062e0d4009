// plugins/cpu_backend/elementwise_binary.cc — Add, Sub, Mul, Div, Pow with numpy
// multidirectional broadcasting (ONNX docs/Broadcasting.md).
//
// The broadcast plan is built at kernel build time (broadcast.h); run() walks output rows and
// picks one of four contiguous inner loops (vector-vector, vector-scalar, scalar-vector,
// scalar-scalar), which GCC vectorizes for the arithmetic ops.
#include <cmath>
#include <limits>
#include <type_traits>

#include "broadcast.h"
#include "elementwise_common.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

struct AddOp {
  template <class T> T operator()(T a, T b) const { return static_cast<T>(a + b); }
};
struct SubOp {
  template <class T> T operator()(T a, T b) const { return static_cast<T>(a - b); }
};
struct MulOp {
  template <class T> T operator()(T a, T b) const { return static_cast<T>(a * b); }
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
      return std::pow(x, y);
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

template <class TA, class TB, class Op>
class BinaryKernel final : public Kernel {
 public:
  BinaryKernel(loops::LoopPlan plan, int threads, std::string name)
      : plan_(std::move(plan)), threads_(threads), name_(std::move(name)) {}
  void run(KernelIO& io) override {
    loops::binary_rows<TA, TB, TA>(plan_, io.inputs[0].data_as<TA>(), io.inputs[1].data_as<TB>(),
                            io.outputs[0].data_as<TA>(), threads_, Op{});
  }
  std::string impl_name() const override { return "cpu:" + name_; }

 private:
  loops::LoopPlan plan_;
  int threads_;
  std::string name_;
};

template <class Op, class TypeList>
KernelFactory same_type_factory(const std::string& op, TypeList types) {
  return [op, types](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
    const DataType t = ctx.input_type(0);
    if (ctx.input_type(1) != t) {
      throw InvalidGraphError(ctx.node.describe() + ": inputs have different dtypes " +
                              std::string(dtype_name(t)) + " and " + std::string(dtype_name(ctx.input_type(1))));
    }
    auto plan = loops::broadcast_plan(ctx.output_shape(0), {ctx.input_shape(0), ctx.input_shape(1)}, ctx.node.describe());
    std::unique_ptr<Kernel> k;
    if (!visit_type(types, t, [&](auto tag) {
          using T = typename decltype(tag)::type;
          k = std::make_unique<BinaryKernel<T, T, Op>>(std::move(plan), ctx.threads, op);
        })) {
      unsupported_dtype(op, t);
    }
    return k;
  };
}

using PowBaseTypes = Types<float, double, int32_t, int64_t>;
using PowExpTypes = Types<float, double, int32_t, int64_t, uint32_t, uint64_t>;

std::unique_ptr<Kernel> make_pow(const KernelBuildContext& ctx) {
  auto plan = loops::broadcast_plan(ctx.output_shape(0), {ctx.input_shape(0), ctx.input_shape(1)}, ctx.node.describe());
  std::unique_ptr<Kernel> k;
  bool exp_ok = true;
  const bool base_ok = visit_type(PowBaseTypes{}, ctx.input_type(0), [&](auto base) {
    exp_ok = visit_type(PowExpTypes{}, ctx.input_type(1), [&](auto exp) {
      using A = typename decltype(base)::type;
      using B = typename decltype(exp)::type;
      k = std::make_unique<BinaryKernel<A, B, PowOp>>(std::move(plan), ctx.threads, "Pow");
    });
  });
  if (!base_ok) unsupported_dtype("Pow", ctx.input_type(0), "base");
  if (!exp_ok) unsupported_dtype("Pow", ctx.input_type(1), "exponent");
  return k;
}

}  // namespace

void register_binary_kernels(Registrar& r) {
  add_cpu_kernel(r, "Add", same_type_factory<AddOp>("Add", NumericTypes{}));
  add_cpu_kernel(r, "Sub", same_type_factory<SubOp>("Sub", NumericTypes{}));
  add_cpu_kernel(r, "Mul", same_type_factory<MulOp>("Mul", NumericTypes{}));
  add_cpu_kernel(r, "Div", same_type_factory<DivOp>("Div", NumericTypes{}));
  add_cpu_kernel(r, "Pow", make_pow);
}

void register_elementwise_kernels(Registrar& r) {
  register_binary_kernels(r);
  register_unary_kernels(r);
  register_activation_kernels(r);
  register_sum_kernels(r);
}

}  // namespace ge::cpu
