// plugins/cpu_backend/tensor_ordering.cc — ordering and scans along one axis: TopK, ArgMax,
// ArgMin and CumSum (onnx/docs/Operators.md) for every numeric dtype the schemas allow.
//
// Each works on the view [outer, n, inner] of its axis.
//  TopK-1/10/11: the k largest (or smallest) along the axis; equal values keep index order
//    (Operators.md#TopK: "the lower index appears first"). NaN counts as larger than every
//    number, as numpy's sort and torch.topk order it, so it comes first when largest=1 and
//    last when largest=0. Output is always sorted (allowed for sorted=0, whose order is
//    unspecified).
//  ArgMax/ArgMin-1..13: first extreme index, or the last with select_last_index=1 (opset 12);
//    a NaN is the extreme (numpy's argmax/argmin propagate NaN).
//  CumSum-11/14: inclusive or exclusive running sum, forward or reversed.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "tensor_common.h"

namespace ge::cpu {
namespace {

template <class A> inline bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>) return std::isnan(v);
  else return false;
}

struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
};

AxisView axis_view(const Shape& s, size_t axis) {
  return {span_numel(s, 0, axis), s[axis], span_numel(s, axis + 1, s.rank())};
}

// ---------------------------------------------------------------- TopK

template <class T>
class TopKKernel final : public Kernel {
 public:
  TopKKernel(AxisView v, int64_t k, bool largest, int threads, RunCheck check)
      : v_(v), k_(k), largest_(largest), threads_(threads), check_(std::move(check)) {}
  void run(KernelIO& io) override {
    if (check_) check_(io);
    using N = arith::Num<T>;
    using A = typename N::acc;
    const T* x = io.inputs[0].data_as<T>();
    T* vals = io.outputs[0].data_as<T>();
    int64_t* idx = io.outputs[1].data_as<int64_t>();
    const AxisView v = v_;
    const int64_t k = k_;
    const bool largest = largest_;
    loops::parallel_chunks(
        v.outer * v.inner, threads_,
        [&](int64_t b, int64_t e) {
          std::vector<int64_t> order(static_cast<size_t>(v.n));
          std::vector<A> key(static_cast<size_t>(v.n));
          for (int64_t s = b; s < e; ++s) {
            const int64_t o = s / v.inner, i = s % v.inner;
            const T* xs = x + o * v.n * v.inner + i;
            for (int64_t j = 0; j < v.n; ++j) key[static_cast<size_t>(j)] = N::load(xs[j * v.inner]);
            std::iota(order.begin(), order.end(), int64_t{0});
            // "a before b": a ranks higher; NaN ranks above numbers; ties by lower index.
            auto before = [&](int64_t a, int64_t c) {
              const A ka = key[static_cast<size_t>(a)], kc = key[static_cast<size_t>(c)];
              const bool na = is_nan(ka), nc = is_nan(kc);
              if (na || nc) {
                if (na && nc) return a < c;
                return largest ? na : nc;
              }
              if (ka != kc) return largest ? ka > kc : ka < kc;
              return a < c;
            };
            std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
            for (int64_t j = 0; j < k; ++j) {
              const int64_t src = order[static_cast<size_t>(j)];
              const int64_t dst = (o * k + j) * v.inner + i;
              vals[dst] = xs[src * v.inner];
              idx[dst] = src;
            }
          }
        },
        v.n);
  }
  std::string impl_name() const override { return "cpu:TopK"; }

 private:
  AxisView v_;
  int64_t k_;
  bool largest_;
  int threads_;
  RunCheck check_;
};

