// plugins/cpu_backend/reduce.cc — ONNX ReduceMean, Softmax and LogSoftmax.
//
// ReduceMean (onnx/docs/Operators.md#ReduceMean): mean over `axes` (all axes when absent),
// keepdims (default 1) keeps reduced axes as extent 1. Opset < 18 takes axes as an attribute;
// opset 18 as an optional input (accepted when constant), with noop_with_empty_axes.
//
// Softmax / LogSoftmax (Operators.md#Softmax, Changelog Softmax-1/11 vs -13):
//  opset < 13: the input is coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])] (axis default
//              1) and each row is normalized;
//  opset >= 13: normalized along the single axis `axis` (default -1).
// Both are the view [outer, n, inner] normalized over n. Numerically stable: exp(x - max).
#include <cmath>
#include <limits>
#include <string>

#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

class ReduceMeanKernel : public CpuKernel {
 public:
  explicit ReduceMeanKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    require_f32(ctx, {0});
    require_plain(ctx);
    const Shape& xs = ctx.input_shape(0);
    const int64_t rank = static_cast<int64_t>(xs.rank());
    const Attributes& at = ctx.node.attrs;
    const bool keepdims = at.get_int("keepdims", 1) != 0;
    std::vector<int64_t> axes;
    bool noop = false;
    if (ctx.opset >= 18) {
      if (ctx.has_input(1)) {
        const Tensor* t = ctx.input_data(1);
        if (!t) throw UnsupportedError("ReduceMean: non-constant axes input not supported" + where);
        axes = t->to_int64_vector();
      }
      noop = axes.empty() && at.get_int("noop_with_empty_axes", 0) != 0;
    } else {
      axes = at.get_ints("axes");
    }
    std::vector<bool> red(rank, axes.empty() && !noop);
    for (int64_t a : axes) {
      int64_t n = normalize_axis(a, rank, "ReduceMean axes" + where);
      if (red[n]) throw InvalidGraphError("ReduceMean: axis " + std::to_string(a) + " repeated" + where);
      red[n] = true;
    }
    Shape ys;
    for (int64_t i = 0; i < rank; ++i) {
      if (!red[i]) ys.dims().push_back(xs[i]);
      else if (keepdims) ys.dims().push_back(1);
    }
    if (ys != ctx.output_shape(0))
      throw InvalidGraphError("ReduceMean: output shape " + ctx.output_shape(0).str() + " differs from computed " + ys.str() + where);
    in_numel_ = xs.numel();
    out_numel_ = ys.numel();
    // Merge adjacent axes of the same kind and drop extent-1 axes: [(extent, reduced)...].
    for (int64_t i = 0; i < rank; ++i) {
      if (xs[i] == 1) continue;
      if (!groups_.empty() && groups_.back().second == red[i]) groups_.back().first *= xs[i];
      else groups_.push_back({xs[i], red[i]});
    }
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    if (out_numel_ == 0) return;
    const float scale = in_numel_ == 0 ? std::numeric_limits<float>::quiet_NaN()
                                       : static_cast<float>(out_numel_) / static_cast<float>(in_numel_);
    // Fast forms [O, R, I] (each of O, R, I possibly absent).
    int64_t O = 1, R = 1, I = 1;
    size_t g = 0;
    if (g < groups_.size() && !groups_[g].second) O = groups_[g++].first;
    if (g < groups_.size() && groups_[g].second) R = groups_[g++].first;
    if (g < groups_.size() && !groups_[g].second) I = groups_[g++].first;
    if (g == groups_.size()) {
      parallel_for(O, [&](int64_t o) {
        const float* xo = x + o * R * I;
        float* yo = y + o * I;
        if (I == 1) {
          yo[0] = simd::sum(xo, R) * scale;
        } else {
          simd::fill(yo, 0.0f, I);
          for (int64_t r = 0; r < R; ++r) simd::add(yo, xo + r * I, I);
          simd::scale(yo, scale, I);
        }
      });
      return;
    }
    // General interleaving: walk the input once with an odometer over the merged groups,
    // accumulating into the output position (reduced groups have output stride 0). Serial.
    std::vector<double> acc(out_numel_, 0.0);
    const size_t G = groups_.size();
    std::vector<int64_t> ostride(G, 0), idx(G, 0);
    int64_t s = 1;
    for (size_t k = G; k-- > 0;)
      if (!groups_[k].second) {
        ostride[k] = s;
        s *= groups_[k].first;
      }
    const int64_t inner = groups_.back().first, inner_stride = ostride.back();
    int64_t off = 0;
    for (int64_t base = 0; base < in_numel_; base += inner) {
      for (int64_t i = 0; i < inner; ++i) acc[off + i * inner_stride] += x[base + i];
      for (size_t k = G - 1; k-- > 0;) {  // advance the outer groups
        off += ostride[k];
        if (++idx[k] < groups_[k].first) break;
        off -= ostride[k] * groups_[k].first;
        idx[k] = 0;
      }
    }
    for (int64_t i = 0; i < out_numel_; ++i) y[i] = static_cast<float>(acc[i] * scale);
  }
  std::string impl_name() const override { return "cpu:reduce_mean"; }

 private:
  int64_t in_numel_ = 0, out_numel_ = 0;
  std::vector<std::pair<int64_t, bool>> groups_;
};

class SoftmaxKernel : public CpuKernel {
 public:
  SoftmaxKernel(const KernelBuildContext& ctx, bool log) : CpuKernel(ctx), log_(log) {
    const std::string op = ctx.node.op_type(), where = " in " + who(ctx);
    require_f32(ctx, {0});
    require_plain(ctx);
    const Shape& xs = ctx.input_shape(0);
    const int64_t rank = static_cast<int64_t>(xs.rank());
    if (ctx.output_shape(0) != xs)
      throw InvalidGraphError(op + ": output shape " + ctx.output_shape(0).str() + " differs from input " + xs.str() + where);
    if (rank == 0) throw InvalidGraphError(op + ": scalar input" + where);
    const bool v13 = ctx.opset >= 13;
    const int64_t axis = normalize_axis(ctx.node.attrs.get_int("axis", v13 ? -1 : 1), rank, op + " axis" + where);
    outer_ = 1;
    n_ = 1;
    inner_ = 1;
    for (int64_t i = 0; i < axis; ++i) outer_ *= xs[i];
    if (v13) {
      n_ = xs[axis];
      for (int64_t i = axis + 1; i < rank; ++i) inner_ *= xs[i];
    } else {
      for (int64_t i = axis; i < rank; ++i) n_ *= xs[i];
    }
  }

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

}  // namespace

void register_reduce_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "ReduceMean",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<ReduceMeanKernel>(ctx);
                         },
                         ""});
  r.add_kernel(KernelDef{"cpu", "", "Softmax",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<SoftmaxKernel>(ctx, false);
                         },
                         ""});
  r.add_kernel(KernelDef{"cpu", "", "LogSoftmax",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<SoftmaxKernel>(ctx, true);
                         },
                         ""});
}

}  // namespace ge::cpu
