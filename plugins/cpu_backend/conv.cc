// plugins/cpu_backend/conv.cc — ONNX Conv (1-D/2-D/3-D, groups, pads/strides/dilations,
// auto_pad, optional bias) on oneDNN's convolution_forward (oneDNN 2.x API).
//
// ONNX Conv (onnx/docs/Operators.md#Conv): X [N, C, D...], W [M, C/group, k...], B [M],
// Y [N, M, out...]. oneDNN wants grouped weights as [G, M/G, C/G, k...] (goihw), which is the
// same memory as ONNX's W, so grouping is only a different descriptor.
//
// Weights use format_tag::any (oneDNN picks its blocked layout). Constant weights that the layout
// pass already converted to that layout (OIhw16i16o, Ohwi16o, Goihw16g: conv_weights.cc) are used
// in place — no copy, no reorder at plan load; other constant weights are reordered once at build,
// runtime weights each run. Activations stay plain NCHW at the kernel boundary:
//  - pointwise convs (1x1, stride 1, no pads, any group) run oneDNN's GEMM convolution on NCHW
//    directly (one W·X product per image and group, no reorders);
//  - depthwise 2-D convs run the direct NCHW kernel of conv_depthwise.cc;
//  - everything else lets oneDNN choose src/dst layouts (it picks NHWC, "acdb", for these
//    shapes) and reorders activations in and out around the primitive. A layout pass that keeps
//    activations NHWC between convolutions would remove those reorders (~14 ms of resnet50's
//    ~88 ms at 1 thread, measured with ONEDNN_VERBOSE).
// 3x3 stride-1 convs the cpu_conv_winograd pass marked (winograd_pass.cc) run oneDNN's Winograd
// convolution where it has one.
// GE_CPU_CONV_LAYOUT=blocked (oneDNN's choice for every conv) or =plain (NCHW GEMM convolution
// for every conv) overrides the choice, for measurements.
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "bf16.h"
#include "blocked.h"
#include "conv.h"
#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {

// transdata.cc: require_plain_or_blocked, also accepting rank-4 float32 NHWC on either side
// (layout.format = "NHWC": oneDNN reads and writes nhwc directly). value_md (blocked.h) gives a
// rank-4 NHWC value oneDNN's nhwc descriptor.
void require_plain_blocked_or_nhwc(const KernelBuildContext& ctx);

// conv_depthwise.cc: direct NCHW depthwise kernel, or null when the node is not depthwise 2-D.
std::unique_ptr<Kernel> make_depthwise_conv(const KernelBuildContext& ctx, const Window& w, int64_t group,
                                            bool has_bias);
// conv_grouped_pointwise.cc: grouped 1x1 kernel on plain NCHW with `post` applied, or null when
// the node is not such a convolution (or the CPU lacks AVX-512).
std::unique_ptr<Kernel> make_grouped_pointwise_conv(const KernelBuildContext& ctx, const Window& w, int64_t group,
                                                    bool has_bias, const ConvPostOps& post);

namespace {

/// The reordered copy of the constant weights at `src` in layout `md`, made by `make` the first
/// time and shared while any kernel holds it (keyed by the source address and the whole
/// descriptor: a caller keeps the source alive as long as its shared_ptr, so the address cannot
/// name other data meanwhile).
template <class Make>
std::shared_ptr<const dnnl::memory> shared_reordered_weights(const void* src, const dnnl::memory::desc& md, Make&& make) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<const dnnl::memory>> cache;
  std::string key(reinterpret_cast<const char*>(&src), sizeof src);
  key.append(reinterpret_cast<const char*>(&md.data), sizeof md.data);
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end())
    if (std::shared_ptr<const dnnl::memory> m = it->second.lock()) return m;
  for (auto it = cache.begin(); it != cache.end();) it = it->second.expired() ? cache.erase(it) : std::next(it);
  auto m = std::make_shared<const dnnl::memory>(make());
  cache[key] = m;
  return m;
}

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