std::unique_ptr<Kernel> make_topk(const KernelBuildContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (x.rank() == 0) throw InvalidGraphError(at_node(ctx) + "TopK of a scalar");
  const auto axis = static_cast<size_t>(
      normalize_axis(ctx.node.attrs.get_int("axis", -1), static_cast<int64_t>(x.rank()), ctx.node.describe() + " axis"));
  // K: attribute (opset 1), input 1 (opset >= 10); when not constant, the static output says it.
  int64_t k = ctx.output_shape(0).rank() == x.rank() ? ctx.output_shape(0)[axis] : -1;
  if (ctx.opset < 10) {
    k = ctx.node.attrs.get_int("k", -1);
  } else if (auto kv = const_ints(ctx, 1)) {
    if (kv->size() != 1) throw InvalidGraphError(at_node(ctx) + "TopK K must have one element");
    k = (*kv)[0];
  }
  if (k < 0 || k > x[axis]) {
    throw InvalidGraphError(at_node(ctx) + "TopK k = " + std::to_string(k) + " outside [0, " + std::to_string(x[axis]) + "]");
  }
  std::vector<int64_t> want(x.dims());
  want[axis] = k;
  expect_output_shape(ctx, Shape(want), 0);
  expect_output_shape(ctx, Shape(want), 1);
  if (ctx.output_type(1) != DataType::Int64) throw InvalidGraphError(at_node(ctx) + "TopK indices must be int64");
  const bool largest = ctx.opset < 11 || ctx.node.attrs.get_int("largest", 1) != 0;
  RunCheck check;
  if (ctx.opset >= 10) check = run_check(ctx, 1, [k](const std::vector<int64_t>& v) { return v.size() == 1 && v[0] == k; }, "TopK K");
  std::unique_ptr<Kernel> kern;
  arith::dispatch(arith::Numeric{}, ctx.input_type(0), ctx, "TopK input", [&](auto tag) {
    kern = std::make_unique<TopKKernel<typename decltype(tag)::type>>(axis_view(x, axis), k, largest, ctx.threads,
                                                                     std::move(check));
  });
  return kern;
}

// ---------------------------------------------------------------- ArgMax, ArgMin

template <class T, bool kMax>
class ArgKernel final : public Kernel {
 public:
  ArgKernel(AxisView v, bool last, int threads) : v_(v), last_(last), threads_(threads) {}
  void run(KernelIO& io) override {
    using N = arith::Num<T>;
    using A = typename N::acc;
    const T* x = io.inputs[0].data_as<T>();
    int64_t* y = io.outputs[0].data_as<int64_t>();
    const AxisView v = v_;
    const bool last = last_;
    loops::parallel_chunks(
        v.outer * v.inner, threads_,
        [&](int64_t b, int64_t e) {
          for (int64_t s = b; s < e; ++s) {
            const int64_t o = s / v.inner, i = s % v.inner;
            const T* xs = x + o * v.n * v.inner + i;
            int64_t best = 0;
            A bv = N::load(xs[0]);
            for (int64_t j = 1; j < v.n; ++j) {
              const A c = N::load(xs[j * v.inner]);
              if (is_nan(bv)) {
                if (!last) break;  // the first NaN wins
                if (is_nan(c)) best = j;
                continue;
              }
              const bool better = is_nan(c) || (kMax ? (last ? c >= bv : c > bv) : (last ? c <= bv : c < bv));
              if (better) {
                best = j;
                bv = c;
              }
            }
            y[s] = best;
          }
        },
        v.n);
  }
  std::string impl_name() const override { return kMax ? "cpu:ArgMax" : "cpu:ArgMin"; }

 private:
  AxisView v_;
  bool last_;
  int threads_;
};

template <bool kMax>
std::unique_ptr<Kernel> make_arg(const KernelBuildContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const std::string op = kMax ? "ArgMax" : "ArgMin";
  if (x.rank() == 0) throw InvalidGraphError(at_node(ctx) + op + " of a scalar");
  const auto axis = static_cast<size_t>(
      normalize_axis(ctx.node.attrs.get_int("axis", 0), static_cast<int64_t>(x.rank()), ctx.node.describe() + " axis"));
  if (x[axis] == 0) throw InvalidGraphError(at_node(ctx) + op + " over an empty axis");
  const bool keep = ctx.node.attrs.get_int("keepdims", 1) != 0;
  const bool last = ctx.opset >= 12 && ctx.node.attrs.get_int("select_last_index", 0) != 0;
  std::vector<int64_t> want;
  for (size_t a = 0; a < x.rank(); ++a) {
    if (a != axis) want.push_back(x[a]);
    else if (keep) want.push_back(1);
  }
  expect_output_shape(ctx, Shape(want));
  std::unique_ptr<Kernel> kern;
  arith::dispatch(arith::Numeric{}, ctx.input_type(0), ctx, op + " input", [&](auto tag) {
    kern = std::make_unique<ArgKernel<typename decltype(tag)::type, kMax>>(axis_view(x, axis), last, ctx.threads);
  });
  return kern;
}

