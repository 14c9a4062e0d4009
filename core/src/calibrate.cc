// Measuring the cost model's ceilings (ge/core/calibration.h, docs/scheduling.md).
//
// Every figure comes from a single-op graph generated here and run through the real compile
// pipeline and the cpu backend's kernels — never from the shared models the estimates are judged on:
//   gemm_gflops_1t / _nt  MatMul 512×512 · 512×512 (constant B), 1 and N threads
//   mem_gbps_1t / _nt     a plain copy loop of 1.5 Mi floats (12 MiB moved), 1 and N threads
// (each op's output feeds a ReduceMean so it lives in the arena; the op's own step is timed)
//   launch_us             a chain of 64 Relu on 16 floats: time per node
//   efficiency[class]     roofline time / (measured − launch) at 1 thread, median over the class's
//   efficiency_nt[class]  benchmarks; the same at N threads; clamped to [0.02, 4] (above 1: the
//                         operands stay in cache, faster than the bandwidth measured above)
//   event_us              half a round trip of a condition-variable hand-off between two threads
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <functional>
#include <immintrin.h>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "ge/core/calibration.h"
#include "ge/core/importer.h"
#include "ge/core/inputs.h"
#include "ge/core/pipeline.h"
#include "ge/core/profiler.h"
#include "ge/core/runtime.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"

