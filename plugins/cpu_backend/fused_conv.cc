// plugins/cpu_backend/fused_conv.cc — ge.FusedConv: Y = act(Conv(X, W, B) + Z)
// (plugins/fusion/ops/conv.toml; ONNX Runtime's FusedConv semantics).
//
// The convolution is conv.cc's kernel built with oneDNN post-ops (a sum for Z, an eltwise for the
// activation), so the residual and the activation cost no extra pass over memory. The direct
// depthwise kernel (conv_depthwise.cc) has no post-ops; after it, apply_post_ops adds Z and
// applies the activation in one in-place pass while the output is still in cache per block —
// still one pass fewer than the separate Add / Clip kernels, which read and write a second tensor.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "conv.h"
#include "cpu_backend.h"
#include "kernels.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {

/// act(y) in place over n floats (`t`: n floats of scratch), as oneDNN's eltwise algorithms of
/// read_activation_post_op define them.
void apply_activation(const ConvPostOps& post, float* __restrict y, float* __restrict t, int64_t n) {
  const float lo = post.alpha, hi = post.beta;
  switch (post.eltwise) {
    case dnnl::algorithm::eltwise_relu:
      if (lo == 0.f) {
        for (int64_t i = 0; i < n; ++i) y[i] = y[i] < 0.f ? 0.f : y[i];  // Relu(-inf) = 0, NaN stays
      } else {
        for (int64_t i = 0; i < n; ++i) y[i] = y[i] < 0.f ? lo * y[i] : y[i];  // LeakyRelu
      }
      break;
    case dnnl::algorithm::eltwise_clip:
      for (int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(y[i], lo), hi);
      break;
    case dnnl::algorithm::eltwise_hardswish:
      for (int64_t i = 0; i < n; ++i) y[i] = y[i] * std::min(std::max(y[i] / 6.f + 0.5f, 0.f), 1.f);
      break;
    case dnnl::algorithm::eltwise_logistic:
      vec::sigmoid(y, y, n);
      break;
    case dnnl::algorithm::eltwise_tanh:
      vec::tanh(y, y, n);
      break;
    case dnnl::algorithm::eltwise_swish:  // x * sigmoid(alpha * x)
      for (int64_t i = 0; i < n; ++i) t[i] = lo * y[i];
      vec::sigmoid(t, t, n);
      for (int64_t i = 0; i < n; ++i) y[i] *= t[i];
      break;
    case dnnl::algorithm::eltwise_elu:  // x < 0 ? alpha * (e^x - 1) : x
      for (int64_t i = 0; i < n; ++i) t[i] = std::min(y[i], 0.f);
      vec::exp(t, t, n);
      for (int64_t i = 0; i < n; ++i) y[i] = y[i] < 0.f ? lo * (t[i] - 1.f) : y[i];
      break;
    default:
      break;
  }
}

class PostOpsKernel : public CpuKernel {
 public:
  PostOpsKernel(std::unique_ptr<Kernel> conv, const KernelBuildContext& ctx, const ConvPostOps& post)
      : CpuKernel(ctx), conv_(std::move(conv)), post_(post) {}

  void run(KernelIO& io) override {
    // ge.FusedConv may run in place on Z (conv.toml `inplace`): the conv below writes Y before
    // Z is added, so an aliased Z is set aside first.
    const float* z = post_.sum ? io.inputs[3].data_as<float>() : nullptr;
    if (z && static_cast<const void*>(z) == io.outputs[0].data()) {
      z_copy_.assign(z, z + io.outputs[0].numel());
      z = z_copy_.data();
    }
    conv_->run(io);
    ThreadScope threads(threads_);
    apply_post_ops_in_place(post_, io.outputs[0].data_as<float>(), z, io.outputs[0].numel());
  }
  std::string impl_name() const override { return conv_->impl_name() + "+postops"; }

 private:
  std::unique_ptr<Kernel> conv_;
  ConvPostOps post_;
  std::vector<float> z_copy_;  // Z set aside when Y runs in place on it
};

}  // namespace

void apply_post_ops_in_place(const ConvPostOps& post, float* y, const float* z, int64_t n) {
  parallel_range(n, 1 << 14, [y, z, post](int64_t b, int64_t e) {
    // Blocks of kBlock floats: the output block is still in L1 for the activation, and the
    // transcendental ones go through vecmath's bulk functions. Locals only, so each loop is a
    // branch-free vector loop (a loop on the captured attributes compiled to a scalar,
    // branching one, 5-10x slower on ShuffleNet's fused grouped 1x1 convolutions).
    constexpr int64_t kBlock = 1024;
    alignas(64) float t[kBlock];
    for (int64_t s0 = b; s0 < e; s0 += kBlock) {
      float* __restrict yb = y + s0;
      const int64_t m = std::min(kBlock, e - s0);
      if (z) {
        const float* __restrict zb = z + s0;
        for (int64_t i = 0; i < m; ++i) yb[i] += zb[i];
      }
      apply_activation(post, yb, t, m);
    }
  });
}

