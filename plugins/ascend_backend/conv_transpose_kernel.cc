// plugins/ascend_backend/conv_transpose_kernel.cc — ConvTranspose (1-D and 2-D) on the Cube, as
// the transpose of a convolution's data movement: a convolution gathers input taps into im2col
// rows and multiplies them by the weights; its transpose multiplies each input pixel's channels
// by the weights first — on the Cube, per group, the GEMM
//   cols[N·H·W][Og·Kh·Kw] = X[N·H·W][Cg] · W[Cg][Og·Kh·Kw]   (fp16 operands, fp32 L0C)
// — and then scatters (col2im) every column entry onto the output pixel it lands on,
//   Y[n][o][ih·sh − pad_t + kh·dh][iw·sw − pad_l + kw·dw] += cols[n, ih, iw][o, kh, kw],
// summed with the bias in fp32 on the Vector unit and rounded to the output dtype once. This is
// the GEMM + col2im form of a transposed convolution (Dumoulin & Visin, "A guide to convolution
// arithmetic for deep learning", 2016, §4: the transposed convolution is the convolution's
// matrix transposed; Caffe's Deconvolution layer computes it exactly so). The output size and
// pads follow the ONNX ConvTranspose spec (Operators.md: output_shape, output_padding, auto_pad).
// On the AI CPU (an fp32 node, or the placement's choice) the same GEMM runs as one fp32 sum.
#include <memory>

#include "cube.h"
#include "cube_conv_transpose.h"
#include "ge/sdk/error.h"
#include "kernels.h"
#include "tensor_io.h"
#include "tiling_load.h"
#include "util.h"

