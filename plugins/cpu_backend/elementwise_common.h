// plugins/cpu_backend/elementwise_common.h — compile-time dtype dispatch and the registration
// helpers shared by the elementwise_*.cc and tensor_*.cc kernel files.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_set>

#include "broadcast.h"
#include "half.h"
#include "vecmath.h"
#include "ge/sdk/error.h"
#include "ge/sdk/kernel.h"
#include "ge/sdk/plugin.h"
#include "ge/sdk/types.h"

namespace ge::cpu {

/// The DataType of a C++ element type.
template <class T> constexpr DataType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DataType::Float32;
  else if constexpr (std::is_same_v<T, double>) return DataType::Float64;
  else if constexpr (std::is_same_v<T, int8_t>) return DataType::Int8;
  else if constexpr (std::is_same_v<T, int16_t>) return DataType::Int16;
  else if constexpr (std::is_same_v<T, int32_t>) return DataType::Int32;
  else if constexpr (std::is_same_v<T, int64_t>) return DataType::Int64;
  else if constexpr (std::is_same_v<T, uint8_t>) return DataType::UInt8;
  else if constexpr (std::is_same_v<T, uint16_t>) return DataType::UInt16;
  else if constexpr (std::is_same_v<T, uint32_t>) return DataType::UInt32;
  else if constexpr (std::is_same_v<T, uint64_t>) return DataType::UInt64;
  else if constexpr (std::is_same_v<T, bool>) return DataType::Bool;
  else if constexpr (std::is_same_v<T, half>) return DataType::Float16;
  else if constexpr (std::is_same_v<T, bfloat16>) return DataType::BFloat16;
  else static_assert(sizeof(T) == 0, "no DataType for this type");
}

/// A list of element types; doubles as the list of dtypes a kernel accepts.
template <class... Ts> struct Types {};
using FloatTypes = Types<float, double>;
using SignedTypes = Types<float, double, int8_t, int16_t, int32_t, int64_t>;
using NumericTypes = Types<float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
/// The same lists with the 16-bit float storage types (computed in float32, see Wide).
using AnyFloatTypes = Types<float, double, half, bfloat16>;
using AnySignedTypes = Types<float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t>;
using AnyNumericTypes =
    Types<float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
using AllTypes = Types<float, double, half, bfloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                       uint64_t, bool>;

/// Wide<T>::type is the type T is computed in: float for half and bfloat16, T otherwise;
/// in() widens a stored element, out() rounds a result back.
template <class T> struct Wide {
  using type = T;
  static T in(T v) { return v; }
  static T out(T v) { return v; }
};
template <> struct Wide<half> {
  using type = float;
  static float in(half v) { return to_float(v); }
  static half out(float v) { return to_half(v); }
};
template <> struct Wide<bfloat16> {
  using type = float;
  static float in(bfloat16 v) { return to_float(v); }
  static bfloat16 out(float v) { return to_bfloat16(v); }
};
template <class T> using wide_t = typename Wide<T>::type;
template <class T> constexpr bool is_storage_v = !std::is_same_v<wide_t<T>, T>;

/// Calls f(std::type_identity<T>{}) for the T in the list whose dtype is t; returns false when
/// t is not in the list (the caller then refuses the dtype).
template <class... Ts, class F>
bool visit_type(Types<Ts...>, DataType t, F&& f) {
  return ((t == dtype_of<Ts>() ? (f(std::type_identity<Ts>{}), true) : false) || ...);
}

/// The UnsupportedError every kernel factory throws for a dtype it does not handle,
/// e.g. "Add: dtype bf16 not supported".
[[noreturn]] inline void unsupported_dtype(const std::string& op, DataType t, const std::string& which = "") {
  throw UnsupportedError(op + ": " + (which.empty() ? "" : which + " ") + "dtype " + std::string(dtype_name(t)) +
                         " not supported");
}

/// Adds a kernel for backend "cpu", default (ai.onnx) domain.
inline void add_cpu_kernel(Registrar& r, const std::string& op, KernelFactory f) {
  r.add_kernel(KernelDef{"cpu", "", op, std::move(f), ""});
}

// blocked.h (kept out of this header: it brings oneDNN's).
std::unordered_set<std::string>& blocked_map_ops();
std::unique_ptr<Kernel> make_blocked_map(const KernelBuildContext& ctx, std::unique_ptr<Kernel> map);

/// Adds a same-type unary map kernel (unary_factory / map_factory): recorded in blocked_map_ops
/// so that the layout pass may put it on NC1HWC0 between blocked neighbours, where MapKernel maps
/// every stored element and make_blocked_map zeroes the padding channels afterwards.
inline void add_map_kernel(Registrar& r, const std::string& op, KernelFactory f) {
  blocked_map_ops().insert(op);
  add_cpu_kernel(r, op, [plain = std::move(f)](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
    std::unique_ptr<Kernel> k = plain(ctx);
    if (ctx.node.output(0) && ctx.node.output(0)->format == Format::NC1HWC0) return make_blocked_map(ctx, std::move(k));
    return k;
  });
}

