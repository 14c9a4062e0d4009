// plugins/cpu_backend/tensor_transpose.cc — Transpose-13 for any rank and any fixed-size
// dtype (elements are moved as 1/2/4/8-byte words).
//
// The output is walked in row-major order and the input through permuted strides. Axes that
// stay adjacent and in order under the permutation are merged first (broadcast.h collapse),
// so a channel shuffle [N,g,C/g,H,W] perm [0,2,1,3,4] becomes [N,C/g,g,H*W] whose rows are
// contiguous H*W runs copied with memcpy-like loops; only a permutation that moves the
// innermost axis reads with a stride.
#include <vector>

#include "elementwise_common.h"

namespace ge::cpu {
namespace {

template <class U>
class TransposeKernel final : public Kernel {
 public:
  TransposeKernel(loops::LoopPlan plan, int threads) : plan_(std::move(plan)), threads_(threads) {}
  void run(KernelIO& io) override {
    loops::copy_rows(plan_, io.inputs[0].data_as<U>(), io.outputs[0].data_as<U>(), threads_);
  }
  std::string impl_name() const override {
    return plan_.inner_stride(1) == 1 ? "cpu:Transpose:rows" : "cpu:Transpose:strided";
  }

 private:
  loops::LoopPlan plan_;
  int threads_;
};

std::unique_ptr<Kernel> make_transpose(const KernelBuildContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const size_t r = in.rank();
  std::vector<int64_t> perm = ctx.node.attrs.get_ints("perm");
  if (perm.empty()) {  // default: reverse the axes
    for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  }
  if (perm.size() != r) {
    throw InvalidGraphError(ctx.node.describe() + ": perm has " + std::to_string(perm.size()) +
                            " entries for a rank-" + std::to_string(r) + " input");
  }
  std::vector<bool> seen(r, false);
  for (int64_t& p : perm) {
    p = normalize_axis(p, static_cast<int64_t>(r), ctx.node.describe() + " perm");
    if (seen[static_cast<size_t>(p)]) throw InvalidGraphError(ctx.node.describe() + ": perm repeats an axis");
    seen[static_cast<size_t>(p)] = true;
  }
  loops::LoopPlan plan;
  plan.nops = 2;
  const std::vector<int64_t> in_strides = contiguous_strides(in);
  std::vector<int64_t> out_dims(r);
  for (size_t k = 0; k < r; ++k) {
    out_dims[k] = in[static_cast<size_t>(perm[k])];
    plan.strides[1].push_back(in_strides[static_cast<size_t>(perm[k])]);
  }
  if (Shape(out_dims) != ctx.output_shape(0)) {
    throw InvalidGraphError(ctx.node.describe() + ": Transpose gives " + Shape(out_dims).str() +
                            " but the output is " + ctx.output_shape(0).str());
  }
  plan.dims = out_dims;
  plan.strides[0] = contiguous_strides(Shape(out_dims));
  loops::collapse(plan);
  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(ctx.input_type(0), ctx.node.describe(), [&](auto tag) {
    k = std::make_unique<TransposeKernel<typename decltype(tag)::type>>(std::move(plan), ctx.threads);
  });
  return k;
}

}  // namespace

void register_transpose_kernels(Registrar& r) { add_cpu_kernel(r, "Transpose", make_transpose); }

}  // namespace ge::cpu
