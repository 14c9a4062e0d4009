// plugins/cpu_backend/softmax.cc — Softmax, LogSoftmax and Hardmax
// (onnx/docs/Operators.md#Softmax, Changelog Softmax-1/11 vs -13; same for the other two).
//  opset < 13: the input is coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])] (axis default
//              1) and each row is normalized;
//  opset >= 13: normalized along the single axis `axis` (default -1).
// Both are the view [outer, n, inner] normalized over n. Numerically stable: exp(x - max).
// float32 runs the vectorized loops below; float64, float16 and bfloat16 compute in their
// Num<T>::acc type (double, float). Hardmax puts a 1 at the first maximum of each row.
#include <cmath>
#include <limits>
#include <string>

#include "cpu_backend.h"
#include "tensor_common.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {

/// [outer, n, inner] of the op's axis, per the opset rule above.
struct SoftmaxView {
  int64_t outer = 1, n = 1, inner = 1;
};

SoftmaxView softmax_view(const KernelBuildContext& ctx) {
  const std::string op = ctx.node.op_type(), where = " in " + who(ctx);
  const Shape& xs = ctx.input_shape(0);
  const int64_t rank = static_cast<int64_t>(xs.rank());
  if (ctx.output_shape(0) != xs)
    throw InvalidGraphError(op + ": output shape " + ctx.output_shape(0).str() + " differs from input " + xs.str() + where);
  if (rank == 0) throw InvalidGraphError(op + ": scalar input" + where);
  const bool v13 = ctx.opset >= 13;
  const int64_t axis = normalize_axis(ctx.node.attrs.get_int("axis", v13 ? -1 : 1), rank, op + " axis" + where);
  SoftmaxView v;
  for (int64_t i = 0; i < axis; ++i) v.outer *= xs[i];
  if (v13) {
    v.n = xs[axis];
    for (int64_t i = axis + 1; i < rank; ++i) v.inner *= xs[i];
  } else {
    for (int64_t i = axis; i < rank; ++i) v.n *= xs[i];
  }
  return v;
}

/// float32 Softmax / LogSoftmax.
class SoftmaxKernel : public CpuKernel {
 public:
  SoftmaxKernel(const KernelBuildContext& ctx, SoftmaxView v, bool log)
      : CpuKernel(ctx), log_(log), outer_(v.outer), n_(v.n), inner_(v.inner) {}

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const int64_t n = n_, inner = inner_;
    const bool log = log_;
    if (n == 0 || inner == 0) return;
    if (inner == 1) {
      parallel_for(outer_, [&](int64_t o) {
        const float* xr = x + o * n;
        float* yr = y + o * n;
        if (!log && vec::softmax(xr, yr, n)) return;
        const float m = simd::max(xr, n);
        if (log) {
          const float lse = m + std::log(simd::exp_shifted(nullptr, xr, m, n));
          for (int64_t i = 0; i < n; ++i) yr[i] = xr[i] - lse;
        } else {
          simd::scale(yr, 1.0f / simd::exp_shifted(yr, xr, m, n), n);
        }
      });
      return;
    }
    // Strided axis: work on whole rows of `inner` lanes at once (contiguous, vectorizable).
    parallel_for(outer_, [&](int64_t o) {
      const float* xo = x + o * n * inner;
      float* yo = y + o * n * inner;
      std::vector<float> m(xo, xo + inner), sum(inner, 0.0f);
      for (int64_t k = 1; k < n; ++k)
        for (int64_t i = 0; i < inner; ++i) m[i] = xo[k * inner + i] > m[i] ? xo[k * inner + i] : m[i];
      for (int64_t k = 0; k < n; ++k)
        for (int64_t i = 0; i < inner; ++i) {
          const float e = std::exp(xo[k * inner + i] - m[i]);
          if (!log) yo[k * inner + i] = e;
          sum[i] += e;
        }
      if (log) {
        for (int64_t i = 0; i < inner; ++i) m[i] += std::log(sum[i]);
        for (int64_t k = 0; k < n; ++k)
          for (int64_t i = 0; i < inner; ++i) yo[k * inner + i] = xo[k * inner + i] - m[i];
      } else {
        for (int64_t i = 0; i < inner; ++i) sum[i] = 1.0f / sum[i];
        for (int64_t k = 0; k < n; ++k)
          for (int64_t i = 0; i < inner; ++i) yo[k * inner + i] *= sum[i];
      }
    });
  }
  std::string impl_name() const override { return log_ ? "cpu:logsoftmax" : "cpu:softmax"; }

 private:
  bool log_;
  int64_t outer_ = 1, n_ = 1, inner_ = 1;
};


