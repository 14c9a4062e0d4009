// plugins/cpu_backend/rnn.cc — ONNX RNN, GRU and LSTM (opsets 7, 14), float32: every direction,
// sequence_lens, initial states, all outputs, layout 0 and 1, clip, activations with
// activation_alpha/beta, LSTM peepholes and input_forget, GRU linear_before_reset both ways.
//
// Equations (onnx/docs/Operators.md#LSTM, #GRU, #RNN; gate order iofc, zrh):
//   LSTM: i = f(X Wi + H Ri + Pi.C + Wbi + Rbi), f = f(X Wf + H Rf + Pf.C + Wbf + Rbf),
//         c = g(X Wc + H Rc + Wbc + Rbc), C' = f.C + i.c, o = f(X Wo + H Ro + Po.C' + Wbo + Rbo),
//         H' = o.h(C'); input_forget couples f = 1 - i (as ONNX Runtime).
//   GRU:  z = f(X Wz + H Rz + Wbz + Rbz), r = f(X Wr + H Rr + Wbr + Rbr),
//         h = g(X Wh + (r.H) Rh + Rbh + Wbh)        (linear_before_reset = 0)
//         h = g(X Wh + r.(H Rh + Rbh) + Wbh)        (linear_before_reset = 1),  H' = (1-z).h + z.H
//   RNN:  H' = f(X Wi + H Ri + Wbi + Rbi)
// clip bounds every gate's pre-activation to [-clip, clip] (ONNX Runtime's reading). Batch
// entry b runs sequence_lens[b] steps (the reverse direction from its own last step down); Y is
// zero past them and Y_h/Y_c hold the state after the last step.
//
// oneDNN's RNN primitives (vanilla_rnn, vanilla_lstm, vanilla_gru, lbr_gru) do not cover
// sequence_lens, clip, input_forget, the ONNX activation list or the GRU without
// linear_before_reset on vanilla_gru's gate order alone, so this is a direct kernel: the input
// projection X·Wᵀ for all steps in one oneDNN sgemm, then per step H·Rᵀ (a dot product per gate row).
// The default LSTM cell (sigmoid/tanh/tanh, no peepholes, clip or input_forget; what PyTorch and
// Keras export) keeps Rᵀ (transposed once at build when R is constant) so that R·h streams rows of
// Rᵀ as vector FMAs, and evaluates its gates in bulk with vecmath (lstm2: 0.82 -> 0.31 ms).
#include <immintrin.h>
#include <omp.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>

#include "cpu_backend.h"
#include "kernels.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {

enum class Cell { RNN, GRU, LSTM };

#define GE_RNN_SIMD __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
GE_RNN_SIMD float dot(const float* __restrict a, const float* __restrict b, int64_t n) {
  float s = 0.f;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// With AVX-512 and kn a multiple of 16: the four gates' partial sums for up to 64 hidden units
// (16 vectors) stay in registers across the H-long sum over m, and Rᵀ's rows stream through
// once (the plain loop below keeps g in memory). Each element is xg + Σ_m h[m]·RT[m][·]
// accumulated in m order by fused multiply-adds, whichever part of the hidden units a thread
// takes: one and two threads agree. lstm2 (H = 128): 0.148 → 0.101 ms at 2 threads, 0.169 →
// 0.163 at one.
#define GE_RNN_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))
template <int NV>
GE_RNN_AVX512 void lstm_gates_block(const float* __restrict rt, const float* __restrict h, const float* __restrict xg,
                                    int64_t H, int64_t c, float* __restrict g) {
  const int64_t GH = 4 * H;
  __m512 acc[4][NV];
#pragma GCC unroll 16
  for (int q = 0; q < 4; ++q)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[q][v] = _mm512_loadu_ps(xg + q * H + c + 16 * v);
  for (int64_t m = 0; m < H; ++m) {
    const __m512 hm = _mm512_set1_ps(h[m]);
    const float* row = rt + m * GH + c;
#pragma GCC unroll 16
    for (int q = 0; q < 4; ++q)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[q][v] = _mm512_fmadd_ps(hm, _mm512_loadu_ps(row + q * H + 16 * v), acc[q][v]);
  }
#pragma GCC unroll 16
  for (int q = 0; q < 4; ++q)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) _mm512_storeu_ps(g + q * H + c + 16 * v, acc[q][v]);
}

