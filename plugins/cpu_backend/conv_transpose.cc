// plugins/cpu_backend/conv_transpose.cc — ONNX ConvTranspose (1-D/2-D/3-D, groups, strides,
// dilations, pads, output_padding, output_shape, auto_pad, optional bias) on oneDNN's
// deconvolution_forward (oneDNN 2.x API).
//
// ONNX ConvTranspose (onnx/docs/Operators.md#ConvTranspose): X [N, C, D...], W [C, M/group, k...],
// B [M], Y [N, M, out...]. Per spatial dim the "full" transposed output has
// F = stride * (in - 1) + (k - 1) * dilation + 1 positions; Y is F + output_padding - pads_begin -
// pads_end positions of it starting at pads_begin. With output_shape (or SAME_* auto_pad, which
// asks for out = in * stride) the total padding is t = F + output_padding - out, split as the
// spec says: SAME_UPPER begins with floor(t/2), otherwise with t - floor(t/2) (floor division, as
// the spec's numpy reference: t may be negative when output_shape asks for more than F).
//
// oneDNN's deconvolution computes exactly that window with padding_l = pads_begin and
// padding_r = F - pads_begin - out; when padding_r is negative (output_padding or output_shape
// past F) the positions beyond F receive no input, only the bias: oneDNN runs on the F-bounded
// part into a scratch buffer and the tail is filled with the bias (oneDNN 2.6 refuses negative
// padding). ONNX's W [C, M/G, k...] is oneDNN's (g)iohw layout: only a descriptor, no copy.
// NC1HWC0 activations (2-D, the layout pass's blocked format) are oneDNN's nChw16c: read and
// written in place, so a ConvTranspose between blocked convolutions needs no TransData.
#include <cstring>
#include <string>

#include "blocked.h"
#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

int64_t floor_div2(int64_t t) { return t >= 0 ? t / 2 : -((-t + 1) / 2); }

