// plugins/ascend_backend/vector_rows.cc — the reducing Vector-unit ops, one row per unit
// (row_ops.h, tiling_problem_rows.cc): Softmax, ge.LayerNormalization (with the Skip input of
// SkipLayerNorm) and ReduceMean. On the AI Core the rows are computed UB tile by UB tile from the
// stored tiling (vector_walk.h); on the AI CPU (fp32 under must_keep_origin_dtype, a blocked
// layout, or placed there by cost) the same code runs in one pass.
//
// Numerics (docs/ascend.md, "Kernels"): operands are widened exactly to fp32 (tensor_io.h); the
// whole row is computed in fp32 inside the UB — no intermediate (max, exp, sum, X + Skip, mean,
// variance, rstd) is rounded — and each output element is rounded once to the output dtype (fp16:
// round to nearest even) when the row is written back. Sums run in element order. exp, sqrt are
// the host's fp32 expf / sqrtf (the device's own approximations are not public).
//   Softmax:   y_k = e_k / Σ e_j, e_k = exp(x_k − max_j x_j)
//   LayerNorm: x = X (+ Skip); μ = Σx / n; σ² = Σ(x − μ)² / n (two passes, as the CPU kernel);
//              y = (x − μ) · (1 / √(σ² + ε)) · Scale + B   (ONNX LayerNormalization-17)
//   ReduceMean: y = (Σ x over the reduced axes) / n
#include <cmath>
#include <limits>
#include <memory>

#include "ge/sdk/error.h"
#include "kernels.h"
#include "row_ops.h"
#include "tensor_io.h"
#include "vector_walk.h"

namespace ge::ascend {
namespace {

class SoftmaxKernel : public Kernel {
 public:
  SoftmaxKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir) {
    require_float(ctx, 0);
    std::string why;
    const auto g = softmax_rows(ctx.node, ctx.opset, &why);
    if (!g) throw InvalidGraphError("Softmax: " + why + " in " + who(node_));
    g_ = *g;
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]);
    std::vector<float> y(x.size());
    const int64_t len = g_.len, inner = g_.inner;
    walk_.units(g_.rows(), [&](int64_t r) {
      const int64_t base = (r / inner) * len * inner + r % inner;
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < len; ++k) m = std::max(m, x[base + k * inner]);
      float sum = 0.f;
      for (int64_t k = 0; k < len; ++k) sum += (y[base + k * inner] = std::exp(x[base + k * inner] - m));
      for (int64_t k = 0; k < len; ++k) y[base + k * inner] /= sum;
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl("Softmax"); }

 private:
  const Node& node_;
  VectorWalk walk_;
  RowGeometry g_;
};

class LayerNormKernel : public Kernel {
 public:
  LayerNormKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir) {
    for (size_t i = 0; i < ctx.node.num_inputs(); ++i)
      if (ctx.has_input(i)) require_float(ctx, i);
    std::string why;
    const auto g = layer_norm_rows(ctx.node, &why);
    if (!g) throw InvalidGraphError("LayerNormalization: " + why + " in " + who(node_));
    g_ = *g;
    eps_ = ctx.node.attrs.get_float("epsilon", 1e-5f);
  }
  void run(KernelIO& io) override {
    auto present = [&](size_t i) { return io.inputs.size() > i && io.inputs[i].data(); };
    const std::vector<float> x = read_plain(io.inputs[0]), scale = read_plain(io.inputs[1]);
    const std::vector<float> bias = present(2) ? read_plain(io.inputs[2]) : std::vector<float>();
    const std::vector<float> skip = present(3) ? read_plain(io.inputs[3]) : std::vector<float>();
    std::vector<float> y(x.size());
    const int64_t n = g_.len;
    walk_.units(g_.rows(), [&](int64_t r) {
      float* row = y.data() + r * n;  // the fp32 work row in UB
      for (int64_t k = 0; k < n; ++k) row[k] = skip.empty() ? x[r * n + k] : x[r * n + k] + skip[r * n + k];
      float s = 0.f;
      for (int64_t k = 0; k < n; ++k) s += row[k];
      const float mean = s / static_cast<float>(n);
      float v = 0.f;
      for (int64_t k = 0; k < n; ++k) v += (row[k] - mean) * (row[k] - mean);
      const float rstd = 1.f / std::sqrt(v / static_cast<float>(n) + eps_);
      for (int64_t k = 0; k < n; ++k) row[k] = (row[k] - mean) * rstd * scale[k] + (bias.empty() ? 0.f : bias[k]);
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl(node_.num_inputs() > 3 && node_.input(3) ? "SkipLayerNorm" : "LayerNorm"); }

 private:
  const Node& node_;
  VectorWalk walk_;
  RowGeometry g_;
  float eps_ = 1e-5f;
};

class ReduceMeanKernel : public Kernel {
 public:
  ReduceMeanKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir) {
    require_float(ctx, 0);
    std::string why;
    const auto red = reduce_mean_axes(ctx.node, ctx.opset, &why);
    if (!red) throw UnsupportedError("ReduceMean: " + why + " in " + who(node_));
    // Offsets of the reduced elements of one output element, and the kept dims' strides.
    const Shape& s = ctx.input_shape(0);
    std::vector<int64_t> st(s.rank(), 1);
    for (size_t d = s.rank(); d-- > 1;) st[d - 1] = st[d] * s[d];
    offsets_ = {0};
    for (size_t d = 0; d < s.rank(); ++d) {
      if ((*red)[d]) {
        std::vector<int64_t> next;
        for (int64_t o : offsets_)
          for (int64_t k = 0; k < s[d]; ++k) next.push_back(o + k * st[d]);
        offsets_ = std::move(next);
      } else {
        kept_dims_.push_back(s[d]), kept_strides_.push_back(st[d]);
      }
    }
    outputs_ = 1;
    for (int64_t d : kept_dims_) outputs_ *= d;
    if (s.numel() == 0) outputs_ = 0;
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]);
    std::vector<float> y(static_cast<size_t>(io.outputs[0].shape().numel()));
    const float n = static_cast<float>(offsets_.size());
    walk_.units(outputs_, [&](int64_t u) {
      int64_t base = 0, rem = u;
      for (size_t d = kept_dims_.size(); d-- > 0;) base += (rem % kept_dims_[d]) * kept_strides_[d], rem /= kept_dims_[d];
      float acc = 0.f;  // the fp32 accumulator in UB
      for (int64_t o : offsets_) acc += x[base + o];
      y[u] = acc / n;
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl("ReduceMean"); }

 private:
  const Node& node_;
  VectorWalk walk_;
  std::vector<int64_t> offsets_, kept_dims_, kept_strides_;
  int64_t outputs_ = 0;
};

template <class K>
KernelFactory factory(const std::string& dir) {
  return [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<K>(c, dir); };
}

}  // namespace

void register_row_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  r.add_kernel({"ascend", "", "Softmax", factory<SoftmaxKernel>(dir), ""});
  r.add_kernel({"ascend", "", "ReduceMean", factory<ReduceMeanKernel>(dir), ""});
  r.add_kernel({"ascend", "ge", "LayerNormalization", factory<LayerNormKernel>(dir), ""});
}

}  // namespace ge::ascend