namespace ge::core {

namespace {

using Clock = std::chrono::steady_clock;

struct Bench {
  std::string name, cls;
  std::function<std::unique_ptr<Graph>()> build;
  /// The node to time: "op", or (when set) the first node of this op type after compilation —
  /// e.g. the TransData the layout pass puts before a Conv on a graph input.
  std::string op_type = "";
  /// Evict the caches before every timed run: in a batch-1 model a classifier's weights are read
  /// once per inference, after the rest of the network has pushed them out of the caches;
  /// repeating the op alone would time it cache-hot.
  bool cold = false;
};

/// The benchmarked node of a compiled benchmark graph (see Bench::op_type).
const Node* bench_node(const Graph& g, const std::string& op_type) {
  if (op_type.empty()) return g.find_node("op");
  for (const Node* n : g.nodes())
    if (n->op_type() == op_type) return n;
  return nullptr;
}

Value* weights(Graph& g, const std::string& name, Shape s, uint32_t seed) {
  Tensor t = Tensor::allocate(DataType::Float32, s);
  uint32_t x = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.numel(); ++i) {
    x = x * 1664525u + 1013904223u;
    t.data_as<float>()[i] = static_cast<float>(x >> 8) / 16777216.0f - 0.5f;
  }
  return g.add_constant(name, std::move(t));
}

/// One node "op" of type `op` reading graph inputs of the shapes `ins` (float32 unless `in_types`
/// says otherwise) and constants of the shapes `consts`. Its output feeds a ReduceMean to a scalar, so that it lives in the arena as model
/// intermediates do (a graph output would be allocated, and page-faulted, on every run).
/// With `after_conv`, every 4-D input is first produced by a 1×1 Conv ("pre<i>"), so that the op
/// runs in the layout a CNN runs it in (the layout pass makes a Conv's output NC1HWC0 and pools,
/// elementwise ops and Concat follow it; on a graph input they would read NCHW).
std::unique_ptr<Graph> single_op(const std::string& op, std::vector<Shape> ins, std::vector<Shape> consts,
                                     Attributes attrs = {}, bool after_conv = false, std::vector<DataType> in_types = {}) {
  auto g = std::make_unique<Graph>("calibrate_" + op);
  g->opsets[""] = 17;
  std::vector<Value*> vs;
  for (size_t i = 0; i < ins.size(); ++i) {
    Value* x = g->add_input("x" + std::to_string(i), i < in_types.size() ? in_types[i] : DataType::Float32, ins[i]);
    if (after_conv && ins[i].rank() == 4) {
      const int64_t c = ins[i][1];
      Value* w = weights(*g, "pre_w" + std::to_string(i), Shape{c, c, 1, 1}, static_cast<uint32_t>(100 + i));
      Value* y = g->add_value("pre_y" + std::to_string(i));
      g->add_node("Conv", "pre" + std::to_string(i), {x, w}, {y});
      x = y;
    }
    vs.push_back(x);
  }
  for (size_t i = 0; i < consts.size(); ++i) vs.push_back(weights(*g, "w" + std::to_string(i), consts[i], static_cast<uint32_t>(i + 1)));
  Value* y = g->add_value("y");
  g->add_node(op, "op", vs, {y}, std::move(attrs));
  Value* r = g->add_value("r");
  Attributes ra;
  ra.set("keepdims", int64_t{0});
  g->add_node("ReduceMean", "sink", {y}, {r}, ra);
  g->mark_output(r);
  return g;
}

std::unique_ptr<Graph> relu_chain(int n) {
  auto g = std::make_unique<Graph>("calibrate_launch");
  g->opsets[""] = 17;
  Value* v = g->add_input("x", DataType::Float32, {16});
  for (int i = 0; i < n; ++i) {
    Value* y = g->add_value("y" + std::to_string(i));
    g->add_node("Relu", "relu" + std::to_string(i), {v}, {y});
    v = y;
  }
  g->mark_output(v);
  return g;
}

struct Measured {
  double us = 0;
  std::shared_ptr<Graph> graph;
};

/// The step of the benchmarked node "op" after compilation (not a TransData the layout pass put
/// before it, nor the "pre" convolutions or the "sink").
size_t op_step(const Executable& exe, const std::string& op_type) {
  const Node* target = bench_node(exe.graph(), op_type);
  for (size_t i = 0; i < exe.num_kernels(); ++i)
    if (&exe.step_node(i) == target) return i;
  throw Error("calibrate: the benchmarked node (" + (op_type.empty() ? std::string("'op'") : op_type) +
                  ") has no kernel step after compilation");
}

/// Median µs of the benchmarked node's step (`whole`: of a whole run) of `g` compiled at `level`
/// with `threads` threads.
/// Writes and reads a buffer larger than the last-level cache.
void evict_caches() {
  static std::vector<uint64_t> junk(size_t{64} << 20 >> 3);
  uint64_t acc = 0;
  for (size_t i = 0; i < junk.size(); i += 8) acc += junk[i] += i;
  if (acc == 42) std::fprintf(stderr, " ");  // keeps the loop from being optimized away
}

Measured time_graph(std::unique_ptr<Graph> g, const Environment& env, int threads,
                    const char* level = "O2", bool whole = false, const std::string& op_type = "",
                    bool cold = false, double budget_s = 0.4) {
  const ImportOptions io;
  propagate_shapes(*g, env, io);
  CompileOptions o = CompileOptions::from_manifest(env.manifest);
  o.opt_level = opt_level_from_name(level);
  o.threads = threads;
  // One op is measured: no fusion rule may merge it with the "pre" convolutions or the sink.
  for (auto& [rule, plugin] : env.fusion_rules) o.disabled.push_back(rule->info().name);
  compile_graph(*g, env, o);
  std::shared_ptr<Graph> sg = std::move(g);
  Executable exe(sg, env, ExecOptions{o.backend, threads});
  std::vector<Tensor> in = random_inputs(*sg, 1);
  exe.run(in);
  exe.run(in);
  const size_t step = whole ? 0 : op_step(exe, op_type);
  std::vector<double> t;
  StepTimes steps;
  RunOptions ro{whole ? nullptr : &steps};
  auto t_all = Clock::now();
  while (t.size() < 5 || (t.size() < 200 && std::chrono::duration<double>(Clock::now() - t_all).count() < budget_s)) {
    if (cold) evict_caches();
    auto t0 = Clock::now();
    exe.run(in, ro);
    if (whole)
      t.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    else
      t.push_back(static_cast<double>(steps.steps.at(step).end_ns - steps.steps.at(step).start_ns) / 1e3);
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], sg};
}

