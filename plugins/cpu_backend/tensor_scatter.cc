// plugins/cpu_backend/tensor_scatter.cc — Scatter (opset 9, the old name of ScatterElements),
// ScatterElements and ScatterND (onnx/docs/Operators.md) with `reduction` none, add, mul
// (opset 16) and max, min (opset 18), for every fixed-size dtype (reductions: numeric dtypes).
//
// output = copy of data, then the updates are applied in index order, serially: with
// duplicate indices `none` keeps the last update and the reductions fold every one of them
// into the element, as ONNX's reference implementation does. All indices are range-checked
// before the first write, so a bad index stops the run naming the node, the index and the
// bound and leaves no partial result behind.
#include <algorithm>
#include <functional>
#include <vector>

#include "tensor_common.h"

namespace ge::cpu {
namespace {

enum class Reduction { None, Add, Mul, Max, Min };

Reduction parse_reduction(const KernelBuildContext& ctx) {
  const std::string r = ctx.node.attrs.get_string("reduction", "none");
  if (r == "none") return Reduction::None;
  if (r == "add") return Reduction::Add;
  if (r == "mul") return Reduction::Mul;
  if (r == "max") return Reduction::Max;
  if (r == "min") return Reduction::Min;
  throw UnsupportedError(ctx.node.describe() + ": reduction '" + r + "' not supported (none, add, mul, max, min)");
}

template <class T>
inline void apply(Reduction red, T& dst, T upd) {
  using N = arith::Num<T>;
  using A = typename N::acc;
  if (red == Reduction::None) {
    dst = upd;
    return;
  }
  const A a = N::load(dst), b = N::load(upd);
  A v;
  switch (red) {
    case Reduction::Add: v = static_cast<A>(a + b); break;
    case Reduction::Mul: v = static_cast<A>(a * b); break;
    case Reduction::Max: v = std::max(a, b); break;
    default: v = std::min(a, b); break;
  }
  dst = N::store(v);
}

/// `offsets[u]` is the output element (ScatterElements) or slice start (ScatterND) update row
/// u goes to; rows are `inner` elements long.
template <class T>
void scatter_rows(const Tensor& data, const Tensor& updates, Tensor& out, const std::vector<int64_t>& offsets,
                  int64_t inner, Reduction red) {
  const T* x = data.data_as<T>();
  const T* u = updates.data_as<T>();
  T* y = out.data_as<T>();
  if (x != y) std::copy_n(x, data.numel(), y);
  for (size_t k = 0; k < offsets.size(); ++k) {
    T* dst = y + offsets[k];
    const T* src = u + static_cast<int64_t>(k) * inner;
    for (int64_t i = 0; i < inner; ++i) apply(red, dst[i], src[i]);
  }
}

/// Where each update element goes, per op.
using OffsetFn = std::function<std::vector<int64_t>(const KernelIO&)>;

template <class T>
class ScatterKernel final : public Kernel {
 public:
  ScatterKernel(OffsetFn offsets, int64_t inner, Reduction red, std::string name)
      : offsets_(std::move(offsets)), inner_(inner), red_(red), name_(std::move(name)) {}
  void run(KernelIO& io) override {
    const std::vector<int64_t> off = offsets_(io);
    scatter_rows<T>(io.inputs[0], io.inputs[2], io.outputs[0], off, inner_, red_);
  }
  std::string impl_name() const override { return "cpu:" + name_; }

