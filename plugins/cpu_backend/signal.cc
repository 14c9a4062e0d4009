// plugins/cpu_backend/signal.cc — ONNX signal ops of opset 17: HannWindow, HammingWindow,
// BlackmanWindow, MelWeightMatrix, DFT and STFT (float32 data; windows and MelWeightMatrix also
// float64 by output_datatype).
//
// Formulas (onnx/docs/Operators.md, opset 17):
//  - windows: w[n] = a0 - a1 cos(2πn/N) + a2 cos(4πn/N), N = size (periodic = 1) or size - 1;
//    Hann a0 = a1 = 0.5; Hamming a0 = 25/46, a1 = 21/46; Blackman a0 = 0.42, a1 = 0.5, a2 = 0.08.
//  - MelWeightMatrix: triangular filters between mel points spaced evenly from lower to upper
//    edge (mel = 2595 log10(1 + f/700)), num_mel_bins + 2 points, each mapped to the DFT bin
//    floor((dft_length + 1) * f / sample_rate) — the numbers of the spec's reference
//    (onnx/backend/test/case/node/melweightmatrix.py).
//  - DFT: X[k] = Σ_j x[j] e^{-2πi jk/n} along `axis` (inverse: e^{+2πi jk/n} / n); the signal is
//    zero-padded or cut to dft_length; onesided keeps bins 0 .. n/2. Input last dim 1 (real) or
//    2 (complex), output last dim 2.
//  - STFT: frames of frame_length every frame_step samples, each multiplied by the window and
//    transformed as DFT (onesided by default): output [batch, frames, bins, 2].
// The transforms are direct O(n²) sums with a twiddle table (double accumulation): exact enough
// and small next to a model's other work at these lengths; an FFT is left for when a model needs it.
#include <cmath>
#include <numbers>
#include <string>

#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

int64_t scalar_int(const Tensor& t, const std::string& what) {
  if (t.numel() != 1) throw InvalidGraphError(what + " must be a scalar");
  switch (t.dtype()) {
    case DataType::Int64: return t.data_as<int64_t>()[0];
    case DataType::Int32: return t.data_as<int32_t>()[0];
    default: throw UnsupportedError(what + ": dtype " + std::string(dtype_name(t.dtype())) + " (int32/int64 only)");
  }
}

double scalar_real(const Tensor& t, const std::string& what) {
  if (t.numel() != 1) throw InvalidGraphError(what + " must be a scalar");
  switch (t.dtype()) {
    case DataType::Float32: return t.data_as<float>()[0];
    case DataType::Float64: return t.data_as<double>()[0];
    case DataType::Int64: return static_cast<double>(t.data_as<int64_t>()[0]);
    case DataType::Int32: return t.data_as<int32_t>()[0];
    default: throw UnsupportedError(what + ": dtype " + std::string(dtype_name(t.dtype())));
  }
}

void store(Tensor& t, int64_t i, double v) {
  if (t.dtype() == DataType::Float64) t.data_as<double>()[i] = v;
  else t.data_as<float>()[i] = static_cast<float>(v);
}

void require_real_output(const KernelBuildContext& ctx) {
  const DataType dt = ctx.output_type(0);
  if (dt != DataType::Float32 && dt != DataType::Float64)
    throw UnsupportedError(ctx.node.op_type() + ": output dtype " + std::string(dtype_name(dt)) + " (float32/float64 only) in " + who(ctx));
}

class WindowKernel : public CpuKernel {
 public:
  WindowKernel(const KernelBuildContext& ctx, double a0, double a1, double a2) : CpuKernel(ctx), a0_(a0), a1_(a1), a2_(a2) {
    require_real_output(ctx);
    periodic_ = ctx.node.attrs.get_int("periodic", 1) != 0;
    op_ = ctx.node.op_type();
  }
  void run(KernelIO& io) override {
    const int64_t size = scalar_int(io.inputs[0], op_ + ": size");
    Tensor& y = io.outputs[0];
    if (y.numel() != size) throw Error(op_ + ": size " + std::to_string(size) + " differs from the output shape " + y.shape().str());
    const double N = periodic_ ? static_cast<double>(size) : static_cast<double>(size - 1);
    const double pi = std::numbers::pi;
    for (int64_t n = 0; n < size; ++n) {
      const double x = static_cast<double>(n) / N;
      store(y, n, a0_ - a1_ * std::cos(2 * pi * x) + a2_ * std::cos(4 * pi * x));
    }
  }
  std::string impl_name() const override { return "cpu:window"; }

 private:
  double a0_, a1_, a2_;
  bool periodic_ = true;
  std::string op_;
};

