// plugins/cpu_backend/cpu_backend.h — the "cpu" Backend and helpers shared by the CPU kernels:
// thread control (OpenMP), the oneDNN engine/stream, dtype checks and the ONNX padding rules
// common to Conv and the pooling ops.
//
// Threads: a kernel uses its build context's budget (KernelBuildContext::threads; the runtime
// passes the count the backend got through Backend::set_threads), or the backend's count when
// the budget is not positive. OpenMP's thread count is a per-thread setting (ICV) and kernels
// may run on threads other than the one that configured it, so every kernel opens a
// ThreadScope around primitive creation and run() that applies its count to the calling thread
// (cheap when already set). oneDNN (OpenMP build) and parallel_for follow that setting.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <dnnl.hpp>

#include "ge/sdk/error.h"
#include "ge/sdk/kernel.h"

namespace ge::cpu {

// ---------------------------------------------------------------- backend and threads

class CpuBackend : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::string description() const override;
  void set_threads(int n) override;
};
std::shared_ptr<Backend> make_cpu_backend();

/// The count given to set_threads, or (never set) the OpenMP default.
int backend_threads();
void set_backend_threads(int n);
/// Threads a kernel built from ctx uses: ctx.threads when positive, else backend_threads().
int kernel_threads(const KernelBuildContext& ctx);

/// Applies n threads to the calling thread's OpenMP setting for the scope's lifetime.
class ThreadScope {
 public:
  explicit ThreadScope(int n);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;
  int threads() const { return n_; }

 private:
  int n_, saved_;
};

/// Base of the CPU kernels: remembers the kernel's thread count (kernel_threads(ctx)).
class CpuKernel : public Kernel {
 protected:
  explicit CpuKernel(const KernelBuildContext& ctx) : threads_(kernel_threads(ctx)) {}
  int threads_;
};

/// Runs f(i) for i in [0, n) on the calling thread's OpenMP thread count (set by a
/// ThreadScope), static schedule. Serial when one thread or n <= 1 (no OpenMP region overhead).
template <class F>
void parallel_for(int64_t n, F&& f) {
  const int nt = omp_get_max_threads();
  if (nt <= 1 || n <= 1) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t i = 0; i < n; ++i) f(i);
}

/// Like parallel_for but hands each thread one contiguous range [begin, end) — for loops whose
/// body is tiny (one element) so the per-index call would dominate.
template <class F>
void parallel_range(int64_t n, int64_t min_chunk, F&& f) {
  const int nt = omp_get_max_threads();
  const int64_t chunks = std::min<int64_t>(nt, (n + min_chunk - 1) / std::max<int64_t>(min_chunk, 1));
  if (chunks <= 1) {
    if (n > 0) f(int64_t{0}, n);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(static_cast<int>(chunks))
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
    if (b < e) f(b, e);
  }
}

// ---------------------------------------------------------------- vector loops

/// Float loops of the hand-written kernels. The build has no -march flag (portable binaries),
/// so these are compiled three times — AVX-512 (x86-64-v4), AVX2+FMA (x86-64-v3), baseline —
/// and the loader picks one for the CPU (GCC function multiversioning, target_clones).
namespace simd {
void fill(float* y, float v, int64_t n);
void axpy(float* y, const float* x, float a, int64_t n);                        ///< y += a*x
void axpy_strided(float* y, const float* x, float a, int64_t n, int64_t stride);  ///< y[i] += a*x[i*stride]
void max_strided(float* y, const float* x, int64_t n, int64_t stride);          ///< y[i] = max(y[i], x[i*stride])
void add_strided(float* y, const float* x, int64_t n, int64_t stride);          ///< y[i] += x[i*stride]
void add(float* y, const float* x, int64_t n);                                  ///< y += x
void scale(float* y, float a, int64_t n);                                       ///< y *= a
void affine(float* y, const float* x, float a, float b, int64_t n);             ///< y = a*x + b
void affine_vec(float* y, const float* x, const float* a, const float* b, int64_t n);  ///< y = a.*x + b
/// y = a.*x + b on n rows of 16 (one NC1HWC0 block): a and b hold the block's 16 channels.
void affine_c0(float* y, const float* x, const float* a, const float* b, int64_t n);
/// affine and affine_c0 followed by max(·, 0) (Relu; NaN stays NaN, as std::max(v, 0.f) keeps it).
void affine_relu(float* y, const float* x, float a, float b, int64_t n);
void affine_relu_c0(float* y, const float* x, const float* a, const float* b, int64_t n);
float sum(const float* x, int64_t n);
float max(const float* x, int64_t n);  ///< -inf for n == 0
/// y[i] = exp(x[i] - m) (y may be null: only the sum is wanted); returns the sum of those.
/// Cephes-style expf (range reduction by ln 2, degree-6 polynomial): relative error ~2e-7,
/// arguments below -87.3 (out of float's normal range) give 0. For softmax, x - m <= 0.
float exp_shifted(float* y, const float* x, float m, int64_t n);
}  // namespace simd