/// A validated Conv node: geometry, groups, shapes (ONNX Conv's constraints).
struct ConvSpec {
  Window w;
  int64_t N, C, M, G;
  Shape xs, ys;
  std::vector<int64_t> kernel;
  bool has_bias;
};

ConvSpec check_conv(const KernelBuildContext& ctx) {
  require_f32(ctx, {0, 1, 2});
  require_plain_blocked_or_nhwc(ctx);
  ConvSpec c;
  c.xs = ctx.input_shape(0);
  const Shape& xs = c.xs;
  const Shape& ws = ctx.input_shape(1);
  const std::string where = " in " + who(ctx);
  if (xs.rank() < 3 || xs.rank() > 5)
    throw UnsupportedError("Conv: rank " + std::to_string(xs.rank()) + " input not supported (1-D to 3-D convolutions only)" + where);
  if (ws.rank() != xs.rank())
    throw InvalidGraphError("Conv: weight rank " + std::to_string(ws.rank()) + " differs from input rank " + std::to_string(xs.rank()) + where);
  c.N = xs[0];
  c.C = xs[1];
  c.M = ws[0];
  c.G = ctx.node.attrs.get_int("group", 1);
  if (c.G <= 0 || c.C % c.G != 0 || c.M % c.G != 0 || ws[1] * c.G != c.C)
    throw InvalidGraphError("Conv: group " + std::to_string(c.G) + " inconsistent with input channels " +
                            std::to_string(c.C) + " and weight shape " + ws.str() + where);
  std::vector<int64_t> spatial(xs.dims().begin() + 2, xs.dims().end());
  c.kernel.assign(ws.dims().begin() + 2, ws.dims().end());
  if (ctx.node.attrs.has("kernel_shape") && ctx.node.attrs.get_ints("kernel_shape") != c.kernel)
    throw InvalidGraphError("Conv: kernel_shape attribute disagrees with weight shape " + ws.str() + where);
  c.w = resolve_window(ctx, "Conv", spatial, c.kernel, /*allow_ceil_mode=*/false);
  c.ys = Shape{c.N, c.M};
  for (int64_t o : c.w.out) c.ys.dims().push_back(o);
  if (c.ys != ctx.output_shape(0))
    throw InvalidGraphError("Conv: output shape " + ctx.output_shape(0).str() + " differs from computed " + c.ys.str() + where);
  const std::string algorithm = ctx.node.attrs.get_string(kConvAlgorithmAttr, "");
  if (!algorithm.empty() && algorithm != "winograd" && algorithm != "direct")
    throw InvalidGraphError("Conv: attribute " + std::string(kConvAlgorithmAttr) + " = '" + algorithm +
                            "' is not a convolution algorithm of the cpu backend (known: winograd, direct)" + where);
  c.has_bias = ctx.has_input(2);
  if (c.has_bias && ctx.input_shape(2) != Shape{c.M})
    throw InvalidGraphError("Conv: bias shape " + ctx.input_shape(2).str() + " is not [" + std::to_string(c.M) + "]" + where);
  return c;
}