/// True when io.inputs[i] is present (not an omitted optional input).
inline bool has_io_input(const KernelIO& io, size_t i) {
  return i < io.inputs.size() && io.inputs[i].data() != nullptr;
}

/// Widens n stored elements to their compute type (float16 with the vector conversions).
template <class T> void widen(const T* x, wide_t<T>* y, int64_t n) {
  if constexpr (std::is_same_v<T, half>) vec::half_to_float(reinterpret_cast<const uint16_t*>(x), y, n);
  else for (int64_t i = 0; i < n; ++i) y[i] = Wide<T>::in(x[i]);
}
/// Rounds n compute-type values back to the stored type.
template <class T> void narrow(const wide_t<T>* x, T* y, int64_t n) {
  if constexpr (std::is_same_v<T, half>) vec::float_to_half(x, reinterpret_cast<uint16_t*>(y), n);
  else for (int64_t i = 0; i < n; ++i) y[i] = Wide<T>::out(x[i]);
}

/// y[i] = op(x[i]) for i < n. A 16-bit float operand is widened to float32 in blocks on the
/// stack; an Op with bulk(const float*, float*, n) (the vectorized transcendentals of
/// vecmath.h) gets whole blocks, otherwise the loop is a plain per-element one that GCC
/// vectorizes where the math allows.
template <class TI, class TO, class Op>
void map_elements(const Op& op, const TI* x, TO* y, int64_t n) {
  using CI = wide_t<TI>;
  using CO = wide_t<TO>;
  if constexpr (!is_storage_v<TI> && !is_storage_v<TO>) {
    if constexpr (requires { op.bulk(x, y, n); }) {
      op.bulk(x, y, n);
    } else {
      for (int64_t i = 0; i < n; ++i) y[i] = op(x[i]);
    }
  } else {
    constexpr int64_t kChunk = 512;
    CI xb[kChunk];
    CO yb[kChunk];
    for (int64_t b = 0; b < n; b += kChunk) {
      const int64_t m = std::min(kChunk, n - b);
      widen(x + b, xb, m);
      map_elements<CI, CO>(op, xb, yb, m);
      narrow(yb, y + b, m);
    }
  }
}

/// y = Op(x) over a contiguous tensor (shapes of x and y are equal for every unary op here).
/// Op is a functor (attributes as members) called on the compute type wide_t<TI>.
template <class TI, class TO, class Op>
class MapKernel final : public Kernel {
 public:
  MapKernel(Op op, int threads, std::string name) : op_(op), threads_(threads), name_(std::move(name)) {}
  void run(KernelIO& io) override {
    const TI* x = io.inputs[0].data_as<TI>();
    TO* y = io.outputs[0].data_as<TO>();
    // Stored elements: on NC1HWC0 (add_map_kernel) the map covers the padding channels too.
    loops::parallel_chunks(io.outputs[0].storage_numel(), threads_,
                           [&](int64_t b, int64_t e) { map_elements<TI, TO>(op_, x + b, y + b, e - b); });
  }
  std::string impl_name() const override { return "cpu:" + name_; }

 private:
  Op op_;
  int threads_;
  std::string name_;
};
template <class T, class Op> using UnaryKernel = MapKernel<T, T, Op>;

inline void check_same_numel(const KernelBuildContext& ctx) {
  if (ctx.input_shape(0).numel() != ctx.output_shape(0).numel()) {
    throw InvalidGraphError(ctx.node.describe() + ": output shape " + ctx.output_shape(0).str() +
                            " differs from input shape " + ctx.input_shape(0).str());
  }
}

/// The UnsupportedError of a node whose dtype a kernel does not handle, naming op, node, dtype.
[[noreturn]] inline void unsupported_node_dtype(const KernelBuildContext& ctx, DataType t,
                                                const std::string& which = "") {
  throw UnsupportedError(ctx.node.op_type() + ": " + (which.empty() ? "" : which + " ") + "dtype " +
                         std::string(dtype_name(t)) + " not supported (node " + ctx.node.describe() + ")");
}

/// A binary Op applied on the compute types of its stored operands; TO is the stored result
/// (for float32 operands every conversion is the identity and the loop vectorizes as before).
/// Integer Add, Sub and Mul wrap modulo 2^bits, as numpy's integer arithmetic does (the ONNX
/// reference is numpy): computed in an unsigned type at least as wide as `unsigned`, since
/// signed overflow (and uint16·uint16 promoted to int) is undefined behaviour in C++; the
/// conversion back is modular (C++20). Floating-point types compute as written.
template <class T> using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <class T, class F> T wrapping(T a, T b, F f) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = WrapType<T>;
    return static_cast<T>(f(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return static_cast<T>(f(a, b));
  }
}
template <class TO, class Op> struct WideBinary {
  Op op;
  template <class A, class B> TO operator()(A a, B b) const {
    return Wide<TO>::out(op(Wide<A>::in(a), Wide<B>::in(b)));
  }
};