// ---------------------------------------------------------------- CumSum

template <class T>
class CumSumKernel final : public Kernel {
 public:
  CumSumKernel(Shape x, std::optional<int64_t> axis, bool exclusive, bool reverse, std::string who, int threads)
      : x_(std::move(x)), axis_(axis), exclusive_(exclusive), reverse_(reverse), who_(std::move(who)),
        threads_(threads) {}
  void run(KernelIO& io) override {
    using N = arith::Num<T>;
    using A = typename N::acc;
    const int64_t a = axis_ ? *axis_ : normalize_axis(io.inputs[1].to_int64_vector().at(0),
                                                      static_cast<int64_t>(x_.rank()), who_ + " axis");
    const AxisView v = axis_view(x_, static_cast<size_t>(a));
    const T* x = io.inputs[0].data_as<T>();
    T* y = io.outputs[0].data_as<T>();
    const bool excl = exclusive_, rev = reverse_;
    loops::parallel_chunks(
        v.outer * v.inner, threads_,
        [&](int64_t b, int64_t e) {
          for (int64_t s = b; s < e; ++s) {
            const int64_t o = s / v.inner, i = s % v.inner;
            const int64_t base = o * v.n * v.inner + i;
            A acc = A(0);
            for (int64_t t = 0; t < v.n; ++t) {
              const int64_t j = rev ? v.n - 1 - t : t;
              const int64_t off = base + j * v.inner;
              const A xv = N::load(x[off]);
              if (excl) {
                y[off] = N::store(acc);
                acc = static_cast<A>(acc + xv);
              } else {
                acc = static_cast<A>(acc + xv);
                y[off] = N::store(acc);
              }
            }
          }
        },
        v.n);
  }
  std::string impl_name() const override { return "cpu:CumSum"; }

 private:
  Shape x_;
  std::optional<int64_t> axis_;
  bool exclusive_, reverse_;
  std::string who_;
  int threads_;
};

std::unique_ptr<Kernel> make_cumsum(const KernelBuildContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (x.rank() == 0) throw InvalidGraphError(at_node(ctx) + "CumSum of a scalar");
  expect_output_shape(ctx, x);
  // ONNX CumSum-14: axis is a 0-D tensor; a one-element 1-D one is taken too, as ONNX Runtime
  // does (onnxruntime/core/providers/cpu/math/cumsum.cc).
  if (ctx.input_shape(1).rank() > 1 || ctx.input_shape(1).numel() != 1)
    throw InvalidGraphError(at_node(ctx) + "CumSum input axis must hold one element (a scalar), got shape " +
                            ctx.input_shape(1).str());
  std::optional<int64_t> axis;
  if (auto a = const_ints(ctx, 1)) {
    axis = normalize_axis(a->at(0), static_cast<int64_t>(x.rank()), ctx.node.describe() + " axis");
  }
  const bool excl = ctx.node.attrs.get_int("exclusive", 0) != 0, rev = ctx.node.attrs.get_int("reverse", 0) != 0;
  std::unique_ptr<Kernel> k;
  using CumTypes = arith::List<float, double, arith::Half, arith::BHalf, int32_t, int64_t, uint32_t, uint64_t>;
  arith::dispatch(CumTypes{}, ctx.input_type(0), ctx, "CumSum input", [&](auto tag) {
    k = std::make_unique<CumSumKernel<typename decltype(tag)::type>>(x, axis, excl, rev, ctx.node.describe(),
                                                                    ctx.threads);
  });
  return k;
}

}  // namespace

void register_ordering_kernels(Registrar& r) {
  add_cpu_kernel(r, "TopK", make_topk);
  add_cpu_kernel(r, "ArgMax", make_arg<true>);
  add_cpu_kernel(r, "ArgMin", make_arg<false>);
  add_cpu_kernel(r, "CumSum", make_cumsum);
}

}  // namespace ge::cpu
