// plugins/cpu_backend/tensor_create.cc — ops that create or replicate tensors: ConstantOfShape,
// EyeLike, Range, Size, Expand, Tile and Trilu (onnx/docs/Operators.md, each op's section).
//
// Output shapes are static; parameters that only decide the shape (ConstantOfShape's input,
// Expand's shape, Tile's repeats) are checked against it when constant at build time and read
// from the output shape otherwise. Parameters that decide values (Range's start/delta, Trilu's
// k) are read at run time when they are not constant.
#include <algorithm>
#include <vector>

#include "tensor_common.h"

namespace ge::cpu {
namespace {

// ---------------------------------------------------------------- ConstantOfShape, Size

/// Fills output 0 with one element's bytes.
class FillKernel final : public Kernel {
 public:
  FillKernel(std::vector<unsigned char> value, std::string name, RunCheck check = {})
      : value_(std::move(value)), name_(std::move(name)), check_(std::move(check)) {}
  void run(KernelIO& io) override {
    if (check_) check_(io);
    Tensor& out = io.outputs[0];
    auto* dst = static_cast<unsigned char*>(out.data());
    const size_t es = value_.size();
    const int64_t n = out.numel();
    bool zero = std::all_of(value_.begin(), value_.end(), [](unsigned char c) { return c == 0; });
    if (zero) {
      if (n) std::memset(dst, 0, static_cast<size_t>(n) * es);
      return;
    }
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + static_cast<size_t>(i) * es, value_.data(), es);
  }
  std::string impl_name() const override { return "cpu:" + name_; }

 private:
  std::vector<unsigned char> value_;
  std::string name_;
  RunCheck check_;
};

/// ConstantOfShape-9: value attribute is a one-element tensor (default float32 0).
std::unique_ptr<Kernel> make_constant_of_shape(const KernelBuildContext& ctx) {
  Tensor v;
  if (ctx.node.attrs.has("value")) {
    v = ctx.node.attrs.get_tensor("value");
    if (v.numel() != 1) throw InvalidGraphError(at_node(ctx) + "ConstantOfShape value must have one element");
  } else {
    v = Tensor::allocate(DataType::Float32, Shape{});
  }
  if (dtype_size(v.dtype()) == 0) unsupported_dtype(ctx.node.describe(), v.dtype(), "value");
  if (v.dtype() != ctx.output_type(0)) {
    throw InvalidGraphError(at_node(ctx) + "value dtype " + std::string(dtype_name(v.dtype())) + " but the output is " +
                            std::string(dtype_name(ctx.output_type(0))));
  }
  if (auto s = const_ints(ctx, 0)) expect_output_shape(ctx, Shape(*s));
  const auto* b = static_cast<const unsigned char*>(v.data());
  const std::vector<int64_t> out = ctx.output_shape(0).dims();
  RunCheck check = run_check(ctx, 0, [out](const std::vector<int64_t>& s) { return s == out; }, "ConstantOfShape input");
  return std::make_unique<FillKernel>(std::vector<unsigned char>(b, b + dtype_size(v.dtype())), "ConstantOfShape",
                                      std::move(check));
}

/// Size-13: the element count as an int64 scalar (known from the static shape).
std::unique_ptr<Kernel> make_size(const KernelBuildContext& ctx) {
  if (ctx.output_type(0) != DataType::Int64 || ctx.output_shape(0).numel() != 1) {
    throw InvalidGraphError(at_node(ctx) + "Size output must be an int64 scalar");
  }
  const int64_t n = ctx.input_shape(0).numel();
  std::vector<unsigned char> bytes(8);
  std::memcpy(bytes.data(), &n, 8);
  return std::make_unique<FillKernel>(std::move(bytes), "Size");
}

// ---------------------------------------------------------------- EyeLike

/// EyeLike-9: a 2-D tensor of zeros with ones on the k-th diagonal (j = i + k); dtype from the
/// `dtype` attribute or the input's.
template <class T>
class EyeLikeKernel final : public Kernel {
 public:
  EyeLikeKernel(int64_t rows, int64_t cols, int64_t k) : rows_(rows), cols_(cols), k_(k) {}
  void run(KernelIO& io) override {
    T* y = io.outputs[0].data_as<T>();
    std::fill_n(y, rows_ * cols_, arith::Num<T>::store(typename arith::Num<T>::acc(0)));
    for (int64_t i = 0; i < rows_; ++i) {
      const int64_t j = i + k_;
      if (j >= 0 && j < cols_) y[i * cols_ + j] = arith::Num<T>::store(typename arith::Num<T>::acc(1));
    }
  }
  std::string impl_name() const override { return "cpu:EyeLike"; }

