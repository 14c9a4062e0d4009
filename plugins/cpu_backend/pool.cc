// plugins/cpu_backend/pool.cc — ONNX MaxPool (with optional Indices), AveragePool,
// GlobalAveragePool and GlobalMaxPool, 1-D to 3-D, as direct loops. A 2-D float32 AveragePool
// without a ceil_mode window past the padding runs on oneDNN's pooling on NCHW instead
// (pool_blocked.cc): ShuffleNet v1's 3x3/s2 pools 156 -> 33 µs and its 7x7 one 111 -> 9 µs at
// 1 thread (gec profile); the direct loop calls a vector add per output row and kernel tap.
//
// Semantics (onnx/docs/Operators.md#MaxPool, #AveragePool; geometry in resolve_window):
//  - padded positions never win a max; AveragePool divides by the number of input elements in
//    the window (count_include_pad = 0) or by the window's positions inside the explicitly
//    padded input (count_include_pad = 1). Positions a ceil_mode window hangs past the end
//    padding are never counted — what ONNX's reference (pool_op_common.py, NaN-padded input)
//    and ONNX Runtime compute.
//  - MaxPool's Indices are offsets into the flattened input, row-major (storage_order = 0) or
//    column-major within each N·C plane (storage_order = 1), as in ONNX Runtime.
// A 1-D/2-D problem runs as 3-D with leading spatial extents of 1. The valid kernel range of
// every output position is computed once at build, so the inner loops have no bounds checks.
// A 1-D/2-D MaxPool without Indices runs separably (max_pool_rows): 3x3/2 on 64x112x112 at one
// thread 494 -> 252 µs, where oneDNN 2.6's NCHW pooling takes 357 µs (gec calibrate).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "blocked.h"
#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

enum class PoolKind { Max, Avg };

/// Per output position along one spatial dim: window start and the kernel index range that
/// falls inside the input [kb, ke) and the count of positions inside the padded input.
struct DimPlan {
  std::vector<int64_t> start, kb, ke, padded_count;
};

DimPlan plan_dim(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe) {
  DimPlan p;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t st = o * s - pb;
    int64_t kb = 0, ke = 0, cnt = 0;
    for (int64_t j = 0; j < k; ++j) {  // k is small: a direct scan is clearer than the algebra
      const int64_t pos = st + j * d;
      if (pos >= 0 && pos < in) {
        if (ke == 0 || kb >= ke) kb = j;
        ke = j + 1;
      }
      if (pos >= -pb && pos < in + pe) ++cnt;
    }
    if (ke <= kb) kb = ke = 0;
    p.start.push_back(st);
    p.kb.push_back(kb);
    p.ke.push_back(ke);
    p.padded_count.push_back(cnt);
  }
  return p;
}

