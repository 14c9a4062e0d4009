// plugins/cpu_backend/elementwise_activation.cc — the activations of ONNX Operators.md: Relu,
// LeakyRelu, PRelu, Elu, Selu, Celu, ThresholdedRelu, Sigmoid, HardSigmoid, HardSwish, Softplus,
// Softsign, Tanh, Shrink, Clip; float16/bfloat16 computed in float32.
#include <cmath>
#include <limits>
#include <type_traits>

#include "elementwise_common.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {

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

float attr(const KernelBuildContext& c, const char* name, float dflt) { return c.node.attrs.get_float(name, dflt); }

/// PRelu-16: x < 0 ? slope x : x, slope broadcast unidirectionally to x (ONNX
/// docs/Broadcasting.md), through the same strided plan as the binary ops.
struct PReluOp {
  template <class T> T operator()(T x, T s) const { return x < T(0) ? s * x : x; }
};

template <class T>
class PReluKernel final : public Kernel {
 public:
  PReluKernel(loops::LoopPlan plan, int threads) : plan_(std::move(plan)), threads_(threads) {}
  void run(KernelIO& io) override {
    loops::binary_rows<T, T, T>(plan_, io.inputs[0].data_as<T>(), io.inputs[1].data_as<T>(),
                                io.outputs[0].data_as<T>(), threads_, [](T x, T s) {
                                  return Wide<T>::out(PReluOp{}(Wide<T>::in(x), Wide<T>::in(s)));
                                });
  }
  std::string impl_name() const override { return "cpu:PRelu"; }

 private:
  loops::LoopPlan plan_;
  int threads_;
};

std::unique_ptr<Kernel> make_prelu(const KernelBuildContext& ctx) {
  const DataType t = ctx.input_type(0);
  if (ctx.input_type(1) != t) unsupported_node_dtype(ctx, ctx.input_type(1), "slope");
  auto plan = loops::broadcast_plan(ctx.output_shape(0), {ctx.input_shape(0), ctx.input_shape(1)}, ctx.node.describe());
  std::unique_ptr<Kernel> k;
  if (!visit_type(AnyNumericTypes{}, t, [&](auto tag) {
        k = std::make_unique<PReluKernel<typename decltype(tag)::type>>(std::move(plan), ctx.threads);
      })) {
    unsupported_node_dtype(ctx, t);
  }
  return k;
}

/// Clip (ONNX Clip-6/11/12/13): y = min(max(x, min), max), i.e. np.clip, so min > max yields
/// max. Opset 6 takes min/max as float attributes (defaults: the float range); opset >= 11
/// takes them as optional scalar inputs, an omitted one meaning no bound. Inputs are read at
/// run time since they need not be constant.
template <class C> struct ClipOp {
  C lo, hi;
  C operator()(C x) const {
    const C v = x < lo ? lo : x;
    return hi < v ? hi : v;
  }
};

template <class T>
class ClipKernel final : public Kernel {
  using C = wide_t<T>;  // bounds and arithmetic in the compute type

 public:
  ClipKernel(bool bounds_from_inputs, C lo, C hi, int threads)
      : from_inputs_(bounds_from_inputs), lo_(lo), hi_(hi), threads_(threads) {}

  void run(KernelIO& io) override {
    C lo = lo_, hi = hi_;
    if (from_inputs_) {
      if (has_io_input(io, 1)) lo = read_scalar(io.inputs[1], "min");
      if (has_io_input(io, 2)) hi = read_scalar(io.inputs[2], "max");
    }
    const T* x = io.inputs[0].data_as<T>();
    T* y = io.outputs[0].data_as<T>();
    const ClipOp<C> op{lo, hi};
    loops::parallel_chunks(io.outputs[0].numel(), threads_,
                           [&](int64_t b, int64_t e) { map_elements<T, T>(op, x + b, y + b, e - b); });
  }
  std::string impl_name() const override { return "cpu:Clip"; }

  static C lowest() {
    return std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                : std::numeric_limits<C>::lowest();
  }
  static C highest() {
    return std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity()
                                                : std::numeric_limits<C>::max();
  }

 private:
  static C read_scalar(const Tensor& t, const char* what) {
    if (t.numel() != 1) {
      throw InvalidGraphError(std::string("Clip: ") + what + " must be a scalar, got shape " + t.shape().str());
    }
    return Wide<T>::in(t.data_as<T>()[0]);
  }
  bool from_inputs_;
  C lo_, hi_;
  int threads_;
};

