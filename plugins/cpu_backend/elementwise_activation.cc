// plugins/cpu_backend/elementwise_activation.cc — the activations of ONNX Operators.md: Relu,
// LeakyRelu, PRelu, Elu, Selu, Celu, ThresholdedRelu, Sigmoid, HardSigmoid, HardSwish, Softplus,
// Softsign, Tanh, Shrink, Clip; float16/bfloat16 computed in float32.
#include <cmath>
#include <limits>
#include <type_traits>

#include "elementwise_common.h"
#include "elementwise_ops.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {
using namespace ops;
float attr(const KernelBuildContext& c, const char* name, float dflt) { return c.node.attrs.get_float(name, dflt); }

/// PRelu-16: x < 0 ? slope x : x, slope broadcast unidirectionally to x (ONNX
/// docs/Broadcasting.md), through the same strided plan as the binary ops. Integer products wrap
/// modulo 2^bits as Mul's do (a signed overflow was undefined; fuzz finding, UBSan).
struct PReluOp {
  template <class T> T operator()(T x, T s) const {
    return x < T(0) ? wrapping(s, x, [](auto a, auto b) { return a * b; }) : x;
  }
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
  add_map_kernel(r, "Relu", unary_factory<ReluOp>("Relu", AnySignedTypes{}));
  add_map_kernel(r, "Sigmoid", unary_factory<SigmoidOp>("Sigmoid", AnyFloatTypes{}));
  add_map_kernel(r, "Tanh", unary_factory<TanhOp>("Tanh", AnyFloatTypes{}));
  add_map_kernel(r, "HardSwish", unary_factory<HardSwishOp>("HardSwish", AnyFloatTypes{}));
  add_map_kernel(r, "Softplus", unary_factory<SoftplusOp>("Softplus", AnyFloatTypes{}));
  add_map_kernel(r, "Softsign", unary_factory<SoftsignOp>("Softsign", AnyFloatTypes{}));
  add_map_kernel(r, "LeakyRelu", map_factory<LeakyReluOp>("LeakyRelu", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return LeakyReluOp{attr(c, "alpha", 0.01f)};
                 }));
  add_map_kernel(r, "Elu", map_factory<EluOp>("Elu", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return EluOp{attr(c, "alpha", 1.f)};
                 }));
  add_map_kernel(r, "Selu", map_factory<SeluOp>("Selu", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return SeluOp{attr(c, "alpha", SeluOp{}.alpha), attr(c, "gamma", SeluOp{}.gamma)};
                 }));
  add_map_kernel(r, "Celu", map_factory<CeluOp>("Celu", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return CeluOp{attr(c, "alpha", 1.f)};
                 }));
  add_map_kernel(r, "ThresholdedRelu",
                 map_factory<ThresholdedReluOp>("ThresholdedRelu", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return ThresholdedReluOp{attr(c, "alpha", 1.f)};
                 }));
  add_map_kernel(r, "HardSigmoid", map_factory<HardSigmoidOp>("HardSigmoid", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return HardSigmoidOp{attr(c, "alpha", 0.2f), attr(c, "beta", 0.5f)};
                 }));
  add_map_kernel(r, "Shrink", map_factory<ShrinkOp>("Shrink", AnyNumericTypes{}, [](const KernelBuildContext& c) {
                   return ShrinkOp{attr(c, "bias", 0.f), attr(c, "lambd", 0.5f)};
                 }));
  add_cpu_kernel(r, "PRelu", make_prelu);
  add_cpu_kernel(r, "Clip", make_clip);
}

}  // namespace ge::cpu
