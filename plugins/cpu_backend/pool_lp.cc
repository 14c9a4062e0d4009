// plugins/cpu_backend/pool_lp.cc — ONNX LpPool, GlobalLpPool (1-D to 3-D) and MaxUnpool, float32.
//
// LpPool (onnx/docs/Operators.md#LpPool): y = (Σ |x|^p)^(1/p) over each window (geometry of
// resolve_window: kernel_shape, strides, dilations (opset 18), pads, auto_pad; padded positions
// add 0). GlobalLpPool: the same over all spatial positions. p defaults to 2.
// MaxUnpool (Operators.md#MaxUnpool): Y = zeros of the output shape (output_shape input, or the
// shape the pool attributes give), then Y.flat[I[i]] = X[i] with I the flattened indices of
// MaxPool's Indices output (row-major over the whole tensor).
#include <cmath>
#include <cstring>
#include <string>

#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

double lp_root(double s, double p) { return p == 2 ? std::sqrt(s) : p == 1 ? s : std::pow(s, 1.0 / p); }
double lp_term(double v, double p) { return p == 2 ? v * v : p == 1 ? std::fabs(v) : std::pow(std::fabs(v), p); }

class LpPoolKernel : public CpuKernel {
 public:
  LpPoolKernel(const KernelBuildContext& ctx, bool global) : CpuKernel(ctx) {
    const std::string op = ctx.node.op_type(), where = " in " + who(ctx);
    require_f32(ctx, {0});
    require_plain(ctx);
    const Shape& xs = ctx.input_shape(0);
    if (xs.rank() < 3 || xs.rank() > 5) throw UnsupportedError(op + ": rank " + std::to_string(xs.rank()) + " input (1-D to 3-D only)" + where);
    if (const AttrValue* v = ctx.node.attrs.find("p"))  // a float before opset 2, an int after
      p_ = std::holds_alternative<float>(*v) ? std::get<float>(*v) : static_cast<double>(ctx.node.attrs.get_int("p", 2));
    if (p_ <= 0) throw InvalidGraphError(op + ": p must be positive" + where);
    const size_t r = xs.rank() - 2;
    std::vector<int64_t> spatial(xs.dims().begin() + 2, xs.dims().end());
    if (global) {
      w_.in = w_.kernel = spatial;
      w_.stride = w_.dilation = std::vector<int64_t>(r, 1);
      w_.pad_begin = w_.pad_end = std::vector<int64_t>(r, 0);
      w_.out = std::vector<int64_t>(r, 1);
    } else {
      if (!ctx.node.attrs.has("kernel_shape")) throw InvalidGraphError(op + ": kernel_shape attribute missing" + where);
      w_ = resolve_window(ctx, op, spatial, ctx.node.attrs.get_ints("kernel_shape"), /*allow_ceil_mode=*/true);
    }
    Shape ys{xs[0], xs[1]};
    for (int64_t o : w_.out) ys.dims().push_back(o);
    if (ys != ctx.output_shape(0)) throw InvalidGraphError(op + ": output shape " + ctx.output_shape(0).str() + " differs from computed " + ys.str() + where);
    planes_ = xs[0] * xs[1];
    // As 3-D with leading extents of 1.
    const size_t lead = 3 - r;
    for (size_t i = 0; i < 3; ++i) {
      const bool l = i < lead;
      in_[i] = l ? 1 : w_.in[i - lead];
      out_[i] = l ? 1 : w_.out[i - lead];
      k_[i] = l ? 1 : w_.kernel[i - lead];
      s_[i] = l ? 1 : w_.stride[i - lead];
      d_[i] = l ? 1 : w_.dilation[i - lead];
      pb_[i] = l ? 0 : w_.pad_begin[i - lead];
    }
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const int64_t pin = in_[0] * in_[1] * in_[2], pout = out_[0] * out_[1] * out_[2];
    parallel_for(planes_, [&](int64_t pl) {
      const float* xp = x + pl * pin;
      float* yp = y + pl * pout;
      for (int64_t o0 = 0; o0 < out_[0]; ++o0)
        for (int64_t o1 = 0; o1 < out_[1]; ++o1)
          for (int64_t o2 = 0; o2 < out_[2]; ++o2) {
            double s = 0;
            for (int64_t k0 = 0; k0 < k_[0]; ++k0) {
              const int64_t i0 = o0 * s_[0] - pb_[0] + k0 * d_[0];
              if (i0 < 0 || i0 >= in_[0]) continue;
              for (int64_t k1 = 0; k1 < k_[1]; ++k1) {
                const int64_t i1 = o1 * s_[1] - pb_[1] + k1 * d_[1];
                if (i1 < 0 || i1 >= in_[1]) continue;
                for (int64_t k2 = 0; k2 < k_[2]; ++k2) {
                  const int64_t i2 = o2 * s_[2] - pb_[2] + k2 * d_[2];
                  if (i2 < 0 || i2 >= in_[2]) continue;
                  s += lp_term(xp[(i0 * in_[1] + i1) * in_[2] + i2], p_);
                }
              }
            }
            yp[(o0 * out_[1] + o1) * out_[2] + o2] = static_cast<float>(lp_root(s, p_));
          }
    });
  }
  std::string impl_name() const override { return "cpu:lppool"; }