class ConvTransposeKernel : public CpuKernel {
 public:
  /// probe_blocked: build the primitive for NC1HWC0 operands whatever the node's formats (the
  /// layout preference asks whether oneDNN has a real kernel for them).
  explicit ConvTransposeKernel(const KernelBuildContext& ctx, bool probe_blocked = false) : CpuKernel(ctx) {
    ThreadScope threads(threads_);
    require_f32(ctx, {0, 1, 2});
    require_plain_or_blocked(ctx);
    const std::string where = " in " + who(ctx);
    const bool src_blocked = probe_blocked || is_blocked(ctx.node.input(0)),
               dst_blocked = probe_blocked || is_blocked(ctx.node.output(0));
    auto bad = [&](const std::string& m) { throw InvalidGraphError("ConvTranspose: " + m + where); };
    const Attributes& a = ctx.node.attrs;
    const Shape &xs = ctx.input_shape(0), &ws = ctx.input_shape(1), &ys = ctx.output_shape(0);
    if (xs.rank() < 3 || xs.rank() > 5)
      throw UnsupportedError("ConvTranspose: rank " + std::to_string(xs.rank()) +
                             " input not supported (1-D to 3-D only)" + where);
    if (ws.rank() != xs.rank() || ys.rank() != xs.rank()) bad("weight/output rank differs from the input's");
    const size_t r = xs.rank() - 2;
    const int64_t N = xs[0], C = xs[1], G = a.get_int("group", 1);
    if (G <= 0 || C % G != 0 || ws[0] != C) bad("group " + std::to_string(G) + " inconsistent with X " + xs.str() + " and W " + ws.str());
    const int64_t M = ws[1] * G;
    std::vector<int64_t> kernel(ws.dims().begin() + 2, ws.dims().end());
    if (a.has("kernel_shape") && a.get_ints("kernel_shape") != kernel) bad("kernel_shape disagrees with W " + ws.str());
    auto ints = [&](const char* name, int64_t dflt, size_t n) {
      std::vector<int64_t> v = a.get_ints(name, std::vector<int64_t>(n, dflt));
      if (v.size() != n) bad(std::string(name) + " must have " + std::to_string(n) + " values");
      return v;
    };
    const std::vector<int64_t> stride = ints("strides", 1, r), dil = ints("dilations", 1, r),
                               opad = ints("output_padding", 0, r);
    std::vector<int64_t> pads = ints("pads", 0, 2 * r);
    const std::string auto_pad = a.get_string("auto_pad", "NOTSET");
    const bool has_oshape = a.has("output_shape");
    std::vector<int64_t> oshape = a.get_ints("output_shape");
    if (has_oshape && oshape.size() == r + 2) oshape.erase(oshape.begin(), oshape.begin() + 2);  // N, C given too
    if (has_oshape && oshape.size() != r) bad("output_shape must have " + std::to_string(r) + " values");
    if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
      bad("auto_pad '" + auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    pb_.assign(r, 0);
    std::vector<int64_t> full(r), out(r), pr(r);
    Shape want{N, M};
    for (size_t i = 0; i < r; ++i) {
      if (stride[i] <= 0 || dil[i] <= 0 || kernel[i] <= 0) bad("strides, dilations and kernel_shape must be positive");
      full[i] = stride[i] * (xs[i + 2] - 1) + (kernel[i] - 1) * dil[i] + 1;
      if (has_oshape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        out[i] = has_oshape ? oshape[i] : xs[i + 2] * stride[i];
        const int64_t t = full[i] + opad[i] - out[i];
        pb_[i] = auto_pad == "SAME_UPPER" ? floor_div2(t) : t - floor_div2(t);
      } else if (auto_pad == "VALID") {
        out[i] = full[i] + opad[i];
      } else {
        pb_[i] = pads[i];
        if (pads[i] < 0 || pads[i + r] < 0) bad("negative pads");
        out[i] = full[i] + opad[i] - pads[i] - pads[i + r];
      }
      if (pb_[i] < 0)
        throw UnsupportedError("ConvTranspose: output_shape " + std::to_string(out[i]) + " larger than the input allows at the beginning (negative begin padding)" + where);
      pr[i] = full[i] - pb_[i] - out[i];
      want.dims().push_back(out[i]);
    }
    if (want != ys) bad("output shape " + ys.str() + " differs from computed " + want.str());
    has_bias_ = ctx.has_input(2);
    if (has_bias_ && ctx.input_shape(2) != Shape{M}) bad("bias shape " + ctx.input_shape(2).str() + " is not [" + std::to_string(M) + "]");
    empty_ = ys.numel() == 0 || xs.numel() == 0;
    M_ = M;
    N_ = N;
    ys_ = ys;
    if (empty_) return;

    // The part oneDNN computes: each dim cut at F (padding_r >= 0).
    Shape ts{N, M};
    memory::dims prd;
    for (size_t i = 0; i < r; ++i) {
      ts.dims().push_back(pr[i] < 0 ? out[i] + pr[i] : out[i]);
      prd.push_back(std::max<int64_t>(pr[i], 0));
      if (ts[i + 2] <= 0) throw UnsupportedError("ConvTranspose: output lies entirely past the input's reach" + where);
    }
    scratch_ = ts != ys;
    ts_ = ts;
    if (scratch_ && dst_blocked)
      throw UnsupportedError("ConvTranspose: NC1HWC0 output with output_padding past the end padding (plain only)" + where);
    memory::dims wdims;
    if (G > 1) wdims = {G, M / G, C / G};
    else wdims = {M, C};
    for (int64_t k : kernel) wdims.push_back(k);
    // (g)iow has no named tag in oneDNN 2.6: acbd / bac are the same permutation.
    const tag wtag = G > 1 ? (r == 1 ? tag::acbd : r == 2 ? tag::giohw : tag::giodhw)
                           : (r == 1 ? tag::bac : r == 2 ? tag::iohw : tag::iodhw);
    user_w_md_ = memory::desc(wdims, dt::f32, wtag);
    // NC1HWC0 values are oneDNN's nChw16c: the primitive reads/writes them directly.
    src_md_ = src_blocked ? blocked_md(xs) : plain_md(xs);
    dst_md_ = dst_blocked ? blocked_md(ts) : plain_md(ts);
    memory::dims strides(stride.begin(), stride.end()), pl(pb_.begin(), pb_.end()), dd;
    for (int64_t d : dil) dd.push_back(d - 1);
    const memory::desc w_any(wdims, dt::f32, tag::any), b_md({M}, dt::f32, tag::a);
    try {
      auto make = [&](const memory::desc& src, const memory::desc& dst) {
        auto desc = has_bias_ ? dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                                  dnnl::algorithm::deconvolution_direct, src, w_any,
                                                                  b_md, dst, strides, dd, pl, prd)
                              : dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                                  dnnl::algorithm::deconvolution_direct, src, w_any,
                                                                  dst, strides, dd, pl, prd);
        return dnnl::deconvolution_forward::primitive_desc(desc, dnnl_engine());
      };
      eng_ = dnnl_engine();
      pd_ = make(src_md_, dst_md_);
      // Plain NCHW activations: oneDNN's own layout choice (blocked, its jit kernels) with a
      // reorder in and out is many times faster than its GEMM deconvolution on NCHW (unet_small's
      // 128->64 2x2/s2 ConvTranspose, ONEDNN_VERBOSE); kept when oneDNN picks a real kernel.
      if (!src_blocked && !dst_blocked) {
        auto any = make(memory::desc(to_dims(xs), dt::f32, tag::any), memory::desc(to_dims(ts), dt::f32, tag::any));
        if (std::string(any.impl_info_str()).rfind("ref", 0) != 0) pd_ = any;
      }
      src_reorder_ = pd_.src_desc() != src_md_;
      dst_reorder_ = pd_.dst_desc() != dst_md_;
      if (src_reorder_) {
        src_mem_ = memory(pd_.src_desc(), eng_);
        src_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, src_md_, eng_, pd_.src_desc()));
      }
      if (dst_reorder_) {
        dst_mem_ = memory(pd_.dst_desc(), eng_);
        dst_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, pd_.dst_desc(), eng_, dst_md_));
      }
      if (probe_blocked) {
        impl_ = "onednn:deconv:" + std::string(pd_.impl_info_str());
        return;
      }
      prim_ = dnnl::deconvolution_forward(pd_);
      w_reorder_ = pd_.weights_desc() != user_w_md_;
      if (const float* wc = const_f32(ctx, 1)) {
        memory user(user_w_md_, eng_, const_cast<float*>(wc));
        w_mem_ = memory(pd_.weights_desc(), eng_);
        reorder(user, w_mem_);  // an owned copy in the primitive's layout, once
        w_const_ = true;
      } else if (w_reorder_) {
        w_mem_ = memory(pd_.weights_desc(), eng_);
        w_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, user_w_md_, eng_, pd_.weights_desc()));
      }
      if (scratch_) tmp_ = memory(dst_md_, eng_);
      impl_ = "onednn:deconv:" + std::string(pd_.impl_info_str());
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "ConvTranspose" + where);
    }
  }

  void run(KernelIO& io) override {
    if (empty_) return;
    ThreadScope threads(threads_);
    float* y = io.outputs[0].data_as<float>();
    try {
      dnnl::stream& s = dnnl_stream();
      memory user_src(src_md_, eng_, const_cast<void*>(io.inputs[0].data()));
      memory user_dst = scratch_ ? tmp_ : memory(dst_md_, eng_, y);
      memory src = src_reorder_ ? src_mem_ : user_src, dst = dst_reorder_ ? dst_mem_ : user_dst;
      if (src_reorder_) src_r_.execute(s, user_src, src_mem_);
      memory w = w_mem_;
      if (!w_const_) {
        memory user_w(user_w_md_, eng_, const_cast<void*>(io.inputs[1].data()));
        if (w_reorder_) w_r_.execute(s, user_w, w_mem_);
        else w = user_w;
      }
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}};
      if (has_bias_) args[DNNL_ARG_BIAS] = memory(pd_.bias_desc(), eng_, const_cast<void*>(io.inputs[2].data()));
      prim_.execute(s, args);
      if (dst_reorder_) dst_r_.execute(s, dst_mem_, user_dst);
      s.wait();
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "ConvTranspose");
    }
    if (scratch_) pad_tail(static_cast<const float*>(tmp_.get_data_handle()), y,
                           has_bias_ ? io.inputs[2].data_as<float>() : nullptr);
  }

  std::string impl_name() const override { return impl_; }
  /// Whether the output past the input's reach is filled outside oneDNN (plain output only).
  bool needs_scratch() const { return scratch_; }
  bool reference_impl() const { return impl_.find(":ref") != std::string::npos; }

 private:
  /// Copies the computed [N, M, t...] block into Y [N, M, out...]; positions past it get the bias.
  void pad_tail(const float* t, float* y, const float* bias) const {
    const size_t r = ys_.rank() - 2;
    int64_t tin[3] = {1, 1, 1}, yo[3] = {1, 1, 1};
    for (size_t i = 0; i < r; ++i) {
      tin[3 - r + i] = ts_[i + 2];
      yo[3 - r + i] = ys_[i + 2];
    }
    const int64_t tplane = tin[0] * tin[1] * tin[2], yplane = yo[0] * yo[1] * yo[2];
    parallel_for(N_ * M_, [&](int64_t p) {
      const float b = bias ? bias[p % M_] : 0.f;
      float* yp = y + p * yplane;
      const float* tp = t + p * tplane;
      for (int64_t i0 = 0; i0 < yo[0]; ++i0)
        for (int64_t i1 = 0; i1 < yo[1]; ++i1) {
          float* row = yp + (i0 * yo[1] + i1) * yo[2];
          if (i0 < tin[0] && i1 < tin[1]) {
            std::memcpy(row, tp + (i0 * tin[1] + i1) * tin[2], sizeof(float) * tin[2]);
            for (int64_t i2 = tin[2]; i2 < yo[2]; ++i2) row[i2] = b;
          } else {
            for (int64_t i2 = 0; i2 < yo[2]; ++i2) row[i2] = b;
          }
        }
    });
  }

  bool has_bias_ = false, empty_ = false, scratch_ = false, w_const_ = false, w_reorder_ = false;
  bool src_reorder_ = false, dst_reorder_ = false;
  int64_t M_ = 0, N_ = 0;
  Shape ys_, ts_;
  std::vector<int64_t> pb_;
  dnnl::engine eng_;
  memory::desc src_md_, dst_md_, user_w_md_;
  dnnl::deconvolution_forward::primitive_desc pd_;
  dnnl::deconvolution_forward prim_;
  memory w_mem_, tmp_, src_mem_, dst_mem_;
  dnnl::reorder w_r_, src_r_, dst_r_;
  std::string impl_ = "onednn:deconv";
};

}  // namespace

bool conv_transpose_supports_blocked(const Node& node, int64_t opset) {
  const Value *x = node.input(0), *w = node.input(1);
  if (node.op_type() != "ConvTranspose" || !x || !w || x->shape.rank() != 4 || x->dtype != DataType::Float32 ||
      x->shape.numel() == 0)
    return false;
  try {
    KernelBuildContext ctx{node, opset, 1};
    ConvTransposeKernel k(ctx, /*probe_blocked=*/true);
    return !k.needs_scratch() && !k.reference_impl();
  } catch (const std::exception&) {
    return false;
  }
}

void register_conv_transpose_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "ConvTranspose",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<ConvTransposeKernel>(ctx);
                         },
                         ""});
}

}  // namespace ge::cpu
