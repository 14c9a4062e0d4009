// plugins/cpu_backend/tensor_index.cc — GatherElements, GatherND and OneHot
// (onnx/docs/Operators.md, each op's section) for any fixed-size data dtype.
//
// Indices are read and range-checked before any copy, so an out-of-range index stops the run
// naming the node, the index and the bound, and nothing is read outside the data. OneHot is
// the exception ONNX defines: an index outside [-depth, depth) gives a row of off_value.
#include <vector>

#include "tensor_common.h"

namespace ge::cpu {
namespace {

// ---------------------------------------------------------------- GatherElements

/// GatherElements-13: out[i0..i(r-1)] = data[i0.., idx[i0..], ..] with idx replacing the
/// coordinate of `axis`; out has the indices' shape.
template <class U>
class GatherElementsKernel final : public Kernel {
 public:
  GatherElementsKernel(Shape data, Shape idx, size_t axis, std::string who, int threads)
      : data_(std::move(data)), idx_(std::move(idx)), axis_(axis), who_(std::move(who)), threads_(threads) {}
  void run(KernelIO& io) override {
    std::vector<int64_t> idx = io.inputs[1].to_int64_vector();
    const int64_t bound = data_[axis_];
    for (int64_t& v : idx) v = checked_index(v, bound, who_);
    const U* x = io.inputs[0].data_as<U>();
    U* y = io.outputs[0].data_as<U>();
    const std::vector<int64_t> ds = contiguous_strides(data_);
    const size_t r = idx_.rank();
    const int64_t n = idx_.numel();
    loops::parallel_chunks(n, threads_, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int64_t rem = i, off = 0;
        for (size_t a = r; a-- > 0;) {
          const int64_t c = rem % idx_[a];
          rem /= idx_[a];
          off += (a == axis_ ? idx[static_cast<size_t>(i)] : c) * ds[a];
        }
        y[i] = x[off];
      }
    });
  }
  std::string impl_name() const override { return "cpu:GatherElements"; }

 private:
  Shape data_, idx_;
  size_t axis_;
  std::string who_;
  int threads_;
};

std::unique_ptr<Kernel> make_gather_elements(const KernelBuildContext& ctx) {
  const DataType it = ctx.input_type(1);
  if (it != DataType::Int32 && it != DataType::Int64) unsupported_dtype(ctx.node.describe(), it, "indices");
  const Shape& data = ctx.input_shape(0);
  const Shape& idx = ctx.input_shape(1);
  if (data.rank() != idx.rank() || data.rank() == 0) {
    throw InvalidGraphError(at_node(ctx) + "GatherElements data " + data.str() + " and indices " + idx.str() +
                            " must have one rank >= 1");
  }
  const auto axis = static_cast<size_t>(
      normalize_axis(ctx.node.attrs.get_int("axis", 0), static_cast<int64_t>(data.rank()), ctx.node.describe() + " axis"));
  for (size_t a = 0; a < data.rank(); ++a) {
    if (a != axis && idx[a] > data[a]) {
      throw InvalidGraphError(at_node(ctx) + "GatherElements indices " + idx.str() + " exceed data " + data.str() +
                              " on axis " + std::to_string(a));
    }
  }
  expect_output_shape(ctx, idx);
  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(ctx.input_type(0), ctx.node.describe(), [&](auto tag) {
    k = std::make_unique<GatherElementsKernel<typename decltype(tag)::type>>(data, idx, axis, ctx.node.describe(),
                                                                           ctx.threads);
  });
  return k;
}

// ---------------------------------------------------------------- GatherND

/// GatherND-12/13: with b = batch_dims and m = indices.shape[-1], each index tuple selects the
/// slice data[batch, i1..im, :] of `inner` elements; output = indices.shape[:-1] + data.shape[b+m:].
template <class U>
class GatherNDKernel final : public Kernel {
 public:
  GatherNDKernel(Shape data, int64_t batch_dims, int64_t m, int64_t rows, int64_t rows_per_batch, int64_t inner,
                 std::string who, int threads)
      : data_(std::move(data)), b_(batch_dims), m_(m), rows_(rows), rows_per_batch_(rows_per_batch), inner_(inner),
        who_(std::move(who)), threads_(threads) {}
  void run(KernelIO& io) override {
    const std::vector<int64_t> idx = io.inputs[1].to_int64_vector();
    const std::vector<int64_t> ds = contiguous_strides(data_);
    const int64_t batch_stride = b_ > 0 ? ds[static_cast<size_t>(b_ - 1)] : 0;
    std::vector<int64_t> src(static_cast<size_t>(rows_));
    for (int64_t k = 0; k < rows_; ++k) {
      int64_t off = (rows_per_batch_ ? k / rows_per_batch_ : 0) * batch_stride;
      for (int64_t j = 0; j < m_; ++j) {
        const size_t a = static_cast<size_t>(b_ + j);
        off += checked_index(idx[static_cast<size_t>(k * m_ + j)], data_[a], who_) * ds[a];
      }
      src[static_cast<size_t>(k)] = off;
    }
    const U* x = io.inputs[0].data_as<U>();
    U* y = io.outputs[0].data_as<U>();
    const int64_t inner = inner_;
    loops::parallel_chunks(
        rows_, threads_,
        [&](int64_t b, int64_t e) {
          for (int64_t k = b; k < e; ++k) std::copy_n(x + src[static_cast<size_t>(k)], inner, y + k * inner);
        },
        inner);
  }
  std::string impl_name() const override { return "cpu:GatherND"; }

 private:
  Shape data_;
  int64_t b_, m_, rows_, rows_per_batch_, inner_;
  std::string who_;
  int threads_;
};

