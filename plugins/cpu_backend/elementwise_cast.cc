// plugins/cpu_backend/elementwise_cast.cc — Cast-13 and CastLike-15 between every numeric
// type and bool (string is not supported).
//
// ONNX 1.12 leaves float -> integer undefined for NaN, infinities and out-of-range values (and
// C++ makes it undefined behaviour). These kernels give what ONNX Runtime's CPU Cast gives on
// x86-64, where that conversion is a static_cast compiled to the truncating cvttss2si /
// cvttsd2si instructions: to int8/16/32 and uint8/16 the value is converted to int32 (NaN or
// out of range -> INT32_MIN) and the low bits kept; to uint32 and int64 likewise through int64;
// to uint64 values >= 2^63 go through x - 2^63, so NaN -> 2^63 and +inf -> 0. Integer ->
// integer keeps the low bits (two's complement); float -> float16 rounds to nearest even (double
// first to float, as ORT's Eigen::half does); float -> bfloat16 keeps the upper 16 bits of the
// float32 (truncation, what ONNX 1.12's Cast node tests expect; a NaN stays NaN); anything ->
// bool is x != 0.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "elementwise_common.h"

namespace ge::cpu {
namespace {

/// x86-64 cvtt to a signed integer of B bits: truncation, or the "integer indefinite" value
/// (the minimum) for NaN and values outside the range.
template <class I, class F> I cvtt(F x) {
  constexpr F lo = -static_cast<F>(std::numeric_limits<I>::max()) - F(1);  // -2^(B-1), exact
  if (!(x >= lo && x < -lo)) return std::numeric_limits<I>::min();
  return static_cast<I>(x);
}

template <class D, class F> D float_to_int(F x) {
  if constexpr (std::is_same_v<D, uint64_t>) {
    constexpr F two63 = F(9223372036854775808.0);
    if (x >= two63) return static_cast<uint64_t>(cvtt<int64_t>(x - two63)) ^ (uint64_t{1} << 63);
    return static_cast<uint64_t>(cvtt<int64_t>(x));
  } else if constexpr (std::is_same_v<D, int64_t> || std::is_same_v<D, uint32_t>) {
    return static_cast<D>(cvtt<int64_t>(x));
  } else {
    return static_cast<D>(cvtt<int32_t>(x));
  }
}

template <class D, class S> D cast_value(S s) {
  if constexpr (is_storage_v<S>) {
    return cast_value<D>(Wide<S>::in(s));
  } else if constexpr (std::is_same_v<D, bool>) {
    return s != S(0);
  } else if constexpr (std::is_same_v<D, bfloat16>) {
    const float f = static_cast<float>(s);
    if (f != f) return to_bfloat16(f);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return bfloat16{static_cast<uint16_t>(u >> 16)};
  } else if constexpr (is_storage_v<D>) {
    return Wide<D>::out(static_cast<float>(s));
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    return float_to_int<D>(s);
  } else {
    return static_cast<D>(s);
  }
}

template <class S, class D>
class CastKernel final : public Kernel {
 public:
  explicit CastKernel(int threads) : threads_(threads) {}
  void run(KernelIO& io) override {
    const S* x = io.inputs[0].data_as<S>();
    D* y = io.outputs[0].data_as<D>();
    loops::parallel_chunks(io.outputs[0].numel(), threads_, [&](int64_t b, int64_t e) {
      if constexpr (std::is_same_v<S, half> && std::is_same_v<D, float>) {
        widen(x + b, y + b, e - b);
      } else if constexpr (std::is_same_v<S, float> && std::is_same_v<D, half>) {
        narrow(x + b, y + b, e - b);
      } else {
        for (int64_t i = b; i < e; ++i) y[i] = cast_value<D>(x[i]);
      }
    });
  }
  std::string impl_name() const override {
    return "cpu:Cast(" + std::string(dtype_name(dtype_of<S>())) + "->" + std::string(dtype_name(dtype_of<D>())) + ")";
  }

 private:
  int threads_;
};

/// Same dtype: a copy.
class CopyKernel final : public Kernel {
 public:
  explicit CopyKernel(int threads) : threads_(threads) {}
  void run(KernelIO& io) override {
    if (io.outputs[0].data() == io.inputs[0].data()) return;
    loops::parallel_memcpy(io.outputs[0].data(), io.inputs[0].data(), io.outputs[0].nbytes(), threads_);
  }
  std::string impl_name() const override { return "cpu:Cast(copy)"; }

 private:
  int threads_;
};

/// The target is the output's dtype (Cast: attribute `to`; CastLike: the second input's dtype).
std::unique_ptr<Kernel> make_cast(const KernelBuildContext& ctx) {
  check_same_numel(ctx);
  const DataType s = ctx.input_type(0), d = ctx.output_type(0);
  if (ctx.node.op_type() == "Cast") {
    const int64_t to = ctx.node.attrs.get_int("to", static_cast<int64_t>(d));
    if (to != static_cast<int64_t>(d))
      throw InvalidGraphError(ctx.node.describe() + ": attribute to = " + std::to_string(to) +
                              " but the output dtype is " + std::string(dtype_name(d)));
  } else if (ctx.has_input(1) && ctx.input_type(1) != d) {
    throw InvalidGraphError(ctx.node.describe() + ": output dtype " + std::string(dtype_name(d)) +
                            " differs from target_type's " + std::string(dtype_name(ctx.input_type(1))));
  }
  std::unique_ptr<Kernel> k;
  if (s == d && dtype_size(s) > 0) return std::make_unique<CopyKernel>(ctx.threads);
  bool d_ok = true;
  const bool s_ok = visit_type(AllTypes{}, s, [&](auto st) {
    d_ok = visit_type(AllTypes{}, d, [&](auto dt) {
      k = std::make_unique<CastKernel<typename decltype(st)::type, typename decltype(dt)::type>>(ctx.threads);
    });
  });
  if (!s_ok) unsupported_node_dtype(ctx, s, "input");
  if (!d_ok) unsupported_node_dtype(ctx, d, "output");
  return k;
}

}  // namespace

void register_cast_kernels(Registrar& r) {
  add_cpu_kernel(r, "Cast", make_cast);
  add_cpu_kernel(r, "CastLike", make_cast);
}

}  // namespace ge::cpu
