// plugins/cpu_backend/tensor_pad.cc — Pad (onnx/docs/Operators.md#Pad, versions 2, 11, 13)
// for any fixed-size dtype: modes constant, reflect and edge; pads (and the constant value)
// as attributes (opset < 11) or inputs (opset >= 11, read at run time when not constant).
// Negative pads crop. Opset 18's `axes` input and opset 19's `wrap` mode are refused.
//
// Every output axis gets a source map (input index, or -1 for the constant border). The
// output is walked one innermost row at a time: a row whose outer coordinates fall in the
// border is filled; otherwise its middle is one contiguous copy and only its two borders are
// gathered through the map, so an NCHW image pads while streaming once, rows split among threads.
#include <algorithm>
#include <vector>

#include "blocked.h"
#include "tensor_common.h"

namespace ge::cpu {
namespace {

enum class PadMode { Constant, Reflect, Edge };

/// Per-axis source maps; throws for reflect/edge borders the input cannot supply.
std::vector<std::vector<int64_t>> pad_maps(const Shape& in, const Shape& out, const std::vector<int64_t>& pads,
                                           PadMode mode, const std::string& who) {
  const size_t r = in.rank();
  if (pads.size() != 2 * r) {
    throw InvalidGraphError(who + ": pads has " + std::to_string(pads.size()) + " entries for a rank-" +
                            std::to_string(r) + " input (2 per axis)");
  }
  std::vector<std::vector<int64_t>> maps(r);
  for (size_t a = 0; a < r; ++a) {
    const int64_t d = in[a], pb = pads[a], pe = pads[a + r];
    if (d + pb + pe != out[a]) {
      throw Error(who + ": Pad with pads " + std::to_string(pb) + "," + std::to_string(pe) + " on axis " +
                  std::to_string(a) + " gives extent " + std::to_string(d + pb + pe) + " but the output has " +
                  std::to_string(out[a]));
    }
    if (mode == PadMode::Reflect && (pb >= d || pe >= d) && (pb > 0 || pe > 0)) {
      throw UnsupportedError(who + ": Pad reflect needs pads smaller than the axis (axis " + std::to_string(a) +
                             " has extent " + std::to_string(d) + ", pads " + std::to_string(pb) + "," +
                             std::to_string(pe) + ")");
    }
    if (mode == PadMode::Edge && d == 0 && (pb > 0 || pe > 0)) {
      throw UnsupportedError(who + ": Pad edge of an empty axis " + std::to_string(a));
    }
    maps[a].resize(static_cast<size_t>(std::max<int64_t>(out[a], 0)));
    for (int64_t o = 0; o < out[a]; ++o) {
      int64_t s = o - pb;
      if (s < 0 || s >= d) {
        if (mode == PadMode::Constant) s = -1;
        else if (mode == PadMode::Edge) s = std::clamp<int64_t>(s, 0, d - 1);
        else s = s < 0 ? -s : 2 * (d - 1) - s;
      }
      maps[a][static_cast<size_t>(o)] = s;
    }
  }
  return maps;
}

template <class U>
class PadKernel final : public Kernel {
 public:
  PadKernel(Shape in, Shape out, PadMode mode, std::optional<std::vector<int64_t>> pads, std::optional<U> value,
            std::string who, int threads)
      : in_(std::move(in)), out_(std::move(out)), mode_(mode), pads_(std::move(pads)), value_(value),
        who_(std::move(who)), threads_(threads) {
    if (pads_) maps_ = pad_maps(in_, out_, *pads_, mode_, who_);
  }

  void run(KernelIO& io) override {
    std::vector<std::vector<int64_t>> run_maps;
    const auto* maps = &maps_;
    std::vector<int64_t> pads = pads_ ? *pads_ : io.inputs[1].to_int64_vector();
    if (!pads_) {
      run_maps = pad_maps(in_, out_, pads, mode_, who_);
      maps = &run_maps;
    }
    const int64_t pb_inner = out_.rank() ? pads[out_.rank() - 1] : 0;
    U value = U(0);
    if (value_) value = *value_;
    else if (has_io_input(io, 2)) value = io.inputs[2].data_as<U>()[0];
    pad(*maps, pb_inner, io.inputs[0].data_as<U>(), io.outputs[0].data_as<U>(), value);
  }
  std::string impl_name() const override { return "cpu:Pad"; }

