// plugins/cpu_backend/normalization.cc — ONNX LayerNormalization (opset 17), InstanceNormalization,
// LRN, LpNormalization and MeanVarianceNormalization, float32 (BatchNormalization: batchnorm.cc).
//
// Formulas (onnx/docs/Operators.md):
//  - LayerNormalization: over the dims from `axis` on, Y = (X - mean) * InvStdDev * Scale + B,
//    InvStdDev = 1 / sqrt(var + epsilon); optional outputs Mean and InvStdDev have X's shape
//    with those dims set to 1. Scale and B broadcast (unidirectionally) to the normalized shape.
//    The ge.LayerNormalization fusion's kernel (fused_transformer_norm.cc) runs the common case
//    (no Mean/InvStdDev outputs, Scale/B of the whole normalized shape); this kernel the rest.
//  - InstanceNormalization: per (n, c) over the spatial dims, y = scale[c] * (x - mean) /
//    sqrt(var + epsilon) + B[c].
//  - LRN: square_sum[c] = sum of x[i]^2 for i in [c - floor((size-1)/2), c + ceil((size-1)/2)]
//    (clamped to the channels), y = x / (bias + alpha / size * square_sum)^beta. oneDNN's
//    lrn_across_channels centres an odd window only, so an even `size` would differ: direct loop.
//  - LpNormalization: y = x / ||x||_p along `axis` (p = 1 or 2).
//  - MeanVarianceNormalization: its function body, y = (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)
//    over `axes` (default [0, 2, 3]); the variance is computed in two passes (same value, no
//    cancellation).
// Variances are two-pass in double per group: the groups are small enough here that accuracy
// is worth more than a fused one-pass loop.
#include <cmath>
#include <string>

#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {

// fused_transformer_norm.cc: the ge.LayerNormalization kernel (inputs X, Scale, B).
std::unique_ptr<Kernel> make_fused_layer_norm(const KernelBuildContext& ctx);

