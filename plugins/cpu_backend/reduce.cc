// plugins/cpu_backend/reduce.cc — the ONNX Reduce* family (onnx/docs/Operators.md#ReduceSum
// and siblings): ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, for every numeric dtype.
//
// Axes: an attribute, or input 1 for ReduceSum from opset 13 and for every op from opset 18
// (read at run time when not constant), with noop_with_empty_axes (empty axes: identity when
// set, else reduce everything). keepdims (default 1) keeps reduced axes as extent 1. A
// reduction over an empty set gives the op's identity as ONNX's reference does: 0 for the
// sums, 1 for Prod, -inf/+inf (lowest/highest integer) for Max/Min, log(0) = -inf for
// LogSum/LogSumExp, and 0/0 = NaN for Mean.
//
// Input axes are merged into alternating runs of kept and reduced axes. float32 Sum/Mean of
// the form [outer, reduced, inner] runs on the vectorized loops (simd::); everything else walks,
// for each output element, its reduced elements, accumulating in double (floats) or 64-bit
// integers (integer results wrap like the type's own arithmetic).
#include <cmath>
#include <type_traits>
#include <limits>
#include <string>

#include "cpu_backend.h"
#include "kernels.h"
#include "tensor_common.h"

namespace ge::cpu {
namespace {

enum class Red { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

/// Kept and reduced axes after merging; offsets in elements of the contiguous input.
struct ReducePlan {
  std::vector<int64_t> kept_dims, kept_strides, red_dims, red_strides;
  int64_t red_count = 1;
  bool noop = false;  // noop_with_empty_axes with empty axes: a copy
  // [O, R, I] form when the input is kept-reduced-kept (each possibly absent).
  bool ori = false;
  int64_t O = 1, R = 1, I = 1;
};

ReducePlan reduce_plan(const Shape& xs, const Shape& ys, const std::vector<int64_t>& axes, bool noop_empty,
                       bool keepdims, const std::string& who) {
  ReducePlan p;
  const auto rank = static_cast<int64_t>(xs.rank());
  if (axes.empty() && noop_empty) {
    p.noop = true;
    if (ys != xs) throw InvalidGraphError(who + ": noop reduction but the output is " + ys.str());
    return p;
  }
  std::vector<bool> red(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) {
    const int64_t n = normalize_axis(a, rank, who + " axes");
    // normalize_axis takes axis 0 of a scalar (Concat's convention); a reduction has no axis there.
    if (n >= rank) throw InvalidGraphError(who + ": axis " + std::to_string(a) + " is out of range for a rank-0 input");
    if (red[static_cast<size_t>(n)]) throw InvalidGraphError(who + ": axis " + std::to_string(a) + " repeated");
    red[static_cast<size_t>(n)] = true;
  }
  std::vector<int64_t> want;
  for (int64_t i = 0; i < rank; ++i) {
    if (!red[static_cast<size_t>(i)]) want.push_back(xs[static_cast<size_t>(i)]);
    else if (keepdims) want.push_back(1);
  }
  if (Shape(want) != ys) {
    throw InvalidGraphError(who + ": reduction gives " + Shape(want).str() + " but the output is " + ys.str());
  }
  const std::vector<int64_t> st = contiguous_strides(xs);
  // Runs of one kind, extent-1 axes dropped; kinds[k] says whether run k is reduced.
  std::vector<std::pair<int64_t, bool>> runs;
  std::vector<int64_t> run_stride;
  for (int64_t i = 0; i < rank; ++i) {
    const auto u = static_cast<size_t>(i);
    if (xs[u] == 1) continue;
    if (!runs.empty() && runs.back().second == red[u]) {
      runs.back().first *= xs[u];
      run_stride.back() = st[u];
    } else {
      runs.push_back({xs[u], red[u]});
      run_stride.push_back(st[u]);
    }
  }
  for (size_t k = 0; k < runs.size(); ++k) {
    (runs[k].second ? p.red_dims : p.kept_dims).push_back(runs[k].first);
    (runs[k].second ? p.red_strides : p.kept_strides).push_back(run_stride[k]);
    if (runs[k].second) p.red_count *= runs[k].first;
  }
  size_t g = 0;
  if (g < runs.size() && !runs[g].second) p.O = runs[g++].first;
  if (g < runs.size() && runs[g].second) p.R = runs[g++].first;
  if (g < runs.size() && !runs[g].second) p.I = runs[g++].first;
  p.ori = g == runs.size();
  if (xs.numel() == 0) p.ori = false;  // zero-size: the general walk yields the identities
  if (xs.numel() == 0) p.red_count = 0;
  return p;
}

template <class T> struct ReduceAcc {
  using type = std::conditional_t<std::is_floating_point_v<typename arith::Num<T>::acc>, double,
                                  std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
};

template <class T, Red kRed>
class ReduceKernel final : public CpuKernel {
 public:
  ReduceKernel(const KernelBuildContext& ctx, std::optional<ReducePlan> plan, bool noop_empty, bool keepdims)
      : CpuKernel(ctx), plan_(std::move(plan)), xs_(ctx.input_shape(0)), ys_(ctx.output_shape(0)),
        noop_empty_(noop_empty), keepdims_(keepdims), who_(ctx.node.describe()) {}

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    std::optional<ReducePlan> run_plan;
    const ReducePlan* p = plan_ ? &*plan_ : nullptr;
    if (!p) {
      std::vector<int64_t> axes;
      if (has_io_input(io, 1)) axes = io.inputs[1].to_int64_vector();
      run_plan = reduce_plan(xs_, ys_, axes, noop_empty_, keepdims_, who_);
      p = &*run_plan;
    }
    const T* x = io.inputs[0].data_as<T>();
    T* y = io.outputs[0].data_as<T>();
    if (p->noop) {
      if (x != y) std::copy_n(x, xs_.numel(), y);
      return;
    }
    if constexpr (std::is_same_v<T, float> && (kRed == Red::Sum || kRed == Red::Mean)) {
      if (p->ori) return run_ori(*p, x, y);
    }
    run_general(*p, x, y);
  }
  std::string impl_name() const override { return "cpu:reduce"; }

