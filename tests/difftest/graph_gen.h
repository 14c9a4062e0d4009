// tests/difftest/graph_gen.h — random valid graphs for differential testing.
//
// In the manner of NNSmith (Liu et al., "NNSmith: Generating Diverse and Valid Test Cases for
// Deep Learning Compilers", ASPLOS 2023): a graph grows one operator at a time from a pool of
// typed, shaped tensors; every candidate node is checked against the op's registry definition
// (input dtypes its type constraints allow, attribute names and types) and GE's own shape
// inference, and an invalid one is rolled back and another drawn. Values are kept numerically
// tame instead of NNSmith's gradient search for NaN-free inputs: weights are scaled by
// 1/sqrt(fan-in), ops with a restricted domain (Log, Sqrt, Div, Pow, Reciprocal) read guarded
// operands (|x| + c), and ops that are discontinuous in their input (Floor, Sign, ArgMax,
// Greater, Cast to an integer, …) only read tensors that every configuration computes exactly
// (graph inputs and what data movement, Relu, Abs, Max, … make of them), so that a rounding
// difference in an earlier op cannot flip their result and be taken for a bug.
//
// The same seed gives the same graph for the same registry and kernel set (std::mt19937_64 and
// GE's deterministic shape inference; no std:: distribution, whose outputs are
// implementation-defined, is used).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "ge/core/environment.h"
#include "ge/sdk/ir.h"

namespace ge::difftest {

struct GenOptions {
  int min_nodes = 3;   ///< operators (not counting the guards an op needs) — at least
  int max_nodes = 14;  ///< and at most
  int64_t max_elements = 4096;  ///< largest tensor kept in the pool (the run time stays small)
};

/// Ops the generator can emit and whether the cpu backend runs each (a kernel registered).
struct OpCoverage {
  std::set<std::string> generable;  ///< op types the generator knows and the cpu backend runs
  std::set<std::string> missing;    ///< op types the generator knows that have no cpu kernel
};

class GraphGenerator {
 public:
  explicit GraphGenerator(const core::Environment& env, GenOptions opts = {});
  /// A verified graph (shapes inferred) from `seed`. Throws ge::Error only if no valid graph
  /// could be grown in a bounded number of attempts (a generator bug).
  std::unique_ptr<Graph> generate(uint64_t seed) const;
  const OpCoverage& coverage() const { return coverage_; }

 private:
  const core::Environment& env_;
  GenOptions opts_;
  OpCoverage coverage_;
};

/// Op types of the graph's nodes with their counts.
std::map<std::string, int> op_histogram(const Graph& g);

}  // namespace ge::difftest