namespace {

std::string where_of(const KernelBuildContext& ctx) { return " in " + who(ctx); }

bool output_used(const KernelBuildContext& ctx, size_t i) {
  const Value* v = i < ctx.node.num_outputs() ? ctx.node.output(i) : nullptr;
  return v != nullptr;
}

/// Unidirectional broadcast of a parameter of shape p onto the normalized block of shape n:
/// returns the parameter's flat index for each of the block's elements (empty: identity).
std::vector<int64_t> broadcast_index(const Shape& p, const std::vector<int64_t>& n, const std::string& what) {
  if (p.numel() == 0) throw InvalidGraphError(what + " is empty");
  int64_t total = 1;
  for (int64_t d : n) total *= d;
  if (p.rank() <= n.size()) {
    bool same = p.numel() == total;
    for (size_t i = 0; same && i < p.rank(); ++i) same = p[p.rank() - 1 - i] == n[n.size() - 1 - i];
    if (same) return {};
  }
  if (p.rank() > n.size()) throw InvalidGraphError(what + " shape " + p.str() + " does not broadcast to the normalized shape");
  std::vector<int64_t> pstride(n.size(), 0);
  int64_t s = 1;
  for (size_t i = 0; i < p.rank(); ++i) {
    const size_t pi = p.rank() - 1 - i, ni = n.size() - 1 - i;
    if (p[pi] != 1 && p[pi] != n[ni]) throw InvalidGraphError(what + " shape " + p.str() + " does not broadcast to the normalized shape");
    pstride[ni] = p[pi] == 1 ? 0 : s;
    s *= p[pi];
  }
  std::vector<int64_t> idx(total);
  for (int64_t e = 0; e < total; ++e) {
    int64_t rem = e, off = 0;
    for (size_t d = n.size(); d-- > 0;) {
      off += (rem % n[d]) * pstride[d];
      rem /= n[d];
    }
    idx[e] = off;
  }
  return idx;
}

class LayerNormKernel : public CpuKernel {
 public:
  explicit LayerNormKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = where_of(ctx);
    require_f32(ctx, {0, 1, 2});
    require_plain(ctx);
    const Shape& x = ctx.input_shape(0);
    const int64_t rank = static_cast<int64_t>(x.rank());
    int64_t axis = ctx.node.attrs.get_int("axis", -1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) throw InvalidGraphError("LayerNormalization: axis out of range" + where);
    if (ctx.node.attrs.get_int("stash_type", 1) != 1)
      throw UnsupportedError("LayerNormalization: stash_type " + std::to_string(ctx.node.attrs.get_int("stash_type", 1)) + " (float32 statistics only)" + where);
    std::vector<int64_t> nshape(x.dims().begin() + axis, x.dims().end());
    norm_ = 1;
    for (int64_t d : nshape) norm_ *= d;
    rows_ = norm_ == 0 ? 0 : x.numel() / norm_;
    eps_ = ctx.node.attrs.get_float("epsilon", 1e-5f);
    sidx_ = broadcast_index(ctx.input_shape(1), nshape, "LayerNormalization: Scale" + where);
    has_b_ = ctx.has_input(2);
    if (has_b_) bidx_ = broadcast_index(ctx.input_shape(2), nshape, "LayerNormalization: B" + where);
    Shape stat(std::vector<int64_t>(x.dims().begin(), x.dims().begin() + axis));
    for (int64_t i = axis; i < rank; ++i) stat.dims().push_back(1);
    for (size_t i = 1; i <= 2; ++i)
      if (output_used(ctx, i) && (ctx.output_type(i) != DataType::Float32 || ctx.output_shape(i) != stat))
        throw InvalidGraphError("LayerNormalization: output " + std::to_string(i) + " must be float32 " + stat.str() + where);
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    const float* g = io.inputs[1].data_as<float>();
    const float* b = has_b_ ? io.inputs[2].data_as<float>() : nullptr;
    float* y = io.outputs[0].data_as<float>();
    float* mean_out = io.outputs.size() > 1 && io.outputs[1].data() ? io.outputs[1].data_as<float>() : nullptr;
    float* inv_out = io.outputs.size() > 2 && io.outputs[2].data() ? io.outputs[2].data_as<float>() : nullptr;
    const int64_t n = norm_;
    parallel_for(rows_, [&](int64_t r) {
      const float* xr = x + r * n;
      float* yr = y + r * n;
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += xr[i];
      const double mean = s / static_cast<double>(n);
      double v = 0;
      for (int64_t i = 0; i < n; ++i) v += (xr[i] - mean) * (xr[i] - mean);
      const float inv = static_cast<float>(1.0 / std::sqrt(v / static_cast<double>(n) + static_cast<double>(eps_)));
      const float m = static_cast<float>(mean);
      for (int64_t i = 0; i < n; ++i) {
        const float gi = sidx_.empty() ? g[i] : g[sidx_[i]];
        const float bi = b ? (bidx_.empty() ? b[i] : b[bidx_[i]]) : 0.f;
        yr[i] = (xr[i] - m) * inv * gi + bi;
      }
      if (mean_out) mean_out[r] = m;
      if (inv_out) inv_out[r] = inv;
    });
  }
  std::string impl_name() const override { return "cpu:layer_norm_onnx"; }

 private:
  int64_t norm_ = 1, rows_ = 0;
  float eps_ = 1e-5f;
  bool has_b_ = false;
  std::vector<int64_t> sidx_, bidx_;
};

class InstanceNormKernel : public CpuKernel {
 public:
  explicit InstanceNormKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = where_of(ctx);
    require_f32(ctx, {0, 1, 2});
    require_plain(ctx);
    const Shape& x = ctx.input_shape(0);
    if (x.rank() < 3) throw InvalidGraphError("InstanceNormalization: input rank " + std::to_string(x.rank()) + " < 3" + where);
    C_ = x[1];
    planes_ = x[0] * x[1];
    inner_ = planes_ ? x.numel() / planes_ : 0;
    if (ctx.input_shape(1) != Shape{C_} || ctx.input_shape(2) != Shape{C_})
      throw InvalidGraphError("InstanceNormalization: scale and B must be [" + std::to_string(C_) + "]" + where);
    eps_ = ctx.node.attrs.get_float("epsilon", 1e-5f);
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float *x = io.inputs[0].data_as<float>(), *sc = io.inputs[1].data_as<float>(), *bb = io.inputs[2].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const int64_t n = inner_;
    parallel_for(planes_, [&](int64_t p) {
      const float* xp = x + p * n;
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += xp[i];
      const double mean = s / static_cast<double>(n);
      double v = 0;
      for (int64_t i = 0; i < n; ++i) v += (xp[i] - mean) * (xp[i] - mean);
      const int64_t c = p % C_;
      const double a = sc[c] / std::sqrt(v / static_cast<double>(n) + eps_);
      simd::affine(y + p * n, xp, static_cast<float>(a), static_cast<float>(bb[c] - mean * a), n);
    });
  }
  std::string impl_name() const override { return "cpu:instance_norm"; }

 private:
  int64_t C_ = 0, planes_ = 0, inner_ = 0;
  float eps_ = 1e-5f;
};

