// plugins/cpu_backend/cpu_backend.cc — the "cpu" Backend, thread control, oneDNN plumbing and
// the ONNX sliding-window geometry shared by Conv and the pools.
#include "cpu_backend.h"

#include <atomic>
#include <bit>
#include <cstdlib>
#include <limits>

namespace ge::cpu {

namespace {
std::atomic<int> g_threads{0};  // 0 = never set: use the OpenMP default
}

int backend_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : omp_get_max_threads();
}

void set_backend_threads(int n) { g_threads.store(n > 0 ? n : 0, std::memory_order_relaxed); }

std::string CpuBackend::description() const {
  const dnnl_version_t* v = dnnl_version();
  return "cpu: host execution (oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) +
         "." + std::to_string(v->patch) + ", OpenMP, " + std::to_string(backend_threads()) + " threads)";
}

void CpuBackend::set_threads(int n) {
  set_backend_threads(n);
  // Also the calling thread's OpenMP setting, for code that does not open a ThreadScope.
  if (n > 0) omp_set_num_threads(n);
}

std::shared_ptr<Backend> make_cpu_backend() { return std::make_shared<CpuBackend>(); }

int kernel_threads(const KernelBuildContext& ctx) { return ctx.threads > 0 ? ctx.threads : backend_threads(); }

ThreadScope::ThreadScope(int n) : n_(n > 0 ? n : 1), saved_(omp_get_max_threads()) {
  if (n_ != saved_) omp_set_num_threads(n_);
}
ThreadScope::~ThreadScope() {
  if (n_ != saved_) omp_set_num_threads(saved_);
}

// ---------------------------------------------------------------- vector loops

#define GE_SIMD __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
namespace simd {
GE_SIMD void fill(float* __restrict y, float v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = v;
}
GE_SIMD void axpy(float* __restrict y, const float* __restrict x, float a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}
GE_SIMD void axpy_strided(float* __restrict y, const float* __restrict x, float a, int64_t n, int64_t s) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i * s];
}
GE_SIMD void max_strided(float* __restrict y, const float* __restrict x, int64_t n, int64_t s) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i * s] > y[i] ? x[i * s] : y[i];
}
GE_SIMD void add_strided(float* __restrict y, const float* __restrict x, int64_t n, int64_t s) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i * s];
}
GE_SIMD void add(float* __restrict y, const float* __restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}
GE_SIMD void scale(float* __restrict y, float a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] *= a;
}
GE_SIMD void affine(float* __restrict y, const float* __restrict x, float a, float b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a * x[i] + b;
}
GE_SIMD void affine_vec(float* __restrict y, const float* __restrict x, const float* __restrict a,
                        const float* __restrict b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] * x[i] + b[i];
}
GE_SIMD void affine_c0(float* __restrict y, const float* __restrict x, const float* __restrict a,
                       const float* __restrict b, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < 16; ++c) y[i * 16 + c] = a[c] * x[i * 16 + c] + b[c];
}
GE_SIMD void affine_relu(float* __restrict y, const float* __restrict x, float a, float b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::max(a * x[i] + b, 0.f);
}
GE_SIMD void affine_relu_c0(float* __restrict y, const float* __restrict x, const float* __restrict a,
                            const float* __restrict b, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < 16; ++c) y[i * 16 + c] = std::max(a[c] * x[i * 16 + c] + b[c], 0.f);
}
// 16 partial sums: vectorizes without -ffast-math (no reassociation of one chain) and rounds
// less than a single running sum.
GE_SIMD float sum(const float* __restrict x, int64_t n) {
  float acc[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) acc[j] += x[i + j];
  float s = 0;
  for (; i < n; ++i) s += x[i];
  for (int j = 0; j < 16; ++j) s += acc[j];
  return s;
}
GE_SIMD float max(const float* __restrict x, int64_t n) {
  float m[16];
  for (int j = 0; j < 16; ++j) m[j] = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) m[j] = x[i + j] > m[j] ? x[i + j] : m[j];
  float r = -std::numeric_limits<float>::infinity();
  for (; i < n; ++i) r = x[i] > r ? x[i] : r;
  for (int j = 0; j < 16; ++j) r = m[j] > r ? m[j] : r;
  return r;
}
GE_SIMD float exp_shifted(float* __restrict y, const float* __restrict x, float m, int64_t n) {
  float acc[16] = {};
  int64_t i = 0;
  // Branch-free so the loop vectorizes: round via the 1.5 * 2^23 magic constant, build 2^k from
  // the exponent bits.
  auto one = [m](float v) {
    const float t0 = v - m;
    const float t = t0 < -87.3f ? -87.3f : (t0 > 88.7f ? 88.7f : t0);
    const float magic = 12582912.0f;  // 1.5 * 2^23
    const float kf = t * 1.44269504088896341f + magic;
    const int32_t k = std::bit_cast<int32_t>(kf) - std::bit_cast<int32_t>(magic);
    const float kr = kf - magic;
    const float r = t - kr * 0.693359375f + kr * 2.12194440e-4f;  // t - k*ln2 (Cody-Waite)
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    // Below -87.3 exp leaves float's normal range: 0, not the clamp's 1.2e-38, which the
    // softmax's normalization would make subnormal (an FP assist per use on Intel cores).
    return t0 < -87.3f ? 0.0f : p * std::bit_cast<float>((k + 127) << 23);
  };
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) {
      const float e = one(x[i + j]);
      if (y) y[i + j] = e;
      acc[j] += e;
    }
  float s = 0;
  for (; i < n; ++i) {
    const float e = one(x[i]);
    if (y) y[i] = e;
    s += e;
  }
  for (int j = 0; j < 16; ++j) s += acc[j];
  return s;
}
}  // namespace simd
#undef GE_SIMD

