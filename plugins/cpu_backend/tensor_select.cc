// plugins/cpu_backend/tensor_select.cc — ops that select elements by their values, so that their
// output shape depends on the input data: NonZero-9/13, Compress-9/11 and Unique-11
// (onnx/docs/Operators.md), for every non-string dtype the schemas allow.
//
// GE plans static shapes, so each kernel computes its result size first and compares it with
// the planned output buffer (dynamic_shape.h); a mismatch stops the run naming the node.
//  NonZero: int64 indices [rank, n] of the nonzero elements in row-major order (numpy.nonzero);
//    a scalar counts as one element of a 1-D tensor, as ORT's nonzero_op.cc does ([1, n]).
//  Compress: slices along `axis` (or elements of the flattened input) where condition is true;
//    a condition shorter than the axis drops the rest, a longer one is cut to the axis
//    (Operators.md#Compress; ORT's compress.cc uses min(axis dim, condition length)).
//  Unique: unique elements (flattened) or slices along `axis`, sorted ascending (sorted=1,
//    slices compared lexicographically as numpy.unique(axis=) does) or in order of first
//    occurrence (sorted=0); indices = first occurrence, inverse_indices, counts. NaNs count
//    as equal to each other and larger than every number (numpy.unique's equal_nan=True).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "dynamic_shape.h"
#include "tensor_common.h"

namespace ge::cpu {
namespace {

template <class T> bool is_nonzero(T v) {
  using N = arith::Num<T>;
  using A = typename N::acc;
  return N::load(v) != A(0);  // NaN is nonzero
}

// ---------------------------------------------------------------- NonZero

template <class T>
class NonZeroKernel final : public Kernel {
 public:
  NonZeroKernel(Shape x, bool dynamic, std::string who) : x_(std::move(x)), dynamic_(dynamic), who_(std::move(who)) {}
  void run(KernelIO& io) override {
    const T* x = io.inputs[0].data_as<T>();
    const int64_t numel = x_.numel();
    int64_t n = 0;
    for (int64_t i = 0; i < numel; ++i) n += is_nonzero(x[i]) ? 1 : 0;
    const auto rank = static_cast<int64_t>(std::max<size_t>(x_.rank(), 1));
    int64_t* y = sized_output(io, 0, dynamic_, DataType::Int64, Shape{rank, n}, who_, "NonZero output").data_as<int64_t>();
    const std::vector<int64_t> dims = x_.rank() == 0 ? std::vector<int64_t>{1} : x_.dims();
    int64_t j = 0;
    for (int64_t i = 0; i < numel; ++i) {
      if (!is_nonzero(x[i])) continue;
      int64_t rem = i;
      for (int64_t d = rank - 1; d >= 0; --d) {
        y[d * n + j] = rem % dims[static_cast<size_t>(d)];
        rem /= dims[static_cast<size_t>(d)];
      }
      ++j;
    }
  }
  std::string impl_name() const override { return "cpu:NonZero"; }

 private:
  Shape x_;
  bool dynamic_;
  std::string who_;
};

std::unique_ptr<Kernel> make_nonzero(const KernelBuildContext& ctx) {
  const auto rank = static_cast<int64_t>(std::max<size_t>(ctx.input_shape(0).rank(), 1));
  if (!ctx.dynamic_outputs) {
    if (ctx.output_type(0) != DataType::Int64) throw InvalidGraphError(at_node(ctx) + "NonZero output must be int64");
    const Shape& planned = ctx.output_shape(0);
    if (planned.rank() != 2 || planned[0] != rank) {
      throw InvalidGraphError(at_node(ctx) + "NonZero output " + planned.str() + " is not [" + std::to_string(rank) +
                              ", n]");
    }
  }
  std::unique_ptr<Kernel> k;
  arith::dispatch(arith::NumericBool{}, ctx.input_type(0), ctx, "NonZero input", [&](auto tag) {
    k = std::make_unique<NonZeroKernel<typename decltype(tag)::type>>(ctx.input_shape(0), ctx.dynamic_outputs,
                                                                      ctx.node.describe());
  });
  return k;
}

// ---------------------------------------------------------------- Compress

/// Copies whole slices of `elem` bytes, so one kernel serves every fixed-size dtype.
class CompressKernel final : public Kernel {
 public:
  CompressKernel(Shape x, std::optional<size_t> axis, DataType dt, bool dynamic, std::string who)
      : x_(std::move(x)), axis_(axis), dt_(dt), elem_(dtype_size(dt)), dynamic_(dynamic), who_(std::move(who)) {}
  void run(KernelIO& io) override {
    int64_t outer = 1, n = x_.numel(), inner = 1;
    if (axis_) {
      outer = span_numel(x_, 0, *axis_);
      n = x_[*axis_];
      inner = span_numel(x_, *axis_ + 1, x_.rank());
    }
    const bool* cond = io.inputs[1].data_as<bool>();
    const int64_t len = std::min(n, io.inputs[1].numel());
    int64_t count = 0;
    for (int64_t j = 0; j < len; ++j) count += cond[j] ? 1 : 0;
    std::vector<int64_t> got{count};
    if (axis_) {
      got = x_.dims();
      got[*axis_] = count;
    }
    Tensor& out = sized_output(io, 0, dynamic_, dt_, Shape(got), who_, "Compress output");
    const auto* x = static_cast<const unsigned char*>(io.inputs[0].data());
    auto* y = static_cast<unsigned char*>(out.data());
    const size_t slice = static_cast<size_t>(inner) * elem_;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < len; ++j) {
        if (!cond[j]) continue;
        std::memcpy(y, x + static_cast<size_t>(o * n + j) * slice, slice);
        y += slice;
      }
    }
  }
  std::string impl_name() const override { return "cpu:Compress"; }