std::unique_ptr<Kernel> make_gather_nd(const KernelBuildContext& ctx) {
  if (ctx.input_type(1) != DataType::Int64) unsupported_dtype(ctx.node.describe(), ctx.input_type(1), "indices");
  const Shape& data = ctx.input_shape(0);
  const Shape& idx = ctx.input_shape(1);
  const int64_t b = ctx.opset >= 12 ? ctx.node.attrs.get_int("batch_dims", 0) : 0;
  const auto r = static_cast<int64_t>(data.rank()), q = static_cast<int64_t>(idx.rank());
  if (q < 1 || b < 0 || b >= std::min(r, q)) {
    throw InvalidGraphError(at_node(ctx) + "GatherND batch_dims " + std::to_string(b) + " invalid for data " +
                            data.str() + " and indices " + idx.str());
  }
  const int64_t m = idx[static_cast<size_t>(q - 1)];
  if (m < 1 || m > r - b) throw InvalidGraphError(at_node(ctx) + "GatherND indices.shape[-1] = " + std::to_string(m) + " invalid");
  for (int64_t i = 0; i < b; ++i) {
    if (data[static_cast<size_t>(i)] != idx[static_cast<size_t>(i)]) {
      throw InvalidGraphError(at_node(ctx) + "GatherND batch dims of data " + data.str() + " and indices " + idx.str() +
                              " differ");
    }
  }
  std::vector<int64_t> want(idx.dims().begin(), idx.dims().end() - 1);
  for (int64_t i = b + m; i < r; ++i) want.push_back(data[static_cast<size_t>(i)]);
  expect_output_shape(ctx, Shape(want));
  const int64_t rows = span_numel(idx, 0, static_cast<size_t>(q - 1));
  const int64_t rows_per_batch = span_numel(idx, static_cast<size_t>(b), static_cast<size_t>(q - 1));
  const int64_t inner = span_numel(data, static_cast<size_t>(b + m), data.rank());
  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(ctx.input_type(0), ctx.node.describe(), [&](auto tag) {
    k = std::make_unique<GatherNDKernel<typename decltype(tag)::type>>(data, b, m, rows, rows_per_batch, inner,
                                                                     ctx.node.describe(), ctx.threads);
  });
  return k;
}

// ---------------------------------------------------------------- OneHot

/// OneHot-11: output = indices.shape with `depth` inserted at `axis`; on_value where the index
/// (negative adds depth) matches, off_value elsewhere and for out-of-range indices.
template <class U>
class OneHotKernel final : public Kernel {
 public:
  OneHotKernel(int64_t outer, int64_t depth, int64_t inner, std::string who)
      : outer_(outer), depth_(depth), inner_(inner), who_(std::move(who)) {}
  void run(KernelIO& io) override {
    const auto depth = static_cast<int64_t>(arith::load_double(io.inputs[1], 0));
    if (depth != depth_) {
      throw Error(who_ + ": OneHot depth " + std::to_string(depth) + " at run time but the output axis has " +
                  std::to_string(depth_));
    }
    const Tensor& ind = io.inputs[0];
    const U* vals = io.inputs[2].data_as<U>();
    const U off = vals[0], on = vals[1];
    U* y = io.outputs[0].data_as<U>();
    std::fill_n(y, outer_ * depth_ * inner_, off);
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t i = 0; i < inner_; ++i) {
        // ONNX casts the index to an integer (floats truncate, as ORT and the reference do).
        auto v = static_cast<int64_t>(arith::load_double(ind, o * inner_ + i));
        if (v < 0) v += depth_;
        if (v < 0 || v >= depth_) continue;
        y[(o * depth_ + v) * inner_ + i] = on;
      }
    }
  }
  std::string impl_name() const override { return "cpu:OneHot"; }

 private:
  int64_t outer_, depth_, inner_;
  std::string who_;
};

std::unique_ptr<Kernel> make_one_hot(const KernelBuildContext& ctx) {
  const Shape& ind = ctx.input_shape(0);
  const Shape& out = ctx.output_shape(0);
  if (out.rank() != ind.rank() + 1) throw InvalidGraphError(at_node(ctx) + "OneHot output rank must be indices rank + 1");
  const auto axis = static_cast<size_t>(
      normalize_axis(ctx.node.attrs.get_int("axis", -1), static_cast<int64_t>(out.rank()), ctx.node.describe() + " axis"));
  const int64_t depth = out[axis];
  if (const Tensor* d = ctx.input_data(1)) {
    const auto want = static_cast<int64_t>(arith::load_double(*d, 0));
    if (want != depth) {
      throw InvalidGraphError(at_node(ctx) + "OneHot depth " + std::to_string(want) + " but the output axis has " +
                              std::to_string(depth));
    }
  }
  if (ctx.input_shape(2).numel() != 2) throw InvalidGraphError(at_node(ctx) + "OneHot values must have 2 elements");
  if (!arith::visit(arith::Numeric{}, ctx.input_type(0), [](auto) {})) unsupported_dtype(ctx.node.describe(), ctx.input_type(0), "indices");
  std::vector<int64_t> want(ind.dims());
  want.insert(want.begin() + static_cast<std::ptrdiff_t>(axis), depth);
  expect_output_shape(ctx, Shape(want));
  const int64_t outer = span_numel(ind, 0, axis), inner = span_numel(ind, axis, ind.rank());
  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(ctx.input_type(2), ctx.node.describe(), [&](auto tag) {
    k = std::make_unique<OneHotKernel<typename decltype(tag)::type>>(outer, depth, inner, ctx.node.describe());
  });
  return k;
}

}  // namespace

void register_index_kernels(Registrar& r) {
  add_cpu_kernel(r, "GatherElements", make_gather_elements);
  add_cpu_kernel(r, "GatherND", make_gather_nd);
  add_cpu_kernel(r, "OneHot", make_one_hot);
}

}  // namespace ge::cpu
