// plugins/ascend_backend/pool_kernels.cc — the Vector unit's pooling: MaxPool (exact),
// AveragePool and GlobalAveragePool (window summed in fp32, divided, rounded once to the output
// dtype), GlobalMaxPool. 2-D only; the output size comes from shape inference (ceil_mode and
// auto_pad are already in it). On the AI Core, output rows are computed UB tile by UB tile from
// the stored tiling (vector_walk.h).
#include <algorithm>
#include <limits>
#include <memory>
#include <tuple>

#include "ge/sdk/error.h"
#include "kernels.h"
#include "tensor_io.h"
#include "vector_walk.h"

namespace ge::ascend {
namespace {

class PoolKernel : public Kernel {
 public:
  PoolKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), op_(ctx.node.op_type()), walk_(ctx, dir) {
    require_float(ctx, 0);
    // A unit (tiling_choose.h) is one output row (n, c1, oh) of C0 channels in NC1HWC0, of one
    // channel in plain layouts (and on the AI CPU).
    cb_ = walk_.aicore() && ctx.node.input(0)->format == Format::NC1HWC0 ? 16 : 1;
    const Shape& x = ctx.input_shape(0);
    if (x.rank() != 4) throw UnsupportedError(op_ + ": only 2-D pooling (rank-4 input) in " + who(node_));
    if (ctx.node.num_outputs() > 1 && ctx.node.output(1))
      throw UnsupportedError("MaxPool: the Indices output is not supported in " + who(node_));
    N_ = x[0], C_ = x[1], H_ = x[2], W_ = x[3];
    OH_ = ctx.output_shape(0)[2], OW_ = ctx.output_shape(0)[3];
    global_ = op_.rfind("Global", 0) == 0;
    max_ = op_.find("Max") != std::string::npos;
    if (global_) {
      kh_ = H_, kw_ = W_;
      return;
    }
    const auto k = ctx.node.attrs.get_ints("kernel_shape");
    const auto s = ctx.node.attrs.get_ints("strides", {1, 1});
    const auto d = ctx.node.attrs.get_ints("dilations", {1, 1});
    if (k.size() != 2 || s.size() != 2 || d.size() != 2)
      throw InvalidGraphError(op_ + ": kernel_shape/strides/dilations need 2 values in " + who(node_));
    kh_ = k[0], kw_ = k[1], sh_ = s[0], sw_ = s[1], dh_ = d[0], dw_ = d[1];
    const std::string ap = ctx.node.attrs.get_string("auto_pad", "NOTSET");
    if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      // Both ends: count_include_pad counts the end padding too (ONNX Operators.md, AveragePool:
      // SAME_UPPER puts the extra pad at the end, SAME_LOWER at the beginning).
      auto pads = [&](int64_t in, int64_t out, int64_t kk, int64_t st, int64_t dl) {
        const int64_t total = std::max<int64_t>((out - 1) * st + (kk - 1) * dl + 1 - in, 0);
        const int64_t b = ap == "SAME_UPPER" ? total / 2 : total - total / 2;
        return std::make_pair(b, total - b);
      };
      std::tie(pt_, pb_) = pads(H_, OH_, kh_, sh_, dh_);
      std::tie(pl_, pr_) = pads(W_, OW_, kw_, sw_, dw_);
    } else if (ap != "VALID") {
      const auto p = ctx.node.attrs.get_ints("pads", {0, 0, 0, 0});
      if (p.size() != 4) throw InvalidGraphError(op_ + ": pads needs 4 values in " + who(node_));
      pt_ = p[0], pl_ = p[1], pb_ = p[2], pr_ = p[3];
    }
    include_pad_ = ctx.node.attrs.get_int("count_include_pad", 0) != 0;
    if (ctx.node.output(0) && ctx.node.output(0)->dtype == DataType::Float16) lowest_ = -65504.f;  // fp16's lowest finite
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]);
    std::vector<float> y(static_cast<size_t>(N_ * C_ * OH_ * OW_));
    const int64_t c1s = (C_ + cb_ - 1) / cb_;
    walk_.units(N_ * c1s * OH_, [&](int64_t u) {
      const int64_t oh = u % OH_, c1 = (u / OH_) % c1s, n = u / (OH_ * c1s);
      for (int64_t c = c1 * cb_; c < std::min(C_, c1 * cb_ + cb_); ++c) {
        const int64_t nc = n * C_ + c;
        const float* xp = x.data() + nc * H_ * W_;
        for (int64_t ow = 0; ow < OW_; ++ow) {
          // A window that lies wholly in the padding has no element: MaxPool gives the lowest
          // finite value of the output type there, as the cpu backend and ONNX Runtime do (not
          // -inf, which a later op turns into inf or NaN).
          float acc = max_ ? lowest_ : 0.f;
          int64_t count = 0, padded = 0;
          for (int64_t i = 0; i < kh_; ++i) {
            const int64_t ih = oh * sh_ - pt_ + i * dh_;
            for (int64_t j = 0; j < kw_; ++j) {
              const int64_t iw = ow * sw_ - pl_ + j * dw_;
              const bool inside = ih >= 0 && ih < H_ && iw >= 0 && iw < W_;
              // count_include_pad counts the explicit padding, not a ceil_mode overhang.
              if (!inside) {
                if (ih >= -pt_ && ih < H_ + pb_ && iw >= -pl_ && iw < W_ + pr_) ++padded;
                continue;
              }
              const float v = xp[ih * W_ + iw];
              acc = max_ ? std::max(acc, v) : acc + v;
              ++count;
            }
          }
          if (!max_) acc /= static_cast<float>(include_pad_ ? count + padded : std::max<int64_t>(count, 1));
          y[(nc * OH_ + oh) * OW_ + ow] = acc;
        }
      }
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl(op_); }

 private:
  const Node& node_;
  std::string op_;
  VectorWalk walk_;
  int64_t cb_ = 1;
  bool global_ = false, max_ = false, include_pad_ = false;
  float lowest_ = std::numeric_limits<float>::lowest();
  int64_t N_ = 0, C_ = 0, H_ = 0, W_ = 0, OH_ = 0, OW_ = 0;
  int64_t kh_ = 1, kw_ = 1, sh_ = 1, sw_ = 1, dh_ = 1, dw_ = 1, pt_ = 0, pl_ = 0, pb_ = 0, pr_ = 0;
};

}  // namespace

void register_pool_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  auto pool = [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<PoolKernel>(c, dir); };
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}) r.add_kernel({"ascend", "", op, pool, ""});
}

}  // namespace ge::ascend