bool activation_keeps_zero(const ConvPostOps& post) {
  switch (post.eltwise) {
    case dnnl::algorithm::undef:
    case dnnl::algorithm::eltwise_relu:
    case dnnl::algorithm::eltwise_tanh:
    case dnnl::algorithm::eltwise_hardswish:
    case dnnl::algorithm::eltwise_swish:
    case dnnl::algorithm::eltwise_elu:
      return true;
    case dnnl::algorithm::eltwise_clip:
      return post.alpha <= 0.f && post.beta >= 0.f;
    default:
      return false;  // logistic: 0.5
  }
}

ConvPostOps read_activation_post_op(const KernelBuildContext& ctx) {
  return read_activation_post_op(ctx, "activation", "activation_params");
}

ConvPostOps read_activation_post_op(const KernelBuildContext& ctx, const std::string& attr,
                                    const std::string& params_attr) {
  ConvPostOps p;
  const std::string op = ctx.node.op_type();
  const std::string act = ctx.node.attrs.get_string(attr, "");
  if (act == "Relu") {
    p.eltwise = dnnl::algorithm::eltwise_relu;  // alpha = 0: max(x, 0)
  } else if (act == "Sigmoid") {
    p.eltwise = dnnl::algorithm::eltwise_logistic;
  } else if (act == "Clip") {
    const std::vector<float> b = ctx.node.attrs.get_floats(params_attr);
    if (b.size() != 2)
      throw InvalidGraphError(op + ": " + attr + " Clip needs " + params_attr + " [min, max] in " + who(ctx));
    // oneDNN's clip is min(max(x, alpha), beta), ONNX Clip's order; ±inf bounds are ±FLT_MAX there.
    p.eltwise = dnnl::algorithm::eltwise_clip;
    p.alpha = std::max(b[0], -std::numeric_limits<float>::max());
    p.beta = std::min(b[1], std::numeric_limits<float>::max());
  } else if (act == "LeakyRelu" || act == "Elu") {
    const std::vector<float> a = ctx.node.attrs.get_floats(params_attr);
    if (a.size() != 1)
      throw InvalidGraphError(op + ": " + attr + " " + act + " needs " + params_attr + " [alpha] in " + who(ctx));
    // oneDNN's relu with alpha is x < 0 ? alpha*x : x (LeakyRelu); elu is x < 0 ? alpha*(e^x - 1) : x.
    p.eltwise = act == "Elu" ? dnnl::algorithm::eltwise_elu : dnnl::algorithm::eltwise_relu;
    p.alpha = a[0];
  } else if (act == "Tanh") {
    p.eltwise = dnnl::algorithm::eltwise_tanh;
  } else if (act == "HardSwish") {
    p.eltwise = dnnl::algorithm::eltwise_hardswish;  // x * relu6(x + 3) / 6 = ONNX HardSwish
  } else if (act == "Swish") {
    p.eltwise = dnnl::algorithm::eltwise_swish;  // x * sigmoid(alpha * x), alpha = 1: SiLU
    p.alpha = 1.f;
  } else if (!act.empty()) {
    throw UnsupportedError(op + ": " + attr + " '" + act +
                           "' not supported (Relu, Clip, Sigmoid, Tanh, LeakyRelu, Elu, HardSwish, Swish) in " + who(ctx));
  }
  return p;
}

std::unique_ptr<Kernel> apply_post_ops(std::unique_ptr<Kernel> conv, const KernelBuildContext& ctx,
                                       const ConvPostOps& post) {
  return std::make_unique<PostOpsKernel>(std::move(conv), ctx, post);
}

void register_fused_conv_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "ge", "FusedConv",
                         onednn_factory([](const KernelBuildContext& ctx) {
                           require_f32(ctx, {3});
                           if (ctx.has_input(3) && ctx.input_shape(3) != ctx.output_shape(0))
                             throw InvalidGraphError("FusedConv: Z " + ctx.input_shape(3).str() + " differs from Y " +
                                                     ctx.output_shape(0).str() + " in " + who(ctx));
                           ConvPostOps post = read_activation_post_op(ctx);
                           post.sum = ctx.has_input(3);
                           return make_conv_kernel(ctx, post);
                         }),
                         ""});
}

}  // namespace ge::cpu
