// plugins/cpu_backend/resize.cc — ONNX Resize (opsets 10, 11, 13) and Upsample (7, 9), float32:
// every mode (nearest with each nearest_mode, linear, cubic with cubic_coeff_a and
// exclude_outside), every coordinate_transformation_mode, scales or sizes, over any axes.
//
// Semantics follow onnx/docs/Operators.md#Resize and its numpy reference
// (onnx/backend/test/case/node/resize.py, interpolate_1d_with_x): per axis, output index x maps
// to x_original by the coordinate transformation, where the resized length is scale * in as a
// real number (the reference's output_width; with sizes, scale = size / in); the taps are the
// 1 (nearest), 2 (linear) or 4 (cubic) input positions around x_original, clamped to the input
// (the reference's edge padding); exclude_outside zeroes the weights of taps outside the input
// and renormalizes; tf_crop_and_resize gives extrapolation_value where x_original falls outside
// [0, in - 1]. N-linear/N-cubic is the product of the per-axis weights (the reference applies
// the 1-D interpolation axis by axis, which is the same separable sum).
// Opset <= 10 (Upsample, Resize-10) has no transformation attributes: asymmetric coordinates
// (x_original = x / scale); nearest takes floor when upsampling (the Upsample spec's formula)
// and ceil when downsampling (ONNX Runtime; the Resize-10 spec example).
//
// On NC1HWC0 (the layout pass's blocked activations) the same tables run on [N, C1, H, W, C0]
// with C1 and C0 copied, when the channels map to themselves.
//
// oneDNN's resampling primitive only has half_pixel coordinates (nearest rounds half up, linear
// clamps) — one case of the many here — so this is one direct kernel: per-axis tap tables built
// once (at build time when scales/sizes/roi are constant), then one weighted gather per output.
#include <cmath>
#include <cstring>
#include <string>

#include "blocked.h"
#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

constexpr int64_t kC0 = 16;  // NC1HWC0's channel block for float32 (plan())

// The vector helpers below must not contract a*b + c into an FMA (the x86-64-v3/v4 clones could):
// the NCHW loops are compiled for the baseline ISA, and both layouts must give the same bits.
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")

/// One input row of NC1HWC0 interpolated along W: hr[c][v] = sum_j w[c*n+j] * xr[off[c*n+j] + v]
/// for the kC0 lanes v of each output position c, the sum in tap order from 0 (as the general
/// loop sums, so the bits are its bits).
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void interpolate_row_c0(const float* __restrict xr, float* __restrict hr, const int64_t* off, const float* w,
                        int64_t wo, int64_t n) {
  for (int64_t c = 0; c < wo; ++c) {
    float* __restrict h = hr + c * kC0;
    float acc[kC0] = {};
    for (int64_t j = 0; j < n; ++j) {
      const float* __restrict src = xr + off[c * n + j];
      const float wj = w[c * n + j];
      for (int64_t v = 0; v < kC0; ++v) acc[v] += wj * src[v];
    }
    for (int64_t v = 0; v < kC0; ++v) h[v] = acc[v];
  }
}

/// One input row of NCHW interpolated along W: hr[c] = sum_j w[c*n+j] * xr[off[c*n+j]], the sum
/// in tap order from 0.
void interpolate_row(const float* __restrict xr, float* __restrict hr, const int64_t* off, const float* w, int64_t wo,
                     int64_t n) {
  for (int64_t c = 0; c < wo; ++c) {
    float s = 0.f;
    for (int64_t j = 0; j < n; ++j) s += w[c * n + j] * xr[off[c * n + j]];
    hr[c] = s;
  }
}

