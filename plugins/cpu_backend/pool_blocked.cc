// plugins/cpu_backend/pool_blocked.cc — pooling on NC1HWC0 (oneDNN nChw16c) activations.
//
// MaxPool / AveragePool: oneDNN's pooling_forward on nChw16c source and destination (its jit
// kernels vectorize over the 16 channels of a block). ONNX geometry (resolve_window) maps to
// oneDNN's explicit padding; a ceil_mode window that hangs past the end padding becomes extra
// right padding, which never wins a max (oneDNN pads max pooling with -inf) — for AveragePool
// it would change the divisor, so such nodes stay NCHW (pool_supports_blocked). The same
// kernel runs plain NCHW AveragePool nodes (make_plain_onednn_avgpool, called by pool.cc).
// GlobalAveragePool / GlobalMaxPool: one pass per (n, c1) block over H·W rows of 16 channels.
// Padding channels: max/avg of zeros is zero, so the output padding stays zero.
#include <algorithm>
#include <limits>
#include <string>

#include "blocked.h"
#include "cpu_backend.h"

namespace ge::cpu {
namespace {

bool is_global(const Node& n) { return n.op_type() == "GlobalAveragePool" || n.op_type() == "GlobalMaxPool"; }

struct PoolGeometry {
  dnnl::memory::dims kernel, strides, pad_l, pad_r;
  bool overhang = false;  ///< a ceil_mode window reaches past the end padding
};

PoolGeometry pool_geometry(const KernelBuildContext& ctx) {
  const Shape& xs = ctx.input_shape(0);
  std::vector<int64_t> spatial(xs.dims().begin() + 2, xs.dims().end());
  if (!ctx.node.attrs.has("kernel_shape"))
    throw InvalidGraphError(ctx.node.op_type() + ": kernel_shape attribute missing in " + who(ctx));
  Window w = resolve_window(ctx, ctx.node.op_type(), spatial, ctx.node.attrs.get_ints("kernel_shape"), true);
  PoolGeometry g;
  for (size_t i = 0; i < w.rank(); ++i) {
    if (w.dilation[i] != 1) throw UnsupportedError(ctx.node.op_type() + ": dilated pooling not supported on NC1HWC0 in " + who(ctx));
    // oneDNN requires out = (in + pl + pr - k) / s + 1 exactly.
    const int64_t pr = (w.out[i] - 1) * w.stride[i] + w.kernel[i] - w.in[i] - w.pad_begin[i];
    g.overhang = g.overhang || pr > w.pad_end[i];
    g.kernel.push_back(w.kernel[i]);
    g.strides.push_back(w.stride[i]);
    g.pad_l.push_back(w.pad_begin[i]);
    g.pad_r.push_back(std::max(pr, w.pad_end[i]));
  }
  return g;
}

/// oneDNN's pooling_forward on nChw16c (`blocked`) or on plain NCHW source and destination.
class BlockedPoolKernel : public CpuKernel {
 public:
  BlockedPoolKernel(const KernelBuildContext& ctx, bool blocked) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    PoolGeometry g = pool_geometry(ctx);
    const bool max = ctx.node.op_type() == "MaxPool";
    const auto alg = max ? dnnl::algorithm::pooling_max
                     : ctx.node.attrs.get_int("count_include_pad", 0) ? dnnl::algorithm::pooling_avg_include_padding
                                                                       : dnnl::algorithm::pooling_avg_exclude_padding;
    if (!max && g.overhang)
      throw UnsupportedError("AveragePool: a ceil_mode window past the padding is not supported on oneDNN" + where);
    try {
      src_md_ = blocked ? blocked_md(ctx.input_shape(0)) : plain_md(ctx.input_shape(0));
      dst_md_ = blocked ? blocked_md(ctx.output_shape(0)) : plain_md(ctx.output_shape(0));
      eng_ = dnnl_engine();
      dnnl::pooling_forward::primitive_desc pd(
          dnnl::pooling_forward::desc(dnnl::prop_kind::forward_inference, alg, src_md_, dst_md_, g.strides, g.kernel,
                                      g.pad_l, g.pad_r),
          eng_);
      prim_ = dnnl::pooling_forward(pd);
      impl_ = "onednn:pool:" + std::string(pd.impl_info_str());
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, ctx.node.op_type() + where);
    }
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    try {
      dnnl::stream& s = dnnl_stream();
      dnnl::memory src(src_md_, eng_, const_cast<void*>(io.inputs[0].data()));
      dnnl::memory dst(dst_md_, eng_, io.outputs[0].data());
      prim_.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
      s.wait();
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "pooling");
    }
  }
  std::string impl_name() const override { return impl_; }

 private:
  dnnl::engine eng_;
  dnnl::memory::desc src_md_, dst_md_;
  dnnl::pooling_forward prim_;
  std::string impl_;
};

