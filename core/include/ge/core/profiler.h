// ge/core/profiler.h — per-node timing of an Executable, FLOP counts, efficiency, Chrome trace.
//
// Recording: Executable::run(inputs, RunOptions{&times}) stores each step's start and end
// (std::chrono::steady_clock, ns) in a StepTimes; with no StepTimes the run loop pays one
// null-pointer branch per step and nothing else.
//
// FLOP counts (node_flops), from the static shapes of the node's values. A multiply-add is 2 FLOPs.
//   Conv, ge.FusedConv   2·N·Cout·Hout·Wout·(Cin/group)·kh·kw  (= 2·numel(Y)·prod(W.shape[1:]),
//                        any spatial rank) + numel(Y) per bias / residual input / activation
//   MatMul               2·numel(Y)·K, K = A.shape[-1]  (= 2·M·N·K·batch)
//   Gemm                 2·M·N·K (+ M·N with C);  ge.FusedMatMul 2·numel(Y)·K (+ numel(Y) per
//                        bias / activation), K = A.shape[-1]
//   ge.Attention         4·B·H·S·S·d (Q·Kt and P·V) + 5·B·H·S·S (scale, mask, softmax)
//   elementwise / unary  numel(Y) (Add, Relu, Sigmoid, ...; ge.FusedElementwise: numel(Y) per
//                        program instruction)
//   Softmax ≈ 5·numel, LayerNormalization ≈ 8·numel, BatchNormalization 2·numel, Gelu ≈ 8·numel
//   (small constants: the per-element operations of the usual formulas, exp/erf counted as one)
//   pooling              numel(Y)·prod(kernel_shape); Global*Pool and Reduce*: numel(X)
//   data movement (Reshape, Transpose, Concat, Gather, Slice, ...) 0
// Bytes moved per node: the bytes of its inputs plus its outputs (a lower bound on traffic).
//
// Peak: achieved GFLOP/s are compared with a peak in GFLOP/s. nominal_peak_gflops() is
// cores × GHz (/proc/cpuinfo "cpu MHz") × fp32 FLOP/cycle, the latter 2 FMA pipes × lanes × 2:
// 64 with avx512f, 32 with AVX2+FMA, 8 otherwise — an assumption, printed as such, until
// `gec calibrate` measures one. Turbo clocks above "cpu MHz" can push efficiency past 100%.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ge/core/runtime.h"
#include "ge/sdk/cost_model.h"

namespace ge::core {

/// One step's span: steady_clock time since its epoch, in ns.
struct StepSpan {
  int64_t start_ns = 0, end_ns = 0;
};
/// Spans of one run, indexed by step (Executable's execution order).
struct StepTimes {
  std::vector<StepSpan> steps;
};

/// FLOPs and bytes of one node (formulas above): they live in the SDK (ge/sdk/cost_model.h) so
/// that schedulers share them; the profiler names them here too.
using ge::node_bytes;
using ge::node_flops;
/// Nominal fp32 peak of `cores` cores (formula above); `how` receives the assumption in words.
double nominal_peak_gflops(int cores, std::string* how = nullptr);

struct NodeProfile {
  size_t step = 0;  ///< execution order
  std::string name, op_type, domain, kernel;
  int stream = 0;   ///< the stream the step ran on (Executable::step_stream)
  double mean_us = 0, median_us = 0;
  double share = 0;  ///< of the sum of per-node medians
  double flops = 0, gflops = 0;  ///< achieved GFLOP/s = flops / median
  double efficiency = 0;         ///< gflops / peak
  uint64_t bytes = 0;
};

struct Profile {
  std::vector<NodeProfile> nodes;  ///< execution order
  std::vector<StepTimes> runs;     ///< the raw spans, one per iteration
  int iterations = 0;
  double run_median_ms = 0, run_mean_ms = 0, run_min_ms = 0;  ///< whole runs (earliest step start → latest step end)
  double nodes_total_us = 0;  ///< sum of per-node medians
  double total_flops = 0;
  double peak_gflops = 0;
  std::string peak_source;
  uint64_t arena_bytes = 0, weight_bytes = 0;

  /// Nodes by descending median time; at most k (all when k <= 0).
  std::vector<NodeProfile> top(int k) const;
};

/// Builds the profile of `exe` from runs recorded with StepTimes.
Profile make_profile(const Executable& exe, std::vector<StepTimes> runs, double peak_gflops,
                     const std::string& peak_source);

/// Chrome trace event format (JSON object with "traceEvents"): one complete event (ph "X") per
/// step and iteration, pid 1, tid = stream + 1, ts/dur in µs from the first run's start; args hold
/// op type, kernel and FLOPs; metadata events name the process and each stream's track.
/// Opens in Perfetto and chrome://tracing.
std::string chrome_trace(const Profile& p, const std::string& process_name);

}  // namespace ge::core