 private:
  Shape x_;
  std::optional<size_t> axis_;
  DataType dt_;
  size_t elem_;
  bool dynamic_;
  std::string who_;
};

std::unique_ptr<Kernel> make_compress(const KernelBuildContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const size_t elem = dtype_size(ctx.input_type(0));
  if (elem == 0) {
    throw UnsupportedError(at_node(ctx) + "Compress input dtype " + std::string(dtype_name(ctx.input_type(0))) +
                           " not supported");
  }
  if (ctx.input_type(1) != DataType::Bool || ctx.input_shape(1).rank() != 1) {
    throw InvalidGraphError(at_node(ctx) + "Compress condition must be a 1-D bool tensor, not " +
                            std::string(dtype_name(ctx.input_type(1))) + " " + ctx.input_shape(1).str());
  }
  if (!ctx.dynamic_outputs && ctx.output_type(0) != ctx.input_type(0))
    throw InvalidGraphError(at_node(ctx) + "Compress output dtype differs from input");
  std::optional<size_t> axis;
  if (ctx.node.attrs.has("axis")) {
    axis = static_cast<size_t>(normalize_axis(ctx.node.attrs.get_int("axis", 0), static_cast<int64_t>(x.rank()),
                                              ctx.node.describe() + " axis"));
  }
  const size_t want_rank = axis ? x.rank() : 1;
  if (!ctx.dynamic_outputs && ctx.output_shape(0).rank() != want_rank) {
    throw InvalidGraphError(at_node(ctx) + "Compress output " + ctx.output_shape(0).str() + " should have rank " +
                            std::to_string(want_rank));
  }
  return std::make_unique<CompressKernel>(x, axis, ctx.input_type(0), ctx.dynamic_outputs, ctx.node.describe());
}

// ---------------------------------------------------------------- Unique