 private:
  using N = arith::Num<T>;
  using A = typename ReduceAcc<T>::type;

  /// float32 Sum/Mean over [O, R, I] with the vector loops.
  void run_ori(const ReducePlan& p, const float* x, float* y) const {
    const int64_t R = p.R, I = p.I;
    const float scale = kRed == Red::Mean ? 1.0f / static_cast<float>(R) : 1.0f;
    parallel_for(p.O, [&](int64_t o) {
      const float* xo = x + o * R * I;
      float* yo = y + o * I;
      if (I == 1) {
        yo[0] = simd::sum(xo, R) * scale;
      } else {
        simd::fill(yo, 0.0f, I);
        for (int64_t r = 0; r < R; ++r) simd::add(yo, xo + r * I, I);
        if (kRed == Red::Mean) simd::scale(yo, scale, I);
      }
    });
  }

  static A init() {
    if constexpr (kRed == Red::Prod) return A(1);
    else if constexpr (kRed == Red::Max) {
      return std::is_floating_point_v<A> ? -std::numeric_limits<A>::infinity() : lowest();
    } else if constexpr (kRed == Red::Min) {
      return std::is_floating_point_v<A> ? std::numeric_limits<A>::infinity() : highest();
    } else return A(0);
  }
  /// Integer extremes of the storage type T, not of the 64-bit accumulator.
  static A lowest() {
    if constexpr (std::is_integral_v<T>) return static_cast<A>(std::numeric_limits<T>::lowest());
    else return A(0);
  }
  static A highest() {
    if constexpr (std::is_integral_v<T>) return static_cast<A>(std::numeric_limits<T>::max());
    else return A(0);
  }
  static A step(A acc, A v) {
    if constexpr (kRed == Red::Max) {
      return v > acc || v != v ? v : acc;
    } else if constexpr (kRed == Red::Min) {
      return v < acc || v != v ? v : acc;
    } else if constexpr (std::is_integral_v<A>) {
      // Integers wrap around (two's complement, as ONNX Runtime's int64 arithmetic does on every
      // target); in unsigned arithmetic, where C++ defines it, not in signed (UB).
      using U = std::make_unsigned_t<A>;
      const U a = static_cast<U>(acc), x = static_cast<U>(v);
      U r;
      if constexpr (kRed == Red::Prod) r = a * x;
      else if constexpr (kRed == Red::L1) r = a + (std::is_signed_v<A> && v < 0 ? U(0) - x : x);
      else if constexpr (kRed == Red::L2 || kRed == Red::SumSquare) r = a + x * x;
      else r = a + x;  // Sum, Mean, LogSum
      return static_cast<A>(r);
    } else if constexpr (kRed == Red::Prod) {
      return acc * v;
    } else if constexpr (kRed == Red::L1) {
      return acc + (v < 0 ? -v : v);
    } else if constexpr (kRed == Red::L2 || kRed == Red::SumSquare) {
      return acc + v * v;
    } else {
      return acc + v;  // Sum, Mean, LogSum; LogSumExp handled apart
    }
  }
  /// A double result in the accumulator type. For signed integers, what a static_cast gives on
  /// x86-64 (cvttsd2si): NaN, ±inf and values out of range become INT64_MIN (LogSum or LogSumExp
  /// of an empty set is -inf); for unsigned ones 0. C++ leaves that conversion undefined.
  static A from_double(double v) {
    if constexpr (std::is_floating_point_v<A>) {
      return static_cast<A>(v);
    } else if constexpr (std::is_signed_v<A>) {
      constexpr double lo = static_cast<double>(std::numeric_limits<A>::min());  // -2^63
      if (!(v >= lo && v < -lo)) return std::numeric_limits<A>::min();
      return static_cast<A>(v);
    } else {
      constexpr double hi = 18446744073709551616.0;  // 2^64
      if (!(v >= 0 && v < hi)) return 0;
      return static_cast<A>(v);
    }
  }
  static A finish(A acc, int64_t count) {
    if constexpr (kRed == Red::Mean) {
      if constexpr (std::is_floating_point_v<A>) return acc / static_cast<A>(count);
      else return count ? static_cast<A>(acc / static_cast<A>(count)) : A(0);
    } else if constexpr (kRed == Red::L2) {
      return from_double(std::sqrt(static_cast<double>(acc)));
    } else if constexpr (kRed == Red::LogSum) {
      return from_double(std::log(static_cast<double>(acc)));
    } else {
      return acc;
    }
  }