namespace ge::ascend {

ConvGeometry conv_transpose_geometry(const Node& n) {
  const Shape& xs = n.input(0)->shape;
  const Shape& ws = n.input(1)->shape;
  const Shape& ys = n.output(0)->shape;
  const bool one_d = xs.rank() == 3 && ws.rank() == 3 && ys.rank() == 3;
  if (!one_d && (xs.rank() != 4 || ws.rank() != 4 || ys.rank() != 4))
    throw UnsupportedError("ConvTranspose: only 1-D and 2-D (rank-3 or rank-4 X and W) in " + who(n));
  const size_t sp = one_d ? 1 : 2;
  ConvGeometry g{};
  g.group = n.attrs.get_int("group", 1);
  g.N = xs[0], g.C = xs[1], g.H = one_d ? 1 : xs[2], g.W = xs[sp + 1];
  g.O = ws[1] * g.group, g.Kh = one_d ? 1 : ws[2], g.Kw = ws[sp + 1];
  g.OH = one_d ? 1 : ys[2], g.OW = ys[sp + 1];
  if (g.group <= 0 || g.C % g.group || ws[0] != g.C || ys[1] != g.O)
    throw InvalidGraphError("ConvTranspose: channels do not match group in " + who(n));
  auto s = n.attrs.get_ints("strides", std::vector<int64_t>(sp, 1));
  auto d = n.attrs.get_ints("dilations", std::vector<int64_t>(sp, 1));
  auto op = n.attrs.get_ints("output_padding", std::vector<int64_t>(sp, 0));
  if (s.size() != sp || d.size() != sp || op.size() != sp)
    throw InvalidGraphError("ConvTranspose: strides/dilations/output_padding need " + std::to_string(sp) + " values in " + who(n));
  if (one_d) s.insert(s.begin(), 1), d.insert(d.begin(), 1), op.insert(op.begin(), 0);
  g.stride_h = s[0], g.stride_w = s[1], g.dil_h = d[0], g.dil_w = d[1];
  const std::string ap = n.attrs.get_string("auto_pad", "NOTSET");
  if (n.attrs.has("output_shape") || ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    // ONNX: total = stride·(in − 1) + output_padding + ((k − 1)·dilation + 1) − out; SAME_UPPER
    // puts ⌊total/2⌋ at the start, otherwise (SAME_LOWER, or output_shape with NOTSET)
    // total − ⌊total/2⌋. Floor division, as the spec's numpy reference: total is negative when
    // the output is longer than the stride·(in − 1) + … positions (SAME with stride > kernel).
    auto begin = [&](int64_t in, int64_t out, int64_t k, int64_t st, int64_t dl, int64_t opad) {
      const int64_t total = st * (in - 1) + opad + (k - 1) * dl + 1 - out;
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      return ap == "SAME_UPPER" ? half : total - half;
    };
    g.pad_t = begin(g.H, g.OH, g.Kh, g.stride_h, g.dil_h, op[0]);
    g.pad_l = begin(g.W, g.OW, g.Kw, g.stride_w, g.dil_w, op[1]);
  } else if (ap == "VALID") {
    g.pad_t = g.pad_l = 0;
  } else {
    const auto p = n.attrs.get_ints("pads", std::vector<int64_t>(2 * sp, 0));
    if (p.size() != 2 * sp) throw InvalidGraphError("ConvTranspose: pads needs " + std::to_string(2 * sp) + " values in " + who(n));
    g.pad_t = one_d ? 0 : p[0], g.pad_l = one_d ? p[0] : p[1];
  }
  return g;
}

namespace {

class ConvTransposeKernel : public Kernel {
 public:
  ConvTransposeKernel(const KernelBuildContext& ctx, const std::string& platform_dir)
      : node_(ctx.node), g_(conv_transpose_geometry(ctx.node)) {
    require_float(ctx, 0);
    for (const Value* v : {ctx.node.input(0), ctx.node.input(1), ctx.node.output(0)})
      if (!plain(v)) throw UnsupportedError("ConvTranspose: plain layouts only, '" + v->name() + "' is blocked in " + who(node_));
    const StoredTask task = load_task(ctx.node, platform_dir);
    cube_ = task.engine == Engine::Cube;
    if (cube_) tiling_ = *task.cube;
  }
  void run(KernelIO& io) override {
    const ConvGeometry& g = g_;
    const std::vector<float> x = read_plain(io.inputs[0]), w = read_plain(io.inputs[1]);
    const int64_t Cg = g.C / g.group, Og = g.O / g.group, HW = g.H * g.W, M = g.N * HW, Nc = Og * g.Kh * g.Kw;
    const int64_t OS = g.OH * g.OW;
    std::vector<float> y(static_cast<size_t>(g.N * g.O * OS), 0.f);
    if (io.inputs.size() > 2 && io.inputs[2].data()) {
      const std::vector<float> b = read_plain(io.inputs[2]);
      for (int64_t n = 0; n < g.N; ++n)
        for (int64_t o = 0; o < g.O; ++o) std::fill_n(y.begin() + (n * g.O + o) * OS, OS, b[o]);
    }
    std::vector<float> A(static_cast<size_t>(M * Cg)), C;
    for (int64_t gi = 0; gi < g.group; ++gi) {
      for (int64_t n = 0; n < g.N; ++n)  // A: one row of Cg channels per input pixel
        for (int64_t c = 0; c < Cg; ++c)
          for (int64_t s = 0; s < HW; ++s) A[(n * HW + s) * Cg + c] = x[(n * g.C + gi * Cg + c) * HW + s];
      // B: group gi's weights W[gi·Cg + c][o][kh][kw], already [Cg][Og·Kh·Kw] row-major.
      const std::vector<float> B(w.begin() + gi * Cg * Nc, w.begin() + (gi + 1) * Cg * Nc);
      if (cube_) {
        C.assign(static_cast<size_t>(M * Nc), 0.f);
        cube_batch_tiles(A.data(), B.data(), nullptr, C.data(), tiling_, gi);
      } else {
        C = gemm(A, B, {}, M, Nc, Cg, 0);
      }
      // col2im: every column entry onto the output pixel its tap lands on (fp32).
      for (int64_t n = 0; n < g.N; ++n)
        for (int64_t ih = 0; ih < g.H; ++ih)
          for (int64_t iw = 0; iw < g.W; ++iw) {
            const float* row = C.data() + (n * HW + ih * g.W + iw) * Nc;
            for (int64_t o = 0; o < Og; ++o) {
              float* yo = y.data() + (n * g.O + gi * Og + o) * OS;
              for (int64_t kh = 0; kh < g.Kh; ++kh) {
                const int64_t oh = ih * g.stride_h - g.pad_t + kh * g.dil_h;
                if (oh < 0 || oh >= g.OH) continue;
                for (int64_t kw = 0; kw < g.Kw; ++kw) {
                  const int64_t ow = iw * g.stride_w - g.pad_l + kw * g.dil_w;
                  if (ow >= 0 && ow < g.OW) yo[oh * g.OW + ow] += row[(o * g.Kh + kh) * g.Kw + kw];
                }
              }
            }
          }
    }
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return (cube_ ? "aicore:cube:" : "aicpu:fp32:") + node_.op_type() + (cube_ ? "+vector:col2im" : ""); }

 private:
  const Node& node_;
  ConvGeometry g_;
  bool cube_ = false;
  CubeTiling tiling_;
};

}  // namespace

void register_conv_transpose_kernel(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  r.add_kernel({"ascend", "", "ConvTranspose",
                [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<ConvTransposeKernel>(c, dir); },
                ""});
}

}  // namespace ge::ascend
