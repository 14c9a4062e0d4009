// plugins/ascend_backend/cube_kernels.cc — Conv, ge.FusedConv, MatMul, Gemm and ge.FusedMatMul: on the Cube
// (tile by tile from the node's stored tiling, fractal order, fp32 accumulation, result rounded
// to fp16) when the ascend_tiling pass placed them there, else on the AI CPU in plain fp32
// (cube.h). Small-channel convolutions on NC1HWC0_C04 / FRACTAL_Z_C04 read those directly
// (conv_c04.h). The stored tiling is verified at kernel build (tiling_load.h).
// ge.FusedMatMul's epilogue (bias on the last dim, then its activation) runs on the Vector
// unit on the fp32 L0C result moved to the UB unrounded; the output is rounded to fp16 once, after
// the activation (the unfused MatMul → Add → act rounds three times).
#include <cmath>
#include <memory>

#include "conv_c04.h"
#include "cube.h"
#include "ge/sdk/error.h"
#include "kernels.h"
#include "placement.h"
#include "tensor_io.h"
#include "tiling_load.h"

namespace ge::ascend {
namespace {

ConvGeometry resolve(const KernelBuildContext& ctx) {
  const Node& n = ctx.node;
  const Shape& xs = ctx.input_shape(0);
  const Shape& ws = ctx.input_shape(1);
  const Shape& ys = ctx.output_shape(0);
  // A 1-D convolution (rank-3 X [N, C, W], W [O, C/group, Kw]) is the 2-D one with H = Kh = 1:
  // the same bytes, read as [N, C, 1, W] (CANN's Conv1D lowers to Conv2D the same way).
  const bool one_d = xs.rank() == 3 && ws.rank() == 3 && ys.rank() == 3;
  if (!one_d && (xs.rank() != 4 || ws.rank() != 4))
    throw UnsupportedError(n.op_type() + ": only 1-D and 2-D convolutions (rank-3 or rank-4 X and W) in " + who(n));
  const size_t sp = one_d ? 1 : 2;  // spatial dims
  ConvGeometry g{};
  g.N = xs[0], g.C = xs[1], g.H = one_d ? 1 : xs[2], g.W = xs[sp + 1];
  g.O = ws[0], g.Kh = one_d ? 1 : ws[2], g.Kw = ws[sp + 1], g.OH = one_d ? 1 : ys[2], g.OW = ys[sp + 1];
  g.group = n.attrs.get_int("group", 1);
  auto s = n.attrs.get_ints("strides", std::vector<int64_t>(sp, 1));
  auto d = n.attrs.get_ints("dilations", std::vector<int64_t>(sp, 1));
  if (s.size() != sp || d.size() != sp)
    throw InvalidGraphError(n.op_type() + ": strides/dilations need " + std::to_string(sp) + " values in " + who(n));
  if (one_d) s.insert(s.begin(), 1), d.insert(d.begin(), 1);
  g.stride_h = s[0], g.stride_w = s[1], g.dil_h = d[0], g.dil_w = d[1];
  const std::string ap = n.attrs.get_string("auto_pad", "NOTSET");
  if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    auto begin = [&](int64_t in, int64_t out, int64_t k, int64_t st, int64_t dl) {
      const int64_t total = std::max<int64_t>((out - 1) * st + (k - 1) * dl + 1 - in, 0);
      return ap == "SAME_UPPER" ? total / 2 : total - total / 2;
    };
    g.pad_t = begin(g.H, g.OH, g.Kh, g.stride_h, g.dil_h);
    g.pad_l = begin(g.W, g.OW, g.Kw, g.stride_w, g.dil_w);
  } else if (ap == "VALID") {
    g.pad_t = g.pad_l = 0;
  } else {
    const auto p = n.attrs.get_ints("pads", std::vector<int64_t>(2 * sp, 0));
    if (p.size() != 2 * sp) throw InvalidGraphError(n.op_type() + ": pads needs " + std::to_string(2 * sp) + " values in " + who(n));
    g.pad_t = one_d ? 0 : p[0], g.pad_l = one_d ? p[0] : p[1];
  }
  if (g.group <= 0 || g.C % g.group || g.O % g.group || ws[1] * g.group != g.C)
    throw InvalidGraphError(n.op_type() + ": channels do not match group in " + who(n));
  return g;
}

struct Activation {
  std::string kind;  // "", Relu, Sigmoid, Clip, Tanh, LeakyRelu, Elu, HardSwish, Swish (ops/conv.toml)
  float lo = 0, hi = 0;  // Clip: bounds; LeakyRelu, Elu: lo = alpha
  float apply(float v) const {
    if (kind == "Relu") return v > 0.f ? v : 0.f;
    if (kind == "Sigmoid") return 1.f / (1.f + std::exp(-v));
    if (kind == "Clip") return std::min(std::max(v, lo), hi);
    if (kind == "Tanh") return std::tanh(v);
    if (kind == "LeakyRelu") return v < 0.f ? lo * v : v;
    if (kind == "Elu") return v < 0.f ? lo * (std::exp(v) - 1.f) : v;
    if (kind == "HardSwish") return v * std::min(std::max(v / 6.f + 0.5f, 0.f), 1.f);
    if (kind == "Swish") return v / (1.f + std::exp(-v));
    if (kind == "Gelu") return 0.5f * v * (1.f + std::erf(v * static_cast<float>(M_SQRT1_2)));  // erf form
    return v;
  }
};

/// The `activation` / `activation_params` of ge.FusedConv or (`gelu`: also Gelu) ge.FusedMatMul.
Activation read_activation(const Node& n, bool gelu) {
  Activation a;
  a.kind = n.attrs.get_string("activation", "");
  const std::string op = n.op_type();
  if (a.kind == "Clip") {
    const auto b = n.attrs.get_floats("activation_params");
    if (b.size() != 2) throw InvalidGraphError(op + ": activation Clip needs activation_params [min, max] in " + who(n));
    a.lo = b[0], a.hi = b[1];
  } else if (a.kind == "LeakyRelu" || a.kind == "Elu") {
    const auto p = n.attrs.get_floats("activation_params");
    if (p.size() != 1) throw InvalidGraphError(op + ": activation " + a.kind + " needs activation_params [alpha] in " + who(n));
    a.lo = p[0];
  } else if (!a.kind.empty() && a.kind != "Relu" && a.kind != "Sigmoid" && a.kind != "Tanh" && a.kind != "HardSwish" &&
             a.kind != "Swish" && !(gelu && a.kind == "Gelu")) {
    throw UnsupportedError(op + ": activation '" + a.kind + "' not supported (Relu, Clip, Sigmoid, Tanh, LeakyRelu, Elu, HardSwish, Swish" +
                           (gelu ? ", Gelu" : "") + ") in " + who(n));
  }
  return a;
}

class ConvKernel : public Kernel {
 public:
  ConvKernel(const KernelBuildContext& ctx, const std::string& platform_dir) : node_(ctx.node), g_(resolve(ctx)) {
    require_float(ctx, 0);
    const StoredTask task = load_task(ctx.node, platform_dir);
    cube_ = task.engine == Engine::Cube;
    if (cube_) tiling_ = *task.cube;
    c04_ = cube_ && reads_c04(ctx.node.input(0)->format, ctx.node.input(1)->format, g_);
    fused_ = ctx.node.domain() == "ge";
    if (fused_) act_ = read_activation(ctx.node, false);
  }
  void run(KernelIO& io) override {
    std::vector<float> b;
    if (io.inputs.size() > 2 && io.inputs[2].data()) b = read_plain(io.inputs[2]);
    std::vector<float> y;
    if (c04_) {  // small-channel: im2col and B straight from the C04 storage (conv_c04.h)
      y = conv2d_tiled_c04(io.inputs[0], io.inputs[1], b, g_, tiling_, who(node_));
    } else {
      const std::vector<float> x = read_plain(io.inputs[0]), w = read_plain(io.inputs[1]);
      y = cube_ ? conv2d_tiled(x, w, b, g_, tiling_) : conv2d(x, w, b, g_, false);
    }
    if (fused_ && io.inputs.size() > 3 && io.inputs[3].data()) {
      const std::vector<float> z = read_plain(io.inputs[3]);  // residual added in fp32 (L0C)
      for (size_t i = 0; i < y.size(); ++i) y[i] += z[i];
    }
    if (!act_.kind.empty())
      for (float& v : y) v = act_.apply(v);
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return (cube_ ? "aicore:cube:" : "aicpu:fp32:") + node_.op_type(); }

