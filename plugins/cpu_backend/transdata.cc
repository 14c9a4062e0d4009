// plugins/cpu_backend/transdata.cc — ge.TransData: moves a tensor between formats (attributes
// src_format, dst_format; shape = the logical shape on both sides, ge/sdk/types.h).
//
// float32 NCHW <-> NC1HWC0 is oneDNN's reorder between nchw and nChw16c (vectorized; it zeroes
// the padding of a blocked destination). When C is not a multiple of 16, oneDNN 2.6 runs that
// reorder on its generic "jit:uni" kernel, 5x slower per element (ShuffleNet v1's 136x28x28
// blocked -> NCHW: 64 µs, 1 thread): then the C1-1 full blocks go through oneDNN's "jit:blk"
// reorder on sub-memories of the first 16·(C/16) channels and the last, partial block through a
// direct loop that also zeroes its padding (10 + 2 µs). NCHW <-> NHWC and, for C a multiple of
// 16, NC1HWC0 <-> NHWC are single oneDNN reorders too. Every other pair ge::convert_format_into supports
// (FRACTAL_Z, other dtypes) runs that reference routine — those appear on constants, which the
// layout pass converts at compile time, so they are not on the inference path.
#include <string>

#include "blocked.h"
#include "cpu_backend.h"
#include "ge/sdk/layout.h"