class PoolKernel : public CpuKernel {
 public:
  PoolKernel(const KernelBuildContext& ctx, PoolKind kind, bool global) : CpuKernel(ctx), kind_(kind) {
    const std::string op = ctx.node.op_type(), where = " in " + who(ctx);
    require_plain(ctx);
    dtype_ = ctx.input_type(0);
    const bool max_types = dtype_ == DataType::Float32 || dtype_ == DataType::Float64 ||
                           dtype_ == DataType::Int8 || dtype_ == DataType::UInt8;
    const bool ok = kind == PoolKind::Max ? max_types : (dtype_ == DataType::Float32 || dtype_ == DataType::Float64);
    if (!ok)
      throw UnsupportedError(op + ": dtype " + std::string(dtype_name(dtype_)) + " not supported (" +
                             (kind == PoolKind::Max ? "float32, float64, int8, uint8" : "float32, float64") + " only)" + where);
    const Shape& xs = ctx.input_shape(0);
    if (xs.rank() < 3 || xs.rank() > 5)
      throw UnsupportedError(op + ": rank " + std::to_string(xs.rank()) + " input not supported (1-D to 3-D pooling only)" + where);
    const size_t r = xs.rank() - 2;
    std::vector<int64_t> spatial(xs.dims().begin() + 2, xs.dims().end());
    Window w;
    if (global) {
      w.in = spatial;
      w.kernel = spatial;
      w.stride = w.dilation = std::vector<int64_t>(r, 1);
      w.pad_begin = w.pad_end = std::vector<int64_t>(r, 0);
      w.out = std::vector<int64_t>(r, 1);
    } else {
      if (!ctx.node.attrs.has("kernel_shape")) throw InvalidGraphError(op + ": kernel_shape attribute missing" + where);
      w = resolve_window(ctx, op, spatial, ctx.node.attrs.get_ints("kernel_shape"), /*allow_ceil_mode=*/true);
    }
    count_include_pad_ = ctx.node.attrs.get_int("count_include_pad", 0) != 0;
    storage_order_ = ctx.node.attrs.get_int("storage_order", 0);
    Shape ys{xs[0], xs[1]};
    for (int64_t o : w.out) ys.dims().push_back(o);
    if (ys != ctx.output_shape(0))
      throw InvalidGraphError(op + ": output shape " + ctx.output_shape(0).str() + " differs from computed " + ys.str() + where);
    if (ctx.node.num_outputs() > 1 && ctx.node.output(1)) {
      if (kind != PoolKind::Max) throw InvalidGraphError(op + ": has a second output" + where);
      if (ctx.output_type(1) != DataType::Int64 || ctx.output_shape(1) != ys)
        throw InvalidGraphError(op + ": Indices output must be int64 " + ys.str() + where);
      indices_ = true;
    }
    planes_ = xs[0] * xs[1];
    // Pad to 3 spatial dims with leading extents of 1.
    const size_t lead = 3 - r;
    for (size_t i = 0; i < 3; ++i) {
      if (i < lead) {
        in_[i] = out_[i] = 1;
        dil_[i] = stride_[i] = kernel_[i] = 1;
        plan_[i] = plan_dim(1, 1, 1, 1, 1, 0, 0);
      } else {
        const size_t j = i - lead;
        in_[i] = w.in[j];
        out_[i] = w.out[j];
        dil_[i] = w.dilation[j];
        stride_[i] = w.stride[j];
        kernel_[i] = w.kernel[j];
        plan_[i] = plan_dim(w.in[j], w.out[j], w.kernel[j], w.stride[j], w.dilation[j], w.pad_begin[j], w.pad_end[j]);
      }
    }
    // Interior of the last dim: windows fully inside the input (a contiguous run of outputs).
    const DimPlan& p2 = plan_[2];
    lo2_ = out_[2];
    hi2_ = 0;
    for (int64_t o = 0; o < out_[2]; ++o)
      if (p2.kb[o] == 0 && p2.ke[o] == kernel_[2] && p2.start[o] >= 0 && p2.start[o] + (kernel_[2] - 1) * dil_[2] < in_[2]) {
        lo2_ = std::min(lo2_, o);
        hi2_ = o + 1;
      }
    if (hi2_ <= lo2_) lo2_ = hi2_ = 0;
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    switch (dtype_) {
      case DataType::Float32: return dispatch<float>(io);
      case DataType::Float64: return dispatch<double>(io);
      case DataType::Int8: return dispatch<int8_t>(io);
      case DataType::UInt8: return dispatch<uint8_t>(io);
      default: throw Error("pool: unexpected dtype");
    }
  }
  std::string impl_name() const override { return kind_ == PoolKind::Max ? "cpu:maxpool" : "cpu:avgpool"; }

 private:
  template <class T>
  void dispatch(KernelIO& io) {
    const T* x = io.inputs[0].data_as<T>();
    T* y = io.outputs[0].data_as<T>();
    int64_t* idx = indices_ ? io.outputs[1].data_as<int64_t>() : nullptr;
    if constexpr (std::is_floating_point_v<T>) {
      if (kind_ == PoolKind::Avg) return pool<T, PoolKind::Avg>(x, y, nullptr);
    }
    pool<T, PoolKind::Max>(x, y, idx);
  }

