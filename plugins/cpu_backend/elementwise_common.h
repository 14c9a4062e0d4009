// plugins/cpu_backend/elementwise_common.h — compile-time dtype dispatch and the registration
// helpers shared by the elementwise_*.cc and tensor_*.cc kernel files.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "broadcast.h"
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
  else static_assert(sizeof(T) == 0, "no DataType for this type");
}

/// A list of element types; doubles as the list of dtypes a kernel accepts.
template <class... Ts> struct Types {};
using FloatTypes = Types<float, double>;
using SignedTypes = Types<float, double, int8_t, int16_t, int32_t, int64_t>;
using NumericTypes = Types<float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;

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

/// True when io.inputs[i] is present (not an omitted optional input).
inline bool has_io_input(const KernelIO& io, size_t i) {
  return i < io.inputs.size() && io.inputs[i].data() != nullptr;
}

/// y = Op(x) over a contiguous tensor (shapes of x and y are equal for every unary op here).
/// Op is a stateless functor so the loop inlines and vectorizes where the math allows.
template <class T, class Op>
class UnaryKernel final : public Kernel {
 public:
  UnaryKernel(int threads, std::string name) : threads_(threads), name_(std::move(name)) {}
  void run(KernelIO& io) override {
    const T* x = io.inputs[0].data_as<T>();
    T* y = io.outputs[0].data_as<T>();
    loops::parallel_chunks(io.outputs[0].numel(), threads_, [&](int64_t b, int64_t e) {
      Op op;
      for (int64_t i = b; i < e; ++i) y[i] = op(x[i]);
    });
  }
  std::string impl_name() const override { return "cpu:" + name_; }

 private:
  int threads_;
  std::string name_;
};

/// A factory for UnaryKernel<T, Op> over the dtypes in TypeList.
template <class Op, class TypeList>
KernelFactory unary_factory(const std::string& op, TypeList types) {
  return [op, types](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
    if (ctx.input_shape(0).numel() != ctx.output_shape(0).numel()) {
      throw InvalidGraphError(ctx.node.describe() + ": output shape " + ctx.output_shape(0).str() +
                              " differs from input shape " + ctx.input_shape(0).str());
    }
    std::unique_ptr<Kernel> k;
    if (!visit_type(types, ctx.input_type(0), [&](auto tag) {
          k = std::make_unique<UnaryKernel<typename decltype(tag)::type, Op>>(ctx.threads, op);
        })) {
      unsupported_dtype(op, ctx.input_type(0));
    }
    return k;
  };
}

// Per-family registration functions (called by register_elementwise_kernels and
// register_tensor_kernels).
void register_binary_kernels(Registrar& r);      // Add Sub Mul Div Pow
void register_unary_kernels(Registrar& r);       // Sqrt Erf
void register_activation_kernels(Registrar& r);  // Relu Sigmoid Clip
void register_sum_kernels(Registrar& r);         // Sum
void register_shape_kernels(Registrar& r);       // Reshape Flatten Squeeze Unsqueeze Identity Dropout
void register_transpose_kernels(Registrar& r);   // Transpose
void register_concat_slice_kernels(Registrar& r);  // Concat Slice
void register_gather_kernels(Registrar& r);      // Gather
void register_misc_tensor_kernels(Registrar& r);  // Shape Constant

}  // namespace ge::cpu