double event_round_trip_us() {
  std::mutex m;
  std::condition_variable cv;
  int turn = 0;
  const int rounds = 2000;
  std::thread other([&] {
    for (int i = 0; i < rounds; ++i) {
      std::unique_lock<std::mutex> l(m);
      cv.wait(l, [&] { return turn == 1; });
      turn = 0;
      cv.notify_all();
    }
  });
  auto t0 = Clock::now();
  for (int i = 0; i < rounds; ++i) {
    std::unique_lock<std::mutex> l(m);
    turn = 1;
    cv.notify_all();
    cv.wait(l, [&] { return turn == 0; });
  }
  double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / rounds;
  other.join();
  return us;
}



std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

// ---- machine peaks (measure_peaks) ------------------------------------------------------------

/// Runs fn(t) on `threads` threads released together; returns the wall seconds until all ended.
double run_threads(int threads, const std::function<void(int)>& fn) {
  std::mutex m;
  std::condition_variable cv;
  bool go = false;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      {
        std::unique_lock<std::mutex> lk(m);
        cv.wait(lk, [&] { return go; });
      }
      fn(t);
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // every thread waiting
  auto t0 = Clock::now();
  {
    std::lock_guard<std::mutex> lk(m);
    go = true;
  }
  cv.notify_all();
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// FMA throughput: 12 independent accumulator chains (more than FMA latency × FMA pipes on
// current x86 cores, so the pipes, not the dependency chains, bound the loop), the widest vector
// the CPU has. FLOP per iteration: 12 chains × lanes × 2.
constexpr int kChains = 12;
constexpr int64_t kFmaIterations = 20'000'000;

__attribute__((target("avx512f"))) float fma_loop_avx512(int64_t iters) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(1.0f + 1e-3f * static_cast<float>(c));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  float sum = 0;
  alignas(64) float lanes[16];
  for (int c = 0; c < kChains; ++c) {
    _mm512_store_ps(lanes, acc[c]);
    for (float l : lanes) sum += l;
  }
  return sum;
}

__attribute__((target("avx2,fma"))) float fma_loop_avx2(int64_t iters) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(1.0f + 1e-3f * static_cast<float>(c));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  float sum = 0;
  alignas(32) float lanes[8];
  for (int c = 0; c < kChains; ++c) {
    _mm256_store_ps(lanes, acc[c]);
    for (float l : lanes) sum += l;
  }
  return sum;
}

/// GFLOP/s of the FMA loop on `threads` threads (best of 3).
double fma_gflops(int threads, bool avx512) {
  const int lanes = avx512 ? 16 : 8;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<float> sink(static_cast<size_t>(threads));
    const double s = run_threads(threads, [&](int t) {
      sink[static_cast<size_t>(t)] = avx512 ? fma_loop_avx512(kFmaIterations) : fma_loop_avx2(kFmaIterations);
    });
    if (sink[0] == 42.f) std::fprintf(stderr, " ");  // keeps the result alive
    best = std::max(best, 2.0 * kChains * lanes * static_cast<double>(kFmaIterations) * threads / s / 1e9);
  }
  return best;
}

/// STREAM copy and triad (McCalpin, "STREAM: Sustainable Memory Bandwidth in High Performance
/// Computers", www.cs.virginia.edu/stream): arrays of 2^24 floats (64 MiB each, far above the
/// last-level cache), each thread on its own slice, first touched by that thread; best of 5.
/// Bytes as STREAM counts them: copy 2 × 4 × n, triad 3 × 4 × n.
std::pair<double, double> stream_gbps(int threads) {
  const size_t n = size_t{1} << 24;
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
  auto slice = [&](int t) { return std::pair<size_t, size_t>{n * t / threads, n * (t + 1) / threads}; };
  run_threads(threads, [&](int t) {
    auto [lo, hi] = slice(t);
    for (size_t i = lo; i < hi; ++i) a[i] = 1.0f, b[i] = 2.0f, c[i] = 0.0f;
  });
  double copy = 0, triad = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const double sc = run_threads(threads, [&](int t) {
      auto [lo, hi] = slice(t);
      float* __restrict cc = c.get();
      const float* __restrict aa = a.get();
      for (size_t i = lo; i < hi; ++i) cc[i] = aa[i];
    });
    const double st = run_threads(threads, [&](int t) {
      auto [lo, hi] = slice(t);
      float* __restrict aa = a.get();
      const float* __restrict bb = b.get();
      const float* __restrict cc = c.get();
      for (size_t i = lo; i < hi; ++i) aa[i] = bb[i] + 3.0f * cc[i];
    });
    copy = std::max(copy, 2.0 * 4 * static_cast<double>(n) / sc / 1e9);
    triad = std::max(triad, 3.0 * 4 * static_cast<double>(n) / st / 1e9);
  }
  if (a[n / 2] == 42.f) std::fprintf(stderr, " ");
  return {copy, triad};
}