namespace ge::cpu {
namespace {

class TransDataKernel : public CpuKernel {
 public:
  explicit TransDataKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const Value& x = *ctx.node.input(0);
    const Value& y = *ctx.node.output(0);
    const std::string where = " in " + who(ctx);
    const std::string sf = ctx.node.attrs.get_string("src_format", ""), df = ctx.node.attrs.get_string("dst_format", "");
    // ND and NCHW are the same plain row-major memory: either name matches either.
    auto same = [](const std::string& name, Format f) {
      const bool plain = f == Format::ND || f == Format::NCHW;
      return name == format_name(f) || (plain && (name == "ND" || name == "NCHW"));
    };
    if (!same(sf, x.format) || !same(df, y.format))
      throw InvalidGraphError("TransData: src_format '" + sf + "' / dst_format '" + df + "' disagree with the formats of its values (" +
                              std::string(format_name(x.format)) + " -> " + std::string(format_name(y.format)) + ")" + where);
    if (x.shape != y.shape || x.dtype != y.dtype)
      throw InvalidGraphError("TransData: input " + x.shape.str() + " and output " + y.shape.str() + " differ in shape or dtype" + where);
    if (!can_convert_format(x.format, y.format, x.shape.rank()))
      throw UnsupportedError("TransData: " + sf + " -> " + df + " not supported for shape " + x.shape.str() + where);
    auto plain_f = [](Format f) { return f == Format::ND || f == Format::NCHW; };
    const bool nchw_pair = (x.format == Format::NC1HWC0 && plain_f(y.format)) || (y.format == Format::NC1HWC0 && plain_f(x.format));
    // NCHW <-> NHWC (layout.format = "NHWC") is oneDNN's reorder between nchw and nhwc.
    const bool nhwc_pair = (x.format == Format::NHWC && plain_f(y.format)) || (y.format == Format::NHWC && plain_f(x.format));
    // NC1HWC0 <-> NHWC (a blocked producer of a convolution the backend runs on NHWC, the layout
    // pass's compose step) is one reorder between nChw16c and nhwc when no block is partial.
    const bool blocked_nhwc = ((x.format == Format::NC1HWC0 && y.format == Format::NHWC) ||
                               (x.format == Format::NHWC && y.format == Format::NC1HWC0)) &&
                              x.shape.rank() == 4 && x.shape[1] % kFormatC0 == 0;
    onednn_ = x.dtype == DataType::Float32 && x.shape.rank() == 4 && (nchw_pair || nhwc_pair || blocked_nhwc) && x.numel() > 0;
    if (onednn_) {
      try {
        src_md_ = value_md(x);
        dst_md_ = value_md(y);
        eng_ = dnnl_engine();
        to_blocked_ = is_blocked(&y);
        const Shape& s = x.shape;
        N_ = s[0];
        C_ = s[1];
        HW_ = s[2] * s[3];
        full_ = C_ / kFormatC0 * kFormatC0;
        if (nchw_pair && full_ > 0 && full_ < C_) {
          // Full blocks on oneDNN's blocked reorder, the partial block by tail(); only when
          // oneDNN picks its fast kernel for the sub-memories. The sub-memories are one image's
          // (run() steps the pointers N times): with N > 1 the channel sub-range leaves gaps
          // between images, and oneDNN 2.6 then falls back to its reference reorder for the
          // whole tensor (NC1HWC0 -> NCHW of [4,136,28,28]: 257 us, against 14 per image).
          const Shape one{1, s[1], s[2], s[3]};
          auto image_md = [&](Format f) { return f == Format::NC1HWC0 ? blocked_md(one) : plain_md(one); };
          const dnnl::memory::dims sub{1, full_, s[2], s[3]}, zero{0, 0, 0, 0};
          src_sub_ = image_md(x.format).submemory_desc(sub, zero);
          dst_sub_ = image_md(y.format).submemory_desc(sub, zero);
          const int64_t plain_image = C_ * HW_, blocked_image = (C_ + kFormatC0 - 1) / kFormatC0 * kFormatC0 * HW_;
          src_image_ = x.format == Format::NC1HWC0 ? blocked_image : plain_image;
          dst_image_ = y.format == Format::NC1HWC0 ? blocked_image : plain_image;
          dnnl::reorder::primitive_desc pd(eng_, src_sub_, eng_, dst_sub_);
          split_ = std::string(pd.impl_info_str()).rfind("jit:blk", 0) == 0;
          if (split_) prim_ = dnnl::reorder(pd);
        }
        if (!split_) prim_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, src_md_, eng_, dst_md_));
      } catch (const dnnl::error& e) {
        rethrow_dnnl(e, "TransData" + where);
      }
    }
  }

  void run(KernelIO& io) override {
    if (!onednn_) return convert_format_into(io.inputs[0], io.outputs[0]);
    ThreadScope threads(threads_);
    try {
      dnnl::stream& s = dnnl_stream();
      void* x = const_cast<void*>(io.inputs[0].data());
      void* y = io.outputs[0].data();
      if (split_) {
        for (int64_t n = 0; n < N_; ++n) {
          dnnl::memory src(src_sub_, eng_, static_cast<float*>(x) + n * src_image_);
          dnnl::memory dst(dst_sub_, eng_, static_cast<float*>(y) + n * dst_image_);
          prim_.execute(s, src, dst);
        }
        s.wait();
        tail(static_cast<const float*>(x), static_cast<float*>(y));
      } else {
        dnnl::memory src(src_md_, eng_, x);
        dnnl::memory dst(dst_md_, eng_, y);
        prim_.execute(s, src, dst);
        s.wait();
      }
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "TransData");
    }
  }
  std::string impl_name() const override {
    return !onednn_ ? "cpu:convert_format" : split_ ? "onednn:reorder+tail" : "onednn:reorder";
  }

 private:
  /// The last, partial channel block (channels full_ .. C-1) of every image: NCHW rows
  /// y[n, c, p] <-> NC1HWC0 x[n, C1-1, p, c - full_]; a blocked destination gets zero padding
  /// channels. Walks p outermost so the blocked side is read/written contiguously.
  void tail(const float* x, float* y) const {
    const int64_t C0 = kFormatC0, C1 = (C_ + C0 - 1) / C0, cc = C_ - full_, HW = HW_, C = C_, full = full_;
    const bool to_blocked = to_blocked_;
    parallel_for(N_, [&](int64_t n) {
      const int64_t block = (n * C1 + C1 - 1) * HW * C0, rows = (n * C + full) * HW;
      if (to_blocked) {
        const float* src = x + rows;
        float* dst = y + block;
        for (int64_t p = 0; p < HW; ++p) {
          for (int64_t c = 0; c < cc; ++c) dst[p * C0 + c] = src[c * HW + p];
          for (int64_t c = cc; c < C0; ++c) dst[p * C0 + c] = 0.f;
        }
      } else {
        const float* src = x + block;
        float* dst = y + rows;
        for (int64_t p = 0; p < HW; ++p)
          for (int64_t c = 0; c < cc; ++c) dst[c * HW + p] = src[p * C0 + c];
      }
    });
  }

  bool onednn_ = false, split_ = false, to_blocked_ = false;
  int64_t N_ = 0, C_ = 0, HW_ = 0, full_ = 0;
  int64_t src_image_ = 0, dst_image_ = 0;  // elements of one image as stored (split_ only)
  dnnl::engine eng_;
  dnnl::memory::desc src_md_, dst_md_, src_sub_, dst_sub_;
  dnnl::reorder prim_;
};

}  // namespace

