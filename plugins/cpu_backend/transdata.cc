// plugins/cpu_backend/transdata.cc — ge.TransData: moves a tensor between formats (attributes
// src_format, dst_format; shape = the logical shape on both sides, ge/sdk/types.h).
//
// float32 NCHW <-> NC1HWC0 is oneDNN's reorder between nchw and nChw16c (vectorized; it zeroes
// the padding of a blocked destination); every other pair ge::convert_format_into supports
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
    const bool nchw_pair = (x.format == Format::NC1HWC0) != (y.format == Format::NC1HWC0) &&
                           !format_is_blocked(x.format == Format::NC1HWC0 ? y.format : x.format);
    onednn_ = x.dtype == DataType::Float32 && x.shape.rank() == 4 && nchw_pair && x.numel() > 0;
    if (onednn_) {
      try {
        src_md_ = value_md(x);
        dst_md_ = value_md(y);
        eng_ = dnnl_engine();
        prim_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, src_md_, eng_, dst_md_));
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
      dnnl::memory src(src_md_, eng_, const_cast<void*>(io.inputs[0].data()));
      dnnl::memory dst(dst_md_, eng_, io.outputs[0].data());
      prim_.execute(s, src, dst);
      s.wait();
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "TransData");
    }
  }
  std::string impl_name() const override { return onednn_ ? "onednn:reorder" : "cpu:convert_format"; }

 private:
  bool onednn_ = false;
  dnnl::engine eng_;
  dnnl::memory::desc src_md_, dst_md_;
  dnnl::reorder prim_;
};

}  // namespace

dnnl::memory::desc blocked_md(const Shape& s) {
  return dnnl::memory::desc(to_dims(s), dnnl::memory::data_type::f32, dnnl::memory::format_tag::nChw16c);
}

dnnl::memory::desc value_md(const Value& v) { return is_blocked(&v) ? blocked_md(v.shape) : plain_md(v.shape); }

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
                         [](const KernelBuildContext& ctx) { return std::make_unique<TransDataKernel>(ctx); }, ""});
}

}  // namespace ge::cpu