  void run_general(const ReducePlan& p, const T* x, T* y) const {
    const int64_t out_n = ys_.numel();
    const size_t nk = p.kept_dims.size(), nr = p.red_dims.size();
    const int64_t count = p.red_count;
    // Calls f(v) for every reduced element of the output element whose input base is `base`.
    auto walk = [&](int64_t base, auto&& f) {
      if (count == 0) return;
      if (nr == 0) {
        f(static_cast<A>(N::load(x[base])));
        return;
      }
      const int64_t inner = p.red_dims[nr - 1], is = p.red_strides[nr - 1];
      if (nr == 1) {
        for (int64_t j = 0; j < inner; ++j) f(static_cast<A>(N::load(x[base + j * is])));
        return;
      }
      std::vector<int64_t> idx(nr, 0);
      int64_t off = base;
      for (int64_t done = 0; done < count; done += inner) {
        for (int64_t j = 0; j < inner; ++j) f(static_cast<A>(N::load(x[off + j * is])));
        for (size_t d = nr - 1; d-- > 0;) {
          off += p.red_strides[d];
          if (++idx[d] < p.red_dims[d]) break;
          off -= p.red_strides[d] * p.red_dims[d];
          idx[d] = 0;
        }
      }
    };
    parallel_for(out_n, [&](int64_t o) {
      int64_t rem = o, base = 0;
      for (size_t k = nk; k-- > 0;) {
        base += (rem % p.kept_dims[k]) * p.kept_strides[k];
        rem /= p.kept_dims[k];
      }
      A r;
      if constexpr (kRed == Red::LogSumExp) {
        A m = -std::numeric_limits<A>::infinity();
        if constexpr (!std::is_floating_point_v<A>) m = lowest();
        walk(base, [&](A v) { m = v > m ? v : m; });
        double s = 0;
        walk(base, [&](A v) { s += std::exp(static_cast<double>(v) - static_cast<double>(m)); });
        r = count == 0 ? from_double(-std::numeric_limits<double>::infinity())
                       : from_double(static_cast<double>(m) + std::log(s));
      } else {
        A acc = init();
        walk(base, [&](A v) { acc = step(acc, v); });
        r = finish(acc, count);
      }
      y[o] = N::store(static_cast<typename N::acc>(r));
    });
  }

