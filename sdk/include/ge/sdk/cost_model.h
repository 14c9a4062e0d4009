// ge/sdk/cost_model.h — how long a node takes: a roofline per node plus a launch overhead.
//
// Work of a node (node_flops, node_bytes), from the static shapes of its values. A multiply-add
// is 2 FLOPs; the formulas per op are listed in ge/core/profiler.h (the profiler reports achieved
// FLOP/s with the same counts). Bytes moved = bytes of the inputs plus the outputs.
//
// Latency of a node at t threads (Williams, Waterman & Patterson, "Roofline: an insightful visual
// performance model for multicore architectures", CACM 52(4), 2009):
//
//   node_us(n, t) = launch_us + max(flops / P(t), bytes / B(t)) / E(class(n), t) + weight_bytes / W(t)
//   E(c, t)       = efficiency[c] · min(t, threads_nt)^e,  e = ln(efficiency_nt[c] / efficiency[c]) / ln(threads_nt)
//                   (efficiency at one thread, and at threads_nt threads: small ops scale worse
//                   with threads than the GEMM ceiling does; without efficiency_nt[c], E = efficiency[c])
//   P(t) = gemm_gflops_1t · min(t, threads_nt)^a,  a = ln(gemm_gflops_nt / gemm_gflops_1t) / ln(threads_nt)
//   B(t) = mem_gbps_1t    · min(t, threads_nt)^b,  b = ln(mem_gbps_nt / mem_gbps_1t) / ln(threads_nt)
//   W(t) = B(t) · E(gemv, t)   the rate at which weights come from memory with the caches cold
//
// weight_bytes are the node's constant inputs: one inference reads every weight once, and by the
// next inference the other layers have pushed them out of the caches, so they arrive at the rate
// the gemv benchmarks measure (caches evicted before each run) and, in oneDNN's kernels, largely
// after the compute they feed rather than under it — hence a term of its own, not a share of the
// max (ResNet-50's 3×3 convolutions of stage 4 read 9.4 MB of weights each and take ~1.6× their
// cached-weight time). A gemv node already has this in E(gemv) and gets no second term.
// (GFLOP/s = FLOP/ns, GB/s = byte/ns: flops / P is in ns, divided by 1000 for µs.) Views (OpDef::view:
// Reshape, Flatten, Squeeze, Unsqueeze, Identity, …) cost 0: the runtime runs no kernel for them. The ceilings
// come from `gec calibrate` (GEMM through the cpu backend's MatMul kernel at 1 and threads_nt
// threads, an elementwise Add of 1 Mi floats for bandwidth); launch_us and the per-class efficiencies are
// fitted on single-op microbenchmark graphs (docs/scheduling.md) — never on the models the
// estimates are judged on. Without a calibration the conservative defaults below are used and
// `calibrated` is false.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "ge/sdk/ir.h"

namespace ge {

class OpRegistry;

/// FLOPs of one node; 0 for data movement and unknown ops. Which ops are elementwise (one FLOP
/// per output element), reductions (one per input element) and views (none) comes from the
/// registry's contracts (OpDef::pattern, cost_class, view): `ops`, else the node's graph's
/// (Graph::ops); with neither, only the ops with a formula below count.
double node_flops(const Node& n, const OpRegistry* ops = nullptr);
/// Bytes of the node's inputs and outputs.
uint64_t node_bytes(const Node& n);
/// Bytes of the node's constant inputs (initializers: weights, biases).
uint64_t node_weight_bytes(const Node& n);

/// Op class of a node for the cost model. From the registry's contracts (`ops`, else Graph::ops):
/// "view" (OpDef::view: no kernel runs), else OpDef::cost_class — "gemm" (Conv, MatMul, Gemm,
/// fused forms, Attention), "reduce" (pooling, Reduce*, Softmax, normalizations), "data" (copies:
/// Transpose, Concat, Gather, Slice, …), "transdata" (layout conversions), "elementwise" (also
/// every op of pattern elementwise or broadcast without a cost_class) or "other". From the
/// shapes, a "gemm" Conv with group > 1 is "depthwise" (one input channel per group), "grouped"
/// (channels per group a multiple of 16) or "grouped_unaligned"; a "gemm" MatMul/Gemm/FusedMatMul
/// with one activation row is "gemv". Without a registry: "other".
std::string op_class(const Node& n, const OpRegistry* ops = nullptr);

/// Machine ceilings and fitted constants. Units in the names: GFLOP/s, GB/s (1e9 bytes/s), µs.
struct MachineCeilings {
  // Defaults: a modest AVX2-class core (8 FMA lanes at ~3 GHz reach ~50 GFLOP/s in a GEMM),
  // below what current server cores measure, so an uncalibrated estimate errs on the slow side.
  double gemm_gflops_1t = 50;  ///< fp32 GEMM, one thread
  double gemm_gflops_nt = 90;  ///< fp32 GEMM at threads_nt threads
  int threads_nt = 2;
  double mem_gbps_1t = 20;     ///< elementwise bandwidth at activation sizes (12 MiB moved), one thread
  double mem_gbps_nt = 30;     ///< at threads_nt threads
  double launch_us = 2;        ///< per kernel: dispatch, argument binding, primitive lookup
  double event_us = 5;         ///< one cross-stream event (record on one thread, wait on another)
  /// Fraction of the roofline time a class of op reaches at one thread (1 = at the ceiling).
  std::map<std::string, double> efficiency = {{"gemm", 0.8},   {"depthwise", 0.2}, {"grouped", 0.2}, {"grouped_unaligned", 0.1}, {"gemv", 0.2}, {"transdata", 0.3},
                                              {"elementwise", 0.5}, {"reduce", 0.4}, {"data", 0.4},
                                              {"other", 0.3}};
  /// The same at threads_nt threads (measured by `gec calibrate`); a class without an entry uses
  /// `efficiency` at every thread count.
  std::map<std::string, double> efficiency_nt;
  bool calibrated = false;
  std::string source = "defaults";  ///< calibration file, or "defaults"
};

/// Estimated latency of nodes. Implementations are thread-safe (const).
class CostModel {
 public:
  virtual ~CostModel() = default;
  /// Microseconds node `n` takes when its kernel may use `threads` threads (≥ 1).
  virtual double node_us(const Node& n, int threads) const = 0;
  /// Microseconds one cross-stream event adds between its record and the waiting node's start.
  virtual double event_us() const = 0;
  /// The ceilings behind the estimates (for reports).
  virtual const MachineCeilings& ceilings() const = 0;
};

/// The roofline model above.
class RooflineCostModel final : public CostModel {
 public:
  /// `ops`: the registry op_class and node_flops read (null: each node's Graph::ops).
  explicit RooflineCostModel(MachineCeilings c = {}, const OpRegistry* ops = nullptr) : c_(std::move(c)), ops_(ops) {}
  double node_us(const Node& n, int threads) const override;
  double event_us() const override { return c_.event_us; }
  const MachineCeilings& ceilings() const override { return c_; }
  /// P(t) in GFLOP/s and B(t) in GB/s (formulas above).
  double gflops(int threads) const;
  double gbps(int threads) const;
  /// W(t) in GB/s: weights read with cold caches (formula above).
  double weight_gbps(int threads) const;
  /// E(class, t) above.
  double efficiency(const std::string& cls, int threads) const;

 private:
  MachineCeilings c_;
  const OpRegistry* ops_ = nullptr;
};

}  // namespace ge