class LrnKernel : public CpuKernel {
 public:
  explicit LrnKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = where_of(ctx);
    require_f32(ctx, {0});
    require_plain(ctx);
    const Shape& x = ctx.input_shape(0);
    if (x.rank() < 2) throw InvalidGraphError("LRN: input rank < 2" + where);
    if (!ctx.node.attrs.has("size")) throw InvalidGraphError("LRN: size attribute missing" + where);
    size_ = ctx.node.attrs.get_int("size", 1);
    if (size_ <= 0) throw InvalidGraphError("LRN: size must be positive" + where);
    alpha_ = ctx.node.attrs.get_float("alpha", 1e-4f);
    beta_ = ctx.node.attrs.get_float("beta", 0.75f);
    bias_ = ctx.node.attrs.get_float("bias", 1.f);
    N_ = x[0];
    C_ = x[1];
    inner_ = N_ > 0 && C_ > 0 ? x.numel() / (N_ * C_) : 0;
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const int64_t lo = (size_ - 1) / 2, hi = size_ - 1 - lo;  // floor and ceil of (size-1)/2
    const double k = static_cast<double>(alpha_) / static_cast<double>(size_);
    parallel_for(N_ * C_, [&](int64_t nc) {
      const int64_t n = nc / C_, c = nc % C_;
      const int64_t c0 = std::max<int64_t>(0, c - lo), c1 = std::min<int64_t>(C_ - 1, c + hi);
      for (int64_t i = 0; i < inner_; ++i) {
        double s = 0;
        for (int64_t j = c0; j <= c1; ++j) {
          const double v = x[(n * C_ + j) * inner_ + i];
          s += v * v;
        }
        const int64_t at = nc * inner_ + i;
        y[at] = static_cast<float>(x[at] / std::pow(bias_ + k * s, static_cast<double>(beta_)));
      }
    });
  }
  std::string impl_name() const override { return "cpu:lrn"; }

 private:
  int64_t size_ = 1, N_ = 0, C_ = 0, inner_ = 0;
  float alpha_, beta_, bias_;
};

/// Splits a shape around one axis: outer * extent * inner.
struct AxisSplit {
  int64_t outer = 1, extent = 1, inner = 1;
};
AxisSplit split_at(const Shape& s, int64_t axis) {
  AxisSplit a;
  for (int64_t i = 0; i < static_cast<int64_t>(s.rank()); ++i) {
    if (i < axis) a.outer *= s[i];
    else if (i == axis) a.extent = s[i];
    else a.inner *= s[i];
  }
  return a;
}

class LpNormKernel : public CpuKernel {
 public:
  explicit LpNormKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = where_of(ctx);
    require_f32(ctx, {0});
    require_plain(ctx);
    const Shape& x = ctx.input_shape(0);
    int64_t axis = ctx.node.attrs.get_int("axis", -1);
    if (axis < 0) axis += static_cast<int64_t>(x.rank());
    if (axis < 0 || axis >= static_cast<int64_t>(x.rank())) throw InvalidGraphError("LpNormalization: axis out of range" + where);
    p_ = ctx.node.attrs.get_int("p", 2);
    if (p_ != 1 && p_ != 2) throw InvalidGraphError("LpNormalization: p must be 1 or 2, got " + std::to_string(p_) + where);
    s_ = split_at(x, axis);
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const AxisSplit s = s_;
    parallel_for(s.outer * s.inner, [&](int64_t oi) {
      const int64_t o = oi / s.inner, i = oi % s.inner;
      const float* xp = x + o * s.extent * s.inner + i;
      float* yp = y + o * s.extent * s.inner + i;
      double acc = 0;
      for (int64_t e = 0; e < s.extent; ++e) {
        const double v = xp[e * s.inner];
        acc += p_ == 1 ? std::fabs(v) : v * v;
      }
      const double norm = p_ == 1 ? acc : std::sqrt(acc);
      // A zero vector stays zero (ONNX Runtime's choice; the spec leaves 0/0 open).
      for (int64_t e = 0; e < s.extent; ++e) yp[e * s.inner] = norm == 0 ? 0.f : static_cast<float>(xp[e * s.inner] / norm);
    });
  }
  std::string impl_name() const override { return "cpu:lp_norm"; }

 private:
  int64_t p_ = 2;
  AxisSplit s_;
};