  std::optional<ReducePlan> plan_;
  Shape xs_, ys_;
  bool noop_empty_, keepdims_;
  std::string who_;
};

template <Red kRed>
std::unique_ptr<Kernel> make_reduce(const KernelBuildContext& ctx) {
  require_plain(ctx);
  const std::string op = ctx.node.op_type(), who = ctx.node.describe();
  const DataType t = ctx.input_type(0);
  if (ctx.output_type(0) != t) throw InvalidGraphError(who + ": output dtype differs from the input's");
  const Attributes& at = ctx.node.attrs;
  const bool keepdims = at.get_int("keepdims", 1) != 0;
  const bool axes_input = ctx.opset >= 18 || (kRed == Red::Sum && ctx.opset >= 13);
  std::optional<ReducePlan> plan;
  bool noop_empty = false;
  if (axes_input) {
    noop_empty = at.get_int("noop_with_empty_axes", 0) != 0;
    if (!ctx.has_input(1)) plan = reduce_plan(ctx.input_shape(0), ctx.output_shape(0), {}, noop_empty, keepdims, who);
    else if (auto a = const_ints(ctx, 1)) plan = reduce_plan(ctx.input_shape(0), ctx.output_shape(0), *a, noop_empty, keepdims, who);
  } else {
    plan = reduce_plan(ctx.input_shape(0), ctx.output_shape(0), at.get_ints("axes"), false, keepdims, who);
  }
  std::unique_ptr<Kernel> k;
  arith::dispatch(arith::Numeric{}, t, ctx, op + " input", [&](auto tag) {
    k = std::make_unique<ReduceKernel<typename decltype(tag)::type, kRed>>(ctx, plan, noop_empty, keepdims);
  });
  return k;
}

}  // namespace

void register_reduce_kernels(Registrar& r) {
  add_cpu_kernel(r, "ReduceSum", make_reduce<Red::Sum>);
  add_cpu_kernel(r, "ReduceMean", make_reduce<Red::Mean>);
  add_cpu_kernel(r, "ReduceMax", make_reduce<Red::Max>);
  add_cpu_kernel(r, "ReduceMin", make_reduce<Red::Min>);
  add_cpu_kernel(r, "ReduceProd", make_reduce<Red::Prod>);
  add_cpu_kernel(r, "ReduceL1", make_reduce<Red::L1>);
  add_cpu_kernel(r, "ReduceL2", make_reduce<Red::L2>);
  add_cpu_kernel(r, "ReduceLogSum", make_reduce<Red::LogSum>);
  add_cpu_kernel(r, "ReduceLogSumExp", make_reduce<Red::LogSumExp>);
  add_cpu_kernel(r, "ReduceSumSquare", make_reduce<Red::SumSquare>);
  register_softmax_kernels(r);
}

}  // namespace ge::cpu