std::unique_ptr<Kernel> make_clip(const KernelBuildContext& ctx) {
  const DataType t = ctx.input_type(0);
  for (size_t i = 1; i < 3; ++i) {
    if (ctx.has_input(i) && ctx.input_type(i) != t) {
      throw InvalidGraphError(ctx.node.describe() + ": min/max dtype " + std::string(dtype_name(ctx.input_type(i))) +
                              " differs from input dtype " + std::string(dtype_name(t)));
    }
  }
  std::unique_ptr<Kernel> k;
  if (!visit_type(AnyNumericTypes{}, t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using K = ClipKernel<T>;
        if (ctx.opset >= 11) {
          k = std::make_unique<K>(true, K::lowest(), K::highest(), ctx.threads);
        } else {
          // Clip-6 defaults are the float range, i.e. no bound.
          const float lo = ctx.node.attrs.get_float("min", -std::numeric_limits<float>::infinity());
          const float hi = ctx.node.attrs.get_float("max", std::numeric_limits<float>::infinity());
          using C = wide_t<T>;
          C tlo = K::lowest(), thi = K::highest();
          if constexpr (std::is_floating_point_v<C>) {
            tlo = static_cast<C>(lo);
            thi = static_cast<C>(hi);
          } else {
            if (std::isfinite(lo) && lo > static_cast<float>(tlo)) tlo = static_cast<C>(lo);
            if (std::isfinite(hi) && hi < static_cast<float>(thi)) thi = static_cast<C>(hi);
          }
          k = std::make_unique<K>(false, tlo, thi, ctx.threads);
        }
      })) {
    unsupported_node_dtype(ctx, t);
  }
  return k;
}

}  // namespace

void register_activation_kernels(Registrar& r) {
  add_cpu_kernel(r, "Relu", unary_factory<ReluOp>("Relu", AnySignedTypes{}));
  add_cpu_kernel(r, "Sigmoid", unary_factory<SigmoidOp>("Sigmoid", AnyFloatTypes{}));
  add_cpu_kernel(r, "Tanh", unary_factory<TanhOp>("Tanh", AnyFloatTypes{}));
  add_cpu_kernel(r, "HardSwish", unary_factory<HardSwishOp>("HardSwish", AnyFloatTypes{}));
  add_cpu_kernel(r, "Softplus", unary_factory<SoftplusOp>("Softplus", AnyFloatTypes{}));
  add_cpu_kernel(r, "Softsign", unary_factory<SoftsignOp>("Softsign", AnyFloatTypes{}));
  add_cpu_kernel(r, "LeakyRelu", map_factory<LeakyReluOp>("LeakyRelu", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return LeakyReluOp{attr(c, "alpha", 0.01f)};
                 }));
  add_cpu_kernel(r, "Elu", map_factory<EluOp>("Elu", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return EluOp{attr(c, "alpha", 1.f)};
                 }));
  add_cpu_kernel(r, "Selu", map_factory<SeluOp>("Selu", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return SeluOp{attr(c, "alpha", SeluOp{}.alpha), attr(c, "gamma", SeluOp{}.gamma)};
                 }));
  add_cpu_kernel(r, "Celu", map_factory<CeluOp>("Celu", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return CeluOp{attr(c, "alpha", 1.f)};
                 }));
  add_cpu_kernel(r, "ThresholdedRelu",
                 map_factory<ThresholdedReluOp>("ThresholdedRelu", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return ThresholdedReluOp{attr(c, "alpha", 1.f)};
                 }));
  add_cpu_kernel(r, "HardSigmoid", map_factory<HardSigmoidOp>("HardSigmoid", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return HardSigmoidOp{attr(c, "alpha", 0.2f), attr(c, "beta", 0.5f)};
                 }));
  add_cpu_kernel(r, "Shrink", map_factory<ShrinkOp>("Shrink", AnyNumericTypes{}, [](const KernelBuildContext& c) {
                   return ShrinkOp{attr(c, "bias", 0.f), attr(c, "lambd", 0.5f)};
                 }));
  add_cpu_kernel(r, "PRelu", make_prelu);
  add_cpu_kernel(r, "Clip", make_clip);
}

}  // namespace ge::cpu
