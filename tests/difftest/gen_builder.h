// tests/difftest/gen_builder.h — the generator's state while one graph grows (graph_gen.cc), and
// the op families that add to it (gen_ops.cc, gen_ops_nn.cc). Private to the generator.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/sdk/ir.h"

namespace ge::difftest {

/// splitmix64-seeded xorshift: the same numbers on every platform and library (std::
/// distributions are implementation-defined).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) { next(); }
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform integer in [lo, hi].
  int64_t uni(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  ///< [0, 1)
  bool coin(double p) { return unit() < p; }
  template <class T> const T& pick(const std::vector<T>& v) { return v[static_cast<size_t>(uni(0, static_cast<int64_t>(v.size()) - 1))]; }

 private:
  uint64_t s_;
};

/// A tensor of the pool. `exact`: every configuration computes it bit for bit (graph inputs,
/// constants, and exact ops of exact tensors), so a discontinuous op may read it. `mag`: a rough
/// bound of its typical magnitude (RMS), to keep Exp & co. in range.
struct Slot {
  Value* v = nullptr;
  bool exact = false;
  double mag = 1;
};

/// An operand of a node being built: an existing value, a new constant, a new graph input, or
/// omitted (an optional input left out).
struct Operand {
  Value* existing = nullptr;
  std::optional<Tensor> constant;
  std::optional<std::pair<DataType, Shape>> new_input;
  static Operand of(Value* v) { return {v, std::nullopt, std::nullopt}; }
  static Operand konst(Tensor t) { return {nullptr, std::move(t), std::nullopt}; }
  static Operand input(DataType t, Shape s) { return {nullptr, std::nullopt, std::make_pair(t, std::move(s))}; }
  static Operand none() { return {}; }
};

class Builder {
 public:
  Builder(const core::Environment& env, const std::set<std::string>& ops, int64_t max_elements, uint64_t seed);

  Rng rng;
  std::unique_ptr<Graph> g;
  std::vector<Slot> floats, ints, bools;  ///< the pools, by dtype family (f32; i32/i64; bool)
  const int64_t max_elements;

  bool has(const std::string& op) const { return ops_.count(op) != 0; }
  int64_t opset() const { return g->opset(""); }

  /// Adds op(operands){attrs} with `outputs` outputs if the registry accepts it (dtypes,
  /// attributes, shape inference, checked on a scratch copy of the operands); returns the output
  /// values, or {} (and the graph unchanged) when it does not. A null entry in `optional_outputs`
  /// position i (true) leaves output i omitted.
  std::vector<Value*> emit(const std::string& op, const std::vector<Operand>& operands, Attributes attrs = {},
                           int outputs = 1, const std::vector<bool>& omit_outputs = {});
  /// The pool slot of a float value (exact false, mag 1 when it is not in the pool).
  Slot slot_of(const Value* v) const;
  void push(Value* v, bool exact, double mag);

  /// A random float slot, preferring recent ones (deeper graphs); nullptr when the pool is empty.
  /// `pred` filters.
  const Slot* pick_float(const std::function<bool(const Slot&)>& pred = nullptr);
  const Slot* pick_from(std::vector<Slot>& pool, const std::function<bool(const Slot&)>& pred = nullptr);

  // ---- constants
  Tensor uniform(Shape s, double lo, double hi);
  Tensor scalar_f(float v, bool rank0 = true);
  static Tensor ints64(const std::vector<int64_t>& v);
  /// A random broadcast partner shape for `s` (a suffix of it with some dims set to 1).
  Shape broadcast_partner(const Shape& s);

  // ---- guards: values a restricted-domain op may read
  /// |x| + c (c > 0): positive, bounded away from 0.
  Value* positive(Value* x, float c);
  /// x when its magnitude is small enough, else Tanh(x) (|·| < 1).
  Value* bounded(Value* x, double max_mag);

  std::string fresh(const std::string& hint);

 private:
  const core::Environment& env_;
  const std::set<std::string>& ops_;
  int counter_ = 0;
};

/// One op family: adds a node (and its guards) to the builder, or returns false when the draw
/// did not give a valid node.
using Family = std::function<bool(Builder&)>;
struct FamilyEntry {
  std::string name;
  std::vector<std::string> ops;  ///< op types it may emit (the cpu backend must run the first)
  int weight;
  Family fn;
};
/// Families of elementwise, broadcast, logical and data-movement ops (gen_ops.cc).
std::vector<FamilyEntry> basic_families();
/// Families of NN ops and the fusion rules' source patterns (gen_ops_nn.cc).
std::vector<FamilyEntry> nn_families();

}  // namespace ge::difftest