enum class Norm { Softmax, LogSoftmax, Hardmax };

/// Softmax / LogSoftmax / Hardmax of any float dtype, one (outer, inner) lane at a time.
template <class T>
class GenericSoftmaxKernel : public CpuKernel {
 public:
  GenericSoftmaxKernel(const KernelBuildContext& ctx, SoftmaxView v, Norm norm) : CpuKernel(ctx), v_(v), norm_(norm) {}
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    using N = arith::Num<T>;
    using A = typename N::acc;
    const T* x = io.inputs[0].data_as<T>();
    T* y = io.outputs[0].data_as<T>();
    const SoftmaxView v = v_;
    const Norm norm = norm_;
    if (v.n == 0) return;
    parallel_for(v.outer * v.inner, [&](int64_t s) {
      const int64_t o = s / v.inner, i = s % v.inner;
      const T* xs = x + o * v.n * v.inner + i;
      T* ys = y + o * v.n * v.inner + i;
      A m = N::load(xs[0]);
      int64_t arg = 0;
      for (int64_t j = 1; j < v.n; ++j) {
        const A c = N::load(xs[j * v.inner]);
        if (c > m) {
          m = c;
          arg = j;
        }
      }
      if (norm == Norm::Hardmax) {
        for (int64_t j = 0; j < v.n; ++j) ys[j * v.inner] = N::store(A(j == arg ? 1 : 0));
        return;
      }
      A sum = 0;
      for (int64_t j = 0; j < v.n; ++j) sum += std::exp(N::load(xs[j * v.inner]) - m);
      if (norm == Norm::LogSoftmax) {
        const A lse = m + std::log(sum);
        for (int64_t j = 0; j < v.n; ++j) ys[j * v.inner] = N::store(N::load(xs[j * v.inner]) - lse);
      } else {
        for (int64_t j = 0; j < v.n; ++j) ys[j * v.inner] = N::store(std::exp(N::load(xs[j * v.inner]) - m) / sum);
      }
    });
  }
  std::string impl_name() const override { return "cpu:softmax:generic"; }

 private:
  SoftmaxView v_;
  Norm norm_;
};

template <Norm kNorm>
std::unique_ptr<Kernel> make_softmax(const KernelBuildContext& ctx) {
  const SoftmaxView v = softmax_view(ctx);
  require_plain(ctx);
  const DataType t = ctx.input_type(0);
  if (ctx.output_type(0) != t) throw InvalidGraphError(at_node(ctx) + "output dtype differs from the input's");
  if (t == DataType::Float32 && kNorm != Norm::Hardmax) {
    return std::make_unique<SoftmaxKernel>(ctx, v, kNorm == Norm::LogSoftmax);
  }
  std::unique_ptr<Kernel> k;
  arith::dispatch(arith::Floats{}, t, ctx, ctx.node.op_type() + " input", [&](auto tag) {
    k = std::make_unique<GenericSoftmaxKernel<typename decltype(tag)::type>>(ctx, v, kNorm);
  });
  return k;
}

}  // namespace

void register_softmax_kernels(Registrar& r) {
  add_cpu_kernel(r, "Softmax", make_softmax<Norm::Softmax>);
  add_cpu_kernel(r, "LogSoftmax", make_softmax<Norm::LogSoftmax>);
  add_cpu_kernel(r, "Hardmax", make_softmax<Norm::Hardmax>);
}

}  // namespace ge::cpu