dnnl::memory::desc blocked_md(const Shape& s) {
  return dnnl::memory::desc(to_dims(s), dnnl::memory::data_type::f32, dnnl::memory::format_tag::nChw16c);
}

dnnl::memory::desc value_md(const Value& v) {
  if (v.format == Format::NHWC && v.shape.rank() == 4)
    return dnnl::memory::desc(to_dims(v.shape), dnnl::memory::data_type::f32, dnnl::memory::format_tag::nhwc);
  return is_blocked(&v) ? blocked_md(v.shape) : plain_md(v.shape);
}

void require_plain_blocked_or_nhwc(const KernelBuildContext& ctx) {
  for (const Value* v : {ctx.node.input(0), ctx.node.output(0)})
    if (v && v->format == Format::NHWC && (v->shape.rank() != 4 || v->dtype != DataType::Float32))
      throw UnsupportedError(ctx.node.op_type() + ": format NHWC of " + std::string(dtype_name(v->dtype)) + v->shape.str() +
                             " not supported (rank-4 float32 only) in " + who(ctx));
  const bool in_nhwc = ctx.node.input(0) && ctx.node.input(0)->format == Format::NHWC;
  const bool out_nhwc = ctx.node.output(0) && ctx.node.output(0)->format == Format::NHWC;
  if (in_nhwc && out_nhwc) return;
  if (!in_nhwc && !out_nhwc) return require_plain_or_blocked(ctx);
  // One side NHWC, the other plain or blocked: check that side alone.
  const Value* other = in_nhwc ? ctx.node.output(0) : ctx.node.input(0);
  if (other && other->format != Format::ND && other->format != Format::NCHW && other->format != Format::NC1HWC0)
    throw UnsupportedError(ctx.node.op_type() + ": format " + std::string(format_name(other->format)) + " not supported in " + who(ctx));
}

void require_plain_or_blocked(const KernelBuildContext& ctx) {
  auto check = [&](const Value* v) {
    if (!v || v->format == Format::ND || v->format == Format::NCHW) return;
    if (v->format == Format::NC1HWC0 && v->shape.rank() == 4 && v->dtype == DataType::Float32) return;
    throw UnsupportedError(ctx.node.op_type() + ": format " + std::string(format_name(v->format)) + " of " +
                           std::string(dtype_name(v->dtype)) + v->shape.str() + " not supported (plain, or NC1HWC0 for rank-4 float32) in " + who(ctx));
  };
  check(ctx.node.input(0));
  check(ctx.node.output(0));
}

void register_transdata_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "ge", "TransData",
                         onednn_factory([](const KernelBuildContext& ctx) { return std::make_unique<TransDataKernel>(ctx); }), ""});
}

}  // namespace ge::cpu