/// y += a * x, multiplied and added separately (see above).
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void blend_row(float* __restrict y, const float* __restrict x, float a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

#pragma GCC pop_options

enum class Mode { Nearest, Linear, Cubic };

/// Taps of one axis: for output index o, `n` (input offset, weight) pairs at [o * n, (o + 1) * n)
/// and whether o extrapolates (tf_crop_and_resize outside the input).
struct AxisTaps {
  int n = 1;
  std::vector<int64_t> off;
  std::vector<float> w;
  std::vector<uint8_t> outside;
};

/// Every axis's taps and the output shape as laid out (NC1HWC0: [N, C1, H, W, C0]).
struct Plan {
  std::vector<AxisTaps> taps;
  Shape py;
};

class ResizeKernel : public CpuKernel {
 public:
  explicit ResizeKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string op = ctx.node.op_type();
    where_ = " in " + who(ctx);
    require_f32(ctx, {0});
    // NC1HWC0 (both sides): the blocked tensor is [N, C1, H, W, C0], resized over N, H, W
    // with C1 and C0 copied, when the channels map to themselves (checked in plan()).
    blocked_ = is_blocked(ctx.node.input(0)) || is_blocked(ctx.node.output(0));
    if (blocked_) {
      if (!is_blocked(ctx.node.input(0)) || !is_blocked(ctx.node.output(0)) || ctx.input_shape(0).rank() != 4)
        throw UnsupportedError(op + ": NC1HWC0 needs a 4-D input and output both NC1HWC0" + where_);
    } else {
      require_plain(ctx);
    }
    const Attributes& a = ctx.node.attrs;
    const std::string mode = a.get_string("mode", "nearest");
    if (mode == "nearest") mode_ = Mode::Nearest;
    else if (mode == "linear" || mode == "bilinear" || (mode == "trilinear" && ctx.opset < 11)) mode_ = Mode::Linear;
    else if (mode == "cubic" && op == "Resize" && ctx.opset >= 11) mode_ = Mode::Cubic;
    else throw UnsupportedError(op + ": mode '" + mode + "' not supported at opset " + std::to_string(ctx.opset) + where_);
    legacy_ = op == "Upsample" || ctx.opset < 11;
    if (!legacy_) {
      ctm_ = a.get_string("coordinate_transformation_mode", "half_pixel");
      static const char* known[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                    "tf_half_pixel_for_nn", "tf_crop_and_resize"};
      bool ok = false;
      for (const char* k : known) ok = ok || ctm_ == k;
      if (!ok) throw UnsupportedError(op + ": coordinate_transformation_mode '" + ctm_ + "' not supported" + where_);
      nearest_mode_ = a.get_string("nearest_mode", "round_prefer_floor");
      if (nearest_mode_ != "round_prefer_floor" && nearest_mode_ != "round_prefer_ceil" && nearest_mode_ != "floor" &&
          nearest_mode_ != "ceil")
        throw UnsupportedError(op + ": nearest_mode '" + nearest_mode_ + "' not supported" + where_);
      cubic_a_ = a.get_float("cubic_coeff_a", -0.75f);
      exclude_outside_ = a.get_int("exclude_outside", 0) != 0;
      extrapolation_ = a.get_float("extrapolation_value", 0.f);
    } else {
      ctm_ = "asymmetric";
      nearest_mode_ = "floor";
    }
    if (a.get_int("antialias", 0) != 0) throw UnsupportedError(op + ": antialias=1 (opset 18) not supported" + where_);
    if (a.has("keep_aspect_ratio_policy") || a.has("axes"))
      throw UnsupportedError(op + ": keep_aspect_ratio_policy/axes (opset 18) not supported" + where_);
    xs_ = ctx.input_shape(0);
    ys_ = ctx.output_shape(0);
    if (ys_.rank() != xs_.rank()) throw InvalidGraphError(op + ": output rank differs from input rank" + where_);
    // Which inputs carry scales / sizes / roi.
    if (op == "Upsample" && ctx.opset < 9) {
      attr_scales_ = a.get_floats("scales");
      scales_in_ = -1;
    } else if (op == "Upsample" || ctx.opset < 11) {
      scales_in_ = 1;
    } else {
      roi_in_ = 1;
      scales_in_ = 2;
      sizes_in_ = 3;
    }
    // Constant parameters: the tap tables are built once here.
    bool all_const = true;
    for (int i : {roi_in_, scales_in_, sizes_in_})
      if (i >= 0 && ctx.has_input(static_cast<size_t>(i)) && !ctx.input_data(static_cast<size_t>(i))) all_const = false;
    if (blocked_ && !all_const)
      throw UnsupportedError(op + ": NC1HWC0 needs constant scales/sizes/roi" + where_);
    if (all_const) {
      auto get = [&](int i) -> const Tensor* { return i >= 0 ? ctx.input_data(static_cast<size_t>(i)) : nullptr; };
      plan_ = plan(get(roi_in_), get(scales_in_), get(sizes_in_));
      planned_ = true;
    }
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    Plan local;
    const Plan* pl = &plan_;
    if (!planned_) {
      auto get = [&](int i) -> const Tensor* {
        if (i < 0 || static_cast<size_t>(i) >= io.inputs.size() || !present(io.inputs[i])) return nullptr;
        return &io.inputs[i];
      };
      local = plan(get(roi_in_), get(scales_in_), get(sizes_in_));
      pl = &local;
    }
    const std::vector<AxisTaps>& taps = pl->taps;
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const Shape& ys = pl->py;  // the physical output (NC1HWC0: 5-D)
    const size_t r = ys.rank();
    if (ys.numel() == 0) return;
    if (r == 0) {
      y[0] = x[0];
      return;
    }
    // A last axis that maps every index to itself (NC1HWC0's C0; a channels-last copy) is a
    // vector of V contiguous floats moved as a whole: the innermost resized axis is then the
    // one before it, and each of its taps reads V consecutive inputs.
    const bool inner_copy = r >= 2 && is_identity(taps[r - 1]);
    const size_t la = inner_copy ? r - 2 : r - 1;
    const int64_t V = inner_copy ? ys[r - 1] : 1, W = ys[la];
    const int64_t rows = ys.numel() / (W * V);
    const AxisTaps& last = taps[la];
    const Shape& xs = xs_;  // logical, as built (a blocked operand's tensor may carry its storage shape)
    if (r == 4 && !inner_copy && maps_to_itself(taps[0], xs[1] * xs[2] * xs[3]) && maps_to_itself(taps[1], xs[2] * xs[3]) &&
        !any_outside(taps[2]) && !any_outside(taps[3]))
      return run_planes(x, y, taps, xs[2], xs[3], ys, 1);
    if (blocked_ && r == 5 && ys[4] == kC0 && maps_to_itself(taps[0], ys[1] * xs[2] * xs[3] * kC0) &&
        !any_outside(taps[2]) && !any_outside(taps[3]))
      return run_planes(x, y, taps, xs[2], xs[3], ys, kC0);
    parallel_for(rows, [&](int64_t row) {
      // Combined taps of the leading axes of this row (scratch reused per thread: a row can be
      // as short as one vector of C0).
      thread_local std::vector<int64_t> offs, no, idx;
      thread_local std::vector<float> ws, nw, part;
      offs.assign(1, 0);
      ws.assign(1, 1.f);
      bool outside = false;
      int64_t rem = row;
      idx.resize(la);
      for (size_t d = la; d-- > 0;) {
        idx[d] = rem % ys[d];
        rem /= ys[d];
      }
      for (size_t d = 0; d < la; ++d) {
        const AxisTaps& t = taps[d];
        const int64_t o = idx[d];
        outside = outside || t.outside[o];
        no.clear();
        nw.clear();
        for (size_t k = 0; k < offs.size(); ++k)
          for (int j = 0; j < t.n; ++j) {
            const float wj = t.w[o * t.n + j];
            if (wj == 0.f) continue;
            no.push_back(offs[k] + t.off[o * t.n + j]);
            nw.push_back(ws[k] * wj);
          }
        offs.swap(no);
        ws.swap(nw);
      }
      float* yr = y + row * W * V;
      if (outside) {
        for (int64_t o = 0; o < W * V; ++o) yr[o] = extrapolation_;
        return;
      }
      const int n = last.n;
      if (V > 1) part.resize(static_cast<size_t>(V));
      for (int64_t o = 0; o < W; ++o) {
        float* yo = yr + o * V;
        if (last.outside[o]) {
          for (int64_t c = 0; c < V; ++c) yo[c] = extrapolation_;
          continue;
        }
        const int64_t* lo = &last.off[o * n];
        const float* lw = &last.w[o * n];
        if (V == 1) {
          float acc = 0.f;
          for (size_t k = 0; k < offs.size(); ++k) {
            const float* base = x + offs[k];
            float s = 0.f;
            for (int j = 0; j < n; ++j) s += lw[j] * base[lo[j]];
            acc += ws[k] * s;
          }
          yo[0] = acc;
          continue;
        }
        // The same sums in the same order per element, V elements at a time.
        float* pt = part.data();
        for (int64_t c = 0; c < V; ++c) yo[c] = 0.f;
        for (size_t k = 0; k < offs.size(); ++k) {
          const float* base = x + offs[k];
          for (int64_t c = 0; c < V; ++c) pt[c] = 0.f;
          for (int j = 0; j < n; ++j) {
            const float* src = base + lo[j];
            const float wj = lw[j];
            for (int64_t c = 0; c < V; ++c) pt[c] += wj * src[c];
          }
          const float wk = ws[k];
          for (int64_t c = 0; c < V; ++c) yo[c] += wk * pt[c];
        }
      }
    });
  }

  /// [N, C, H, W] or NC1HWC0 [N, C1, H, W, C0] resized over H and W only, `lanes` floats per
  /// position (1, or kC0 moved as one vector): per plane, every input row is interpolated along W
  /// once into a scratch row of the output's width, and each output row blends the scratch rows
  /// of its H taps — an upsampling by s reuses each interpolated row s times instead of
  /// re-gathering it per output. The sums and their order are the general loop's (per H tap k,
  /// s_k = sum_j w_j x[..]; y = sum_k w_k s_k, taps of weight 0 skipped), so the bits are too.
  void run_planes(const float* x, float* y, const std::vector<AxisTaps>& taps, int64_t hi, int64_t wi, const Shape& ys,
                  int64_t lanes) const {
    const AxisTaps &th = taps[2], &tw = taps[3];
    const int64_t ho = ys[2], wo = ys[3], nh = th.n, row_in = wi * lanes, row_out = wo * lanes;
    parallel_for(ys[0] * ys[1], [&](int64_t plane) {
      thread_local std::vector<float> rows;
      thread_local std::vector<uint8_t> done;
      rows.resize(static_cast<size_t>(hi * row_out));
      done.assign(static_cast<size_t>(hi), 0);
      const float* xp = x + plane * hi * row_in;
      float* yp = y + plane * ho * row_out;
      for (int64_t o = 0; o < ho; ++o) {
        float* yr = yp + o * row_out;
        simd::fill(yr, 0.f, row_out);
        for (int64_t k = 0; k < nh; ++k) {
          const float wk = th.w[o * nh + k];
          if (wk == 0.f) continue;
          const int64_t i = th.off[o * nh + k] / row_in;  // the tap's input row (offsets count elements)
          float* hr = rows.data() + i * row_out;
          if (!done[static_cast<size_t>(i)]) {
            if (lanes == kC0) interpolate_row_c0(xp + i * row_in, hr, tw.off.data(), tw.w.data(), wo, tw.n);
            else interpolate_row(xp + i * row_in, hr, tw.off.data(), tw.w.data(), wo, tw.n);
            done[static_cast<size_t>(i)] = 1;
          }
          blend_row(yr, hr, wk, row_out);
        }
      }
    });
  }

  /// Every output index o reads input index o with weight 1, its other taps weight 0 (which the
  /// leading-axes loop skips): an axis left as it is, its offsets `stride` elements apart.
  static bool maps_to_itself(const AxisTaps& t, int64_t stride) {
    for (size_t o = 0; o < t.outside.size(); ++o) {
      if (t.outside[o]) return false;
      int nonzero = 0;
      for (int j = 0; j < t.n; ++j) {
        const float w = t.w[o * t.n + j];
        if (w == 0.f) continue;
        if (w != 1.f || t.off[o * t.n + j] != static_cast<int64_t>(o) * stride) return false;
        ++nonzero;
      }
      if (nonzero != 1) return false;
    }
    return true;
  }

  static bool any_outside(const AxisTaps& t) {
    for (uint8_t o : t.outside)
      if (o) return true;
    return false;
  }

  /// Every output index reads exactly its own input index with weight 1.
  static bool is_identity(const AxisTaps& t) {
    if (t.n != 1) return false;
    for (size_t o = 0; o < t.off.size(); ++o)
      if (t.off[o] != static_cast<int64_t>(o) || t.w[o] != 1.f || t.outside[o]) return false;
    return true;
  }

  std::string impl_name() const override { return "cpu:resize"; }

 private:
  std::vector<double> read_floats(const Tensor* t) const {
    std::vector<double> v;
    if (!t) return v;
    for (int64_t i = 0; i < t->numel(); ++i) {
      if (t->dtype() == DataType::Float32) v.push_back(t->data_as<float>()[i]);
      else if (t->dtype() == DataType::Float64) v.push_back(t->data_as<double>()[i]);
      else if (t->dtype() == DataType::Int64) v.push_back(static_cast<double>(t->data_as<int64_t>()[i]));
      else throw UnsupportedError("Resize: dtype " + std::string(dtype_name(t->dtype())) + " of scales/roi/sizes" + where_);
    }
    return v;
  }

  /// Tap tables (and the output as laid out) for these scales/sizes/roi; const, so a run-time
  /// plan of concurrent runs never shares state.
  Plan plan(const Tensor* roi_t, const Tensor* scales_t, const Tensor* sizes_t) const {
    Plan out;
    const size_t r = xs_.rank();
    std::vector<double> scales = scales_in_ < 0 ? std::vector<double>(attr_scales_.begin(), attr_scales_.end()) : read_floats(scales_t);
    const std::vector<double> sizes = read_floats(sizes_t), roi = read_floats(roi_t);
    std::vector<double> len(r);  // the resized length as a real number (scale * in)
    if (!sizes.empty()) {
      if (sizes.size() != r) throw InvalidGraphError("Resize: sizes has " + std::to_string(sizes.size()) + " values for rank " + std::to_string(r) + where_);
      if (!scales.empty()) throw InvalidGraphError("Resize: both scales and sizes given" + where_);
      scales.resize(r);
      for (size_t d = 0; d < r; ++d) {
        if (static_cast<int64_t>(sizes[d]) != ys_[d])
          throw InvalidGraphError("Resize: sizes disagree with the output shape " + ys_.str() + where_);
        scales[d] = xs_[d] ? sizes[d] / static_cast<double>(xs_[d]) : 1.0;
        len[d] = sizes[d];
      }
    } else {
      if (scales.size() != r) throw InvalidGraphError("Resize: scales has " + std::to_string(scales.size()) + " values for rank " + std::to_string(r) + where_);
      for (size_t d = 0; d < r; ++d) {
        if (!(scales[d] > 0)) throw InvalidGraphError("Resize: scales must be positive" + where_);
        // ONNX: output = floor(in * scale). The reference widens the float32 scale as numpy does
        // (10 * 0.7f = 6.99999988 → 6); onnx's shape inference and ONNX Runtime multiply in float
        // (10.0f * 0.7f rounds to 7.0f → 7). The output shape came from that inference: either is
        // accepted.
        const float sf = static_cast<float>(scales[d]);
        const int64_t wide = static_cast<int64_t>(std::floor(static_cast<double>(sf) * static_cast<double>(xs_[d])));
        const int64_t narrow = static_cast<int64_t>(std::floor(sf * static_cast<float>(xs_[d])));
        if (wide != ys_[d] && narrow != ys_[d])
          throw InvalidGraphError("Resize: output shape " + ys_.str() + " disagrees with scales" + where_);
        len[d] = static_cast<double>(sf) * static_cast<double>(xs_[d]);
        scales[d] = sf;
      }
    }
    if (ctm_ == "tf_crop_and_resize" && roi.size() != 2 * r)
      throw InvalidGraphError("Resize: tf_crop_and_resize needs roi of " + std::to_string(2 * r) + " values" + where_);
    out.taps.assign(r, {});
    int64_t stride = 1;
    std::vector<int64_t> strides(r);
    for (size_t d = r; d-- > 0;) {
      strides[d] = stride;
      stride *= xs_[d];
    }
    auto taps_of = [&](size_t d, int64_t st) {
      return axis_taps(d, scales[d], len[d], roi.empty() ? 0.0 : roi[d], roi.empty() ? 1.0 : roi[d + r], st);
    };
    for (size_t d = 0; d < r; ++d) out.taps[d] = taps_of(d, strides[d]);
    out.py = ys_;
    if (!blocked_) return out;
    // NC1HWC0: channel c must read channel c only.
    const AxisTaps& tc = out.taps[1];
    for (int64_t c = 0; c < ys_[1]; ++c) {
      bool identity = !tc.outside[c];
      float self = 0;
      for (int j = 0; j < tc.n; ++j) {
        if (tc.off[c * tc.n + j] == c * strides[1]) self += tc.w[c * tc.n + j];
        else identity = identity && tc.w[c * tc.n + j] == 0.f;
      }
      if (!identity || self != 1.f)
        throw UnsupportedError("Resize: NC1HWC0 operands need the channels unchanged (scale 1 mapping each channel to itself)" + where_);
    }
    const int64_t C0 = 16, C1 = (xs_[1] + C0 - 1) / C0, H = xs_[2], Wd = xs_[3];
    out.py = Shape{ys_[0], C1, ys_[2], ys_[3], C0};
    auto identity = [](int64_t n, int64_t st) {
      AxisTaps t;
      t.n = 1;
      t.outside.assign(n, 0);
      t.w.assign(n, 1.f);
      for (int64_t i = 0; i < n; ++i) t.off.push_back(i * st);
      return t;
    };
    std::vector<AxisTaps> p(5);
    p[0] = taps_of(0, C1 * H * Wd * C0);
    p[1] = identity(C1, H * Wd * C0);
    p[2] = taps_of(2, Wd * C0);
    p[3] = taps_of(3, C0);
    p[4] = identity(C0, 1);
    out.taps.swap(p);
    return out;
  }

  /// onnx resize.py: interpolate_1d_with_x for every output index of axis d.
  AxisTaps axis_taps(size_t d, double scale, double out_len, double roi_start, double roi_end, int64_t stride) const {
    const int64_t in = xs_[d], out = ys_[d];
    AxisTaps t;
    t.n = mode_ == Mode::Nearest ? 1 : mode_ == Mode::Linear ? 2 : 4;
    t.off.assign(out * t.n, 0);
    t.w.assign(out * t.n, 0.f);
    t.outside.assign(out, 0);
    for (int64_t o = 0; o < out; ++o) {
      const double xr = static_cast<double>(o);
      double xo;
      if (ctm_ == "half_pixel") xo = (xr + 0.5) / scale - 0.5;
      else if (ctm_ == "pytorch_half_pixel") xo = out_len > 1 ? (xr + 0.5) / scale - 0.5 : -0.5;
      else if (ctm_ == "align_corners") xo = out_len == 1 ? 0.0 : xr * (in - 1) / (out_len - 1);
      else if (ctm_ == "asymmetric") xo = xr / scale;
      else if (ctm_ == "tf_half_pixel_for_nn") xo = (xr + 0.5) / scale;
      else {  // tf_crop_and_resize
        xo = out_len == 1 ? (roi_end - roi_start) * (in - 1) / 2.0 : xr * (roi_end - roi_start) * (in - 1) / (out_len - 1);
        xo += roi_start * (in - 1);
        if (xo < 0 || xo > in - 1) {
          t.outside[o] = 1;
          continue;
        }
      }
      auto clamp = [in](int64_t i) { return std::min<int64_t>(std::max<int64_t>(i, 0), in - 1); };
      const double fl = std::floor(xo);
      const double ratio = xo - fl;
      const int64_t i0 = static_cast<int64_t>(fl);
      int64_t* off = &t.off[o * t.n];
      float* w = &t.w[o * t.n];
      if (mode_ == Mode::Nearest) {
        int64_t i = i0;
        if (legacy_) {
          // Opset <= 10: floor when upsampling, ceil when downsampling (ONNX Runtime's "simple"
          // mode; the opset-10 spec example downsamples 4 -> 2 by 0.6 to indices 0 and 2).
          if (ratio != 0 && scale < 1) i = i0 + 1;
        } else if (ratio != 0) {
          if (nearest_mode_ == "round_prefer_floor") i = ratio <= 0.5 ? i0 : i0 + 1;
          else if (nearest_mode_ == "round_prefer_ceil") i = ratio < 0.5 ? i0 : i0 + 1;
          else if (nearest_mode_ == "ceil") i = i0 + 1;
        }
        off[0] = clamp(i) * stride;
        w[0] = 1.f;
        continue;
      }
      double c[4];
      int64_t first;
      if (mode_ == Mode::Linear) {
        c[0] = 1 - ratio;
        c[1] = ratio;
        first = i0;
      } else {  // Keys cubic convolution (resize.py cubic_coeffs), coefficient A
        const double A = cubic_a_, r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
        c[0] = ((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A;
        c[1] = ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1;
        c[2] = ((A + 2) * q - (A + 3)) * q * q + 1;
        c[3] = ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A;
        first = i0 - 1;
      }
      if (exclude_outside_) {
        double s = 0;
        for (int j = 0; j < t.n; ++j) {
          const int64_t i = first + j;
          if (i < 0 || i >= in) c[j] = 0;
          s += c[j];
        }
        for (int j = 0; j < t.n; ++j) c[j] = s != 0 ? c[j] / s : 0;
      }
      for (int j = 0; j < t.n; ++j) {
        off[j] = clamp(first + j) * stride;
        w[j] = static_cast<float>(c[j]);
      }
    }
    return t;
  }

  std::string where_, ctm_, nearest_mode_;
  Mode mode_ = Mode::Nearest;
  bool legacy_ = false, exclude_outside_ = false, planned_ = false, blocked_ = false;
  float cubic_a_ = -0.75f, extrapolation_ = 0.f;
  int roi_in_ = -1, scales_in_ = -1, sizes_in_ = -1;
  std::vector<float> attr_scales_;
  Shape xs_, ys_;  // logical input/output
  Plan plan_;      // when scales/sizes/roi are constant
};

}  // namespace

bool resize_supports_blocked(const Node& n, int64_t opset) {
  if (n.op_type() != "Resize" || opset < 11) return false;  // Upsample / Resize-10: plain (rare in new exports)
  const Value *x = n.input(0), *y = n.output(0);
  if (!x || !y || x->dtype != DataType::Float32 || x->shape.rank() != 4 || y->shape.rank() != 4 ||
      x->shape[0] != y->shape[0] || x->shape[1] != y->shape[1] || x->shape.numel() == 0)
    return false;
  const std::string ctm = n.attrs.get_string("coordinate_transformation_mode", "half_pixel");
  if (ctm == "tf_crop_and_resize" || ctm == "tf_half_pixel_for_nn") return false;
  for (size_t i = 1; i <= 3; ++i)
    if (n.input(i) && !n.input(i)->data) return false;  // run-time scales/sizes
  if (const Value* s = n.input(2); s && s->data && s->data->numel() == 4) {
    if (s->data->dtype() != DataType::Float32) return false;
    const float* v = s->data->data_as<float>();
    if (v[0] != 1.f || v[1] != 1.f) return false;  // a channel scale of 1 exactly
  }
  return true;
}

void register_resize_kernels(Registrar& r) {
  for (const char* op : {"Resize", "Upsample"})
    r.add_kernel(KernelDef{"cpu", "", op,
                           [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                             return std::make_unique<ResizeKernel>(ctx);
                           },
                           ""});
}

}  // namespace ge::cpu