GE_RNN_AVX512 void lstm_gates_avx512(const float* rt, const float* h, const float* xg, int64_t H, int64_t k0,
                                     int64_t kn, float* g) {
  int64_t c = k0;
  const int64_t end = k0 + kn;
  for (; c + 64 <= end; c += 64) lstm_gates_block<4>(rt, h, xg, H, c, g);
  switch ((end - c) / 16) {
    case 3: lstm_gates_block<3>(rt, h, xg, H, c, g); break;
    case 2: lstm_gates_block<2>(rt, h, xg, H, c, g); break;
    case 1: lstm_gates_block<1>(rt, h, xg, H, c, g); break;
    default: break;
  }
}

GE_RNN_SIMD void lstm_gates_plain(const float* __restrict rt, const float* __restrict h, const float* __restrict xg,
                                  int64_t H, int64_t k0, int64_t kn, float* __restrict g) {
  const int64_t GH = 4 * H;
  for (int64_t q = 0; q < 4; ++q) std::memcpy(g + q * H + k0, xg + q * H + k0, sizeof(float) * kn);
  for (int64_t m = 0; m < H; ++m) {
    const float hm = h[m];
    const float* row = rt + m * GH + k0;
    for (int64_t q = 0; q < 4; ++q) {
      float* gq = g + q * H + k0;
      const float* rq = row + q * H;
      for (int64_t k = 0; k < kn; ++k) gq[k] += hm * rq[k];
    }
  }
}

/// g[q·H + k] = xg[q·H + k] + Σ_m h[m] · RT[m·GH + q·H + k] for the four gates q and k in
/// [k0, k0 + kn) (one thread's hidden units; all of them at one thread): R · h with R stored
/// transposed (RT [H, 4H]), so that each step streams RT's rows as vector FMAs into g instead of
/// reducing one dot per row.
void lstm_gates_part(const float* rt, const float* h, const float* xg, int64_t H, int64_t k0, int64_t kn, float* g) {
  if (vec::has_avx512() && kn % 16 == 0) return lstm_gates_avx512(rt, h, xg, H, k0, kn, g);
  lstm_gates_plain(rt, h, xg, H, k0, kn, g);
}

/// Two threads meeting once per step: each publishes the step it finished and spins (then yields)
/// until the other has finished it too. An OpenMP barrier costs ~0.2 µs on this machine kind
/// (20 µs under OMP_WAIT_POLICY=PASSIVE); this one ~0.05 µs.
struct StepBarrier {
  alignas(64) std::atomic<int64_t> done[2] = {0, 0};
  alignas(64) char pad[64];
  void arrive_and_wait(int me, int64_t step) {
    done[me].store(step, std::memory_order_release);
    for (int spins = 0; done[1 - me].load(std::memory_order_acquire) < step; ++spins) {
      if (spins < 4096) {
        __builtin_ia32_pause();
      } else {
        std::this_thread::yield();
      }
    }
  }
};

/// One ONNX RNN activation function with its alpha/beta (Operators.md#RNN, "Activation functions").
struct Act {
  enum Kind { Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus } k;
  float alpha = 0, beta = 0;
  float operator()(float x) const {
    switch (k) {
      case Relu: return x > 0 ? x : 0;
      case Tanh: return std::tanh(x);
      case Sigmoid: return 1.f / (1.f + std::exp(-x));
      case Affine: return alpha * x + beta;
      case LeakyRelu: return x >= 0 ? x : alpha * x;
      case ThresholdedRelu: return x > alpha ? x : 0;
      case ScaledTanh: return alpha * std::tanh(beta * x);
      case HardSigmoid: return std::max(0.f, std::min(1.f, alpha * x + beta));
      case Elu: return x >= 0 ? x : alpha * (std::exp(x) - 1);
      case Softsign: return x / (1 + std::fabs(x));
      case Softplus: return std::log1p(std::exp(x));
    }
    return x;
  }
};

