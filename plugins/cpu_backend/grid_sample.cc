// plugins/cpu_backend/grid_sample.cc — ONNX GridSample (opset 16), float32, 4-D input: modes
// bilinear, nearest, bicubic; padding_mode zeros, border, reflection; align_corners 0/1.
//
// onnx/docs/Operators.md#GridSample, with ONNX Runtime's reading where the spec is brief
// (onnxruntime/core/providers/cpu/tensor/grid_sample.cc): grid (x, y) in [-1, 1] maps to
// x = (gx + 1) / 2 * (W - 1) (align_corners) or ((gx + 1) * W - 1) / 2; the padding applies to
// every tap the interpolation reads: zeros outside, clamped to the edge (border), or reflected
// at the borders [0, W-1] (align_corners) / [-0.5, W-0.5] (reflection). nearest rounds half to
// even; bicubic uses Keys' kernel with A = -0.75 over the 4x4 taps around floor(x), floor(y).
#include <algorithm>
#include <cmath>
#include <string>

#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

enum class Mode { Bilinear, Nearest, Bicubic };
enum class Pad { Zeros, Border, Reflection };

float reflect(float x, float lo, float hi) {
  const float range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const float d = lo - x;
    const int n = static_cast<int>(d / range);
    const float r = d - static_cast<float>(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const float d = x - hi;
    const int n = static_cast<int>(d / range);
    const float r = d - static_cast<float>(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

void cubic_coeffs(float t, float c[4]) {
  const float A = -0.75f;
  t = std::fabs(t);
  c[0] = ((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A;
  c[1] = ((A + 2) * t - (A + 3)) * t * t + 1;
  c[2] = ((A + 2) * (1 - t) - (A + 3)) * (1 - t) * (1 - t) + 1;
  c[3] = ((A * (2 - t) - 5 * A) * (2 - t) + 8 * A) * (2 - t) - 4 * A;
}

class GridSampleKernel : public CpuKernel {
 public:
  explicit GridSampleKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    require_f32(ctx, {0, 1});
    require_plain(ctx);
    const Attributes& a = ctx.node.attrs;
    const std::string mode = a.get_string("mode", "bilinear"), pad = a.get_string("padding_mode", "zeros");
    if (mode == "bilinear" || mode == "linear") mode_ = Mode::Bilinear;
    else if (mode == "nearest") mode_ = Mode::Nearest;
    else if (mode == "bicubic" || mode == "cubic") mode_ = Mode::Bicubic;
    else throw UnsupportedError("GridSample: mode '" + mode + "' not supported" + where);
    if (pad == "zeros") pad_ = Pad::Zeros;
    else if (pad == "border") pad_ = Pad::Border;
    else if (pad == "reflection") pad_ = Pad::Reflection;
    else throw UnsupportedError("GridSample: padding_mode '" + pad + "' not supported" + where);
    align_ = a.get_int("align_corners", 0) != 0;
    xs_ = ctx.input_shape(0);
    const Shape& gs = ctx.input_shape(1);
    if (xs_.rank() != 4) throw UnsupportedError("GridSample: rank " + std::to_string(xs_.rank()) + " input (4-D only)" + where);
    if (gs.rank() != 4 || gs[0] != xs_[0] || gs[3] != 2) throw InvalidGraphError("GridSample: grid shape " + gs.str() + where);
    Ho_ = gs[1];
    Wo_ = gs[2];
    if (ctx.output_shape(0) != Shape{xs_[0], xs_[1], Ho_, Wo_}) throw InvalidGraphError("GridSample: output shape " + ctx.output_shape(0).str() + where);
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const int64_t N = xs_[0], C = xs_[1], H = xs_[2], W = xs_[3], Ho = Ho_, Wo = Wo_;
    const float* x = io.inputs[0].data_as<float>();
    const float* grid = io.inputs[1].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const float xmin = align_ ? 0.f : -0.5f, xmax = align_ ? W - 1.f : W - 0.5f;
    const float ymin = align_ ? 0.f : -0.5f, ymax = align_ ? H - 1.f : H - 0.5f;
    parallel_for(N * C, [&](int64_t nc) {
      const int64_t n = nc / C;
      const float* img = x + nc * H * W;
      const float* g = grid + n * Ho * Wo * 2;
      float* out = y + nc * Ho * Wo;
      auto pixel = [&](int64_t r, int64_t c) -> float {
        if (pad_ == Pad::Zeros) return (c >= 0 && c < W && r >= 0 && r < H) ? img[r * W + c] : 0.f;
        if (pad_ == Pad::Border) {
          c = std::clamp<int64_t>(c, 0, W - 1);
          r = std::clamp<int64_t>(r, 0, H - 1);
        } else {
          c = std::clamp<int64_t>(static_cast<int64_t>(reflect(static_cast<float>(c), xmin, xmax)), 0, W - 1);
          r = std::clamp<int64_t>(static_cast<int64_t>(reflect(static_cast<float>(r), ymin, ymax)), 0, H - 1);
        }
        return img[r * W + c];
      };
      for (int64_t p = 0; p < Ho * Wo; ++p) {
        const float gx = g[p * 2], gy = g[p * 2 + 1];
        float fx = align_ ? (gx + 1) / 2.f * (W - 1) : ((gx + 1) * W - 1) / 2.f;
        float fy = align_ ? (gy + 1) / 2.f * (H - 1) : ((gy + 1) * H - 1) / 2.f;
        if (mode_ == Mode::Nearest) {
          out[p] = pixel(static_cast<int64_t>(std::nearbyint(fy)), static_cast<int64_t>(std::nearbyint(fx)));
        } else if (mode_ == Mode::Bilinear) {
          const int64_t x1 = static_cast<int64_t>(std::floor(fx)), y1 = static_cast<int64_t>(std::floor(fy));
          const float dx1 = fx - x1, dx2 = 1 - dx1, dy1 = fy - y1, dy2 = 1 - dy1;
          out[p] = dy2 * (dx2 * pixel(y1, x1) + dx1 * pixel(y1, x1 + 1)) + dy1 * (dx2 * pixel(y1 + 1, x1) + dx1 * pixel(y1 + 1, x1 + 1));
        } else {
          const int64_t x0 = static_cast<int64_t>(std::floor(fx)) - 1, y0 = static_cast<int64_t>(std::floor(fy)) - 1;
          float cx[4], cy[4];
          cubic_coeffs(fx - x0 - 1, cx);
          cubic_coeffs(fy - y0 - 1, cy);
          float acc = 0;
          for (int i = 0; i < 4; ++i) {
            float row = 0;
            for (int j = 0; j < 4; ++j) row += cx[j] * pixel(y0 + i, x0 + j);
            acc += cy[i] * row;
          }
          out[p] = acc;
        }
      }
    });
  }
  std::string impl_name() const override { return "cpu:grid_sample"; }

 private:
  Mode mode_ = Mode::Bilinear;
  Pad pad_ = Pad::Zeros;
  bool align_ = false;
  Shape xs_;
  int64_t Ho_ = 0, Wo_ = 0;
};

}  // namespace

void register_grid_sample_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "GridSample",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<GridSampleKernel>(ctx);
                         },
                         ""});
}

}  // namespace ge::cpu
