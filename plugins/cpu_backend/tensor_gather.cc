// plugins/cpu_backend/tensor_gather.cc — Gather-13 for any fixed-size data dtype with int32 or
// int64 indices.
//
// With data [outer, A, inner] (A = extent of `axis`) and K = numel(indices), the output is
// [outer, K, inner]: row (o, k) is the inner-element block data[o, idx[k], :], so an
// embedding lookup (axis 0) is one contiguous copy per id.
#include <string>
#include <vector>

#include "tensor_common.h"

namespace ge::cpu {
namespace {

template <class U>
class GatherKernel final : public Kernel {
 public:
  GatherKernel(int64_t outer, int64_t extent, int64_t inner, std::string who, int threads)
      : outer_(outer), extent_(extent), inner_(inner), who_(std::move(who)), threads_(threads) {}

  void run(KernelIO& io) override {
    // Negative indices count from the end (Gather-13); out-of-range ones are an error, checked
    // before the parallel loop because an exception must not leave an OpenMP region.
    std::vector<int64_t> idx = io.inputs[1].to_int64_vector();
    for (int64_t& i : idx) i = checked_index(i, extent_, who_);
    const U* data = io.inputs[0].data_as<U>();
    U* out = io.outputs[0].data_as<U>();
    const int64_t k = static_cast<int64_t>(idx.size()), inner = inner_, extent = extent_;
    loops::parallel_chunks(
        outer_ * k, threads_,
        [&](int64_t b, int64_t e) {
          if (inner == 1) {  // scalar rows: a plain gather loop, no per-element copy call
            for (int64_t r = b; r < e; ++r) out[r] = data[(r / k) * extent + idx[static_cast<size_t>(r % k)]];
            return;
          }
          for (int64_t r = b; r < e; ++r) {
            const U* src = data + ((r / k) * extent + idx[static_cast<size_t>(r % k)]) * inner;
            std::copy(src, src + inner, out + r * inner);
          }
        },
        inner);
  }
  std::string impl_name() const override { return "cpu:Gather"; }

 private:
  int64_t outer_, extent_, inner_;
  std::string who_;
  int threads_;
};

std::unique_ptr<Kernel> make_gather(const KernelBuildContext& ctx) {
  const DataType it = ctx.input_type(1);
  if (it != DataType::Int32 && it != DataType::Int64) unsupported_dtype(ctx.node.describe(), it, "indices");
  const Shape& data = ctx.input_shape(0);
  const size_t axis =
      static_cast<size_t>(normalize_axis(ctx.node.attrs.get_int("axis", 0), static_cast<int64_t>(data.rank()),
                                         ctx.node.describe() + " axis"));
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> want;
  for (size_t i = 0; i < axis; ++i) {
    outer *= data[i];
    want.push_back(data[i]);
  }
  for (int64_t d : ctx.input_shape(1).dims()) want.push_back(d);
  for (size_t i = axis + 1; i < data.rank(); ++i) {
    inner *= data[i];
    want.push_back(data[i]);
  }
  if (Shape(want) != ctx.output_shape(0)) {
    throw InvalidGraphError(ctx.node.describe() + ": Gather gives " + Shape(want).str() + " but the output is " +
                            ctx.output_shape(0).str());
  }
  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(ctx.input_type(0), ctx.node.describe(), [&](auto tag) {
    k = std::make_unique<GatherKernel<typename decltype(tag)::type>>(outer, data[axis], inner, ctx.node.describe(), ctx.threads);
  });
  return k;
}

}  // namespace

void register_gather_kernels(Registrar& r) { add_cpu_kernel(r, "Gather", make_gather); }

}  // namespace ge::cpu