 private:
  OffsetFn offsets_;
  int64_t inner_;
  Reduction red_;
  std::string name_;
};

std::unique_ptr<Kernel> make_scatter_kernel(const KernelBuildContext& ctx, OffsetFn offsets, int64_t inner,
                                            Reduction red) {
  const std::string op = ctx.node.op_type();
  const DataType t = ctx.input_type(0);
  if (ctx.input_type(2) != t || ctx.output_type(0) != t) {
    throw InvalidGraphError(at_node(ctx) + op + " data, updates and output dtypes differ");
  }
  expect_output_shape(ctx, ctx.input_shape(0));
  std::unique_ptr<Kernel> k;
  if (red == Reduction::None) {
    loops::dispatch_bits(t, ctx.node.describe(), [&](auto tag) {
      k = std::make_unique<ScatterKernel<typename decltype(tag)::type>>(std::move(offsets), inner, red, op);
    });
  } else {
    arith::dispatch(arith::Numeric{}, t, ctx, op + " reduction", [&](auto tag) {
      k = std::make_unique<ScatterKernel<typename decltype(tag)::type>>(std::move(offsets), inner, red, op);
    });
  }
  return k;
}

/// ScatterElements-11/13/16/18 (and Scatter-9): output[... idx[i..] ...] (axis coordinate
/// replaced) op= updates[i..]; indices and updates share one shape.
std::unique_ptr<Kernel> make_scatter_elements(const KernelBuildContext& ctx) {
  const std::string op = ctx.node.op_type();
  const DataType it = ctx.input_type(1);
  if (it != DataType::Int32 && it != DataType::Int64) unsupported_dtype(ctx.node.describe(), it, "indices");
  const Shape data = ctx.input_shape(0), idx = ctx.input_shape(1);
  if (ctx.input_shape(2) != idx || data.rank() != idx.rank() || data.rank() == 0) {
    throw InvalidGraphError(at_node(ctx) + op + " data " + data.str() + ", indices " + idx.str() + " and updates " +
                            ctx.input_shape(2).str() + " do not fit");
  }
  for (size_t a = 0; a < data.rank(); ++a) {
    if (idx[a] > data[a]) throw InvalidGraphError(at_node(ctx) + op + " indices " + idx.str() + " exceed data " + data.str());
  }
  const auto axis = static_cast<size_t>(
      normalize_axis(ctx.node.attrs.get_int("axis", 0), static_cast<int64_t>(data.rank()), ctx.node.describe() + " axis"));
  const Reduction red = op == "Scatter" ? Reduction::None : parse_reduction(ctx);
  const std::string who = ctx.node.describe();
  OffsetFn offsets = [data, idx, axis, who](const KernelIO& io) {
    const std::vector<int64_t> iv = io.inputs[1].to_int64_vector();
    const std::vector<int64_t> ds = contiguous_strides(data);
    std::vector<int64_t> off(iv.size());
    for (size_t i = 0; i < iv.size(); ++i) {
      int64_t rem = static_cast<int64_t>(i), o = 0;
      for (size_t a = idx.rank(); a-- > 0;) {
        const int64_t c = rem % idx[a];
        rem /= idx[a];
        o += (a == axis ? checked_index(iv[i], data[axis], who) : c) * ds[a];
      }
      off[i] = o;
    }
    return off;
  };
  return make_scatter_kernel(ctx, std::move(offsets), 1, red);
}

/// ScatterND-11/13/16/18: indices [..., m] select slices data[i1..im, :] of `inner` elements;
/// updates = indices.shape[:-1] + data.shape[m:].
std::unique_ptr<Kernel> make_scatter_nd(const KernelBuildContext& ctx) {
  if (ctx.input_type(1) != DataType::Int64) unsupported_dtype(ctx.node.describe(), ctx.input_type(1), "indices");
  const Shape data = ctx.input_shape(0), idx = ctx.input_shape(1);
  if (idx.rank() < 1) throw InvalidGraphError(at_node(ctx) + "ScatterND indices must have rank >= 1");
  const int64_t m = idx[idx.rank() - 1];
  if (m < 1 || m > static_cast<int64_t>(data.rank())) {
    throw InvalidGraphError(at_node(ctx) + "ScatterND indices.shape[-1] = " + std::to_string(m) + " invalid for data " +
                            data.str());
  }
  std::vector<int64_t> want(idx.dims().begin(), idx.dims().end() - 1);
  for (size_t i = static_cast<size_t>(m); i < data.rank(); ++i) want.push_back(data[i]);
  if (ctx.input_shape(2) != Shape(want)) {
    throw InvalidGraphError(at_node(ctx) + "ScatterND updates " + ctx.input_shape(2).str() + " should be " +
                            Shape(want).str());
  }
  const int64_t inner = span_numel(data, static_cast<size_t>(m), data.rank());
  const Reduction red = ctx.opset >= 16 ? parse_reduction(ctx) : Reduction::None;
  const std::string who = ctx.node.describe();
  OffsetFn offsets = [data, m, who](const KernelIO& io) {
    const std::vector<int64_t> iv = io.inputs[1].to_int64_vector();
    const std::vector<int64_t> ds = contiguous_strides(data);
    std::vector<int64_t> off(iv.size() / static_cast<size_t>(m));
    for (size_t k = 0; k < off.size(); ++k) {
      int64_t o = 0;
      for (int64_t j = 0; j < m; ++j) {
        o += checked_index(iv[k * static_cast<size_t>(m) + static_cast<size_t>(j)], data[static_cast<size_t>(j)], who) *
             ds[static_cast<size_t>(j)];
      }
      off[k] = o;
    }
    return off;
  };
  return make_scatter_kernel(ctx, std::move(offsets), inner, red);
}

}  // namespace

void register_scatter_kernels(Registrar& r) {
  add_cpu_kernel(r, "Scatter", make_scatter_elements);
  add_cpu_kernel(r, "ScatterElements", make_scatter_elements);
  add_cpu_kernel(r, "ScatterND", make_scatter_nd);
}

}  // namespace ge::cpu