/// Total order on one element: numbers ascending, then NaN (all NaNs equal).
template <class A> int compare_elem(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <class T>
class UniqueKernel final : public Kernel {
 public:
  /// The input as [outer, n, inner]: n candidates (slices along the axis, or every element of
  /// the flattened input with outer = inner = 1), each of outer * inner elements.
  UniqueKernel(Shape x, std::optional<size_t> axis, bool sorted, std::vector<bool> present, DataType dt, bool dynamic,
               std::string who)
      : x_(std::move(x)), axis_(axis), sorted_(sorted), present_(std::move(present)), dt_(dt), dynamic_(dynamic),
        who_(std::move(who)) {}

  void run(KernelIO& io) override {
    using N = arith::Num<T>;
    using A = typename N::acc;
    int64_t outer = 1, n = x_.numel(), inner = 1;
    if (axis_) {
      outer = span_numel(x_, 0, *axis_);
      n = x_[*axis_];
      inner = span_numel(x_, *axis_ + 1, x_.rank());
    }
    const T* x = io.inputs[0].data_as<T>();
    // Element e (in (outer, inner) row-major order) of candidate j.
    auto at = [&](int64_t j, int64_t e) { return N::load(x[((e / inner) * n + j) * inner + e % inner]); };
    const int64_t len = outer * inner;
    auto cmp = [&](int64_t a, int64_t b) {
      for (int64_t e = 0; e < len; ++e) {
        if (const int c = compare_elem<A>(at(a, e), at(b, e))) return c;
      }
      return 0;
    };
    // Stable sort: within a run of equal candidates the first occurrence comes first.
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
    std::vector<int64_t> group_of(static_cast<size_t>(n));  // sorted group of each candidate
    std::vector<int64_t> first, counts;                     // per sorted group
    for (size_t s = 0; s < order.size(); ++s) {
      if (s == 0 || cmp(order[s - 1], order[s]) != 0) {
        first.push_back(order[s]);
        counts.push_back(0);
      }
      group_of[static_cast<size_t>(order[s])] = static_cast<int64_t>(first.size()) - 1;
      ++counts.back();
    }
    const auto u = static_cast<int64_t>(first.size());
    // rank[g] = output position of sorted group g: g itself, or its first-occurrence rank.
    std::vector<int64_t> rank(static_cast<size_t>(u));
    std::iota(rank.begin(), rank.end(), int64_t{0});
    if (!sorted_) {
      std::vector<int64_t> by_first(static_cast<size_t>(u));
      std::iota(by_first.begin(), by_first.end(), int64_t{0});
      std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) { return first[a] < first[b]; });
      for (int64_t p = 0; p < u; ++p) rank[static_cast<size_t>(by_first[static_cast<size_t>(p)])] = p;
    }

    std::vector<int64_t> y_dims{u};
    if (axis_) {
      y_dims = x_.dims();
      y_dims[*axis_] = u;
    }
    const Shape got[4] = {Shape(y_dims), Shape{u}, Shape{n}, Shape{u}};
    static const char* const kNames[4] = {"Unique output Y", "Unique output indices", "Unique output inverse_indices",
                                          "Unique output counts"};
    for (size_t k = 0; k < 4; ++k) {
      if (present_[k]) sized_output(io, k, dynamic_, k == 0 ? dt_ : DataType::Int64, got[k], who_, kNames[k]);
    }
    if (present_[0]) {
      T* y = io.outputs[0].data_as<T>();
      for (int64_t g = 0; g < u; ++g) {
        const int64_t src = first[static_cast<size_t>(g)], dst = rank[static_cast<size_t>(g)];
        for (int64_t o = 0; o < outer; ++o) {
          std::memcpy(y + (o * u + dst) * inner, x + (o * n + src) * inner, static_cast<size_t>(inner) * sizeof(T));
        }
      }
    }
    if (present_[1]) {
      int64_t* p = io.outputs[1].data_as<int64_t>();
      for (int64_t g = 0; g < u; ++g) p[rank[static_cast<size_t>(g)]] = first[static_cast<size_t>(g)];
    }
    if (present_[2]) {
      int64_t* p = io.outputs[2].data_as<int64_t>();
      for (int64_t j = 0; j < n; ++j) p[j] = rank[static_cast<size_t>(group_of[static_cast<size_t>(j)])];
    }
    if (present_[3]) {
      int64_t* p = io.outputs[3].data_as<int64_t>();
      for (int64_t g = 0; g < u; ++g) p[rank[static_cast<size_t>(g)]] = counts[static_cast<size_t>(g)];
    }
  }
  std::string impl_name() const override { return "cpu:Unique"; }

 private:
  Shape x_;
  std::optional<size_t> axis_;
  bool sorted_;
  std::vector<bool> present_;
  DataType dt_;
  bool dynamic_;
  std::string who_;
};

std::unique_ptr<Kernel> make_unique_kernel(const KernelBuildContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  std::optional<size_t> axis;
  if (ctx.node.attrs.has("axis")) {
    if (x.rank() == 0) throw InvalidGraphError(at_node(ctx) + "Unique with an axis of a scalar");
    axis = static_cast<size_t>(normalize_axis(ctx.node.attrs.get_int("axis", 0), static_cast<int64_t>(x.rank()),
                                              ctx.node.describe() + " axis"));
  }
  std::vector<bool> present(4, false);
  for (size_t k = 0; k < 4; ++k) present[k] = ctx.node.output(k) != nullptr;
  if (!ctx.dynamic_outputs && present[0] && ctx.output_type(0) != ctx.input_type(0)) {
    throw InvalidGraphError(at_node(ctx) + "Unique output Y dtype differs from input");
  }
  for (size_t k = 1; k < 4; ++k) {
    if (!ctx.dynamic_outputs && present[k] && ctx.output_type(k) != DataType::Int64) {
      throw InvalidGraphError(at_node(ctx) + "Unique output " + std::to_string(k) + " must be int64");
    }
  }
  const bool sorted = ctx.node.attrs.get_int("sorted", 1) != 0;
  std::unique_ptr<Kernel> k;
  arith::dispatch(arith::NumericBool{}, ctx.input_type(0), ctx, "Unique input", [&](auto tag) {
    k = std::make_unique<UniqueKernel<typename decltype(tag)::type>>(x, axis, sorted, present, ctx.input_type(0),
                                                                     ctx.dynamic_outputs, ctx.node.describe());
  });
  return k;
}

}  // namespace

void register_select_kernels(Registrar& r) {
  add_allocating_cpu_kernel(r, "NonZero", make_nonzero);
  add_allocating_cpu_kernel(r, "Compress", make_compress);
  add_allocating_cpu_kernel(r, "Unique", make_unique_kernel);
}

}  // namespace ge::cpu