class BlockedGlobalPoolKernel : public CpuKernel {
 public:
  explicit BlockedGlobalPoolKernel(const KernelBuildContext& ctx)
      : CpuKernel(ctx), max_(ctx.node.op_type() == "GlobalMaxPool") {
    const Shape& xs = ctx.input_shape(0);
    blocks_ = xs[0] * ((xs[1] + kFormatC0 - 1) / kFormatC0);
    hw_ = xs[2] * xs[3];
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const int64_t hw = hw_;
    const float inv = hw ? 1.f / static_cast<float>(hw) : 0.f;
    // One loop per kind (a select inside the loop kept it scalar): the 16 lanes of a position
    // are one vector, summed (or maxed) over the positions in order.
    parallel_for(blocks_, [&](int64_t b) {
      const float* xb = x + b * hw * kFormatC0;
      float acc[kFormatC0];
      if (max_) {
        std::fill(acc, acc + kFormatC0, -std::numeric_limits<float>::infinity());
        for (int64_t p = 0; p < hw; ++p)
          for (int64_t c = 0; c < kFormatC0; ++c) acc[c] = std::max(acc[c], xb[p * kFormatC0 + c]);
        for (int64_t c = 0; c < kFormatC0; ++c) y[b * kFormatC0 + c] = hw ? acc[c] : 0.f;
      } else {
        std::fill(acc, acc + kFormatC0, 0.f);
        for (int64_t p = 0; p < hw; ++p)
          for (int64_t c = 0; c < kFormatC0; ++c) acc[c] += xb[p * kFormatC0 + c];
        for (int64_t c = 0; c < kFormatC0; ++c) y[b * kFormatC0 + c] = acc[c] * inv;
      }
    });
  }
  std::string impl_name() const override { return max_ ? "cpu:globalmaxpool:nc1hwc0" : "cpu:globalavgpool:nc1hwc0"; }

 private:
  bool max_;
  int64_t blocks_ = 0, hw_ = 0;
};

}  // namespace

bool pool_supports_blocked(const Node& node, int64_t opset) {
  const Value* x = node.input(0);
  if (!x || x->shape.rank() != 4 || x->dtype != DataType::Float32 || x->shape.numel() == 0) return false;
  if (node.num_outputs() > 1 && node.output(1)) return false;  // MaxPool's Indices
  if (is_global(node)) return true;
  if (node.op_type() != "MaxPool" && node.op_type() != "AveragePool") return false;
  try {
    KernelBuildContext ctx{node, opset, 1};
    PoolGeometry g = pool_geometry(ctx);
    return node.op_type() == "MaxPool" || !g.overhang;
  } catch (const std::exception&) {
    return false;
  }
}

std::unique_ptr<Kernel> make_blocked_pool(const KernelBuildContext& ctx) {
  require_plain_or_blocked(ctx);
  if (!is_blocked(ctx.node.input(0)) || !is_blocked(ctx.node.output(0)))
    throw UnsupportedError(ctx.node.op_type() + ": input and output must both be NC1HWC0 or both plain in " + who(ctx));
  if (is_global(ctx.node)) return std::make_unique<BlockedGlobalPoolKernel>(ctx);
  if (ctx.node.num_outputs() > 1 && ctx.node.output(1))
    throw UnsupportedError("MaxPool: Indices output not supported on NC1HWC0 in " + who(ctx));
  return std::make_unique<BlockedPoolKernel>(ctx, true);
}

std::unique_ptr<Kernel> make_plain_onednn_avgpool(const KernelBuildContext& ctx) {
  const Shape& xs = ctx.input_shape(0);
  if (ctx.node.op_type() != "AveragePool" || xs.rank() != 4 || xs.numel() == 0 ||
      ctx.input_type(0) != DataType::Float32 || ctx.output_type(0) != DataType::Float32)
    return nullptr;
  const Shape& ys = ctx.output_shape(0);
  if (ys.rank() != 4 || ys[0] != xs[0] || ys[1] != xs[1]) return nullptr;
  try {
    PoolGeometry g = pool_geometry(ctx);
    for (size_t i = 0; i < 2; ++i) {
      if ((xs[2 + i] + g.pad_l[i] + g.pad_r[i] - g.kernel[i]) / g.strides[i] + 1 != ys[2 + i]) return nullptr;
      // A pad as wide as the kernel allows windows with no input element (the direct kernel
      // writes 0 there; oneDNN rejects or divides by zero).
      if (g.pad_l[i] >= g.kernel[i] || g.pad_r[i] >= g.kernel[i]) return nullptr;
    }
    if (g.overhang) return nullptr;
    return std::make_unique<BlockedPoolKernel>(ctx, false);
  } catch (const std::exception&) {
    return nullptr;  // dilation, bad geometry, no oneDNN implementation: the direct kernel reports or handles it
  }
}

}  // namespace ge::cpu
