// plugins/cpu_backend/tensor_common.h — helpers shared by the shape, creation, indexing,
// ordering and reduction kernels (tensor_*.cc, reduce.cc, softmax.cc, einsum.cc): arithmetic
// dtype dispatch that includes float16/bfloat16 (computed in float), operand readers that take
// a parameter from a constant input at build time or from the bound input at run time, and the
// index check that stops a run on an out-of-range index.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "elementwise_common.h"

namespace ge::cpu {

// ---------------------------------------------------------------- registration

void register_creation_kernels(Registrar& r);  // ConstantOfShape EyeLike Range Size Expand Tile Trilu
void register_pad_kernels(Registrar& r);       // Pad
void register_index_kernels(Registrar& r);     // GatherElements GatherND OneHot
void register_scatter_kernels(Registrar& r);   // Scatter ScatterElements ScatterND
void register_reorder_kernels(Registrar& r);   // ReverseSequence DepthToSpace SpaceToDepth
void register_ordering_kernels(Registrar& r);  // TopK ArgMax ArgMin CumSum
void register_softmax_kernels(Registrar& r);   // Softmax LogSoftmax Hardmax
void register_einsum_kernels(Registrar& r);    // Einsum

// ---------------------------------------------------------------- arithmetic dtypes

namespace arith {

/// IEEE binary16 and bfloat16 stored as bits; arithmetic happens in float (as ORT's CPU
/// kernels do for MLFloat16), so a value is rounded once, on store.
struct Half {
  uint16_t bits;
};
struct BHalf {
  uint16_t bits;
};

inline float bf16_to_float(uint16_t b) {
  const uint32_t u = uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
/// Round to nearest even (as numpy/ml_dtypes do); NaN stays a quiet NaN.
inline uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

/// Num<T>::acc is the type a kernel computes in; load/store convert from and to storage.
template <class T> struct Num {
  using acc = T;
  static acc load(T v) { return v; }
  static T store(acc v) { return v; }
};
template <> struct Num<Half> {
  using acc = float;
  static float load(Half v) { return half_to_float(v.bits); }
  static Half store(float v) { return Half{float_to_half(v)}; }
};
template <> struct Num<BHalf> {
  using acc = float;
  static float load(BHalf v) { return bf16_to_float(v.bits); }
  static BHalf store(float v) { return BHalf{float_to_bf16(v)}; }
};
template <> struct Num<bool> {
  using acc = bool;
  static bool load(bool v) { return v; }
  static bool store(bool v) { return v; }
};

template <class T> constexpr DataType dtype_of_any() {
  if constexpr (std::is_same_v<T, Half>) return DataType::Float16;
  else if constexpr (std::is_same_v<T, BHalf>) return DataType::BFloat16;
  else if constexpr (std::is_same_v<T, bool>) return DataType::Bool;
  else return dtype_of<T>();
}

template <class... Ts> struct List {};
using Floats = List<float, double, Half, BHalf>;
using Numeric = List<float, double, Half, BHalf, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                     uint64_t>;
using NumericBool = List<float, double, Half, BHalf, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                         uint64_t, bool>;

/// Calls f(std::type_identity<T>{}) for the T of dtype t; false when t is not in the list.
template <class... Ts, class F>
bool visit(List<Ts...>, DataType t, F&& f) {
  return ((t == dtype_of_any<Ts>() ? (f(std::type_identity<Ts>{}), true) : false) || ...);
}

/// visit() or UnsupportedError "<node>: <what> dtype <t> not supported".
template <class L, class F>
void dispatch(L list, DataType t, const KernelBuildContext& ctx, const std::string& what, F&& f) {
  if (!visit(list, t, std::forward<F>(f))) {
    throw UnsupportedError(ctx.node.describe() + ": " + what + " dtype " + std::string(dtype_name(t)) +
                           " not supported");
  }
}

/// Element i of a numeric tensor as double (any dtype of Numeric or bool).
double load_double(const Tensor& t, int64_t i);
/// Stores v into element i of t (converted to t's dtype).
void store_double(Tensor& t, int64_t i, double v);

}  // namespace arith

// ---------------------------------------------------------------- operands

/// Integer contents of input i when it is present and constant at build time.
inline std::optional<std::vector<int64_t>> const_ints(const KernelBuildContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return std::nullopt;
  const Tensor* t = ctx.input_data(i);
  if (!t) return std::nullopt;
  return t->to_int64_vector();
}

/// A run-time check of input `i` when it only decides the static output shape and was not
/// constant at build time: `agrees` gets its integer contents, and a disagreement stops the run
/// naming the node and `what` (never a result of the wrong shape). Empty when input i is absent
/// or constant (then the build step checked it).
using RunCheck = std::function<void(const KernelIO&)>;
inline RunCheck run_check(const KernelBuildContext& ctx, size_t i,
                          std::function<bool(const std::vector<int64_t>&)> agrees, std::string what) {
  if (!ctx.has_input(i) || ctx.input_data(i)) return {};
  return [i, agrees = std::move(agrees), msg = ctx.node.describe() + ": " + what + " at run time disagrees with the "
                                               "output shape " + ctx.output_shape(0).str()](const KernelIO& io) {
    if (i < io.inputs.size() && io.inputs[i].data() && !agrees(io.inputs[i].to_int64_vector())) throw Error(msg);
  };
}

/// "<node>: " prefix.
inline std::string at_node(const KernelBuildContext& ctx) { return ctx.node.describe() + ": "; }

/// Throws InvalidGraphError unless the static output shape equals `want`.
inline void expect_output_shape(const KernelBuildContext& ctx, const Shape& want, size_t k = 0) {
  if (ctx.output_shape(k) != want) {
    throw InvalidGraphError(at_node(ctx) + ctx.node.op_type() + " gives " + want.str() + " but output " +
                            std::to_string(k) + " is " + ctx.output_shape(k).str());
  }
}

/// An index read at run time, normalized (negative counts from the end); a value outside
/// [-bound, bound) stops the run naming the node, the index and the bound. Checked before any
/// parallel region (an exception must not leave an OpenMP region).
inline int64_t checked_index(int64_t v, int64_t bound, const std::string& node, const char* what = "index") {
  const int64_t orig = v;
  if (v < 0) v += bound;
  if (v < 0 || v >= bound) {
    throw Error(node + ": " + what + " " + std::to_string(orig) + " is out of range [" + std::to_string(-bound) +
                ", " + std::to_string(bound) + ")");
  }
  return v;
}

/// Product of dims [b, e).
inline int64_t span_numel(const Shape& s, size_t b, size_t e) {
  int64_t n = 1;
  for (size_t i = b; i < e && i < s.rank(); ++i) n *= s[i];
  return n;
}

}  // namespace ge::cpu