class MvnKernel : public CpuKernel {
 public:
  explicit MvnKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = where_of(ctx);
    require_f32(ctx, {0});
    require_plain(ctx);
    const Shape& x = ctx.input_shape(0);
    const int64_t rank = static_cast<int64_t>(x.rank());
    std::vector<int64_t> axes = ctx.node.attrs.get_ints("axes", {0, 2, 3});
    std::vector<bool> reduced(rank, false);
    for (int64_t a : axes) {
      if (a < 0) a += rank;
      if (a < 0 || a >= rank) throw InvalidGraphError("MeanVarianceNormalization: axis out of range" + where);
      reduced[a] = true;
    }
    // Group id of each element: its index over the kept axes.
    const int64_t n = x.numel();
    group_.resize(n);
    groups_ = 1;
    std::vector<int64_t> kstride(rank, 0);
    for (int64_t d = rank; d-- > 0;)
      if (!reduced[d]) {
        kstride[d] = groups_;
        groups_ *= x[d];
      }
    for (int64_t e = 0; e < n; ++e) {
      int64_t rem = e, g = 0;
      for (int64_t d = rank; d-- > 0;) {
        g += (rem % x[d]) * kstride[d];
        rem /= x[d];
      }
      group_[e] = g;
    }
    count_ = groups_ ? n / groups_ : 0;
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const int64_t n = static_cast<int64_t>(group_.size());
    std::vector<double> mean(groups_, 0.0), var(groups_, 0.0);
    for (int64_t e = 0; e < n; ++e) mean[group_[e]] += x[e];
    for (auto& m : mean) m /= static_cast<double>(count_);
    for (int64_t e = 0; e < n; ++e) {
      const double d = x[e] - mean[group_[e]];
      var[group_[e]] += d * d;
    }
    for (auto& v : var) v = std::sqrt(v / static_cast<double>(count_)) + 1e-9;
    for (int64_t e = 0; e < n; ++e) y[e] = static_cast<float>((x[e] - mean[group_[e]]) / var[group_[e]]);
  }
  std::string impl_name() const override { return "cpu:mvn"; }

 private:
  std::vector<int64_t> group_;
  int64_t groups_ = 1, count_ = 0;
};

template <class K>
KernelDef def(const char* op) {
  return KernelDef{"cpu", "", op,
                   [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> { return std::make_unique<K>(ctx); }, ""};
}

}  // namespace

void register_normalization_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "LayerNormalization",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           // The fused kernel fits when only Y is wanted and Scale/B cover the
                           // whole normalized shape (float32 statistics, stash_type 1).
                           const Shape& x = ctx.input_shape(0);
                           int64_t axis = ctx.node.attrs.get_int("axis", -1);
                           if (axis < 0) axis += static_cast<int64_t>(x.rank());
                           bool fits = axis >= 0 && axis < static_cast<int64_t>(x.rank()) && !output_used(ctx, 1) &&
                                       !output_used(ctx, 2) && ctx.node.attrs.get_int("stash_type", 1) == 1 &&
                                       ctx.input_type(0) == DataType::Float32;
                           if (fits) {
                             const Shape norm(std::vector<int64_t>(x.dims().begin() + axis, x.dims().end()));
                             fits = ctx.input_shape(1) == norm && (!ctx.has_input(2) || ctx.input_shape(2) == norm);
                           }
                           if (fits) {
                             require_plain(ctx);
                             return make_fused_layer_norm(ctx);
                           }
                           return std::make_unique<LayerNormKernel>(ctx);
                         },
                         ""});
  r.add_kernel(def<InstanceNormKernel>("InstanceNormalization"));
  r.add_kernel(def<LrnKernel>("LRN"));
  r.add_kernel(def<LpNormKernel>("LpNormalization"));
  r.add_kernel(def<MvnKernel>("MeanVarianceNormalization"));
}

}  // namespace ge::cpu