class RecurrentKernel : public CpuKernel {
 public:
  RecurrentKernel(const KernelBuildContext& ctx, Cell cell) : CpuKernel(ctx), cell_(cell) {
    const std::string op = ctx.node.op_type();
    const std::string where = " in " + who(ctx);
    auto bad = [&](const std::string& m) { throw InvalidGraphError(op + ": " + m + where); };
    // require_f32 reads output 0, which is optional here (Y omitted: outputs ['', 'Y_h']).
    for (size_t i : {0, 1, 2, 3, 5, 6, 7})
      if (ctx.has_input(i) && ctx.input_type(i) != DataType::Float32)
        throw UnsupportedError(op + ": dtype " + std::string(dtype_name(ctx.input_type(i))) + " of input " +
                               std::to_string(i) + " not supported (float32 only)" + where);
    const Attributes& a = ctx.node.attrs;
    gates_ = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
    const std::string dir = a.get_string("direction", "forward");
    if (dir != "forward" && dir != "reverse" && dir != "bidirectional") bad("direction '" + dir + "'");
    dirs_ = dir == "bidirectional" ? 2 : 1;
    reverse_only_ = dir == "reverse";
    layout_ = a.get_int("layout", 0);
    if (layout_ != 0 && layout_ != 1) bad("layout must be 0 or 1");
    clip_ = a.has("clip") ? a.get_float("clip", 0.f) : 0.f;
    has_clip_ = a.has("clip");
    input_forget_ = a.get_int("input_forget", 0) != 0;
    lbr_ = a.get_int("linear_before_reset", 0) != 0;
    const Shape& xs = ctx.input_shape(0);
    if (xs.rank() != 3) bad("X must be rank 3, got " + xs.str());
    T_ = layout_ ? xs[1] : xs[0];
    B_ = layout_ ? xs[0] : xs[1];
    I_ = xs[2];
    const Shape& ws = ctx.input_shape(1);
    const Shape& rs = ctx.input_shape(2);
    H_ = a.get_int("hidden_size", rs.rank() == 3 ? rs[2] : 0);
    const int64_t GH = gates_ * H_;
    if (ws != Shape{dirs_, GH, I_}) bad("W shape " + ws.str() + " is not [" + std::to_string(dirs_) + ", " + std::to_string(GH) + ", " + std::to_string(I_) + "]");
    if (rs != Shape{dirs_, GH, H_}) bad("R shape " + rs.str() + " is not [" + std::to_string(dirs_) + ", " + std::to_string(GH) + ", " + std::to_string(H_) + "]");
    if (ctx.has_input(3) && ctx.input_shape(3) != Shape{dirs_, 2 * GH}) bad("B shape " + ctx.input_shape(3).str());
    if (cell == Cell::LSTM)
      if (const float* rc = const_f32(ctx, 2)) transpose_r(rc, rt_);
    if (ctx.has_input(4)) {
      if (ctx.input_type(4) != DataType::Int32) throw UnsupportedError(op + ": sequence_lens dtype " + std::string(dtype_name(ctx.input_type(4))) + " (int32 only)" + where);
      if (ctx.input_shape(4) != Shape{B_}) bad("sequence_lens shape " + ctx.input_shape(4).str());
    }
    const Shape state = layout_ ? Shape{B_, dirs_, H_} : Shape{dirs_, B_, H_};
    if (ctx.has_input(5) && ctx.input_shape(5) != state) bad("initial_h shape " + ctx.input_shape(5).str() + " is not " + state.str());
    if (cell == Cell::LSTM) {
      if (ctx.has_input(6) && ctx.input_shape(6) != state) bad("initial_c shape " + ctx.input_shape(6).str());
      if (ctx.has_input(7) && ctx.input_shape(7) != Shape{dirs_, 3 * H_}) bad("P shape " + ctx.input_shape(7).str());
    }
    const Shape yshape = layout_ ? Shape{B_, T_, dirs_, H_} : Shape{T_, dirs_, B_, H_};
    for (size_t i = 0; i < ctx.node.num_outputs(); ++i) {
      if (!ctx.node.output(i)) continue;
      if (i > (cell == Cell::LSTM ? 2u : 1u)) bad("too many outputs");
      if (ctx.output_type(i) != DataType::Float32) throw UnsupportedError(op + ": output dtype (float32 only)" + where);
      const Shape& want = i == 0 ? yshape : state;
      if (ctx.output_shape(i) != want) bad("output " + std::to_string(i) + " shape " + ctx.output_shape(i).str() + " is not " + want.str());
    }
    // Activations: defaults per cell, one list per direction.
    std::vector<std::string> defaults = cell == Cell::LSTM ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                      : cell == Cell::GRU  ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                           : std::vector<std::string>{"Tanh"};
    std::vector<std::string> names;
    if (const AttrValue* v = a.find("activations")) {
      const auto* list = std::get_if<std::vector<std::string>>(v);
      if (!list) bad("activations must be a list of strings");
      names = *list;
    }
    if (names.empty())
      for (int64_t d = 0; d < dirs_; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
    if (names.size() == defaults.size() && dirs_ == 2) names.insert(names.end(), names.begin(), names.end());
    if (names.size() != defaults.size() * static_cast<size_t>(dirs_))
      bad("activations has " + std::to_string(names.size()) + " entries, expected " + std::to_string(defaults.size() * dirs_));
    const std::vector<float> alphas = a.get_floats("activation_alpha"), betas = a.get_floats("activation_beta");
    size_t ai = 0, bi = 0;
    for (const std::string& n : names) {
      Act f{Act::Tanh};
      std::string l;
      for (char c : n) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto alpha = [&](float d) { return ai < alphas.size() ? alphas[ai++] : d; };
      auto beta = [&](float d) { return bi < betas.size() ? betas[bi++] : d; };
      if (l == "relu") f.k = Act::Relu;
      else if (l == "tanh") f.k = Act::Tanh;
      else if (l == "sigmoid") f.k = Act::Sigmoid;
      else if (l == "affine") { f.k = Act::Affine; f.alpha = alpha(1.f); f.beta = beta(0.f); }
      else if (l == "leakyrelu") { f.k = Act::LeakyRelu; f.alpha = alpha(0.01f); }
      else if (l == "thresholdedrelu") { f.k = Act::ThresholdedRelu; f.alpha = alpha(1.f); }
      else if (l == "scaledtanh") { f.k = Act::ScaledTanh; f.alpha = alpha(1.f); f.beta = beta(1.f); }
      else if (l == "hardsigmoid") { f.k = Act::HardSigmoid; f.alpha = alpha(0.2f); f.beta = beta(0.5f); }
      else if (l == "elu") { f.k = Act::Elu; f.alpha = alpha(1.f); }
      else if (l == "softsign") f.k = Act::Softsign;
      else if (l == "softplus") f.k = Act::Softplus;
      else throw UnsupportedError(op + ": activation '" + n + "' not supported" + where);
      acts_.push_back(f);
    }
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const int64_t T = T_, B = B_, I = I_, H = H_, G = gates_, GH = G * H;
    auto in = [&](size_t i) -> const float* {
      return i < io.inputs.size() && present(io.inputs[i]) ? io.inputs[i].data_as<float>() : nullptr;
    };
    auto out = [&](size_t i) -> float* {
      return i < io.outputs.size() && io.outputs[i].data() ? io.outputs[i].data_as<float>() : nullptr;
    };
    const float *X = in(0), *W = in(1), *R = in(2), *Bias = in(3), *h0 = in(5);
    const float *c0 = cell_ == Cell::LSTM ? in(6) : nullptr, *P = cell_ == Cell::LSTM ? in(7) : nullptr;
    const int32_t* lens = io.inputs.size() > 4 && present(io.inputs[4]) ? io.inputs[4].data_as<int32_t>() : nullptr;
    float *Y = out(0), *Yh = out(1), *Yc = cell_ == Cell::LSTM ? out(2) : nullptr;
    if (Y) std::memset(Y, 0, sizeof(float) * T * dirs_ * B * H);
    const int64_t na = static_cast<int64_t>(acts_.size()) / dirs_;
    // Index helpers for the two layouts.
    auto yrow = [&](int64_t t, int64_t d, int64_t b) {
      return Y + (layout_ ? ((b * T + t) * dirs_ + d) : ((t * dirs_ + d) * B + b)) * H;
    };
    auto srow = [&](int64_t d, int64_t b) { return layout_ ? (b * dirs_ + d) * H : (d * B + b) * H; };
    std::vector<float> xw(T * B * GH), h(B * H), c(B * H), g(GH), hr(H), local_rt;
    for (int64_t d = 0; d < dirs_; ++d) {
      const bool rev = reverse_only_ || d == 1;
      const float *Wd = W + d * GH * I, *Rd = R + d * GH * H;
      const float *Wb = Bias ? Bias + d * 2 * GH : nullptr, *Rb = Bias ? Bias + d * 2 * GH + GH : nullptr;
      const float* Pd = P ? P + d * 3 * H : nullptr;
      const Act* f = &acts_[d * na];
      // Input projection of every step in one GEMM (oneDNN's sgemm, row-major):
      // xw[row] = X[row] · Wᵀ with X's rows in its own layout's order, then + Wb (+ Rb except
      // GRU's h gate, which adds Rb inside the reset).
      if (T * B > 0 && GH > 0) {
        const dnnl_status_t st = dnnl_sgemm('N', 'T', T * B, GH, I, 1.f, X, I, Wd, I, 0.f, xw.data(), GH);
        if (st != dnnl_success) throw Error(std::string(impl_name()) + ": oneDNN sgemm failed (status " + std::to_string(st) + ")");
      }
      if (Wb) {
        std::vector<float> bias(GH);
        for (int64_t j = 0; j < GH; ++j) bias[j] = Wb[j] + (cell_ == Cell::GRU && j >= 2 * H ? 0.f : Rb[j]);
        parallel_for(T * B, [&](int64_t row) { simd::add(&xw[row * GH], bias.data(), GH); });
      }
      for (int64_t b = 0; b < B; ++b) {
        for (int64_t k = 0; k < H; ++k) {
          h[b * H + k] = h0 ? h0[srow(d, b) + k] : 0.f;
          c[b * H + k] = c0 ? c0[srow(d, b) + k] : 0.f;
        }
      }
      auto clip = [&](float v) { return has_clip_ ? std::min(std::max(v, -clip_), clip_) : v; };
      // The default LSTM (f = sigmoid, g = h = tanh, no peepholes, clip or input_forget) runs its
      // gates in bulk through vecmath and R · h from R transposed (built once when R is constant).
      const bool default_lstm = cell_ == Cell::LSTM && !Pd && !has_clip_ && !input_forget_ && f[0].k == Act::Sigmoid &&
                                f[1].k == Act::Tanh && f[2].k == Act::Tanh;
      const float* RTd = nullptr;
      if (default_lstm) {
        if (rt_.empty()) transpose_r(R, local_rt);
        RTd = (rt_.empty() ? local_rt.data() : rt_.data()) + d * GH * H;
      }
      // The default LSTM at two or more threads: the two threads take half the hidden units each
      // (half of Rᵀ's columns per gate: half the bytes each core streams per step) and meet once
      // per step; h is double-buffered so a thread never writes what the other still reads.
      // Sums and activations are the one-thread path's, in its order: the results are the same bits.
      if (default_lstm && threads_ >= 2 && H >= 64 && H % 32 == 0) {
        std::vector<float> hbuf(2 * H);
        for (int64_t b = 0; b < B; ++b) {
          const int64_t len = lens ? std::min<int64_t>(std::max<int32_t>(lens[b], 0), T) : T;
          float* cb = &c[b * H];
          std::memcpy(hbuf.data(), &h[b * H], sizeof(float) * H);
          StepBarrier bar;
#pragma omp parallel num_threads(2)
          {
            // With one thread granted, it runs both halves of each step itself.
            const int nt = omp_get_num_threads(), me = omp_get_thread_num();
            const int64_t half = H / 2;
            for (int64_t s = 0; s < len; ++s) {
              const int64_t t = rev ? len - 1 - s : s;
              const float* xg = &xw[(layout_ ? b * T + t : t * B + b) * GH];
              const float* hin = &hbuf[(s % 2) * H];
              float* hout = &hbuf[((s + 1) % 2) * H];
              for (int part = nt == 1 ? 0 : me; part < (nt == 1 ? 2 : me + 1); ++part) {
                const int64_t k0 = part * half;
                lstm_gates_part(RTd, hin, xg, H, k0, half, g.data());
                for (int64_t q = 0; q < 3; ++q) vec::sigmoid(&g[q * H + k0], &g[q * H + k0], half);
                vec::tanh(&g[3 * H + k0], &g[3 * H + k0], half);
                const float *it = &g[k0], *ot = &g[H + k0], *ft = &g[2 * H + k0], *ct = &g[3 * H + k0];
                for (int64_t k = 0; k < half; ++k) cb[k0 + k] = ft[k] * cb[k0 + k] + it[k] * ct[k];
                vec::tanh(cb + k0, &hr[k0], half);
                for (int64_t k = 0; k < half; ++k) hout[k0 + k] = ot[k] * hr[k0 + k];
                if (Y) std::memcpy(yrow(t, d, b) + k0, hout + k0, sizeof(float) * half);
              }
              if (nt > 1) bar.arrive_and_wait(me, s + 1);
            }
          }
          std::memcpy(&h[b * H], &hbuf[(len % 2) * H], sizeof(float) * H);
          if (Yh) std::memcpy(Yh + srow(d, b), &h[b * H], sizeof(float) * H);
          if (Yc) std::memcpy(Yc + srow(d, b), cb, sizeof(float) * H);
        }
        continue;
      }
      for (int64_t b = 0; b < B; ++b) {
        const int64_t len = lens ? std::min<int64_t>(std::max<int32_t>(lens[b], 0), T) : T;
        float *hb = &h[b * H], *cb = &c[b * H];
        for (int64_t s = 0; s < len; ++s) {
          const int64_t t = rev ? len - 1 - s : s;
          const float* xg = &xw[(layout_ ? b * T + t : t * B + b) * GH];
          if (cell_ == Cell::GRU) {
            // z and r: recurrent part over H.
            for (int64_t j = 0; j < 2 * H; ++j) g[j] = f[0](clip(xg[j] + dot(Rd + j * H, hb, H)));
            const float* z = &g[0];
            const float* rr = &g[H];
            for (int64_t k = 0; k < H; ++k) {
              float pre;
              const float* Rh = Rd + (2 * H + k) * H;
              const float rbh = Rb ? Rb[2 * H + k] : 0.f;
              if (lbr_) {
                pre = xg[2 * H + k] + rr[k] * (dot(Rh, hb, H) + rbh);
              } else {
                float acc = 0.f;
                for (int64_t m = 0; m < H; ++m) acc += Rh[m] * rr[m] * hb[m];
                pre = xg[2 * H + k] + acc + rbh;
              }
              hr[k] = f[1](clip(pre));
            }
            for (int64_t k = 0; k < H; ++k) hb[k] = (1 - z[k]) * hr[k] + z[k] * hb[k];
          } else if (cell_ == Cell::LSTM && default_lstm) {
            // ONNX's gate order i, o, f, c: the sigmoid gates are the first 3H of g, contiguous.
            lstm_gates_part(RTd, hb, xg, H, 0, H, g.data());
            vec::sigmoid(g.data(), g.data(), 3 * H);
            vec::tanh(g.data() + 3 * H, g.data() + 3 * H, H);
            const float *it = &g[0], *ot = &g[H], *ft = &g[2 * H], *ct = &g[3 * H];
            for (int64_t k = 0; k < H; ++k) cb[k] = ft[k] * cb[k] + it[k] * ct[k];
            vec::tanh(cb, hr.data(), H);
            for (int64_t k = 0; k < H; ++k) hb[k] = ot[k] * hr[k];
          } else if (cell_ == Cell::LSTM) {
            for (int64_t j = 0; j < GH; ++j) g[j] = xg[j] + dot(Rd + j * H, hb, H);
            for (int64_t k = 0; k < H; ++k) {
              const float cp = cb[k];
              const float it = f[0](clip(g[k] + (Pd ? Pd[k] * cp : 0.f)));
              const float ft = input_forget_ ? 1.f - it : f[0](clip(g[2 * H + k] + (Pd ? Pd[2 * H + k] * cp : 0.f)));
              const float ct = f[1](clip(g[3 * H + k]));
              const float cn = ft * cp + it * ct;
              const float ot = f[0](clip(g[H + k] + (Pd ? Pd[H + k] * cn : 0.f)));
              cb[k] = cn;
              hr[k] = ot * f[2](cn);
            }
            std::memcpy(hb, hr.data(), sizeof(float) * H);
          } else {
            for (int64_t k = 0; k < H; ++k) hr[k] = f[0](clip(xg[k] + dot(Rd + k * H, hb, H)));
            std::memcpy(hb, hr.data(), sizeof(float) * H);
          }
          if (Y) std::memcpy(yrow(t, d, b), hb, sizeof(float) * H);
        }
        if (Yh) std::memcpy(Yh + srow(d, b), hb, sizeof(float) * H);
        if (Yc) std::memcpy(Yc + srow(d, b), cb, sizeof(float) * H);
      }
    }
  }

  std::string impl_name() const override {
    return cell_ == Cell::LSTM ? "cpu:lstm" : cell_ == Cell::GRU ? "cpu:gru" : "cpu:rnn";
  }

 private:
  /// RT[d] = R[d]ᵀ for every direction: [dirs, H, GH] from R [dirs, GH, H].
  void transpose_r(const float* R, std::vector<float>& rt) const {
    const int64_t H = H_, GH = gates_ * H_;
    rt.resize(static_cast<size_t>(dirs_ * GH * H));
    for (int64_t d = 0; d < dirs_; ++d)
      for (int64_t j = 0; j < GH; ++j)
        for (int64_t m = 0; m < H; ++m) rt[(d * H + m) * GH + j] = R[(d * GH + j) * H + m];
  }
  std::vector<float> rt_;  ///< R transposed, when R is a constant (LSTM's default cell)
  Cell cell_;
  int64_t gates_ = 1, dirs_ = 1, layout_ = 0, T_ = 0, B_ = 0, I_ = 0, H_ = 0;
  bool reverse_only_ = false, has_clip_ = false, input_forget_ = false, lbr_ = false;
  float clip_ = 0.f;
  std::vector<Act> acts_;
};

}  // namespace

void register_rnn_kernels(Registrar& r) {
  auto add = [&](const char* op, Cell c) {
    r.add_kernel(KernelDef{"cpu", "", op,
                           [c](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                             return std::make_unique<RecurrentKernel>(ctx, c);
                           },
                           ""});
  };
  add("RNN", Cell::RNN);
  add("GRU", Cell::GRU);
  add("LSTM", Cell::LSTM);
}

}  // namespace ge::cpu