 private:
  double p_ = 2;
  Window w_;
  int64_t planes_ = 0, in_[3], out_[3], k_[3], s_[3], d_[3], pb_[3];
};

class MaxUnpoolKernel : public CpuKernel {
 public:
  explicit MaxUnpoolKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    require_f32(ctx, {0});
    require_plain(ctx);
    if (ctx.input_type(1) != DataType::Int64) throw UnsupportedError("MaxUnpool: indices dtype (int64 only)" + where);
    if (ctx.input_shape(1) != ctx.input_shape(0)) throw InvalidGraphError("MaxUnpool: I's shape differs from X's" + where);
    const Shape& xs = ctx.input_shape(0);
    if (xs.rank() < 3) throw InvalidGraphError("MaxUnpool: input rank < 3" + where);
    const Shape& ys = ctx.output_shape(0);
    if (ys.rank() != xs.rank() || ys[0] != xs[0] || ys[1] != xs[1]) throw InvalidGraphError("MaxUnpool: output shape " + ys.str() + where);
    // The pool's input size the attributes give, (in - 1) * s + k - pads: the indices are
    // positions in it. A larger output_shape pads at the end of each dim (ONNX Runtime's
    // reading), so an index is moved to the same coordinates in the output.
    const size_t r = xs.rank() - 2;
    const std::vector<int64_t> k = ctx.node.attrs.get_ints("kernel_shape");
    const std::vector<int64_t> s = ctx.node.attrs.get_ints("strides", std::vector<int64_t>(r, 1));
    const std::vector<int64_t> p = ctx.node.attrs.get_ints("pads", std::vector<int64_t>(2 * r, 0));
    if (k.size() != r || s.size() != r || p.size() != 2 * r) throw InvalidGraphError("MaxUnpool: kernel_shape/strides/pads sizes" + where);
    pool_in_ = Shape{xs[0], xs[1]};
    for (size_t i = 0; i < r; ++i) {
      pool_in_.dims().push_back((xs[i + 2] - 1) * s[i] + k[i] - p[i] - p[i + r]);
      if (ys[i + 2] < pool_in_[i + 2] || (!ctx.has_input(2) && ys[i + 2] != pool_in_[i + 2]))
        throw InvalidGraphError("MaxUnpool: output shape " + ys.str() + " smaller than or differs from " + pool_in_.str() + where);
    }
    ys_ = ys;
  }
  void run(KernelIO& io) override {
    const float* x = io.inputs[0].data_as<float>();
    const int64_t* idx = io.inputs[1].data_as<int64_t>();
    float* y = io.outputs[0].data_as<float>();
    const int64_t n = io.inputs[0].numel(), m = io.outputs[0].numel();
    std::memset(y, 0, sizeof(float) * m);
    const int64_t limit = pool_in_.numel();
    const size_t rank = ys_.rank();
    for (int64_t i = 0; i < n; ++i) {
      if (idx[i] < 0 || idx[i] >= limit) throw Error("MaxUnpool: index " + std::to_string(idx[i]) + " outside [0, " + std::to_string(limit) + ")");
      int64_t rem = idx[i], at = 0, stride = 1;
      for (size_t d = rank; d-- > 0;) {
        at += (rem % pool_in_[d]) * stride;
        rem /= pool_in_[d];
        stride *= ys_[d];
      }
      if (at >= m) throw Error("MaxUnpool: index outside the output");
      y[at] = x[i];
    }
  }
  std::string impl_name() const override { return "cpu:maxunpool"; }

 private:
  Shape pool_in_, ys_;
};

}  // namespace

void register_lp_pool_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "LpPool",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> { return std::make_unique<LpPoolKernel>(ctx, false); },
                         ""});
  r.add_kernel(KernelDef{"cpu", "", "GlobalLpPool",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> { return std::make_unique<LpPoolKernel>(ctx, true); },
                         ""});
  r.add_kernel(KernelDef{"cpu", "", "MaxUnpool",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> { return std::make_unique<MaxUnpoolKernel>(ctx); },
                         ""});
}

}  // namespace ge::cpu