/// out = op(a, b) with numpy broadcasting over a plan (out, a, b) built at kernel build time.
template <class TA, class TB, class TO, class Op>
class BinaryKernel final : public Kernel {
 public:
  BinaryKernel(loops::LoopPlan plan, Op op, int threads, std::string name)
      : plan_(std::move(plan)), op_(op), threads_(threads), name_(std::move(name)) {}
  void run(KernelIO& io) override {
    loops::binary_rows<TA, TB, TO>(plan_, io.inputs[0].data_as<TA>(), io.inputs[1].data_as<TB>(),
                                   io.outputs[0].data_as<TO>(), threads_, WideBinary<TO, Op>{op_});
  }
  std::string impl_name() const override { return "cpu:" + name_; }

 private:
  loops::LoopPlan plan_;
  Op op_;
  int threads_;
  std::string name_;
};

/// A factory for BinaryKernel<T, T, T or bool, Op> over two inputs of one dtype in TypeList;
/// make(ctx) builds the functor from the node's attributes.
template <class Op, class Out = void, class TypeList, class Make>
KernelFactory binary_factory(const std::string& op, TypeList types, Make make) {
  return [op, types, make](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
    const DataType t = ctx.input_type(0);
    if (ctx.input_type(1) != t) {
      throw InvalidGraphError(ctx.node.describe() + ": inputs have different dtypes " + std::string(dtype_name(t)) +
                              " and " + std::string(dtype_name(ctx.input_type(1))));
    }
    auto plan = loops::broadcast_plan(ctx.output_shape(0), {ctx.input_shape(0), ctx.input_shape(1)}, ctx.node.describe());
    std::unique_ptr<Kernel> k;
    if (!visit_type(types, t, [&](auto tag) {
          using T = typename decltype(tag)::type;
          using TO = std::conditional_t<std::is_void_v<Out>, T, Out>;
          k = std::make_unique<BinaryKernel<T, T, TO, Op>>(std::move(plan), make(ctx), ctx.threads, op);
        })) {
      unsupported_node_dtype(ctx, t);
    }
    return k;
  };
}

/// A factory for MapKernel<T, T or bool, Op> over the dtypes in TypeList; make(ctx) builds
/// the functor from the node's attributes. Out is void for "same as the input", else bool.
template <class Op, class Out = void, class TypeList, class Make>
KernelFactory map_factory(const std::string& op, TypeList types, Make make) {
  return [op, types, make](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
    check_same_numel(ctx);
    std::unique_ptr<Kernel> k;
    if (!visit_type(types, ctx.input_type(0), [&](auto tag) {
          using T = typename decltype(tag)::type;
          using TO = std::conditional_t<std::is_void_v<Out>, T, Out>;
          k = std::make_unique<MapKernel<T, TO, Op>>(make(ctx), ctx.threads, op);
        })) {
      unsupported_node_dtype(ctx, ctx.input_type(0));
    }
    return k;
  };
}

/// A factory for UnaryKernel<T, Op> over the dtypes in TypeList (Op default-constructed).
template <class Op, class TypeList>
KernelFactory unary_factory(const std::string& op, TypeList types) {
  return map_factory<Op>(op, types, [](const KernelBuildContext&) { return Op{}; });
}

// Per-family registration functions (called by register_elementwise_kernels and
// register_tensor_kernels).
void register_binary_kernels(Registrar& r);      // Add Sub Mul Div Pow Mod BitShift
void register_unary_kernels(Registrar& r);       // Abs Neg ... Sqrt Erf, trigonometric, IsNaN IsInf Not
void register_activation_kernels(Registrar& r);  // Relu LeakyRelu PRelu Elu ... Sigmoid Tanh Clip
void register_sum_kernels(Registrar& r);         // Sum
void register_variadic_kernels(Registrar& r);    // Min Max Mean
void register_compare_kernels(Registrar& r);     // Equal Less Greater ... And Or Xor Where
void register_cast_kernels(Registrar& r);        // Cast CastLike
void register_shape_kernels(Registrar& r);       // Reshape Flatten Squeeze Unsqueeze Identity Dropout
void register_transpose_kernels(Registrar& r);   // Transpose
void register_concat_slice_kernels(Registrar& r);  // Concat Slice
void register_gather_kernels(Registrar& r);      // Gather
void register_misc_tensor_kernels(Registrar& r);  // Shape Constant

}  // namespace ge::cpu