// ---------------------------------------------------------------- oneDNN

dnnl::engine& dnnl_engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::stream& dnnl_stream() {
  thread_local dnnl::stream s(dnnl_engine());
  return s;
}

// One buffer per thread serves every primitive it runs: a buffer per kernel summed them
// (unet_small's Winograd convs at batch 8 held 118 MB of scratchpads, more than the rest of the run).
void* thread_scratchpad(size_t bytes) {
  struct Buffer {
    void* p = nullptr;
    size_t n = 0;
    ~Buffer() { std::free(p); }
  };
  thread_local Buffer b;
  if (bytes > b.n) {
    std::free(b.p);
    b.p = nullptr, b.n = 0;
    const size_t rounded = (bytes + 63) / 64 * 64;
    b.p = std::aligned_alloc(64, rounded);
    if (!b.p) throw std::bad_alloc();
    b.n = rounded;
  }
  return bytes ? b.p : nullptr;
}

dnnl::memory::dims to_dims(const Shape& s) { return dnnl::memory::dims(s.dims().begin(), s.dims().end()); }

dnnl::memory::format_tag plain_tag(size_t rank) {
  using tag = dnnl::memory::format_tag;
  static const tag tags[] = {tag::undef, tag::a,      tag::ab,      tag::abc,      tag::abcd,
                             tag::abcde, tag::abcdef, tag::abcdefg, tag::abcdefgh, tag::abcdefghi,
                             tag::abcdefghij, tag::abcdefghijk, tag::abcdefghijkl};
  if (rank == 0 || rank > 12) throw UnsupportedError("oneDNN: rank " + std::to_string(rank) + " not supported");
  return tags[rank];
}

