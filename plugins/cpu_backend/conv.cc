// plugins/cpu_backend/conv.cc — ONNX Conv (1-D/2-D/3-D, groups, pads/strides/dilations,
// auto_pad, optional bias) on oneDNN's convolution_forward (oneDNN 2.x API).
//
// ONNX Conv (onnx/docs/Operators.md#Conv): X [N, C, D...], W [M, C/group, k...], B [M],
// Y [N, M, out...]. oneDNN wants grouped weights as [G, M/G, C/G, k...] (goihw), which is the
// same memory as ONNX's W, so grouping is only a different descriptor.
//
// The primitive is created with format_tag::any for src, weights and dst so oneDNN picks its
// fastest (blocked) layouts; constant weights are reordered once here, activations are reordered
// from/to plain NCHW around each run when the primitive wants another layout (the layout pass
// will later keep activations blocked between convolutions).
#include <string>

#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

class ConvKernel : public CpuKernel {
 public:
  explicit ConvKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    ThreadScope threads(threads_);
    require_f32(ctx, {0, 1, 2});
    const Shape& xs = ctx.input_shape(0);
    const Shape& ws = ctx.input_shape(1);
    const std::string where = " in " + who(ctx);
    if (xs.rank() < 3 || xs.rank() > 5)
      throw UnsupportedError("Conv: rank " + std::to_string(xs.rank()) + " input not supported (1-D to 3-D convolutions only)" + where);
    if (ws.rank() != xs.rank())
      throw InvalidGraphError("Conv: weight rank " + std::to_string(ws.rank()) + " differs from input rank " + std::to_string(xs.rank()) + where);
    const size_t r = xs.rank() - 2;
    const int64_t N = xs[0], C = xs[1], M = ws[0];
    const int64_t G = ctx.node.attrs.get_int("group", 1);
    if (G <= 0 || C % G != 0 || M % G != 0 || ws[1] * G != C)
      throw InvalidGraphError("Conv: group " + std::to_string(G) + " inconsistent with input channels " +
                              std::to_string(C) + " and weight shape " + ws.str() + where);
    std::vector<int64_t> spatial(xs.dims().begin() + 2, xs.dims().end());
    std::vector<int64_t> kernel(ws.dims().begin() + 2, ws.dims().end());
    if (ctx.node.attrs.has("kernel_shape") && ctx.node.attrs.get_ints("kernel_shape") != kernel)
      throw InvalidGraphError("Conv: kernel_shape attribute disagrees with weight shape " + ws.str() + where);
    Window w = resolve_window(ctx, "Conv", spatial, kernel, /*allow_ceil_mode=*/false);

    Shape ys{N, M};
    for (int64_t o : w.out) ys.dims().push_back(o);
    if (ys != ctx.output_shape(0))
      throw InvalidGraphError("Conv: output shape " + ctx.output_shape(0).str() + " differs from computed " + ys.str() + where);
    has_bias_ = ctx.has_input(2);
    if (has_bias_ && ctx.input_shape(2) != Shape{M})
      throw InvalidGraphError("Conv: bias shape " + ctx.input_shape(2).str() + " is not [" + std::to_string(M) + "]" + where);
    empty_ = ys.numel() == 0 || xs.numel() == 0;
    if (empty_) return;

    // oneDNN descriptors. Dilation is "extra" spacing in oneDNN: d - 1.
    memory::dims strides(w.stride.begin(), w.stride.end()), pl(w.pad_begin.begin(), w.pad_begin.end()),
        pr(w.pad_end.begin(), w.pad_end.end()), dil;
    for (int64_t d : w.dilation) dil.push_back(d - 1);
    memory::dims wdims;  // [G, M/G, C/G, k...] when grouped
    if (G > 1) wdims = {G, M / G, C / G};
    else wdims = {M, C};
    for (int64_t k : kernel) wdims.push_back(k);
    const tag wtag_plain = G > 1 ? (r == 1 ? tag::goiw : r == 2 ? tag::goihw : tag::goidhw)
                                 : (r == 1 ? tag::oiw : r == 2 ? tag::oihw : tag::oidhw);

