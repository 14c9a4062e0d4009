// plugins/cpu_backend/elementwise_compare.cc — comparisons (Equal, Less, LessOrEqual, Greater,
// GreaterOrEqual: bool outputs), logical ops (And, Or, Xor on bool) and the ternary Where, all
// with numpy multidirectional broadcasting (ONNX docs/Broadcasting.md).
#include "broadcast.h"
#include "elementwise_common.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {

// IEEE comparisons: any comparison with NaN is false (np.equal, np.less, ...).
struct EqualOp {
  template <class T> bool operator()(T a, T b) const { return a == b; }
};
struct LessOp {
  template <class T> bool operator()(T a, T b) const { return a < b; }
};
struct LessOrEqualOp {
  template <class T> bool operator()(T a, T b) const { return a <= b; }
};
struct GreaterOp {
  template <class T> bool operator()(T a, T b) const { return a > b; }
};
struct GreaterOrEqualOp {
  template <class T> bool operator()(T a, T b) const { return a >= b; }
};
struct AndOp {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct OrOp {
  bool operator()(bool a, bool b) const { return a || b; }
};
struct XorOp {
  bool operator()(bool a, bool b) const { return a != b; }
};

template <class Op> Op no_attrs(const KernelBuildContext&) { return Op{}; }

/// Where-16: out = cond ? X : Y over a four-operand plan (out, cond, X, Y). Elements are moved
/// as bits, so every dtype of a fixed size works.
template <class U>
class WhereKernel final : public Kernel {
 public:
  WhereKernel(loops::LoopPlan plan, int threads) : plan_(std::move(plan)), threads_(threads) {}
  void run(KernelIO& io) override {
    const bool* c = io.inputs[0].data_as<bool>();
    const U* x = static_cast<const U*>(io.inputs[1].data());
    const U* y = static_cast<const U*>(io.inputs[2].data());
    U* out = static_cast<U*>(io.outputs[0].data());
    const int64_t sc = plan_.inner_stride(1), sx = plan_.inner_stride(2), sy = plan_.inner_stride(3);
    // Broadcast plans have inner strides 0 or 1: one loop per combination, strides constant.
    const int form = static_cast<int>(sc << 2 | sx << 1 | sy);
    loops::for_each_row(plan_, threads_, [&](const int64_t* off, int64_t n) {
      U* o = out + off[0];
      const bool* cr = c + off[1];
      const U* xr = x + off[2];
      const U* yr = y + off[3];
      if constexpr (sizeof(U) == 4) {
        // The common case, a contiguous condition over 4-byte elements: AVX-512 blend.
        if (sc == 1 && vec::select32(cr, reinterpret_cast<const uint32_t*>(xr), sx, reinterpret_cast<const uint32_t*>(yr), sy,
                                     reinterpret_cast<uint32_t*>(o), n))
          return;
      }
      switch (form) {
        case 0: return row<0, 0, 0>(o, cr, xr, yr, n);
        case 1: return row<0, 0, 1>(o, cr, xr, yr, n);
        case 2: return row<0, 1, 0>(o, cr, xr, yr, n);
        case 3: return row<0, 1, 1>(o, cr, xr, yr, n);
        case 4: return row<1, 0, 0>(o, cr, xr, yr, n);
        case 5: return row<1, 0, 1>(o, cr, xr, yr, n);
        case 6: return row<1, 1, 0>(o, cr, xr, yr, n);
        default: return row<1, 1, 1>(o, cr, xr, yr, n);
      }
    });
  }
  std::string impl_name() const override { return "cpu:Where"; }

 private:
  template <int SC, int SX, int SY>
  static void row(U* o, const bool* c, const U* x, const U* y, int64_t n) {
    // A bit select (all-ones mask from the 0/1 condition byte) so the loop vectorizes.
    for (int64_t j = 0; j < n; ++j) {
      const U m = static_cast<U>(U(0) - static_cast<U>(c[j * SC]));
      o[j] = static_cast<U>((x[j * SX] & m) | (y[j * SY] & static_cast<U>(~m)));
    }
  }

  loops::LoopPlan plan_;
  int threads_;
};

std::unique_ptr<Kernel> make_where(const KernelBuildContext& ctx) {
  if (ctx.input_type(0) != DataType::Bool) unsupported_node_dtype(ctx, ctx.input_type(0), "condition");
  const DataType t = ctx.input_type(1);
  if (ctx.input_type(2) != t) {
    throw InvalidGraphError(ctx.node.describe() + ": X and Y have different dtypes " + std::string(dtype_name(t)) +
                            " and " + std::string(dtype_name(ctx.input_type(2))));
  }
  auto plan = loops::broadcast_plan(ctx.output_shape(0), {ctx.input_shape(0), ctx.input_shape(1), ctx.input_shape(2)},
                                    ctx.node.describe());
  std::unique_ptr<Kernel> k;
  if (t == DataType::String || dtype_size(t) == 0) unsupported_node_dtype(ctx, t);
  loops::dispatch_bits(t, "Where", [&](auto tag) {
    k = std::make_unique<WhereKernel<typename decltype(tag)::type>>(std::move(plan), ctx.threads);
  });
  return k;
}

// Equal-13 also takes bool; the order comparisons take every numeric type.
using EqualTypes = AllTypes;

}  // namespace

void register_compare_kernels(Registrar& r) {
  add_cpu_kernel(r, "Equal", binary_factory<EqualOp, bool>("Equal", EqualTypes{}, no_attrs<EqualOp>));
  add_cpu_kernel(r, "Less", binary_factory<LessOp, bool>("Less", AnyNumericTypes{}, no_attrs<LessOp>));
  add_cpu_kernel(r, "LessOrEqual", binary_factory<LessOrEqualOp, bool>("LessOrEqual", AnyNumericTypes{}, no_attrs<LessOrEqualOp>));
  add_cpu_kernel(r, "Greater", binary_factory<GreaterOp, bool>("Greater", AnyNumericTypes{}, no_attrs<GreaterOp>));
  add_cpu_kernel(r, "GreaterOrEqual",
                 binary_factory<GreaterOrEqualOp, bool>("GreaterOrEqual", AnyNumericTypes{}, no_attrs<GreaterOrEqualOp>));
  add_cpu_kernel(r, "And", binary_factory<AndOp, bool>("And", Types<bool>{}, no_attrs<AndOp>));
  add_cpu_kernel(r, "Or", binary_factory<OrOp, bool>("Or", Types<bool>{}, no_attrs<OrOp>));
  add_cpu_kernel(r, "Xor", binary_factory<XorOp, bool>("Xor", Types<bool>{}, no_attrs<XorOp>));
  add_cpu_kernel(r, "Where", make_where);
}

}  // namespace ge::cpu