/// Bandwidth of a plain copy loop (not a GE kernel) of `n` floats per array, src → dst, on
/// `threads` threads, each on its own slice, first touched by that thread: each thread times 32
/// copies of its slice after 4 untimed ones and keeps its fastest; the figure is the bytes of
/// all slices (read + write, as STREAM counts copy) over the slowest thread's fastest copy.
double copy_gbps(int threads, size_t n) {
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]);
  std::vector<double> best(static_cast<size_t>(threads), 1e30);
  run_threads(threads, [&](int t) {
    const size_t lo = n * t / threads, hi = n * (t + 1) / threads;
    float* __restrict dst = b.get();
    const float* __restrict src = a.get();
    for (size_t i = lo; i < hi; ++i) a[i] = static_cast<float>(i & 255), b[i] = 0.0f;
    for (int rep = 0; rep < 36; ++rep) {
      const auto t0 = Clock::now();
      for (size_t i = lo; i < hi; ++i) dst[i] = src[i];
      const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
      if (rep >= 4) best[static_cast<size_t>(t)] = std::min(best[static_cast<size_t>(t)], sec);
    }
  });
  if (b[n / 2] == 42.f) std::fprintf(stderr, " ");  // keeps the copies alive
  return 2.0 * 4 * static_cast<double>(n) / *std::max_element(best.begin(), best.end()) / 1e9;
}

}  // namespace