// ---------------------------------------------------------------- oneDNN

/// The process-wide CPU engine (thread-safe in oneDNN).
dnnl::engine& dnnl_engine();
/// A stream for the calling thread (oneDNN streams are not thread-safe; one per thread).
dnnl::stream& dnnl_stream();
/// The calling thread's scratchpad for a primitive built with scratchpad_mode::user, at least
/// `bytes` long (64-byte aligned, grown, never shrunk; null for 0). A thread runs one primitive at
/// a time. A user scratchpad is what lets a primitive run on a thread other than the one that
/// built it: the library's own scratchpad (oneDNN's default build) belongs to the building thread
/// (oneDNN, "enum dnnl::scratchpad_mode").
void* thread_scratchpad(size_t bytes);
/// Shape → oneDNN dims.
dnnl::memory::dims to_dims(const Shape& s);
/// Plain row-major format tag of a rank (a, ab, abc, ... = ncw/nchw/ncdhw for activations).
dnnl::memory::format_tag plain_tag(size_t rank);
/// A plain row-major f32 memory descriptor of a shape.
dnnl::memory::desc plain_md(const Shape& s);
/// Runs a reorder src → dst on the calling thread's stream and waits.
void reorder(dnnl::memory& src, dnnl::memory& dst);

/// Wraps oneDNN calls: a dnnl::error becomes ge::Error (or UnsupportedError when oneDNN has no
/// implementation) naming `what`.
[[noreturn]] void rethrow_dnnl(const dnnl::error& e, const std::string& what);

// ---------------------------------------------------------------- checks

/// "node 'conv1' (Conv)" prefix for messages.
std::string who(const KernelBuildContext& ctx);
/// `f` behind a check that no operand has a dimension above 2^31-1: oneDNN's primitive creation
/// and jit kernels compute extents and offsets in 32-bit ints (a Gemm dimension of 2^40 faulted
/// with SIGFPE inside it). For the factories of kernels built on oneDNN.
KernelFactory onednn_factory(KernelFactory f);
/// Throws UnsupportedError "<Op>: dtype <t> not supported (float32 only)" unless input i (when
/// present) and output 0 are float32.
void require_f32(const KernelBuildContext& ctx, std::initializer_list<size_t> inputs);
/// Throws UnsupportedError "<Op>: format <f> not supported (plain layouts only)" unless input 0
/// and output 0 are in a plain layout (ND or NCHW): the hand-written and oneDNN kernels here
/// read activations row-major in their logical shape.
void require_plain(const KernelBuildContext& ctx);
/// Constant float32 contents of input i, or null when not constant.
const float* const_f32(const KernelBuildContext& ctx, size_t i);
/// True when the optional input i is present in the node (and, at run time, bound).
inline bool present(const Tensor& t) { return t.data() != nullptr; }

// ---------------------------------------------------------------- windows (Conv, pools)

/// Resolved geometry of a sliding-window op over the spatial dims (ONNX Conv/MaxPool/AveragePool
/// attributes kernel_shape, strides, dilations, pads, auto_pad, ceil_mode).
struct Window {
  std::vector<int64_t> in, kernel, stride, dilation, pad_begin, pad_end, out;
  size_t rank() const { return in.size(); }
};

/// Computes the window geometry per the ONNX spec (Conv / MaxPool / AveragePool, "auto_pad" and
/// the output-size formulas):
///  NOTSET: out = floor_or_ceil((in + pb + pe - ((k-1)*d+1)) / s) + 1; with ceil_mode the last
///          window must start inside the input or the left padding (else out -= 1), as in
///          ONNX's reference and PyTorch.
///  SAME_UPPER/SAME_LOWER: out = ceil(in / s); total pad = max((out-1)*s + (k-1)*d+1 - in, 0),
///          the odd extra pad goes at the end (UPPER) or the beginning (LOWER).
///  VALID:  no padding, out = floor((in - ((k-1)*d+1)) / s) + 1.
/// `op` names the op in errors (InvalidGraphError for malformed attributes).
Window resolve_window(const KernelBuildContext& ctx, const std::string& op,
                      const std::vector<int64_t>& spatial_in, const std::vector<int64_t>& kernel,
                      bool allow_ceil_mode);

}  // namespace ge::cpu