 private:
  const Node& node_;
  ConvGeometry g_;
  bool cube_ = false, fused_ = false, c04_ = false;
  CubeTiling tiling_;
  Activation act_;
};

/// MatMul (A rank >= 2 with B rank 2, or batch dims broadcast numpy-style), Gemm (2-D, transA/transB,
/// alpha, beta, C broadcast) and ge.FusedMatMul (A rank >= 2 folded into M, B 2-D with transB,
/// bias [N], activation "" | Gelu | ge.FusedConv's list).
class MatMulKernel : public Kernel {
 public:
  MatMulKernel(const KernelBuildContext& ctx, const std::string& platform_dir) : node_(ctx.node) {
    require_float(ctx, 0);
    const StoredTask task = load_task(ctx.node, platform_dir);
    cube_ = task.engine == Engine::Cube;
    if (cube_) tiling_ = *task.cube;
    gemm_ = ctx.node.op_type() == "Gemm";
    fused_ = ctx.node.op_type() == "FusedMatMul";
    const Shape& a = ctx.input_shape(0);
    const Shape& b = ctx.input_shape(1);
    if (a.rank() < 2 || b.rank() < 2) throw UnsupportedError(node_.op_type() + ": operands of rank < 2 in " + who(node_));
    if (fused_) {
      if (b.rank() != 2) throw UnsupportedError("FusedMatMul: B of rank " + std::to_string(b.rank()) + " (2-D only) in " + who(node_));
      tb_ = node_.attrs.get_int("transB", 0);
      K_ = a[a.rank() - 1], N_ = tb_ ? b[0] : b[1];
      if ((tb_ ? b[1] : b[0]) != K_) throw InvalidGraphError("FusedMatMul: inner dims differ: " + a.str() + " · " + b.str() + " in " + who(node_));
      M_ = K_ ? a.numel() / K_ : 0;
      batch_ = 1;
      act_ = read_activation(node_, true);
      if (ctx.node.num_inputs() > 2 && ctx.has_input(2) && ctx.input_shape(2).numel() != N_)
        throw UnsupportedError("FusedMatMul: bias " + ctx.input_shape(2).str() + " is not one value per output column in " + who(node_));
    } else if (gemm_) {
      ta_ = node_.attrs.get_int("transA", 0), tb_ = node_.attrs.get_int("transB", 0);
      alpha_ = node_.attrs.get_float("alpha", 1.f), beta_ = node_.attrs.get_float("beta", 1.f);
      M_ = ta_ ? a[1] : a[0], K_ = ta_ ? a[0] : a[1], N_ = tb_ ? b[0] : b[1];
      batch_ = 1;
    } else {
      M_ = a[a.rank() - 2], K_ = a[a.rank() - 1], N_ = b[b.rank() - 1];
      if (b.rank() == 2) {
        M_ = a.numel() / K_;  // leading dims flattened into M
        batch_ = 1;
      } else {
        broadcast_batches(a, b, ctx.output_shape(0));
        b_batched_ = true;
      }
    }
  }
  void run(KernelIO& io) override {
    std::vector<float> a = read_plain(io.inputs[0]), b = read_plain(io.inputs[1]);
    if (ta_) a = transpose(a, K_, M_);
    if (tb_) b = transpose(b, N_, K_);
    std::vector<float> y(static_cast<size_t>(batch_ * M_ * N_));
    for (int64_t bi = 0; bi < batch_; ++bi) {
      const int64_t ai = a_batch_.empty() ? bi : a_batch_[bi], bj = b_batch_.empty() ? bi : b_batch_[bi];
      std::vector<float> ab(a.begin() + ai * M_ * K_, a.begin() + (ai + 1) * M_ * K_);
      std::vector<float> bb = b_batched_ ? std::vector<float>(b.begin() + bj * K_ * N_, b.begin() + (bj + 1) * K_ * N_) : b;
      if (cube_) {
        cube_batch_tiles(ab.data(), bb.data(), nullptr, y.data() + bi * M_ * N_, tiling_, bi);
      } else {
        std::vector<float> c = gemm(ab, bb, {}, M_, N_, K_, 0);
        std::copy(c.begin(), c.end(), y.begin() + bi * M_ * N_);
      }
    }
    if (gemm_) {
      std::vector<float> c;
      Shape cs;
      if (io.inputs.size() > 2 && io.inputs[2].data()) c = read_plain(io.inputs[2]), cs = io.inputs[2].shape();
      for (int64_t m = 0; m < M_; ++m)
        for (int64_t n = 0; n < N_; ++n) {
          float v = alpha_ * y[m * N_ + n];
          if (!c.empty()) {
            // C broadcasts to [M, N] (unidirectional): scalar, [N], [1,N], [M,1], [M,N].
            const int64_t cm = cs.rank() == 2 && cs[0] == M_ ? m : 0;
            const int64_t cn = (cs.rank() >= 1 && cs[cs.rank() - 1] == N_) ? n : 0;
            const int64_t cols = cs.rank() >= 1 ? cs[cs.rank() - 1] : 1;
            v += beta_ * c[cm * cols + cn];
          }
          y[m * N_ + n] = v;
        }
    }
    if (fused_) epilogue(io, y);
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override {
    return (cube_ ? "aicore:cube:" : "aicpu:fp32:") + node_.op_type() + (fused_ && cube_ ? "+vector:epilogue" : "");
  }

 private:
  /// numpy.matmul's batch broadcasting (ONNX Operators.md, MatMul): the output's batch dims are
  /// the broadcast of A's and B's (right-aligned, 1 stretches); per output batch, the batch of A
  /// and of B it reads. A and B may broadcast on different axes (A[1,8,..] @ B[8,1,..]).
  void broadcast_batches(const Shape& a, const Shape& b, const Shape& y) {
    const size_t r = y.rank() - 2;
    if (y.rank() < 2 || y[r] != M_ || y[r + 1] != N_ || a.rank() - 2 > r || b.rank() - 2 > r)
      throw InvalidGraphError("MatMul: output " + y.str() + " is not the product of " + a.str() + " and " + b.str() +
                              " in " + who(node_));
    batch_ = 1;
    for (size_t d = 0; d < r; ++d) batch_ *= y[d];
    auto index_of = [&](const Shape& s, int64_t bi) {  // batch index of operand s for output batch bi
      const size_t off = r - (s.rank() - 2);
      int64_t idx = 0, stride = 1;
      for (size_t d = r; d-- > 0;) {
        const int64_t k = bi % y[d];
        bi /= y[d];
        if (d < off) continue;
        const int64_t e = s[d - off];
        if (e != 1 && e != y[d])
          throw InvalidGraphError("MatMul: batch dims of " + a.str() + " and " + b.str() + " do not broadcast in " + who(node_));
        idx += (e == 1 ? 0 : k) * stride;
        stride *= e;
      }
      return idx;
    };
    for (int64_t bi = 0; bi < batch_; ++bi) a_batch_.push_back(index_of(a, bi)), b_batch_.push_back(index_of(b, bi));
  }
  /// ge.FusedMatMul's epilogue in fp32: + bias[n], then the activation (Gelu: erf form).
  void epilogue(KernelIO& io, std::vector<float>& y) const {
    std::vector<float> bias;
    if (io.inputs.size() > 2 && io.inputs[2].data()) bias = read_plain(io.inputs[2]);
    for (int64_t m = 0; m < M_; ++m)
      for (int64_t n = 0; n < N_; ++n) {
        float v = y[m * N_ + n] + (bias.empty() ? 0.f : bias[n]);
        y[m * N_ + n] = act_.apply(v);
      }
  }
  static std::vector<float> transpose(const std::vector<float>& x, int64_t rows, int64_t cols) {
    std::vector<float> t(x.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = x[r * cols + c];
    return t;
  }
  const Node& node_;
  CubeTiling tiling_;
  bool cube_ = false, gemm_ = false, fused_ = false, b_batched_ = false;
  Activation act_;
  int64_t ta_ = 0, tb_ = 0, M_ = 0, K_ = 0, N_ = 0, batch_ = 1;
  std::vector<int64_t> a_batch_, b_batch_;  // per output batch (MatMul with batch dims): A's, B's
  float alpha_ = 1, beta_ = 1;
};

}  // namespace

void register_cube_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  auto conv = [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<ConvKernel>(c, dir); };
  auto mm = [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<MatMulKernel>(c, dir); };
  r.add_kernel({"ascend", "", "Conv", conv, ""});
  r.add_kernel({"ascend", "ge", "FusedConv", conv, ""});
  r.add_kernel({"ascend", "", "MatMul", mm, ""});
  r.add_kernel({"ascend", "", "Gemm", mm, ""});
  r.add_kernel({"ascend", "ge", "FusedMatMul", mm, ""});
}

}  // namespace ge::ascend