MachineCeilings measure_ceilings(const Environment& env, const CalibrateOptions& o) {
  struct Scope {
    bool& flag = detail::measuring_on_this_thread();
    bool before = flag;
    Scope() { flag = true; }
    ~Scope() { flag = before; }
  } scope;
  const int n = std::max(2, o.threads);
  auto say = [&](const char* f, auto... args) {
    if (o.progress) o.progress(fmt(f, args...));
  };
  MachineCeilings c;
  c.threads_nt = n;

  auto gemm = [] { return single_op("MatMul", {{512, 512}}, {{512, 512}}); };
  const double gemm_flops = 2.0 * 512 * 512 * 512;
  c.gemm_gflops_1t = gemm_flops / (time_graph(gemm(), env, 1, "O2", false, "", false, o.budget_s).us * 1e3);
  c.gemm_gflops_nt = gemm_flops / (time_graph(gemm(), env, n, "O2", false, "", false, o.budget_s).us * 1e3);
  // A plain copy loop moving 12 MiB (1.5 Mi floats read, 1.5 Mi written): the scale of inference
  // activations, which mostly stay in the last-level cache (a DRAM-sized copy would understate
  // what model tensors see), and independent of GE's own kernels, so that their efficiencies
  // below are measured against the machine rather than against themselves.
  const size_t copy_floats = size_t{3} << 19;
  c.mem_gbps_1t = copy_gbps(1, copy_floats);
  c.mem_gbps_nt = copy_gbps(n, copy_floats);
  // At O0: fusion would merge the chain into one kernel.
  c.launch_us = time_graph(relu_chain(64), env, 1, "O0", true, "", false, o.budget_s).us / 64;
  c.event_us = event_round_trip_us() / 2;
  say("  GEMM        %8.1f GFLOP/s (1 thread)  %8.1f GFLOP/s (%d threads)", c.gemm_gflops_1t, c.gemm_gflops_nt, n);
  say("  bandwidth   %8.1f GB/s    (1 thread)  %8.1f GB/s    (%d threads)", c.mem_gbps_1t, c.mem_gbps_nt, n);
  say("  launch      %8.2f us per kernel; event %.2f us", c.launch_us, c.event_us);
  // More threads measuring slower means other work shared the cores: the figures describe a busy
  // machine, and estimates built on them will be off when it is quiet.
  if (c.gemm_gflops_nt < c.gemm_gflops_1t || c.mem_gbps_nt < 0.8 * c.mem_gbps_1t)
    log(LogLevel::Warn, fmt("calibration: %d threads measured slower than 1 (GEMM %.1f vs %.1f GFLOP/s): is the machine "
                            "busy? Rerun `gec calibrate` when it is quiet", n, c.gemm_gflops_nt, c.gemm_gflops_1t));

  auto attrs = [](std::initializer_list<std::pair<const char*, AttrValue>> kv) {
    Attributes a;
    for (auto& [k, v] : kv) a.set(k, v);
    return a;
  };
  using V = std::vector<int64_t>;
  const std::vector<Bench> benches = {
      {"conv3x3 64->64 @56", "gemm", [&] { return single_op("Conv", {{1, 64, 56, 56}}, {{64, 64, 3, 3}}, attrs({{"pads", V{1, 1, 1, 1}}})); }},
      {"conv1x1 64->256 @56", "gemm", [&] { return single_op("Conv", {{1, 64, 56, 56}}, {{256, 64, 1, 1}}); }},
      {"conv3x3/2 32->64 @112", "gemm",
       [&] { return single_op("Conv", {{1, 32, 112, 112}}, {{64, 32, 3, 3}}, attrs({{"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}})); }},
      {"matmul 128x768x768", "gemm", [&] { return single_op("MatMul", {{128, 768}}, {{768, 768}}); }},
      {"dwconv3x3 96 @56", "depthwise",
       [&] { return single_op("Conv", {{1, 96, 56, 56}}, {{96, 1, 3, 3}}, attrs({{"pads", V{1, 1, 1, 1}}, {"group", int64_t{96}}})); }},
      {"dwconv3x3/2 144 @56", "depthwise",
       [&] {
         return single_op("Conv", {{1, 144, 56, 56}}, {{144, 1, 3, 3}},
                          attrs({{"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}, {"group", int64_t{144}}}));
       }},
      {"conv1x1 g4 112->112 @28", "grouped_unaligned",
       [&] { return single_op("Conv", {{1, 112, 28, 28}}, {{112, 28, 1, 1}}, attrs({{"group", int64_t{4}}})); }},
      {"conv1x1 g3 240->240 @28", "grouped",
       [&] { return single_op("Conv", {{1, 240, 28, 28}}, {{240, 80, 1, 1}}, attrs({{"group", int64_t{3}}})); }},
      {"conv1x1 g4 72->72 @28", "grouped_unaligned",
       [&] { return single_op("Conv", {{1, 72, 28, 28}}, {{72, 18, 1, 1}}, attrs({{"group", int64_t{4}}})); }},
      {"conv1x1 g2 100->100 @14", "grouped_unaligned",
       [&] { return single_op("Conv", {{1, 100, 14, 14}}, {{100, 50, 1, 1}}, attrs({{"group", int64_t{2}}})); }},
      {"conv3x3 g8 128->128 @28", "grouped",
       [&] {
         return single_op("Conv", {{1, 128, 28, 28}}, {{128, 16, 3, 3}}, attrs({{"pads", V{1, 1, 1, 1}}, {"group", int64_t{8}}}));
       }},
      {"matmul 1x2048 . 2048x512 cold", "gemv", [&] { return single_op("MatMul", {{1, 2048}}, {{2048, 512}}); }, "", true},
      {"matmul 1x1024 . 1024x2048 cold", "gemv", [&] { return single_op("MatMul", {{1, 1024}}, {{1024, 2048}}); }, "", true},
      {"transdata 48x28x28", "transdata",
       [&] { return single_op("Conv", {{1, 48, 28, 28}}, {{48, 48, 1, 1}}); }, "TransData"},
      {"transdata 44x28x28 (C padded)", "transdata",
       [&] { return single_op("Conv", {{1, 44, 28, 28}}, {{44, 44, 1, 1}}); }, "TransData"},
      {"transdata 88x14x14 (C padded)", "transdata",
       [&] { return single_op("Conv", {{1, 88, 14, 14}}, {{88, 88, 1, 1}}); }, "TransData"},
      {"relu 1M", "elementwise", [&] { return single_op("Relu", {{1 << 20}}, {}); }},
      {"add 64x56x56 NC1HWC0", "elementwise",
       [&] { return single_op("Add", {{1, 64, 56, 56}, {1, 64, 56, 56}}, {}, {}, true); }},
      {"maxpool 3x3/2 64@112 NC1HWC0", "reduce",
       [&] { return single_op("MaxPool", {{1, 64, 112, 112}}, {}, attrs({{"kernel_shape", V{3, 3}}, {"strides", V{2, 2}}}), true); }},
      {"globalavgpool 512@7 NC1HWC0", "reduce", [&] { return single_op("GlobalAveragePool", {{1, 512, 7, 7}}, {}, {}, true); }},
      {"add 256K", "elementwise", [&] { return single_op("Add", {{1 << 18}, {1 << 18}}, {}); }},
      {"sigmoid 256K", "elementwise", [&] { return single_op("Sigmoid", {{1 << 18}}, {}); }},
      {"maxpool 3x3/2 @112", "reduce",
       [&] { return single_op("MaxPool", {{1, 64, 112, 112}}, {}, attrs({{"kernel_shape", V{3, 3}}, {"strides", V{2, 2}}})); }},
      {"globalavgpool 512@7", "reduce", [&] { return single_op("GlobalAveragePool", {{1, 512, 7, 7}}, {}); }},
      {"add 64x56x56 + 64x1x1", "elementwise", [&] { return single_op("Add", {{1, 64, 56, 56}, {1, 64, 1, 1}}, {}); }},
      {"where 256K", "elementwise",
       [&] { return single_op("Where", {{1 << 18}, {1 << 18}, {1 << 18}}, {}, {}, false, {DataType::Bool}); }},
      {"cast f32->f16 1M", "elementwise",
       [&] { return single_op("Cast", {{1 << 20}}, {}, attrs({{"to", int64_t{static_cast<int64_t>(DataType::Float16)}}})); }},
      {"softmax 64x1000", "reduce", [&] { return single_op("Softmax", {{64, 1000}}, {}); }},
      {"transpose 64x56x56", "data", [&] { return single_op("Transpose", {{1, 64, 56, 56}}, {}, attrs({{"perm", V{0, 2, 3, 1}}})); }},
      {"concat 2x64x56x56", "data",
       [&] { return single_op("Concat", {{1, 64, 56, 56}, {1, 64, 56, 56}}, {}, attrs({{"axis", int64_t{1}}})); }},
  };
  // Efficiency = roofline time with efficiency 1 and no launch cost / (measured − launch).
  MachineCeilings ideal = c;
  ideal.launch_us = 0;
  for (auto& [k, v] : ideal.efficiency) v = 1.0;
  RooflineCostModel roof(ideal, &env.ops);
  std::map<std::string, std::vector<double>> per_class, per_class_nt;
  for (const Bench& b : benches) {
    const int ts[2] = {1, n};
    double us[2] = {0, 0}, ideal_us[2] = {0, 0};
    // One median per thread count, 1 then N. The N-thread figure of a short kernel is the one a
    // passing disturbance spoils (a worker thread descheduled for a moment costs a whole barrier
    // wait, and the second core of a small VM may be busy elsewhere): a kernel that reads more
    // than 1.5x slower at N threads than at 1 is measured again, both counts in turn, up to
    // twice, keeping each count's fastest median. A kernel really slower at N threads stays so.
    auto measure = [&](int i) {
      Measured m = time_graph(b.build(), env, ts[i], "O2", false, b.op_type, b.cold, o.budget_s);
      const Node* node = bench_node(*m.graph, b.op_type);  // the benchmarked op (after compilation)
      ideal_us[i] = node ? roof.node_us(*node, ts[i]) : 0;
      us[i] = us[i] > 0 ? std::min(us[i], m.us) : m.us;
    };
    try {
      measure(0);
      measure(1);
      for (int again = 0; again < 2 && us[1] > 1.5 * us[0]; ++again) {
        say("  %-24s %2d thread(s) %9.1f us against %9.1f us at 1: measuring again", b.name.c_str(), n, us[1], us[0]);
        measure(0);
        measure(1);
      }
    } catch (const Error& err) {
      // A benchmark of a node the pipeline makes (the layout pass's TransData) on a machine
      // where it makes none: that class keeps its default (its nodes never run here either).
      if (b.op_type.empty()) throw;
      say("  %-24s skipped: %s", b.name.c_str(), err.what());
      continue;
    }
    double e[2];
    for (int i = 0; i < 2; ++i) {
      e[i] = ideal_us[i] / std::max(0.05, us[i] - c.launch_us);
      say("  %-24s %-12s %2d thread(s) %9.1f us  roofline %9.1f us  efficiency %.2f", b.name.c_str(),
          b.cls.c_str(), ts[i], us[i], ideal_us[i], e[i]);
    }
    per_class[b.cls].push_back(e[0]);
    per_class_nt[b.cls].push_back(e[1]);
  }
  auto median_clamped = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return std::clamp(v[v.size() / 2], 0.02, 4.0);
  };
  for (auto& [cls, v] : per_class) c.efficiency[cls] = median_clamped(v);
  for (auto& [cls, v] : per_class_nt) c.efficiency_nt[cls] = median_clamped(v);
  c.calibrated = true;
  return c;
}

}  // namespace ge::core

namespace ge::core {

std::vector<int64_t> peak_gemm_sizes() {
  // From 128 to 2048, each about 1.3 × the one before (multiples of 16).
  return {128, 160, 208, 272, 352, 464, 608, 784, 1024, 1328, 1728, 2048};
}

MachinePeaks measure_peaks(const Environment& env, const CalibrateOptions& o) {
  MachinePeaks p;
  p.threads = std::max(1, o.threads);
  p.isa = __builtin_cpu_supports("avx512f") ? "avx512f" : __builtin_cpu_supports("avx2") ? "avx2" : "";
  if (p.isa.empty()) throw Error("measuring peaks needs AVX2 or AVX-512 (the FMA loop's instructions)");
  auto say = [&](const std::string& s) { if (o.progress) o.progress(s); };
  std::vector<int> counts{1};
  if (p.threads > 1) counts.push_back(p.threads);
  for (int t : counts) {
    MachinePeaks::PerThreads r;
    r.threads = t;
    for (int64_t n : peak_gemm_sizes()) {
      const double us = time_graph(single_op("MatMul", {{n, n}}, {{n, n}}), env, t, "O2", false, "", false, o.budget_s).us;
      const double gf = 2.0 * static_cast<double>(n) * n * n / (us * 1e3);
      r.gemm.push_back({n, gf});
      if (gf > r.gemm_gflops) r.gemm_gflops = gf, r.gemm_size = n;
    }
    r.fma_gflops = fma_gflops(t, p.isa == "avx512f");
    std::tie(r.copy_gbps, r.triad_gbps) = stream_gbps(t);
    say(fmt("  %d thread(s): GEMM peak %.1f GFLOP/s (MatMul %lldx%lldx%lld), FMA loop %.1f GFLOP/s (%s), "
            "STREAM copy %.1f GB/s, triad %.1f GB/s",
            t, r.gemm_gflops, static_cast<long long>(r.gemm_size), static_cast<long long>(r.gemm_size),
            static_cast<long long>(r.gemm_size), r.fma_gflops, p.isa.c_str(), r.copy_gbps, r.triad_gbps));
    p.per_threads.push_back(std::move(r));
  }
  return p;
}

}  // namespace ge::core