class ConvKernel : public CpuKernel {
 public:
  ConvKernel(const KernelBuildContext& ctx, const ConvSpec& spec, const ConvPostOps& post) : CpuKernel(ctx) {
    ThreadScope threads(threads_);
    const std::string where = " in " + who(ctx);
    const Window& w = spec.w;
    const Shape &xs = spec.xs, &ys = spec.ys;
    const std::vector<int64_t>& kernel = spec.kernel;
    const size_t r = xs.rank() - 2;
    const int64_t M = spec.M, G = spec.G;
    has_bias_ = spec.has_bias;
    empty_ = ys.numel() == 0 || xs.numel() == 0;
    if (empty_) return;

    // oneDNN descriptors. Dilation is "extra" spacing in oneDNN: d - 1.
    memory::dims strides(w.stride.begin(), w.stride.end()), pl(w.pad_begin.begin(), w.pad_begin.end()),
        pr(w.pad_end.begin(), w.pad_end.end()), dil;
    for (int64_t d : w.dilation) dil.push_back(d - 1);
    const memory::dims wdims = conv_weight_dims(ctx.input_shape(1), G);  // [G, M/G, C/G, k...] when grouped
    const tag wtag_plain = G > 1 ? (r == 1 ? tag::goiw : r == 2 ? tag::goihw : tag::goidhw)
                                 : (r == 1 ? tag::oiw : r == 2 ? tag::oihw : tag::oidhw);
    const Value& wv = *ctx.node.input(1);

    // NC1HWC0 values (the layout pass, docs/layout.md) are oneDNN's nChw16c: the primitive then
    // reads and writes them directly, with no reorder at run time.
    // NHWC values (layout.format = "NHWC") are oneDNN's nhwc: read and written in place too.
    const bool src_blocked = is_blocked(ctx.node.input(0)), dst_blocked = is_blocked(ctx.node.output(0));
    const bool src_nhwc = ctx.node.input(0)->format == Format::NHWC, dst_nhwc = ctx.node.output(0)->format == Format::NHWC;
    user_src_md_ = value_md(*ctx.node.input(0));
    user_dst_md_ = value_md(*ctx.node.output(0));
    user_w_md_ = format_is_weight(wv.format) ? conv_weight_md(wdims, wv.format, "'" + wv.name() + "'" + where)
                                             : memory::desc(wdims, dt::f32, wtag_plain);
    // bf16 (bf16.h): bf16 source and weights, fp32 accumulation, bias and destination; the
    // reorders below then convert the fp32 source (each run) and weights (once).
    const bool bf16 = bf16_native(ctx);
    const dt op_dt = bf16 ? dt::bf16 : dt::f32;
    memory::desc src_any(to_dims(xs), op_dt, tag::any), dst_any(to_dims(ys), dt::f32, tag::any),
        w_any(wdims, op_dt, tag::any), b_md({M}, dt::f32, tag::a);
    // ge.FusedConv's post-ops (conv.h): sum reads Z from dst, then the activation.
    sum_ = post.sum;
    eltwise_ = post.eltwise;
    auto attr_with = [&](bool with_eltwise) {
      dnnl::primitive_attr attr;
      // A user scratchpad (the running thread's, thread_scratchpad): with the library's shared
      // one (oneDNN's default build) a primitive must run on the thread that created it (oneDNN,
      // "enum dnnl::scratchpad_mode"), and a multi-stream schedule runs kernels on stream
      // workers (im2col convs crashed there).
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      dnnl::post_ops ops;
      if (post.sum) ops.append_sum(1.f);
      if (with_eltwise && post.eltwise != dnnl::algorithm::undef) ops.append_eltwise(1.f, post.eltwise, post.alpha, post.beta);
      if (ops.len() > 0) attr.set_post_ops(ops);
      return attr;
    };
    try {
      // cpu_conv_winograd (winograd_pass.cc) marked the node: oneDNN's Winograd convolution
      // (its list order: F(2x2,3x3), then F(4x4,3x3)) when it has one for this configuration
      // (layouts, post-ops), else the direct one below. oneDNN 2.6's Winograd kernels take a sum
      // and a relu post-op only: another activation that maps 0 to 0 (Swish, ...) then runs as
      // a pass of its own over the output (its NC1HWC0 padding stays zero).
      const bool winograd = !bf16 && ctx.node.attrs.get_string(kConvAlgorithmAttr, "") == "winograd";
      auto make = [&](const memory::desc& s, const memory::desc& d) {
        auto mk = [&](dnnl::algorithm alg, const dnnl::primitive_attr& attr) {
          auto desc = has_bias_ ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg, s, w_any,
                                                                  b_md, d, strides, dil, pl, pr)
                                : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg, s, w_any,
                                                                  d, strides, dil, pl, pr);
          return dnnl::convolution_forward::primitive_desc(desc, attr, dnnl_engine());
        };
        if (winograd) {
          try {
            return mk(dnnl::algorithm::convolution_winograd, attr_with(true));
          } catch (const dnnl::error& e) {
            if (e.status != dnnl_unimplemented) throw;
          }
          if (post.eltwise != dnnl::algorithm::undef && activation_keeps_zero(post)) {
            try {
              auto pd = mk(dnnl::algorithm::convolution_winograd, attr_with(false));
              separate_activation_ = true;
              activation_ = post;
              return pd;
            } catch (const dnnl::error& e) {
              if (e.status != dnnl_unimplemented) throw;
            }
          }
        }
        return mk(dnnl::algorithm::convolution_direct, attr_with(true));
      };
      // Activation layout. A pointwise conv (1x1, stride 1, no pads) on plain NCHW is one GEMM
      // W[M,C]·X[C,HW] per group (oneDNN's gemm convolution, no im2col): measured faster on
      // resnet50's 1x1 layers than a blocked kernel plus the two activation reorders around
      // it, and on ShuffleNet v1's grouped 1x1 convs (group 4, 34 channels per group, which
      // the layout pass leaves plain): 28x28 ones 90 µs vs 250 µs for brgconv_1x1 on NHWC
      // with its NCHW->NHWC->NCHW reorders, 14x14 ones 85 µs vs 130 µs, 7x7 equal (gec
      // profile, 1 thread). Other convs use oneDNN's blocked choice.
      // Depthwise-like groups (one input or output channel per group) are not GEMMs.
      // GE_CPU_CONV_LAYOUT=blocked|plain overrides (for measurements).
      bool pointwise = G == 1 || (spec.C / G > 1 && M / G > 1);
      for (size_t i = 0; i < r; ++i)
        pointwise = pointwise && kernel[i] == 1 && w.stride[i] == 1 && w.pad_begin[i] == 0 && w.pad_end[i] == 0;
      const char* env = std::getenv("GE_CPU_CONV_LAYOUT");
      const std::string layout = env ? env : "";
      const bool plain = layout == "plain" || (layout != "blocked" && pointwise);
      pd_ = (plain || src_blocked || dst_blocked || src_nhwc || dst_nhwc) ? make(with_dtype(user_src_md_, op_dt), user_dst_md_)
                                                                          : make(src_any, dst_any);
      prim_ = dnnl::convolution_forward(pd_);
      eng_ = dnnl_engine();
      scratch_md_ = pd_.scratchpad_desc();
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
        if (sum_) z_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, user_dst_md_, eng_, pd_.dst_desc()));
      }
      if (const float* wc = const_f32(ctx, 1)) {
        memory user(user_w_md_, eng_, const_cast<float*>(wc));
        if (!w_reorder_) {
          // Already in the primitive's layout (the layout pass converted it at compile time):
          // used in place; w_keep_ holds the constant (a plan's mapping) as long as the kernel.
          w_mem_ = user;
          w_keep_ = wv.data;
        } else {
          // Reorder once into the primitive's layout: plain weights, or a plan compiled where
          // oneDNN chose another layout. Kernels reading the same constant into the same layout
          // share one copy (the copies of a batch-split graph, docs/scheduling.md; several
          // executables of one plan); w_keep_ holds the constant so its address stays its own
          // while the copy is shared.
          w_keep_ = wv.data;
          w_shared_ = shared_reordered_weights(wc, pd_.weights_desc(), [&] {
            memory out(pd_.weights_desc(), eng_);
            // oneDNN reorders into its Winograd layout from plain OIHW only (the layout pass
            // leaves a Winograd node's weights plain; a blocked constant goes through OIHW).
            if (pd_.weights_desc().data.format_kind == dnnl_format_kind_wino && format_is_weight(wv.format)) {
              memory plain_w(memory::desc(wdims, dt::f32, wtag_plain), eng_);
              reorder(user, plain_w);
              reorder(plain_w, out);
            } else {
              reorder(user, out);
            }
            return out;
          });
          w_mem_ = *w_shared_;
        }
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
      impl_ = std::string(bf16 ? "onednn:conv_bf16:" : "onednn:conv:") + pd_.impl_info_str() +
              (separate_activation_ ? "+act" : "");
      activation_.sum = false;
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
      if (src_reorder_) src_r_.execute(s, user_src, src_mem_);
      memory w = w_mem_;
      if (!w_const_) {
        memory user_w(user_w_md_, eng_, const_cast<void*>(io.inputs[1].data()));
        if (w_reorder_) w_r_.execute(s, user_w, w_mem_);
        else w = user_w;
      }
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src_reorder_ ? src_mem_ : user_src},
                                           {DNNL_ARG_WEIGHTS, w},
                                           {DNNL_ARG_DST, dst_reorder_ ? dst_mem_ : user_dst},
                                           {DNNL_ARG_SCRATCHPAD, memory(scratch_md_, eng_, thread_scratchpad(scratch_md_.get_size()))}};
      if (has_bias_) {
        args[DNNL_ARG_BIAS] = b_const_ ? b_mem_
                                       : memory(pd_.bias_desc(), eng_, const_cast<void*>(io.inputs[2].data()));
      }
      if (sum_) {  // the sum post-op adds what dst holds: Z, in the primitive's dst layout
        void* z = const_cast<void*>(io.inputs[3].data());
        if (dst_reorder_) {
          memory user_z(user_dst_md_, eng_, z);
          z_r_.execute(s, user_z, dst_mem_);
        } else if (z != io.outputs[0].data()) std::memcpy(io.outputs[0].data(), z, io.outputs[0].nbytes());
      }
      prim_.execute(s, args);
      if (dst_reorder_) dst_r_.execute(s, dst_mem_, user_dst);
      s.wait();
      if (separate_activation_)  // over the stored elements: act(0) = 0 keeps NC1HWC0 padding zero
        apply_post_ops_in_place(activation_, io.outputs[0].data_as<float>(), nullptr, io.outputs[0].storage_numel());
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "Conv");
    }
  }

  std::string impl_name() const override { return impl_; }
  /// oneDNN 2.6's GEMM convolution runs a sum or clip post-op several times slower than the
  /// convolution itself (ONEDNN_VERBOSE, 1 thread: resnet50's 16 residual 1x1 convs 133 ms with
  /// sum vs 18 ms without; mobilenet_v2's 34 Clip 1x1 convs 42 ms vs 19 ms); relu too, on a quiet
  /// machine (squeezenet1_1's expand1x1 convs: 510 µs with the relu post-op vs 84 µs + a relu pass).
  /// The caller applies such post-ops itself after a plain convolution.
  bool slow_post_ops() const {
    return impl_.find("gemm") != std::string::npos && (sum_ || eltwise_ != dnnl::algorithm::undef);
  }

 private:
  bool has_bias_ = false, empty_ = false, src_reorder_ = false, dst_reorder_ = false, w_reorder_ = false;
  bool w_const_ = false, b_const_ = false, sum_ = false, separate_activation_ = false;
  ConvPostOps activation_;  ///< the activation run after the primitive when separate_activation_ (sum unset)
  dnnl::algorithm eltwise_ = dnnl::algorithm::undef;
  dnnl::engine eng_;
  memory::desc user_src_md_, user_dst_md_, user_w_md_;
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward prim_;
  memory src_mem_, dst_mem_, w_mem_, b_mem_;
  memory::desc scratch_md_;  ///< the primitive's scratchpad; its memory is the running thread's (thread_scratchpad)
  std::shared_ptr<const Tensor> w_keep_;  // constant weights used in place, or the source of w_shared_
  std::shared_ptr<const memory> w_shared_;  // constant weights reordered once, shared between kernels
  dnnl::reorder src_r_, dst_r_, w_r_, z_r_;
  std::string impl_ = "onednn:conv";
};

}  // namespace