 private:
  int64_t rows_, cols_, k_;
};

std::unique_ptr<Kernel> make_eye_like(const KernelBuildContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  if (in.rank() != 2) throw InvalidGraphError(at_node(ctx) + "EyeLike input must be 2-D, got " + in.str());
  expect_output_shape(ctx, in);
  const DataType want = ctx.node.attrs.has("dtype") ? static_cast<DataType>(ctx.node.attrs.get_int("dtype", 1))
                                                    : ctx.input_type(0);
  if (want != ctx.output_type(0)) throw InvalidGraphError(at_node(ctx) + "EyeLike output dtype differs from `dtype`");
  const int64_t k = ctx.node.attrs.get_int("k", 0);
  std::unique_ptr<Kernel> kern;
  arith::dispatch(arith::NumericBool{}, want, ctx, "EyeLike output", [&](auto tag) {
    kern = std::make_unique<EyeLikeKernel<typename decltype(tag)::type>>(in[0], in[1], k);
  });
  return kern;
}

// ---------------------------------------------------------------- Range

/// Range-11: y[i] = start + i * delta for i < max(ceil((limit - start) / delta), 0).
template <class T>
class RangeKernel final : public Kernel {
 public:
  explicit RangeKernel(std::string who) : who_(std::move(who)) {}
  void run(KernelIO& io) override {
    const T start = io.inputs[0].data_as<T>()[0], limit = io.inputs[1].data_as<T>()[0],
            delta = io.inputs[2].data_as<T>()[0];
    if (delta == T(0)) throw Error(who_ + ": Range delta is 0");
    const double count = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta));
    // A Shape holds at most 2^59 elements (sdk/src/types.cc); converting a larger count (a limit
    // of 2^63, or NaN) to int64 would be undefined, and so would a count below int64's range (a
    // delta of -1e-30 towards a larger limit): max(count, 0) is taken in double first.
    if (!(count <= static_cast<double>(int64_t{1} << 59)))
      throw Error(who_ + ": Range yields " + std::to_string(count) + " elements, more than a tensor holds (2^59)");
    const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
    Tensor& out = io.outputs[0];
    if (n != out.numel()) {
      throw Error(who_ + ": Range yields " + std::to_string(n) + " elements but the output holds " +
                  std::to_string(out.numel()));
    }
    T* y = out.data_as<T>();
    // Accumulating like ONNX's reference (start, start+delta, ...) keeps float results equal to it.
    T v = start;
    for (int64_t i = 0; i < n; ++i, v = static_cast<T>(v + delta)) y[i] = v;
  }
  std::string impl_name() const override { return "cpu:Range"; }

 private:
  std::string who_;
};

std::unique_ptr<Kernel> make_range(const KernelBuildContext& ctx) {
  if (ctx.output_shape(0).rank() != 1) throw InvalidGraphError(at_node(ctx) + "Range output must be 1-D");
  std::unique_ptr<Kernel> k;
  if (!visit_type(Types<float, double, int16_t, int32_t, int64_t>{}, ctx.input_type(0), [&](auto tag) {
        k = std::make_unique<RangeKernel<typename decltype(tag)::type>>(ctx.node.describe());
      })) {
    unsupported_dtype(ctx.node.describe(), ctx.input_type(0));
  }
  return k;
}

// ---------------------------------------------------------------- Expand, Tile

template <class U>
class PlanCopyKernel final : public Kernel {
 public:
  PlanCopyKernel(loops::LoopPlan plan, int threads, std::string name, RunCheck check)
      : plan_(std::move(plan)), threads_(threads), name_(std::move(name)), check_(std::move(check)) {}
  void run(KernelIO& io) override {
    if (check_) check_(io);
    loops::copy_rows(plan_, io.inputs[0].data_as<U>(), io.outputs[0].data_as<U>(), threads_);
  }
  std::string impl_name() const override { return "cpu:" + name_; }

