// plugins/cpu_backend/roi.cc — ONNX RoiAlign (opsets 10, 16) and MaxRoiPool, float32 NCHW.
//
// RoiAlign (onnx/docs/Operators.md#RoiAlign; He et al., Mask R-CNN, 2017; the sampling as in
// ONNX Runtime's roialign.cc, which the spec follows): the box (x1, y1, x2, y2) is scaled by
// spatial_scale and shifted by -0.5 under coordinate_transformation_mode = half_pixel (opset 16's
// default; opset 10 has only output_half_pixel, no shift, boxes at least 1x1). Each of the
// output_height x output_width bins averages (mode avg) or takes the maximum (mode max) of
// sampling_ratio² bilinear samples (adaptive ceil(box / bins) when sampling_ratio = 0); samples
// more than one pixel outside the map are 0, others are clamped to the map. For mode max the
// sample is ONNX Runtime's: the largest of its four weighted corner values.
// MaxRoiPool (Operators.md#MaxRoiPool; Girshick, Fast R-CNN, 2015, as Caffe's roi_pooling):
// rois [num, 5] = (batch, x1, y1, x2, y2), rounded after spatial_scale; bin (ph, pw) covers rows
// [floor(ph * h / PH), ceil((ph + 1) * h / PH)) of the box (h = y2 - y1 + 1, at least 1),
// clipped to the map; an empty bin gives 0.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

class RoiAlignKernel : public CpuKernel {
 public:
  explicit RoiAlignKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    require_f32(ctx, {0, 1});
    require_plain(ctx);
    const Attributes& a = ctx.node.attrs;
    const std::string mode = a.get_string("mode", "avg");
    if (mode != "avg" && mode != "max") throw InvalidGraphError("RoiAlign: mode '" + mode + "'" + where);
    max_ = mode == "max";
    const std::string ctm = a.get_string("coordinate_transformation_mode", ctx.opset >= 16 ? "half_pixel" : "output_half_pixel");
    if (ctm != "half_pixel" && ctm != "output_half_pixel") throw InvalidGraphError("RoiAlign: coordinate_transformation_mode '" + ctm + "'" + where);
    half_pixel_ = ctm == "half_pixel";
    PH_ = a.get_int("output_height", 1);
    PW_ = a.get_int("output_width", 1);
    ratio_ = a.get_int("sampling_ratio", 0);
    scale_ = a.get_float("spatial_scale", 1.f);
    xs_ = ctx.input_shape(0);
    if (xs_.rank() != 4) throw InvalidGraphError("RoiAlign: X must be 4-D" + where);
    const Shape& rs = ctx.input_shape(1);
    if (rs.rank() != 2 || rs[1] != 4) throw InvalidGraphError("RoiAlign: rois shape " + rs.str() + " is not [num_rois, 4]" + where);
    rois_ = rs[0];
    bdt_ = ctx.input_type(2);
    if (bdt_ != DataType::Int64 && bdt_ != DataType::Int32) throw UnsupportedError("RoiAlign: batch_indices dtype (int64/int32 only)" + where);
    if (ctx.output_shape(0) != Shape{rois_, xs_[1], PH_, PW_}) throw InvalidGraphError("RoiAlign: output shape " + ctx.output_shape(0).str() + where);
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const int64_t N = xs_[0], C = xs_[1], H = xs_[2], W = xs_[3], PH = PH_, PW = PW_;
    const float* x = io.inputs[0].data_as<float>();
    const float* rois = io.inputs[1].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    for (int64_t r = 0; r < rois_; ++r) {
      const int64_t b = bdt_ == DataType::Int64 ? io.inputs[2].data_as<int64_t>()[r] : io.inputs[2].data_as<int32_t>()[r];
      if (b < 0 || b >= N) throw Error("RoiAlign: batch index " + std::to_string(b) + " outside [0, " + std::to_string(N) + ")");
    }
    parallel_for(rois_ * C, [&](int64_t rc) {
      const int64_t r = rc / C, c = rc % C;
      const int64_t b = bdt_ == DataType::Int64 ? io.inputs[2].data_as<int64_t>()[r] : io.inputs[2].data_as<int32_t>()[r];
      const float* box = rois + r * 4;
      const float off = half_pixel_ ? 0.5f : 0.f;
      const float sw = box[0] * scale_ - off, sh = box[1] * scale_ - off;
      float rw = box[2] * scale_ - off - sw, rh = box[3] * scale_ - off - sh;
      if (!half_pixel_) {
        rw = std::max(rw, 1.f);
        rh = std::max(rh, 1.f);
      }
      const float bh = rh / static_cast<float>(PH), bw = rw / static_cast<float>(PW);
      const int64_t gh = ratio_ > 0 ? ratio_ : static_cast<int64_t>(std::ceil(rh / static_cast<float>(PH)));
      const int64_t gw = ratio_ > 0 ? ratio_ : static_cast<int64_t>(std::ceil(rw / static_cast<float>(PW)));
      const float count = static_cast<float>(std::max<int64_t>(gh * gw, 1));
      const float* img = x + (b * C + c) * H * W;
      float* out = y + rc * PH * PW;
      for (int64_t ph = 0; ph < PH; ++ph)
        for (int64_t pw = 0; pw < PW; ++pw) {
          float acc = max_ ? -std::numeric_limits<float>::max() : 0.f;
          bool any = false;
          for (int64_t iy = 0; iy < gh; ++iy) {
            float yy = sh + ph * bh + (iy + 0.5f) * bh / static_cast<float>(gh);
            for (int64_t ix = 0; ix < gw; ++ix) {
              float xx = sw + pw * bw + (ix + 0.5f) * bw / static_cast<float>(gw);
              float v = 0.f;
              if (!(yy < -1.f || yy > H || xx < -1.f || xx > W)) {
                float yv = std::max(yy, 0.f), xv = std::max(xx, 0.f);
                int64_t yl = static_cast<int64_t>(yv), xl = static_cast<int64_t>(xv), yh, xh;
                if (yl >= H - 1) { yh = yl = H - 1; yv = static_cast<float>(yl); } else yh = yl + 1;
                if (xl >= W - 1) { xh = xl = W - 1; xv = static_cast<float>(xl); } else xh = xl + 1;
                const float ly = yv - yl, lx = xv - xl, hy = 1 - ly, hx = 1 - lx;
                const float v1 = hy * hx * img[yl * W + xl], v2 = hy * lx * img[yl * W + xh];
                const float v3 = ly * hx * img[yh * W + xl], v4 = ly * lx * img[yh * W + xh];
                v = max_ ? std::max(std::max(v1, v2), std::max(v3, v4)) : v1 + v2 + v3 + v4;
              }
              if (max_) acc = any ? std::max(acc, v) : v;
              else acc += v;
              any = true;
            }
          }
          out[ph * PW + pw] = max_ ? (any ? acc : 0.f) : acc / count;
        }
    });
  }
  std::string impl_name() const override { return "cpu:roi_align"; }

 private:
  bool max_ = false, half_pixel_ = true;
  int64_t PH_ = 1, PW_ = 1, ratio_ = 0, rois_ = 0;
  float scale_ = 1.f;
  DataType bdt_ = DataType::Int64;
  Shape xs_;
};

