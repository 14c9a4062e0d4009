// plugins/cpu_backend/fused_transformer_matmul.cc — ge.FusedMatMul on oneDNN's matmul primitive.
//
// Y = act(A · B' + bias) (plugins/fusion/ops/transformer.toml): A [.., M, K] with its batch dims
// folded into M (one 2-D GEMM), B' = B [K, N] or, with transB, Bᵀ of B [N, K] expressed as
// column-major strides (no copy). The bias [N] is oneDNN's matmul bias (broadcast over rows);
// the activation is an eltwise post-op (gelu_erf, or FusedConv's list: relu, clip, logistic, tanh,
// leaky relu, elu, hardswish, swish — read_activation_post_op), so the output is written once
// — the unfused MatMul, Add and activation make three passes over it. A constant B is reordered
// once into the layout oneDNN prefers (format_tag::any). In bf16 (bf16.h) A and B are bf16
// (A reordered at each run, a constant B once), accumulation and Y fp32.
#include <string>
#include <unordered_map>

#include "bf16.h"
#include "conv.h"
#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

using dnnl::memory;
using dt = memory::data_type;

class FusedMatMulKernel : public CpuKernel {
 public:
  explicit FusedMatMulKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    ThreadScope threads(threads_);
    require_f32(ctx, {0, 1, 2});
    const std::string what = "FusedMatMul in " + who(ctx);
    const Shape &as = ctx.input_shape(0), &bs = ctx.input_shape(1);
    if (as.rank() < 2 || bs.rank() != 2)
      throw UnsupportedError(what + ": A must have rank >= 2 and B rank 2, got " + as.str() + " · " + bs.str());
    const bool tb = ctx.node.attrs.get_int("transB", 0) != 0;
    const int64_t K = as[as.rank() - 1], N = tb ? bs[0] : bs[1], rows = as.numel() / std::max<int64_t>(K, 1);
    if ((tb ? bs[1] : bs[0]) != K) throw InvalidGraphError(what + ": inner dims differ: " + as.str() + " · " + bs.str());
    empty_ = rows * N == 0;
    if (empty_) return;
    a_md_ = memory::desc({rows, K}, dt::f32, memory::dims{K, 1});
    b_md_ = tb ? memory::desc({K, N}, dt::f32, memory::dims{1, K}) : memory::desc({K, N}, dt::f32, memory::dims{N, 1});
    dst_md_ = memory::desc({rows, N}, dt::f32, memory::dims{N, 1});
    has_bias_ = ctx.has_input(2);
    if (has_bias_) bias_md_ = memory::desc({1, N}, dt::f32, memory::dims{N, 1});
    const std::string act = ctx.node.attrs.get_string("activation", "");
    try {
      dnnl::primitive_attr attr;
      if (!act.empty()) {
        // Gelu (from the `gelu` rule) is FusedMatMul's own; the rest is FusedConv's list.
        ConvPostOps post;
        if (act == "Gelu") post.eltwise = dnnl::algorithm::eltwise_gelu_erf;
        else post = read_activation_post_op(ctx);
        dnnl::post_ops po;
        po.append_eltwise(1.0f, post.eltwise, post.alpha, post.beta);
        attr.set_post_ops(po);
      }
      const float* b_const = const_f32(ctx, 1);
      bf16_ = bf16_native(ctx);
      const dt op_dt = bf16_ ? dt::bf16 : dt::f32;
      memory::desc w_md = b_const ? memory::desc({K, N}, op_dt, memory::format_tag::any)
                          : bf16_ ? memory::desc({K, N}, op_dt, memory::format_tag::ab) : b_md_;
      const memory::desc a_op = bf16_ ? memory::desc({rows, K}, op_dt, memory::format_tag::ab) : a_md_;
      dnnl::engine& eng = dnnl_engine();
      auto d = has_bias_ ? dnnl::matmul::desc(a_op, w_md, bias_md_, dst_md_) : dnnl::matmul::desc(a_op, w_md, dst_md_);
      pd_ = dnnl::matmul::primitive_desc(d, attr, eng);
      prim_ = dnnl::matmul(pd_);
      if (bf16_) {
        a_op_ = memory(pd_.src_desc(), eng);
        a_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng, a_md_, eng, pd_.src_desc()));
        if (!b_const) {
          b_op_ = memory(pd_.weights_desc(), eng);
          b_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng, b_md_, eng, pd_.weights_desc()));
        }
      }
      if (b_const) {
        memory user(b_md_, eng, const_cast<float*>(b_const));
        b_mem_ = memory(pd_.weights_desc(), eng);
        reorder(user, b_mem_);
      }
      if (const float* c = has_bias_ ? const_f32(ctx, 2) : nullptr) {
        bias_mem_ = memory(bias_md_, eng);
        std::memcpy(bias_mem_.get_data_handle(), c, bias_md_.get_size());
      }
      impl_ = std::string(bf16_ ? "onednn:matmul_bf16" : "onednn:matmul") + (act.empty() ? std::string() : "+" + act) + ":" +
              pd_.impl_info_str();
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, what);
    }
  }

  void run(KernelIO& io) override {
    if (empty_) return;
    ThreadScope threads(threads_);
    try {
      dnnl::engine& eng = dnnl_engine();
      dnnl::stream& s = dnnl_stream();
      memory a(a_md_, eng, const_cast<void*>(io.inputs[0].data()));
      memory b = b_mem_ ? b_mem_ : memory(b_md_, eng, const_cast<void*>(io.inputs[1].data()));
      if (bf16_) {
        a_r_.execute(s, a, a_op_);
        a = a_op_;
        if (!b_mem_) {
          b_r_.execute(s, b, b_op_);
          b = b_op_;
        }
      }
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b},
                                           {DNNL_ARG_DST, memory(dst_md_, eng, io.outputs[0].data())}};
      if (has_bias_)
        args[DNNL_ARG_BIAS] = bias_mem_ ? bias_mem_ : memory(bias_md_, eng, const_cast<void*>(io.inputs[2].data()));
      prim_.execute(s, args);
      s.wait();
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "FusedMatMul");
    }
  }
  std::string impl_name() const override { return impl_; }

 private:
  memory::desc a_md_, b_md_, bias_md_, dst_md_;
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul prim_;
  memory b_mem_, bias_mem_, a_op_, b_op_;  // a_op_, b_op_: bf16 copies of A and a non-constant B
  dnnl::reorder a_r_, b_r_;
  bool empty_ = false, has_bias_ = false, bf16_ = false;
  std::string impl_;
};

}  // namespace

void register_fused_matmul_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "ge", "FusedMatMul",
                         onednn_factory([](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<FusedMatMulKernel>(ctx);
                         }),
                         ""});
}

}  // namespace ge::cpu