 private:
  loops::LoopPlan plan_;
  int threads_;
  std::string name_;
  RunCheck check_;
};

std::unique_ptr<Kernel> plan_copy(const KernelBuildContext& ctx, loops::LoopPlan plan, const std::string& name,
                                  RunCheck check) {
  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(ctx.input_type(0), ctx.node.describe(), [&](auto tag) {
    k = std::make_unique<PlanCopyKernel<typename decltype(tag)::type>>(std::move(plan), ctx.threads, name,
                                                                  std::move(check));
  });
  return k;
}

/// Expand-13: numpy broadcast of the input with `shape` (either side may be 1).
/// numpy broadcast of two shapes, or nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast_dims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> d(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t x = i + a.size() >= r ? a[i + a.size() - r] : 1;
    const int64_t y = i + b.size() >= r ? b[i + b.size() - r] : 1;
    if (x != y && x != 1 && y != 1) return std::nullopt;
    d[i] = x == 1 ? y : x;
  }
  return d;
}

std::unique_ptr<Kernel> make_expand(const KernelBuildContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const Shape& out = ctx.output_shape(0);
  if (auto s = const_ints(ctx, 1)) {
    const auto d = broadcast_dims(in.dims(), *s);
    if (!d) throw InvalidGraphError(at_node(ctx) + "Expand cannot broadcast " + in.str() + " to " + Shape(*s).str());
    expect_output_shape(ctx, Shape(*d));
  }
  RunCheck check = run_check(
      ctx, 1,
      [i = in.dims(), o = out.dims()](const std::vector<int64_t>& s) {
        const auto d = broadcast_dims(i, s);
        return d && *d == o;
      },
      "Expand shape");
  return plan_copy(ctx, loops::broadcast_plan(out, {in}, ctx.node.describe()), "Expand", std::move(check));
}

/// Tile-13: out[k] = in[k mod d] per axis. The output is walked as [rep0, d0, rep1, d1, ...]
/// with input strides [0, s0, 0, s1, ...]; collapse() merges what stays contiguous.
std::unique_ptr<Kernel> make_tile(const KernelBuildContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const Shape& out = ctx.output_shape(0);
  if (out.rank() != in.rank()) throw InvalidGraphError(at_node(ctx) + "Tile output rank differs from the input's");
  std::vector<int64_t> reps(in.rank());
  for (size_t i = 0; i < in.rank(); ++i) {
    if (in[i] == 0 ? out[i] != 0 : out[i] % in[i] != 0) {
      throw InvalidGraphError(at_node(ctx) + "Tile output " + out.str() + " is no multiple of the input " + in.str());
    }
    reps[i] = in[i] == 0 ? 0 : out[i] / in[i];
  }
  if (auto r = const_ints(ctx, 1)) {
    if (r->size() != in.rank()) throw InvalidGraphError(at_node(ctx) + "Tile repeats length differs from the rank");
    std::vector<int64_t> d(in.rank());
    for (size_t i = 0; i < in.rank(); ++i) d[i] = in[i] * (*r)[i];
    expect_output_shape(ctx, Shape(d));
    reps = *r;
  }
  loops::LoopPlan p;
  p.nops = 2;
  const std::vector<int64_t> is = contiguous_strides(in), os = contiguous_strides(out);
  for (size_t i = 0; i < in.rank(); ++i) {
    p.dims.push_back(reps[i]);
    p.dims.push_back(in[i]);
    p.strides[0].push_back(os[i] * in[i]);
    p.strides[0].push_back(os[i]);
    p.strides[1].push_back(0);
    p.strides[1].push_back(is[i]);
  }
  if (in.rank() == 0) {
    p.dims = {1};
    p.strides[0] = {0};
    p.strides[1] = {0};
  }
  loops::collapse(p);
  RunCheck check = run_check(
      ctx, 1,
      [i = in.dims(), o = out.dims()](const std::vector<int64_t>& r) {
        if (r.size() != i.size()) return false;
        for (size_t a = 0; a < i.size(); ++a)
          if (i[a] * r[a] != o[a]) return false;
        return true;
      },
      "Tile repeats");
  return plan_copy(ctx, std::move(p), "Tile", std::move(check));
}