 private:
  void pad(const std::vector<std::vector<int64_t>>& maps, int64_t pb_inner, const U* x, U* y, U value) const {
    const size_t r = out_.rank();
    if (out_.numel() == 0) return;
    if (r == 0) {
      y[0] = x[0];
      return;
    }
    const int64_t w = out_[r - 1];
    const int64_t rows = out_.numel() / w;
    const std::vector<int64_t> is = contiguous_strides(in_);
    const std::vector<int64_t>& inner = maps[r - 1];
    // The middle of each row, columns [c0, c1), is input columns [c0 - pb, c1 - pb) in order.
    const int64_t pb = pb_inner, d = in_[r - 1];
    const int64_t c0 = std::clamp<int64_t>(pb, 0, w), c1 = std::clamp<int64_t>(pb + d, c0, w);
    const int64_t s0 = c0 - pb;
    loops::parallel_chunks(
        rows, threads_,
        [&](int64_t b, int64_t e) {
          for (int64_t row = b; row < e; ++row) {
            U* yr = y + row * w;
            int64_t rem = row, src = 0;
            bool border = false;
            for (size_t a = r - 1; a-- > 0;) {
              const int64_t c = rem % out_[a];
              rem /= out_[a];
              const int64_t s = maps[a][static_cast<size_t>(c)];
              if (s < 0) {
                border = true;
                break;
              }
              src += s * is[a];
            }
            if (border) {
              std::fill(yr, yr + w, value);
              continue;
            }
            const U* xr = x + src;
            for (int64_t c = 0; c < c0; ++c) yr[c] = inner[c] < 0 ? value : xr[inner[c]];
            // The memory plan may have written the input into the output's interior (Pad in place).
            if (xr + s0 != yr + c0) std::copy(xr + s0, xr + s0 + (c1 - c0), yr + c0);
            for (int64_t c = c1; c < w; ++c) yr[c] = inner[c] < 0 ? value : xr[inner[c]];
          }
        },
        w);
  }

