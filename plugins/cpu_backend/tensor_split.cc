// plugins/cpu_backend/tensor_split.cc — Split (opset 2/11/13) for any fixed-size dtype: the
// inverse of Concat's copy (tensor_concat_slice.cc). The input seen as [outer, x[axis] * inner];
// output i takes columns [off_i, off_i + s_i*inner) of every row, one memcpy per (row, output).
// Part sizes come from the inferred output shapes, so the `split` attribute/input need not be
// re-read here.
#include <cstring>
#include <vector>

#include "elementwise_common.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

class SplitKernel final : public Kernel {
 public:
  SplitKernel(int64_t outer, int64_t in_row, std::vector<int64_t> blocks, std::vector<int64_t> offsets, size_t esize,
              int threads)
      : outer_(outer), in_row_(in_row), blocks_(std::move(blocks)), offsets_(std::move(offsets)), esize_(esize),
        threads_(threads) {}

  void run(KernelIO& io) override {
    const auto* in = static_cast<const char*>(io.inputs[0].data());
    const size_t n = blocks_.size();
    std::vector<char*> dst(n);
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<char*>(io.outputs[i].data());
    loops::parallel_chunks(
        outer_, threads_,
        [&](int64_t b, int64_t e) {
          for (int64_t o = b; o < e; ++o)
            for (size_t i = 0; i < n; ++i) {
              char* to = dst[i] + o * blocks_[i] * esize_;
              const char* from = in + (o * in_row_ + offsets_[i]) * esize_;
              // A part the memory plan placed inside the input (a view) is already there.
              if (blocks_[i] != 0 && dst[i] && to != from)
                std::memcpy(to, from, static_cast<size_t>(blocks_[i]) * esize_);
            }
        },
        in_row_);
  }
  std::string impl_name() const override { return "cpu:Split"; }

 private:
  int64_t outer_, in_row_;
  std::vector<int64_t> blocks_, offsets_;  // per output, in elements
  size_t esize_;
  int threads_;
};

std::unique_ptr<Kernel> make_split(const KernelBuildContext& ctx) {
  const DataType t = ctx.input_type(0);
  if (dtype_size(t) == 0) unsupported_dtype(ctx.node.describe(), t);
  const Shape& x = ctx.input_shape(0);
  const auto r = static_cast<int64_t>(x.rank());
  const auto axis = static_cast<size_t>(normalize_axis(ctx.node.attrs.get_int("axis", 0), r, ctx.node.describe() + " axis"));
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= x[i];
  for (size_t i = axis + 1; i < x.rank(); ++i) inner *= x[i];
  std::vector<int64_t> blocks, offsets;
  int64_t off = 0;
  for (size_t i = 0; i < ctx.node.num_outputs(); ++i) {
    const Value* v = ctx.node.output(i);
    if (!v) throw UnsupportedError(ctx.node.describe() + ": omitted output " + std::to_string(i));
    // Each output is the input's shape with its own extent on `axis` (ONNX Operators.md, Split).
    bool fits = v->shape.rank() == x.rank();
    for (size_t d = 0; fits && d < x.rank(); ++d) fits = d == axis ? v->shape[d] >= 0 : v->shape[d] == x[d];
    if (!fits)
      throw InvalidGraphError(ctx.node.describe() + ": output " + std::to_string(i) + " of shape " + v->shape.str() +
                              " is not a part of input " + x.str() + " along axis " + std::to_string(axis));
    const int64_t part = v->shape[axis];
    blocks.push_back(part * inner);
    offsets.push_back(off);
    off += part * inner;
  }
  if (off != x[axis] * inner)
    throw InvalidGraphError(ctx.node.describe() + ": outputs do not add up to input " + x.str());
  return std::make_unique<SplitKernel>(outer, off, std::move(blocks), std::move(offsets), dtype_size(t), ctx.threads);
}

}  // namespace

void register_split_kernels(Registrar& r) { add_cpu_kernel(r, "Split", make_split); }

}  // namespace ge::cpu