dnnl::memory::desc plain_md(const Shape& s) {
  if (s.rank() == 0) return dnnl::memory::desc({1}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  return dnnl::memory::desc(to_dims(s), dnnl::memory::data_type::f32, plain_tag(s.rank()));
}

void reorder(dnnl::memory& src, dnnl::memory& dst) {
  dnnl::stream& s = dnnl_stream();
  dnnl::reorder(src, dst).execute(s, src, dst);
  s.wait();
}

void rethrow_dnnl(const dnnl::error& e, const std::string& what) {
  if (e.status == dnnl_unimplemented)
    throw UnsupportedError(what + ": no oneDNN implementation for this configuration");
  throw Error(what + ": oneDNN error: " + e.what());
}

// ---------------------------------------------------------------- checks

std::string who(const KernelBuildContext& ctx) { return ctx.node.describe(); }

void require_f32(const KernelBuildContext& ctx, std::initializer_list<size_t> inputs) {
  auto check = [&](DataType t) {
    if (t != DataType::Float32)
      throw UnsupportedError(ctx.node.op_type() + ": dtype " + std::string(dtype_name(t)) +
                             " not supported (float32 only) in " + who(ctx));
  };
  for (size_t i : inputs)
    if (ctx.has_input(i)) check(ctx.input_type(i));
  check(ctx.output_type(0));
}

KernelFactory onednn_factory(KernelFactory f) {
  return [f = std::move(f)](const KernelBuildContext& ctx) {
    auto check = [&](const Value* v) {
      if (!v) return;
      for (int64_t d : v->shape.dims())
        if (d > std::numeric_limits<int32_t>::max())
          throw UnsupportedError(ctx.node.op_type() + ": value '" + v->name() + "' of shape " + v->shape.str() +
                                 " has a dimension above 2^31-1, which oneDNN does not handle, in " + who(ctx));
    };
    for (const Value* v : ctx.node.inputs()) check(v);
    for (const Value* v : ctx.node.outputs()) check(v);
    return f(ctx);
  };
}

void require_plain(const KernelBuildContext& ctx) {
  auto check = [&](const Value* v) {
    if (v && v->format != Format::ND && v->format != Format::NCHW)
      throw UnsupportedError(ctx.node.op_type() + ": format " + std::string(format_name(v->format)) +
                             " not supported (plain layouts only) in " + who(ctx));
  };
  check(ctx.node.input(0));
  check(ctx.node.output(0));
}

const float* const_f32(const KernelBuildContext& ctx, size_t i) {
  const Tensor* t = ctx.input_data(i);
  if (!t || t->dtype() != DataType::Float32 || t->data() == nullptr) return nullptr;
  return t->data_as<float>();
}

// ---------------------------------------------------------------- windows

Window resolve_window(const KernelBuildContext& ctx, const std::string& op,
                      const std::vector<int64_t>& spatial_in, const std::vector<int64_t>& kernel,
                      bool allow_ceil_mode) {
  const Attributes& a = ctx.node.attrs;
  const size_t r = spatial_in.size();
  auto bad = [&](const std::string& m) { throw InvalidGraphError(op + ": " + m + " in " + who(ctx)); };
  Window w;
  w.in = spatial_in;
  w.kernel = kernel;
  if (w.kernel.size() != r) bad("kernel_shape has " + std::to_string(w.kernel.size()) + " dims, expected " + std::to_string(r));
  w.stride = a.get_ints("strides", std::vector<int64_t>(r, 1));
  w.dilation = a.get_ints("dilations", std::vector<int64_t>(r, 1));
  if (w.stride.size() != r) bad("strides must have " + std::to_string(r) + " values");
  if (w.dilation.size() != r) bad("dilations must have " + std::to_string(r) + " values");
  for (size_t i = 0; i < r; ++i) {
    if (w.kernel[i] <= 0) bad("kernel_shape values must be positive");
    if (w.stride[i] <= 0) bad("strides must be positive");
    if (w.dilation[i] <= 0) bad("dilations must be positive");
  }
  const bool ceil_mode = allow_ceil_mode && a.get_int("ceil_mode", 0) != 0;
  std::string auto_pad = a.get_string("auto_pad", "NOTSET");
  w.pad_begin.assign(r, 0);
  w.pad_end.assign(r, 0);
  w.out.assign(r, 0);
  for (size_t i = 0; i < r; ++i) {
    const int64_t ek = (w.kernel[i] - 1) * w.dilation[i] + 1;  // effective (dilated) extent
    const int64_t in = w.in[i], s = w.stride[i];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      w.out[i] = (in + s - 1) / s;
      int64_t total = std::max<int64_t>((w.out[i] - 1) * s + ek - in, 0);
      int64_t small = total / 2, big = total - small;
      w.pad_begin[i] = auto_pad == "SAME_UPPER" ? small : big;
      w.pad_end[i] = total - w.pad_begin[i];
    } else if (auto_pad == "VALID") {
      if (in < ek) bad("kernel larger than the input with auto_pad VALID");
      w.out[i] = (in - ek) / s + 1;
    } else if (auto_pad == "NOTSET" || auto_pad.empty()) {
      std::vector<int64_t> pads = a.get_ints("pads", std::vector<int64_t>(2 * r, 0));
      if (pads.size() != 2 * r) bad("pads must have " + std::to_string(2 * r) + " values");
      w.pad_begin[i] = pads[i];
      w.pad_end[i] = pads[i + r];
      if (pads[i] < 0 || pads[i + r] < 0) bad("negative pads");
      const int64_t span = in + pads[i] + pads[i + r] - ek;
      if (span < 0) bad("kernel larger than the padded input");
      w.out[i] = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
      // ceil_mode: the last window must start inside the input or the left padding.
      if (ceil_mode && (w.out[i] - 1) * s >= in + pads[i]) --w.out[i];
    } else {
      bad("auto_pad '" + auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    }
  }
  return w;
}

}  // namespace ge::cpu