  template <class T, PoolKind K>
  void pool(const T* x, T* y, int64_t* idx) const {
    const int64_t I0 = in_[0], I1 = in_[1], I2 = in_[2], O0 = out_[0], O1 = out_[1], O2 = out_[2];
    const int64_t plane_in = I0 * I1 * I2, plane_out = O0 * O1 * O2;
    const int64_t d0 = dil_[0], d1 = dil_[1], d2 = dil_[2], st2 = stride_[2], K2 = kernel_[2];
    const DimPlan &p0 = plan_[0], &p1 = plan_[1], &p2 = plan_[2];
    const bool include_pad = count_include_pad_, col_major = storage_order_ != 0;
    if constexpr (K == PoolKind::Max) {
      if (!idx && O0 == 1) return max_pool_rows(x, y);
    }
    // Outputs along the last dim whose window lies fully inside the input: [lo, hi).
    const int64_t lo = idx ? O2 : lo2_, hi = idx ? O2 : hi2_;
    parallel_for(planes_, [&](int64_t pl) {
      const T* xp = x + pl * plane_in;
      T* yp = y + pl * plane_out;
      // One output position, any window (edges, Indices).
      auto one = [&](int64_t o0, int64_t o1, int64_t o2) {
        const int64_t s0 = p0.start[o0], s1 = p1.start[o1], s2 = p2.start[o2];
        const int64_t a0 = p0.kb[o0], b0 = p0.ke[o0], a1 = p1.kb[o1], b1 = p1.ke[o1], a2 = p2.kb[o2], b2 = p2.ke[o2];
        const int64_t oi = (o0 * O1 + o1) * O2 + o2;
        if constexpr (K == PoolKind::Max) {
          T best = std::numeric_limits<T>::lowest();
          int64_t arg = -1;
          for (int64_t k0 = a0; k0 < b0; ++k0)
            for (int64_t k1 = a1; k1 < b1; ++k1) {
              const int64_t i0 = s0 + k0 * d0, i1 = s1 + k1 * d1;
              const T* row = xp + (i0 * I1 + i1) * I2;
              for (int64_t k2 = a2; k2 < b2; ++k2) {
                const int64_t i2 = s2 + k2 * d2;
                if (row[i2] > best || arg < 0) {
                  best = row[i2];
                  arg = col_major ? i0 + i1 * I0 + i2 * I0 * I1 : (i0 * I1 + i1) * I2 + i2;
                }
              }
            }
          yp[oi] = best;
          if (idx) idx[pl * plane_out + oi] = arg < 0 ? -1 : pl * plane_in + arg;
        } else {
          T sum = 0;
          for (int64_t k0 = a0; k0 < b0; ++k0)
            for (int64_t k1 = a1; k1 < b1; ++k1) {
              const T* row = xp + ((s0 + k0 * d0) * I1 + (s1 + k1 * d1)) * I2 + s2;
              for (int64_t k2 = a2; k2 < b2; ++k2) sum += row[k2 * d2];
            }
          const int64_t n = include_pad ? p0.padded_count[o0] * p1.padded_count[o1] * p2.padded_count[o2]
                                        : (b0 - a0) * (b1 - a1) * (b2 - a2);
          yp[oi] = n > 0 ? sum / static_cast<T>(n) : T(0);
        }
      };
      for (int64_t o0 = 0; o0 < O0; ++o0)
        for (int64_t o1 = 0; o1 < O1; ++o1) {
          for (int64_t o2 = 0; o2 < std::min(lo, O2); ++o2) one(o0, o1, o2);
          for (int64_t o2 = std::max(hi, lo); o2 < O2; ++o2) one(o0, o1, o2);
          if (lo >= hi) continue;
          // Interior of the row: branch-free loops over output positions (the compiler keeps
          // them in registers / vectorizes), one pass per kernel tap.
          T* yr = yp + (o0 * O1 + o1) * O2;
          const T init = K == PoolKind::Max ? std::numeric_limits<T>::lowest() : T(0);
          for (int64_t o2 = lo; o2 < hi; ++o2) yr[o2] = init;
          const int64_t a0 = p0.kb[o0], b0 = p0.ke[o0], a1 = p1.kb[o1], b1 = p1.ke[o1];
          for (int64_t k0 = a0; k0 < b0; ++k0)
            for (int64_t k1 = a1; k1 < b1; ++k1) {
              const T* row = xp + ((p0.start[o0] + k0 * d0) * I1 + (p1.start[o1] + k1 * d1)) * I2;
              for (int64_t k2 = 0; k2 < K2; ++k2) {
                const T* src = row + p2.start[0] + k2 * d2;  // start[o2] = o2 * stride + start[0]
                if constexpr (std::is_same_v<T, float>) {  // vector loops (simd::)
                  if constexpr (K == PoolKind::Max) simd::max_strided(yr + lo, src + lo * st2, hi - lo, st2);
                  else simd::add_strided(yr + lo, src + lo * st2, hi - lo, st2);
                } else if constexpr (K == PoolKind::Max) {
                  for (int64_t o2 = lo; o2 < hi; ++o2) yr[o2] = src[o2 * st2] > yr[o2] ? src[o2 * st2] : yr[o2];
                } else {
                  for (int64_t o2 = lo; o2 < hi; ++o2) yr[o2] += src[o2 * st2];
                }
              }
            }
          if constexpr (K == PoolKind::Avg) {
            for (int64_t o2 = lo; o2 < hi; ++o2) {
              const int64_t n = include_pad ? p0.padded_count[o0] * p1.padded_count[o1] * p2.padded_count[o2]
                                            : (b0 - a0) * (b1 - a1) * K2;
              yr[o2] = n > 0 ? yr[o2] / static_cast<T>(n) : T(0);
            }
          }
        }
    });
  }