std::unique_ptr<Kernel> make_conv_kernel(const KernelBuildContext& ctx, const ConvPostOps& post) {
  ConvSpec spec = check_conv(ctx);
  // A depthwise 1×1 conv with constant weights is a per-channel affine map (conv_channel_affine.cc).
  if (auto k = make_channel_affine_conv(ctx)) return k;
  const char* env = std::getenv("GE_CPU_CONV_LAYOUT");
  // NC1HWC0 activations: oneDNN's blocked kernels (depthwise included) with their own post-ops,
  // which keep the padding channels zero.
  const bool nhwc = ctx.node.input(0)->format == Format::NHWC || ctx.node.output(0)->format == Format::NHWC;
  if (is_blocked(ctx.node.input(0)) || is_blocked(ctx.node.output(0)) || nhwc) {
    if (ctx.node.input(3) && ctx.node.input(3)->format != ctx.node.output(0)->format)
      throw InvalidGraphError("FusedConv: Z's format " + std::string(format_name(ctx.node.input(3)->format)) +
                              " differs from Y's " + std::string(format_name(ctx.node.output(0)->format)) + " in " + who(ctx));
    return std::make_unique<ConvKernel>(ctx, spec, post);
  }
  const bool onednn_only = env && std::string(env) == "blocked";
  // The direct depthwise kernel reads plain OIHW weights only.
  if (!onednn_only && spec.ys.numel() > 0 && !format_is_blocked(ctx.node.input(1)->format))
    if (auto k = make_depthwise_conv(ctx, spec.w, spec.G, spec.has_bias))
      return post.any() ? apply_post_ops(std::move(k), ctx, post) : std::move(k);
  if (!onednn_only && !format_is_blocked(ctx.node.input(1)->format))
    if (auto k = make_grouped_pointwise_conv(ctx, spec.w, spec.G, spec.has_bias, post)) return k;
  auto k = std::make_unique<ConvKernel>(ctx, spec, post);
  if (k->slow_post_ops()) return apply_post_ops(std::make_unique<ConvKernel>(ctx, spec, ConvPostOps{}), ctx, post);
  return k;
}