  Shape in_, out_;
  PadMode mode_;
  std::optional<std::vector<int64_t>> pads_;
  std::optional<U> value_;
  std::vector<std::vector<int64_t>> maps_;
  std::string who_;
  int threads_;
};

std::unique_ptr<Kernel> make_pad(const KernelBuildContext& ctx) {
  const std::string who = ctx.node.describe();
  const std::string m = ctx.node.attrs.get_string("mode", "constant");
  PadMode mode;
  if (m == "constant") mode = PadMode::Constant;
  else if (m == "reflect") mode = PadMode::Reflect;
  else if (m == "edge") mode = PadMode::Edge;
  else throw UnsupportedError(who + ": Pad mode '" + m + "' not supported (constant, reflect, edge)");
  if (ctx.has_input(3)) throw UnsupportedError(who + ": Pad `axes` input (opset 18) not supported");
  const DataType t = ctx.input_type(0);
  if (ctx.output_type(0) != t) throw InvalidGraphError(who + ": Pad output dtype differs from the input's");

  std::optional<std::vector<int64_t>> pads;
  std::optional<double> value;  // constant value when known at build time
  bool value_known = true;
  if (ctx.opset < 11) {
    pads = ctx.node.attrs.get_ints(ctx.opset < 2 ? "paddings" : "pads");
    value = ctx.node.attrs.get_float("value", 0.0f);
  } else {
    pads = const_ints(ctx, 1);
    if (!ctx.has_input(2)) value = 0.0;
    else if (const Tensor* v = ctx.input_data(2)) value = arith::load_double(*v, 0);
    else value_known = false;
  }
  if (pads) pad_maps(ctx.input_shape(0), ctx.output_shape(0), *pads, mode, who);  // refuse bad pads at build time

  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(t, ctx.node.describe(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    std::optional<U> bits;
    if (value_known && value) {
      Tensor one = Tensor::allocate(t, Shape{});
      if (dtype_is_float(t) || dtype_is_integer(t) || t == DataType::Bool) arith::store_double(one, 0, *value);
      bits = one.data_as<U>()[0];
    }
    k = std::make_unique<PadKernel<U>>(ctx.input_shape(0), ctx.output_shape(0), mode, pads, bits, who, ctx.threads);
  });
  return k;
}

/// Spatial pads of a blocked input: constant pads, none on N and C, and (constant mode) a
/// value of 0 unless C fills its channel blocks — the padding lanes of NC1HWC0 must stay zero.
std::optional<std::vector<int64_t>> blocked_pads(const Node& n, int64_t opset) {
  const Value* x = n.input(0);
  if (!n.domain().empty() || n.op_type() != "Pad" || !x || x->shape.rank() != 4 || x->dtype != DataType::Float32 ||
      n.input(3)) {
    return std::nullopt;
  }
  const std::string mode = n.attrs.get_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") return std::nullopt;
  std::vector<int64_t> pads;
  double value = 0;
  if (opset < 11) {
    pads = n.attrs.get_ints(opset < 2 ? "paddings" : "pads");
    value = n.attrs.get_float("value", 0.0f);
  } else {
    if (!n.input(1) || !n.input(1)->data) return std::nullopt;
    pads = n.input(1)->data->to_int64_vector();
    if (n.input(2)) {
      if (!n.input(2)->data) return std::nullopt;
      value = arith::load_double(*n.input(2)->data, 0);
    }
  }
  if (pads.size() != 8 || pads[0] || pads[1] || pads[4] || pads[5]) return std::nullopt;
  if (mode == "constant" && value != 0 && x->shape[1] % kFormatC0 != 0) return std::nullopt;
  return pads;
}

}  // namespace

bool pad_supports_blocked(const Node& n, int64_t opset) { return blocked_pads(n, opset).has_value(); }

/// Pad on NC1HWC0: the storage [N, C1, H, W, C0] padded on H and W by the plain kernel.
std::unique_ptr<Kernel> make_blocked_pad(const KernelBuildContext& ctx) {
  const std::optional<std::vector<int64_t>> pads = blocked_pads(ctx.node, ctx.opset);
  const Value* x = ctx.node.input(0);
  const Value* y = ctx.node.output(0);
  if (!pads || x->format != Format::NC1HWC0 || y->format != Format::NC1HWC0) {
    throw UnsupportedError(at_node(ctx) + "Pad on NC1HWC0 needs blocked input and output, float32, constant pads on "
                                          "H and W only (and value 0 when C is no multiple of 16)");
  }
  const Shape& xs = x->shape;
  const Shape& ys = y->shape;
  const int64_t c1 = (xs[1] + kFormatC0 - 1) / kFormatC0;
  const std::vector<int64_t>& p = *pads;
  pad_maps(xs, ys, p, PadMode::Constant, ctx.node.describe());  // the logical shapes agree
  const std::string m = ctx.node.attrs.get_string("mode", "constant");
  const PadMode mode = m == "reflect" ? PadMode::Reflect : m == "edge" ? PadMode::Edge : PadMode::Constant;
  const Shape in{xs[0], c1, xs[2], xs[3], kFormatC0}, out{ys[0], c1, ys[2], ys[3], kFormatC0};
  const std::vector<int64_t> p5{0, 0, p[2], p[3], 0, 0, 0, p[6], p[7], 0};
  float v = 0;
  if (ctx.opset < 11) v = ctx.node.attrs.get_float("value", 0.0f);
  else if (const Tensor* t = ctx.input_data(2)) v = static_cast<float>(arith::load_double(*t, 0));
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return std::make_unique<PadKernel<uint32_t>>(in, out, mode, p5, bits, ctx.node.describe(), ctx.threads);
}

void register_pad_kernels(Registrar& r) { add_cpu_kernel(r, "Pad", make_pad); }

}  // namespace ge::cpu