  /// 1-D/2-D MaxPool without Indices, separably: per output row, the column-wise max of the
  /// window's input rows into a row buffer padded with lowest() on both sides (contiguous, so it
  /// vectorizes and reads each input row K1/S1 times from cache instead of K1·K2 strided passes),
  /// then the row-wise strided max over the buffer. max is separable, and with lowest() as the
  /// padding value every output equals the direct loop's interior result: the max over the
  /// window's input elements, lowest() for a window with none; NaN never wins (x > y ? x : y),
  /// as in ONNX Runtime's MaxPool.
  template <class T>
  void max_pool_rows(const T* x, T* y) const {
    const int64_t I1 = in_[1], I2 = in_[2], O1 = out_[1], O2 = out_[2];
    const int64_t d1 = dil_[1], d2 = dil_[2], s2 = stride_[2], K2 = kernel_[2];
    const DimPlan& p1 = plan_[1];
    const int64_t pb = -plan_[2].start[0];  // begin padding of the last dim
    const int64_t width = std::max(pb + I2, (O2 - 1) * s2 + (K2 - 1) * d2 + 1);
    const T low = std::numeric_limits<T>::lowest();
    parallel_for(planes_, [&](int64_t pl) {
      const T* xp = x + pl * I1 * I2;
      T* yp = y + pl * O1 * O2;
      std::vector<T> buf(static_cast<size_t>(width), low);
      T* v = buf.data() + pb;
      for (int64_t o1 = 0; o1 < O1; ++o1) {
        const int64_t a1 = p1.kb[o1], b1 = p1.ke[o1];
        if (a1 >= b1) {
          std::fill(v, v + I2, low);
        } else {
          std::copy_n(xp + (p1.start[o1] + a1 * d1) * I2, I2, v);
          for (int64_t k1 = a1 + 1; k1 < b1; ++k1) max_into(v, xp + (p1.start[o1] + k1 * d1) * I2, I2, 1);
        }
        T* yr = yp + o1 * O2;
        std::fill(yr, yr + O2, low);
        for (int64_t k2 = 0; k2 < K2; ++k2) max_into(yr, buf.data() + k2 * d2, O2, s2);
      }
    });
  }
  template <class T>
  static void max_into(T* y, const T* src, int64_t n, int64_t stride) {
    if constexpr (std::is_same_v<T, float>) {
      simd::max_strided(y, src, n, stride);
    } else {
      for (int64_t i = 0; i < n; ++i) y[i] = src[i * stride] > y[i] ? src[i * stride] : y[i];
    }
  }