    user_src_md_ = plain_md(xs);
    user_dst_md_ = plain_md(ys);
    user_w_md_ = memory::desc(wdims, dt::f32, wtag_plain);
    memory::desc src_any(to_dims(xs), dt::f32, tag::any), dst_any(to_dims(ys), dt::f32, tag::any),
        w_any(wdims, dt::f32, tag::any), b_md({M}, dt::f32, tag::a);
    try {
      auto make = [&](const memory::desc& s, const memory::desc& d) {
        auto desc = has_bias_ ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                                dnnl::algorithm::convolution_direct, s, w_any,
                                                                b_md, d, strides, dil, pl, pr)
                              : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                                dnnl::algorithm::convolution_direct, s, w_any,
                                                                d, strides, dil, pl, pr);
        return dnnl::convolution_forward::primitive_desc(desc, dnnl_engine());
      };
      const char* lay = std::getenv("GE_CONV_LAYOUT");
      if (lay && std::string(lay) == "plain") pd_ = make(user_src_md_, user_dst_md_);
      else if (lay && std::string(lay) == "nhwc" && r == 2) pd_ = make(memory::desc(to_dims(xs), dt::f32, tag::nhwc), memory::desc(to_dims(ys), dt::f32, tag::nhwc));
      else pd_ = make(src_any, dst_any);
      // Few input channels (the RGB stem): oneDNN keeps plain src, fine. For layouts where the
      // blocked choice is not faster than plain (tiny tensors), oneDNN decides; we just reorder.
      prim_ = dnnl::convolution_forward(pd_);
      eng_ = dnnl_engine();
      src_reorder_ = pd_.src_desc() != user_src_md_;
      dst_reorder_ = pd_.dst_desc() != user_dst_md_;
      w_reorder_ = pd_.weights_desc() != user_w_md_;
      // Reorder primitives are created once; run() only executes them.
      if (src_reorder_) {
        src_mem_ = memory(pd_.src_desc(), eng_);
        src_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, user_src_md_, eng_, pd_.src_desc()));
      }
      if (dst_reorder_) {
        dst_mem_ = memory(pd_.dst_desc(), eng_);
        dst_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, pd_.dst_desc(), eng_, user_dst_md_));
      }
      if (const float* wc = const_f32(ctx, 1)) {
        // Constant weights: reorder once into the primitive's layout (owned copy).
        memory user(user_w_md_, eng_, const_cast<float*>(wc));
        w_mem_ = memory(pd_.weights_desc(), eng_);
        reorder(user, w_mem_);
        w_const_ = true;
      } else if (w_reorder_) {
        w_mem_ = memory(pd_.weights_desc(), eng_);
        w_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, user_w_md_, eng_, pd_.weights_desc()));
      }
      if (has_bias_) {
        if (const float* bc = const_f32(ctx, 2)) {
          b_mem_ = memory(b_md, eng_);
          std::memcpy(b_mem_.get_data_handle(), bc, sizeof(float) * M);
          b_const_ = true;
        }
      }
      impl_ = "onednn:conv:" + std::string(pd_.impl_info_str());
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "Conv" + where);
    }
  }

  void run(KernelIO& io) override {
    if (empty_) return;
    ThreadScope threads(threads_);
    try {
      dnnl::stream& s = dnnl_stream();
      memory user_src(user_src_md_, eng_, const_cast<void*>(io.inputs[0].data()));
      memory user_dst(user_dst_md_, eng_, io.outputs[0].data());
      static const bool skip = std::getenv("GE_CONV_SKIP_REORDER") != nullptr;  // TEMP timing experiment
      if (src_reorder_ && !skip) src_r_.execute(s, user_src, src_mem_);
      memory w = w_mem_;
      if (!w_const_) {
        memory user_w(user_w_md_, eng_, const_cast<void*>(io.inputs[1].data()));
        if (w_reorder_) w_r_.execute(s, user_w, w_mem_);
        else w = user_w;
      }
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src_reorder_ ? src_mem_ : user_src},
                                           {DNNL_ARG_WEIGHTS, w},
                                           {DNNL_ARG_DST, dst_reorder_ ? dst_mem_ : user_dst}};
      if (has_bias_) {
        args[DNNL_ARG_BIAS] = b_const_ ? b_mem_
                                       : memory(pd_.bias_desc(), eng_, const_cast<void*>(io.inputs[2].data()));
      }
      prim_.execute(s, args);
      if (dst_reorder_ && !skip) dst_r_.execute(s, dst_mem_, user_dst);
      s.wait();
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "Conv");
    }
  }

  std::string impl_name() const override { return impl_; }

 private:
  bool has_bias_ = false, empty_ = false, src_reorder_ = false, dst_reorder_ = false, w_reorder_ = false;
  bool w_const_ = false, b_const_ = false;
  dnnl::engine eng_;
  memory::desc user_src_md_, user_dst_md_, user_w_md_;
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward prim_;
  memory src_mem_, dst_mem_, w_mem_, b_mem_;
  dnnl::reorder src_r_, dst_r_, w_r_;
  std::string impl_ = "onednn:conv";
};

}  // namespace

void register_conv_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "Conv",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<ConvKernel>(ctx);
                         },
                         ""});
}

}  // namespace ge::cpu
