// plugins/cpu_backend/fused_transformer_norm.cc — ge.LayerNormalization (with optional Skip)
// and ge.Gelu (with optional bias) for the CPU backend.
//
// LayerNormalization (Ba et al. 2016, eq. 4; ONNX LayerNormalization-17; ORT SkipLayerNorm):
// each row of `norm` elements (the dims from `axis` on) is read once into the output (adding
// Skip there when given), then mean, variance (two-pass over the cached row: no cancellation
// from E[x²] - E[x]²) and the affine y = (x - mean) · rstd · Scale + B — one row at a time, so
// a row stays in L1 instead of nine full-tensor passes of the decomposed graph.
//
// Gelu: 0.5 · x · (1 + erf(x / √2)) (Hendrycks & Gimpel 2016) through oneDNN's eltwise
// gelu_erf (vectorized erf); with a bias the bias is added first, in place, row by row.
#include <cmath>
#include <string>

#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

#define GE_TRF_SIMD __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

/// Normalizes one row in place (y holds x, or x + skip): two passes for the statistics, one for
/// the affine. `omp simd reduction` lets GCC vectorize the float sums (reassociation allowed).
GE_TRF_SIMD void layer_norm_row(float* __restrict y, const float* __restrict gamma, const float* __restrict beta,
                                int64_t n, float eps) {
  float s = 0.f;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += y[i];
  const float mean = s / static_cast<float>(n);
  float v = 0.f;
#pragma omp simd reduction(+ : v)
  for (int64_t i = 0; i < n; ++i) v += (y[i] - mean) * (y[i] - mean);
  const float rstd = 1.f / std::sqrt(v / static_cast<float>(n) + eps);
  if (beta)
    for (int64_t i = 0; i < n; ++i) y[i] = (y[i] - mean) * rstd * gamma[i] + beta[i];
  else
    for (int64_t i = 0; i < n; ++i) y[i] = (y[i] - mean) * rstd * gamma[i];
}

GE_TRF_SIMD void copy_sum(float* __restrict y, const float* __restrict a, const float* __restrict b, int64_t n) {
  if (b)
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
  else
    for (int64_t i = 0; i < n; ++i) y[i] = a[i];
}

class LayerNormKernel : public CpuKernel {
 public:
  explicit LayerNormKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    require_f32(ctx, {0, 1, 2, 3});
    const Shape& x = ctx.input_shape(0);
    const int64_t rank = static_cast<int64_t>(x.rank());
    int64_t axis = ctx.node.attrs.get_int("axis", -1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) throw InvalidGraphError("LayerNormalization: axis out of range in " + who(ctx));
    norm_ = 1;
    for (int64_t i = axis; i < rank; ++i) norm_ *= x[i];
    rows_ = norm_ == 0 ? 0 : x.numel() / norm_;
    eps_ = ctx.node.attrs.get_float("epsilon", 1e-5f);
    has_b_ = ctx.has_input(2);
    has_skip_ = ctx.has_input(3);
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    const float* gamma = io.inputs[1].data_as<float>();
    const float* beta = has_b_ ? io.inputs[2].data_as<float>() : nullptr;
    const float* skip = has_skip_ ? io.inputs[3].data_as<float>() : nullptr;
    float* y = io.outputs[0].data_as<float>();
    const int64_t n = norm_;
    // Rows of 256 floats are 1 KiB: chunks of >= 16 rows keep the OpenMP overhead small.
    parallel_range(rows_, 16, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        copy_sum(y + r * n, x + r * n, skip ? skip + r * n : nullptr, n);
        layer_norm_row(y + r * n, gamma, beta, n, eps_);
      }
    });
  }
  std::string impl_name() const override { return has_skip_ ? "cpu:skip_layer_norm" : "cpu:layer_norm"; }

 private:
  int64_t norm_ = 1, rows_ = 0;
  float eps_ = 1e-5f;
  bool has_b_ = false, has_skip_ = false;
};

class GeluKernel : public CpuKernel {
 public:
  explicit GeluKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    ThreadScope threads(threads_);
    require_f32(ctx, {0, 1});
    const Shape& x = ctx.input_shape(0);
    numel_ = x.numel();
    has_bias_ = ctx.has_input(1);
    last_ = x.rank() ? x[x.rank() - 1] : 1;
    if (numel_ == 0) return;
    try {
      md_ = memory_desc(numel_);
      pd_ = dnnl::eltwise_forward::primitive_desc(
          dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_gelu_erf, md_, 0.f, 0.f),
          dnnl_engine());
      prim_ = dnnl::eltwise_forward(pd_);
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "Gelu in " + who(ctx));
    }
  }
  void run(KernelIO& io) override {
    if (numel_ == 0) return;
    ThreadScope threads(threads_);
    const void* src = io.inputs[0].data();
    float* y = io.outputs[0].data_as<float>();
    if (has_bias_) {  // y = x + bias, then Gelu in place (oneDNN eltwise allows src == dst)
      const float* x = io.inputs[0].data_as<float>();
      const float* b = io.inputs[1].data_as<float>();
      const int64_t n = last_, rows = numel_ / n;
      parallel_range(rows, 64, [&](int64_t s, int64_t e) {
        for (int64_t r = s; r < e; ++r) copy_sum(y + r * n, x + r * n, b, n);
      });
      src = y;
    }
    try {
      dnnl::engine& eng = dnnl_engine();
      dnnl::stream& s = dnnl_stream();
      prim_.execute(s, {{DNNL_ARG_SRC, dnnl::memory(md_, eng, const_cast<void*>(src))},
                        {DNNL_ARG_DST, dnnl::memory(md_, eng, y)}});
      s.wait();
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "Gelu");
    }
  }
  std::string impl_name() const override { return std::string("onednn:eltwise_gelu_erf:") + pd_.impl_info_str(); }

 private:
  static dnnl::memory::desc memory_desc(int64_t n) {
    return dnnl::memory::desc({n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  }
  int64_t numel_ = 0, last_ = 1;
  bool has_bias_ = false;
  dnnl::memory::desc md_;
  dnnl::eltwise_forward::primitive_desc pd_;
  dnnl::eltwise_forward prim_;
};

template <class K>
KernelDef ge_def(const char* op) {
  return KernelDef{"cpu", "ge", op,
                   [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> { return std::make_unique<K>(ctx); }, ""};
}

}  // namespace

// ai.onnx LayerNormalization-17 runs here when it fits (normalization.cc decides).
std::unique_ptr<Kernel> make_fused_layer_norm(const KernelBuildContext& ctx) { return std::make_unique<LayerNormKernel>(ctx); }

void register_fused_norm_kernels(Registrar& r) {
  r.add_kernel(ge_def<LayerNormKernel>("LayerNormalization"));
  r.add_kernel(ge_def<GeluKernel>("Gelu"));
}

}  // namespace ge::cpu