class MelWeightMatrixKernel : public CpuKernel {
 public:
  explicit MelWeightMatrixKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) { require_real_output(ctx); }
  void run(KernelIO& io) override {
    const int64_t mels = scalar_int(io.inputs[0], "MelWeightMatrix: num_mel_bins");
    const int64_t dft = scalar_int(io.inputs[1], "MelWeightMatrix: dft_length");
    const int64_t rate = scalar_int(io.inputs[2], "MelWeightMatrix: sample_rate");
    const double lo = scalar_real(io.inputs[3], "MelWeightMatrix: lower_edge_hertz");
    const double hi = scalar_real(io.inputs[4], "MelWeightMatrix: upper_edge_hertz");
    const int64_t bins = dft / 2 + 1;
    Tensor& y = io.outputs[0];
    if (y.shape() != Shape{bins, mels})
      throw Error("MelWeightMatrix: output shape " + y.shape().str() + " is not [" + std::to_string(bins) + ", " + std::to_string(mels) + "]");
    const double lo_mel = 2595 * std::log10(1 + lo / 700), hi_mel = 2595 * std::log10(1 + hi / 700);
    const double step = (hi_mel - lo_mel) / static_cast<double>(mels + 2);
    std::vector<int64_t> f(mels + 2);
    for (int64_t i = 0; i < mels + 2; ++i) {
      const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + lo_mel) / 2595) - 1);
      f[i] = static_cast<int64_t>(std::floor(static_cast<double>(dft + 1) * hz / static_cast<double>(rate)));
    }
    for (int64_t i = 0; i < y.numel(); ++i) store(y, i, 0);
    auto at = [&](int64_t j, int64_t i, double v) {
      if (j < 0 || j >= bins) throw Error("MelWeightMatrix: filter edge " + std::to_string(j) + " outside the " + std::to_string(bins) + " DFT bins");
      store(y, j * mels + i, v);
    };
    for (int64_t i = 0; i < mels; ++i) {
      const int64_t l = f[i], c = f[i + 1], h = f[i + 2];
      if (c == l) at(c, i, 1);
      else
        for (int64_t j = l; j <= c; ++j) at(j, i, static_cast<double>(j - l) / static_cast<double>(c - l));
      if (h > c)
        for (int64_t j = c; j < h; ++j) at(j, i, static_cast<double>(h - j) / static_cast<double>(h - c));
    }
  }
  std::string impl_name() const override { return "cpu:mel_weight_matrix"; }
};

/// One 1-D transform of `n` complex points read with stride `is` (re, im interleaved when
/// complex) into `bins` outputs written with stride `os` (re, im pairs).
struct Dft1d {
  int64_t n = 0, bins = 0;
  bool inverse = false;
  std::vector<double> cos_, sin_;
  void prepare(int64_t len, int64_t nbins, bool inv) {
    n = len;
    bins = nbins;
    inverse = inv;
    cos_.resize(n);
    sin_.resize(n);
    for (int64_t j = 0; j < n; ++j) {
      const double a = 2 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n);
      cos_[j] = std::cos(a);
      sin_[j] = std::sin(a);
    }
  }
  /// x(j) returns the complex input point j (zero past the signal).
  template <class F>
  void run(F&& x, float* out, int64_t os) const {
    const double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
    for (int64_t k = 0; k < bins; ++k) {
      double re = 0, im = 0;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t m = (j * k) % n;
        const auto [xr, xi] = x(j);
        const double c = cos_[m], s = sign * sin_[m];
        re += xr * c - xi * s;
        im += xr * s + xi * c;
      }
      out[k * os] = static_cast<float>(re * scale);
      out[k * os + 1] = static_cast<float>(im * scale);
    }
  }
};

class DftKernel : public CpuKernel {
 public:
  explicit DftKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    if (ctx.input_type(0) != DataType::Float32 || ctx.output_type(0) != DataType::Float32)
      throw UnsupportedError("DFT: dtype " + std::string(dtype_name(ctx.input_type(0))) + " (float32 only)" + where);
    xs_ = ctx.input_shape(0);
    ys_ = ctx.output_shape(0);
    const int64_t rank = static_cast<int64_t>(xs_.rank());
    if (rank < 3 || (xs_[rank - 1] != 1 && xs_[rank - 1] != 2)) throw InvalidGraphError("DFT: input must be [batch, ..., 1 or 2]" + where);
    axis_ = ctx.node.attrs.get_int("axis", 1);
    if (axis_ < 0) axis_ += rank;
    if (axis_ < 1 || axis_ >= rank - 1) throw InvalidGraphError("DFT: axis out of range" + where);
    inverse_ = ctx.node.attrs.get_int("inverse", 0) != 0;
    onesided_ = ctx.node.attrs.get_int("onesided", 0) != 0;
    if (ys_.rank() != xs_.rank() || ys_[rank - 1] != 2) throw InvalidGraphError("DFT: output must be [..., 2]" + where);
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const int64_t rank = static_cast<int64_t>(xs_.rank());
    int64_t n = xs_[axis_];
    if (io.inputs.size() > 1 && present(io.inputs[1])) n = scalar_int(io.inputs[1], "DFT: dft_length");
    const int64_t bins = onesided_ ? n / 2 + 1 : n;
    if (ys_[axis_] != bins) throw Error("DFT: output length " + std::to_string(ys_[axis_]) + " along the axis is not " + std::to_string(bins));
    Dft1d t;
    t.prepare(n, bins, inverse_);
    const int64_t comp = xs_[rank - 1];
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis_; ++i) outer *= xs_[i];
    for (int64_t i = axis_ + 1; i < rank - 1; ++i) inner *= xs_[i];
    const int64_t len = xs_[axis_];
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    parallel_for(outer * inner, [&](int64_t oi) {
      const int64_t o = oi / inner, i = oi % inner;
      const float* xp = x + (o * len * inner + i) * comp;
      float* yp = y + (o * bins * inner + i) * 2;
      t.run(
          [&](int64_t j) -> std::pair<double, double> {
            if (j >= len) return {0.0, 0.0};
            const float* p = xp + j * inner * comp;
            return {p[0], comp == 2 ? p[1] : 0.0};
          },
          yp, inner * 2);
    });
  }
  std::string impl_name() const override { return "cpu:dft"; }

 private:
  Shape xs_, ys_;
  int64_t axis_ = 1;
  bool inverse_ = false, onesided_ = false;
};