  PoolKind kind_;
  DataType dtype_;
  bool count_include_pad_ = false, indices_ = false;
  int64_t storage_order_ = 0, planes_ = 0;
  int64_t in_[3], out_[3], dil_[3], stride_[3], kernel_[3], lo2_ = 0, hi2_ = 0;
  DimPlan plan_[3];
};

/// GlobalAveragePool / GlobalMaxPool: a contiguous vector reduction per N·C plane.
class GlobalPoolKernel : public CpuKernel {
 public:
  GlobalPoolKernel(const KernelBuildContext& ctx, PoolKind kind) : CpuKernel(ctx), kind_(kind) {
    const std::string op = ctx.node.op_type(), where = " in " + who(ctx);
    require_plain(ctx);
    if (ctx.input_type(0) != DataType::Float32)
      throw UnsupportedError(op + ": dtype " + std::string(dtype_name(ctx.input_type(0))) + " not supported (float32 only)" + where);
    const Shape& xs = ctx.input_shape(0);
    if (xs.rank() < 2) throw InvalidGraphError(op + ": input rank < 2" + where);
    Shape ys{xs[0], xs[1]};
    for (size_t i = 2; i < xs.rank(); ++i) ys.dims().push_back(1);
    if (ys != ctx.output_shape(0))
      throw InvalidGraphError(op + ": output shape " + ctx.output_shape(0).str() + " differs from computed " + ys.str() + where);
    planes_ = xs[0] * xs[1];
    plane_ = planes_ ? xs.numel() / planes_ : 0;
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    const int64_t n = plane_;
    if (kind_ == PoolKind::Avg) {
      parallel_for(planes_, [&](int64_t p) {
        y[p] = n ? simd::sum(x + p * n, n) / static_cast<float>(n) : 0.0f;
      });
    } else {
      parallel_for(planes_, [&](int64_t p) {
        y[p] = simd::max(x + p * n, n);
      });
    }
  }
  std::string impl_name() const override { return kind_ == PoolKind::Max ? "cpu:globalmaxpool" : "cpu:globalavgpool"; }

 private:
  PoolKind kind_;
  int64_t planes_ = 0, plane_ = 0;
};

KernelDef def(const char* op, KernelFactory f) { return KernelDef{"cpu", "", op, onednn_factory(std::move(f)), ""}; }

}  // namespace

void register_pool_kernels(Registrar& r) {
  r.add_kernel(def("MaxPool", [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
    if (is_blocked(ctx.node.input(0))) return make_blocked_pool(ctx);
    return std::make_unique<PoolKernel>(ctx, PoolKind::Max, false);
  }));
  r.add_kernel(def("AveragePool", [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
    if (is_blocked(ctx.node.input(0))) return make_blocked_pool(ctx);
    require_plain(ctx);
    if (auto k = make_plain_onednn_avgpool(ctx)) return k;
    return std::make_unique<PoolKernel>(ctx, PoolKind::Avg, false);
  }));
  r.add_kernel(def("GlobalAveragePool", [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
    if (is_blocked(ctx.node.input(0))) return make_blocked_pool(ctx);
    return std::make_unique<GlobalPoolKernel>(ctx, PoolKind::Avg);
  }));
  r.add_kernel(def("GlobalMaxPool", [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
    if (is_blocked(ctx.node.input(0))) return make_blocked_pool(ctx);
    return std::make_unique<GlobalPoolKernel>(ctx, PoolKind::Max);
  }));
}

}  // namespace ge::cpu
