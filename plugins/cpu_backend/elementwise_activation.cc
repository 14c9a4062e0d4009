// plugins/cpu_backend/elementwise_activation.cc — Relu, Sigmoid, Clip.
#include <cmath>
#include <limits>

#include "elementwise_common.h"

namespace ge::cpu {
namespace {

/// Relu-14: y = max(0, x). Written as a select so NaN propagates like np.maximum does in the
/// reference, and so it vectorizes to a compare + blend.
struct ReluOp {
  template <class T> T operator()(T x) const { return x < T(0) ? T(0) : x; }
};
/// Sigmoid-13: y = 1 / (1 + exp(-x)). For x << 0, exp(-x) overflows to +inf and y is the
/// correct limit 0, so no special case is needed.
struct SigmoidOp {
  template <class T> T operator()(T x) const { return T(1) / (T(1) + std::exp(-x)); }
};

/// Clip (ONNX Clip-6/11/12/13): y = min(max(x, min), max), i.e. np.clip, so min > max yields
/// max. Opset 6 takes min/max as float attributes (defaults: the float range); opset >= 11
/// takes them as optional scalar inputs, an omitted one meaning no bound. Inputs are read at
/// run time since they need not be constant.
template <class T>
class ClipKernel final : public Kernel {
 public:
  ClipKernel(bool bounds_from_inputs, T lo, T hi, int threads)
      : from_inputs_(bounds_from_inputs), lo_(lo), hi_(hi), threads_(threads) {}

  void run(KernelIO& io) override {
    T lo = lo_, hi = hi_;
    if (from_inputs_) {
      if (has_io_input(io, 1)) lo = read_scalar(io.inputs[1], "min");
      if (has_io_input(io, 2)) hi = read_scalar(io.inputs[2], "max");
    }
    const T* x = io.inputs[0].data_as<T>();
    T* y = io.outputs[0].data_as<T>();
    loops::parallel_chunks(io.outputs[0].numel(), threads_, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T v = x[i] < lo ? lo : x[i];
        y[i] = hi < v ? hi : v;
      }
    });
  }
  std::string impl_name() const override { return "cpu:Clip"; }

  static T lowest() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
  static T highest() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  }

 private:
  static T read_scalar(const Tensor& t, const char* what) {
    if (t.numel() != 1) {
      throw InvalidGraphError(std::string("Clip: ") + what + " must be a scalar, got shape " + t.shape().str());
    }
    return t.data_as<T>()[0];
  }
  bool from_inputs_;
  T lo_, hi_;
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
  if (!visit_type(NumericTypes{}, t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using K = ClipKernel<T>;
        if (ctx.opset >= 11) {
          k = std::make_unique<K>(true, K::lowest(), K::highest(), ctx.threads);
        } else {
          // Clip-6 defaults are the float range, i.e. no bound.
          const float lo = ctx.node.attrs.get_float("min", -std::numeric_limits<float>::infinity());
          const float hi = ctx.node.attrs.get_float("max", std::numeric_limits<float>::infinity());
          T tlo = K::lowest(), thi = K::highest();
          if constexpr (std::is_floating_point_v<T>) {
            tlo = static_cast<T>(lo);
            thi = static_cast<T>(hi);
          } else {
            if (std::isfinite(lo) && lo > static_cast<float>(tlo)) tlo = static_cast<T>(lo);
            if (std::isfinite(hi) && hi < static_cast<float>(thi)) thi = static_cast<T>(hi);
          }
          k = std::make_unique<K>(false, tlo, thi, ctx.threads);
        }
      })) {
    unsupported_dtype("Clip", t);
  }
  return k;
}

}  // namespace

void register_activation_kernels(Registrar& r) {
  add_cpu_kernel(r, "Relu", unary_factory<ReluOp>("Relu", SignedTypes{}));
  add_cpu_kernel(r, "Sigmoid", unary_factory<SigmoidOp>("Sigmoid", FloatTypes{}));
  add_cpu_kernel(r, "Clip", make_clip);
}

}  // namespace ge::cpu