class StftKernel : public CpuKernel {
 public:
  explicit StftKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    if (ctx.input_type(0) != DataType::Float32 || ctx.output_type(0) != DataType::Float32 ||
        (ctx.has_input(2) && ctx.input_type(2) != DataType::Float32))
      throw UnsupportedError("STFT: dtype (float32 only)" + where);
    xs_ = ctx.input_shape(0);
    ys_ = ctx.output_shape(0);
    if (xs_.rank() != 3 || (xs_[2] != 1 && xs_[2] != 2)) throw InvalidGraphError("STFT: signal must be [batch, length, 1 or 2]" + where);
    if (ys_.rank() != 4 || ys_[3] != 2) throw InvalidGraphError("STFT: output must be [batch, frames, bins, 2]" + where);
    onesided_ = ctx.node.attrs.get_int("onesided", 1) != 0;
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const int64_t step = scalar_int(io.inputs[1], "STFT: frame_step");
    const bool has_window = io.inputs.size() > 2 && present(io.inputs[2]);
    int64_t flen = has_window ? io.inputs[2].numel() : -1;
    if (io.inputs.size() > 3 && present(io.inputs[3])) {
      const int64_t l = scalar_int(io.inputs[3], "STFT: frame_length");
      if (has_window && l != flen) throw Error("STFT: frame_length " + std::to_string(l) + " differs from the window's length");
      flen = l;
    }
    if (flen <= 0 || step <= 0) throw Error("STFT: frame_length or window, and a positive frame_step, are required");
    const int64_t B = xs_[0], L = xs_[1], comp = xs_[2];
    const int64_t frames = (L - flen) / step + 1, bins = onesided_ ? flen / 2 + 1 : flen;
    if (ys_ != Shape{B, frames, bins, 2}) throw Error("STFT: output shape " + ys_.str() + " is not [" + std::to_string(B) + ", " +
                                                       std::to_string(frames) + ", " + std::to_string(bins) + ", 2]");
    Dft1d t;
    t.prepare(flen, bins, false);
    const float* x = io.inputs[0].data_as<float>();
    const float* w = has_window ? io.inputs[2].data_as<float>() : nullptr;
    float* y = io.outputs[0].data_as<float>();
    parallel_for(B * frames, [&](int64_t bf) {
      const int64_t b = bf / frames, f = bf % frames;
      const float* xp = x + (b * L + f * step) * comp;
      t.run(
          [&](int64_t j) -> std::pair<double, double> {
            const double wj = w ? w[j] : 1.0;
            const float* p = xp + j * comp;
            return {p[0] * wj, comp == 2 ? p[1] * wj : 0.0};
          },
          y + bf * bins * 2, 2);
    });
  }
  std::string impl_name() const override { return "cpu:stft"; }

 private:
  Shape xs_, ys_;
  bool onesided_ = true;
};

}  // namespace

void register_signal_kernels(Registrar& r) {
  auto add = [&](const char* op, KernelFactory f) { r.add_kernel(KernelDef{"cpu", "", op, std::move(f), ""}); };
  add("HannWindow", [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<WindowKernel>(c, 0.5, 0.5, 0.0); });
  add("HammingWindow", [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> {
    return std::make_unique<WindowKernel>(c, 25.0 / 46.0, 21.0 / 46.0, 0.0);
  });
  add("BlackmanWindow", [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<WindowKernel>(c, 0.42, 0.5, 0.08); });
  add("MelWeightMatrix", [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<MelWeightMatrixKernel>(c); });
  add("DFT", [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<DftKernel>(c); });
  add("STFT", [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<StftKernel>(c); });
}

}  // namespace ge::cpu