std::optional<Format> conv_blocked_weight_format(const Node& node, int64_t opset, bool src_blocked) {
  const Value* x = node.input(0);
  const Value* w = node.input(1);
  if (!x || !w || x->shape.rank() != 4 || x->dtype != DataType::Float32 || w->dtype != DataType::Float32 ||
      node.output(0)->dtype != DataType::Float32 || x->shape.numel() == 0)
    return std::nullopt;
  try {
    KernelBuildContext ctx{node, opset, 1};
    ConvSpec c = check_conv(ctx);
    memory::dims strides(c.w.stride.begin(), c.w.stride.end()), pl(c.w.pad_begin.begin(), c.w.pad_begin.end()),
        pr(c.w.pad_end.begin(), c.w.pad_end.end()), dil;
    for (int64_t d : c.w.dilation) dil.push_back(d - 1);
    const memory::dims wdims = conv_weight_dims(w->shape, c.G);
    memory::desc src = src_blocked ? blocked_md(c.xs) : plain_md(c.xs), dst = blocked_md(c.ys),
                 w_any(wdims, dt::f32, tag::any);
    dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                                        w_any, dst, strides, dil, pl, pr),
        dnnl_engine());
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return std::nullopt;  // oneDNN's reference loop
    return conv_weight_format(pd.weights_desc(), wdims);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void register_conv_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "Conv",
                         onednn_factory([](const KernelBuildContext& ctx) { return make_conv_kernel(ctx, {}); }),
                         ""});
}

}  // namespace ge::cpu