// ---------------------------------------------------------------- Trilu

/// Trilu-14: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of each trailing
/// [N, M] matrix and zeroes the rest; k from the optional input 1 (default 0).
template <class U>
class TriluKernel final : public Kernel {
 public:
  TriluKernel(int64_t batch, int64_t n, int64_t m, bool upper, std::optional<int64_t> k, int threads)
      : batch_(batch), n_(n), m_(m), upper_(upper), k_(k), threads_(threads) {}
  void run(KernelIO& io) override {
    int64_t k = k_ ? *k_ : 0;
    if (!k_ && has_io_input(io, 1)) {
      const std::vector<int64_t> kv = io.inputs[1].to_int64_vector();
      if (kv.size() != 1)
        throw Error("Trilu: input k must hold one element (a scalar), got " + std::to_string(kv.size()));
      k = kv[0];
    }
    const U* x = io.inputs[0].data_as<U>();
    U* y = io.outputs[0].data_as<U>();
    const int64_t n = n_, m = m_;
    const bool upper = upper_;
    loops::parallel_chunks(
        batch_ * n, threads_,
        [&](int64_t b, int64_t e) {
          for (int64_t r = b; r < e; ++r) {
            const int64_t i = r % n;
            const U* xr = x + r * m;
            U* yr = y + r * m;
            // Kept columns: [max(i+k, 0), m) for upper, [0, min(i+k+1, m)) for lower.
            const int64_t lo = upper ? std::clamp<int64_t>(i + k, 0, m) : 0;
            const int64_t hi = upper ? m : std::clamp<int64_t>(i + k + 1, 0, m);
            std::fill(yr, yr + m, U(0));
            if (hi > lo) std::copy(xr + lo, xr + hi, yr + lo);
          }
        },
        m);
  }
  std::string impl_name() const override { return "cpu:Trilu"; }

 private:
  int64_t batch_, n_, m_;
  bool upper_;
  std::optional<int64_t> k_;
  int threads_;
};

std::unique_ptr<Kernel> make_trilu(const KernelBuildContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  if (in.rank() < 2) throw InvalidGraphError(at_node(ctx) + "Trilu input must have rank >= 2, got " + in.str());
  expect_output_shape(ctx, in);
  std::optional<int64_t> k;
  // ONNX Trilu: k is a 0-D tensor; a one-element 1-D one is taken too, as ONNX Runtime does.
  if (ctx.has_input(1) && ctx.input_shape(1).numel() != 1)
    throw InvalidGraphError(at_node(ctx) + "Trilu input k must hold one element (a scalar), got shape " +
                            ctx.input_shape(1).str());
  if (!ctx.has_input(1)) k = 0;
  else if (auto v = const_ints(ctx, 1)) k = v->at(0);
  const int64_t n = in[in.rank() - 2], m = in[in.rank() - 1];
  const int64_t batch = span_numel(in, 0, in.rank() - 2);
  const bool upper = ctx.node.attrs.get_int("upper", 1) != 0;
  std::unique_ptr<Kernel> kern;
  loops::dispatch_bits(ctx.input_type(0), ctx.node.describe(), [&](auto tag) {
    kern = std::make_unique<TriluKernel<typename decltype(tag)::type>>(batch, n, m, upper, k, ctx.threads);
  });
  return kern;
}

}  // namespace

void register_creation_kernels(Registrar& r) {
  add_cpu_kernel(r, "ConstantOfShape", make_constant_of_shape);
  add_cpu_kernel(r, "Size", make_size);
  add_cpu_kernel(r, "EyeLike", make_eye_like);
  add_cpu_kernel(r, "Range", make_range);
  add_cpu_kernel(r, "Expand", make_expand);
  add_cpu_kernel(r, "Tile", make_tile);
  add_cpu_kernel(r, "Trilu", make_trilu);
}

}  // namespace ge::cpu