class MaxRoiPoolKernel : public CpuKernel {
 public:
  explicit MaxRoiPoolKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    require_f32(ctx, {0, 1});
    require_plain(ctx);
    const std::vector<int64_t> ps = ctx.node.attrs.get_ints("pooled_shape");
    if (ps.size() != 2 || ps[0] <= 0 || ps[1] <= 0) throw InvalidGraphError("MaxRoiPool: pooled_shape must be two positive values" + where);
    PH_ = ps[0];
    PW_ = ps[1];
    scale_ = ctx.node.attrs.get_float("spatial_scale", 1.f);
    xs_ = ctx.input_shape(0);
    if (xs_.rank() != 4) throw InvalidGraphError("MaxRoiPool: X must be 4-D" + where);
    const Shape& rs = ctx.input_shape(1);
    if (rs.rank() != 2 || rs[1] != 5) throw InvalidGraphError("MaxRoiPool: rois shape " + rs.str() + " is not [num_rois, 5]" + where);
    rois_ = rs[0];
    if (ctx.output_shape(0) != Shape{rois_, xs_[1], PH_, PW_}) throw InvalidGraphError("MaxRoiPool: output shape " + ctx.output_shape(0).str() + where);
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const int64_t N = xs_[0], C = xs_[1], H = xs_[2], W = xs_[3], PH = PH_, PW = PW_;
    const float* x = io.inputs[0].data_as<float>();
    const float* rois = io.inputs[1].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    for (int64_t r = 0; r < rois_; ++r) {
      const int64_t b = static_cast<int64_t>(rois[r * 5]);
      if (b < 0 || b >= N) throw Error("MaxRoiPool: batch index " + std::to_string(b) + " outside [0, " + std::to_string(N) + ")");
    }
    parallel_for(rois_ * C, [&](int64_t rc) {
      const int64_t r = rc / C, c = rc % C;
      const float* box = rois + r * 5;
      const int64_t b = static_cast<int64_t>(box[0]);
      const int64_t x1 = std::llround(box[1] * scale_), y1 = std::llround(box[2] * scale_);
      const int64_t x2 = std::llround(box[3] * scale_), y2 = std::llround(box[4] * scale_);
      const int64_t rh = std::max<int64_t>(y2 - y1 + 1, 1), rw = std::max<int64_t>(x2 - x1 + 1, 1);
      const double bh = static_cast<double>(rh) / PH, bw = static_cast<double>(rw) / PW;
      const float* img = x + (b * C + c) * H * W;
      float* out = y + rc * PH * PW;
      for (int64_t ph = 0; ph < PH; ++ph)
        for (int64_t pw = 0; pw < PW; ++pw) {
          const int64_t hs = std::clamp<int64_t>(static_cast<int64_t>(std::floor(ph * bh)) + y1, 0, H);
          const int64_t he = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((ph + 1) * bh)) + y1, 0, H);
          const int64_t ws = std::clamp<int64_t>(static_cast<int64_t>(std::floor(pw * bw)) + x1, 0, W);
          const int64_t we = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((pw + 1) * bw)) + x1, 0, W);
          float m = -std::numeric_limits<float>::max();
          bool any = false;
          for (int64_t h = hs; h < he; ++h)
            for (int64_t w = ws; w < we; ++w) {
              m = std::max(m, img[h * W + w]);
              any = true;
            }
          out[ph * PW + pw] = any ? m : 0.f;
        }
    });
  }
  std::string impl_name() const override { return "cpu:max_roi_pool"; }

 private:
  int64_t PH_ = 1, PW_ = 1, rois_ = 0;
  float scale_ = 1.f;
  Shape xs_;
};

}  // namespace

void register_roi_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "RoiAlign",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> { return std::make_unique<RoiAlignKernel>(ctx); },
                         ""});
  r.add_kernel(KernelDef{"cpu", "", "MaxRoiPool",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> { return std::make_unique<MaxRoiPoolKernel>(ctx); },
                         ""});
}

}  // namespace ge::cpu
