// plugins/cpu_backend/tensor_reorder.cc — data-movement ops that reorder elements:
// DepthToSpace (DCR and CRD), SpaceToDepth and ReverseSequence (onnx/docs/Operators.md).
//
// DepthToSpace/SpaceToDepth are a reshape to 6-D, a transpose and a reshape back (the
// formulas of their Operators.md sections); here that transpose is one strided LoopPlan copy,
// so W-long rows stay contiguous where the permutation allows.
#include <array>
#include <limits>
#include <vector>

#include "tensor_common.h"

namespace ge::cpu {
namespace {

template <class U>
class PlanKernel final : public Kernel {
 public:
  PlanKernel(loops::LoopPlan plan, int threads, std::string name)
      : plan_(std::move(plan)), threads_(threads), name_(std::move(name)) {}
  void run(KernelIO& io) override {
    loops::copy_rows(plan_, io.inputs[0].data_as<U>(), io.outputs[0].data_as<U>(), threads_);
  }
  std::string impl_name() const override { return "cpu:" + name_; }

 private:
  loops::LoopPlan plan_;
  int threads_;
  std::string name_;
};

/// The copy out = transpose(in viewed as `view`, perm), the output being contiguous.
loops::LoopPlan transpose_plan(const std::array<int64_t, 6>& view, const std::array<int, 6>& perm) {
  std::array<int64_t, 6> st{};
  int64_t s = 1;
  for (int i = 5; i >= 0; --i) {
    st[static_cast<size_t>(i)] = s;
    s *= view[static_cast<size_t>(i)];
  }
  loops::LoopPlan p;
  p.nops = 2;
  for (int k = 0; k < 6; ++k) {
    p.dims.push_back(view[static_cast<size_t>(perm[static_cast<size_t>(k)])]);
    p.strides[1].push_back(st[static_cast<size_t>(perm[static_cast<size_t>(k)])]);
  }
  p.strides[0] = contiguous_strides(Shape(p.dims));
  loops::collapse(p);
  return p;
}

std::unique_ptr<Kernel> plan_kernel(const KernelBuildContext& ctx, loops::LoopPlan p, const std::string& name) {
  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(ctx.input_type(0), ctx.node.describe(), [&](auto tag) {
    k = std::make_unique<PlanKernel<typename decltype(tag)::type>>(std::move(p), ctx.threads, name);
  });
  return k;
}

/// DepthToSpace-13: [N, C, H, W] -> [N, C/b², H*b, W*b].
///  DCR: view [N, b, b, C/b², H, W], perm [0, 3, 4, 1, 5, 2];
///  CRD: view [N, C/b², b, b, H, W], perm [0, 1, 4, 2, 5, 3].
std::unique_ptr<Kernel> make_depth_to_space(const KernelBuildContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const int64_t b = ctx.node.attrs.get_int("blocksize", 0);
  if (x.rank() != 4 || b < 1 || b >= (int64_t{1} << 31) || x[1] % (b * b) != 0) {
    throw InvalidGraphError(at_node(ctx) + "DepthToSpace needs a 4-D input whose C divides by blocksize² (input " +
                            x.str() + ", blocksize " + std::to_string(b) + ")");
  }
  const std::string mode = ctx.opset >= 11 ? ctx.node.attrs.get_string("mode", "DCR") : "DCR";
  if (mode != "DCR" && mode != "CRD") throw UnsupportedError(at_node(ctx) + "DepthToSpace mode '" + mode + "'");
  const int64_t n = x[0], c = x[1] / (b * b), h = x[2], w = x[3];
  expect_output_shape(ctx, Shape{n, c, h * b, w * b});
  loops::LoopPlan p = mode == "DCR" ? transpose_plan({n, b, b, c, h, w}, {0, 3, 4, 1, 5, 2})
                                    : transpose_plan({n, c, b, b, h, w}, {0, 1, 4, 2, 5, 3});
  return plan_kernel(ctx, std::move(p), "DepthToSpace");
}

/// SpaceToDepth-13: [N, C, H, W] -> [N, C*b², H/b, W/b]: view [N, C, H/b, b, W/b, b],
/// perm [0, 3, 5, 1, 2, 4].
std::unique_ptr<Kernel> make_space_to_depth(const KernelBuildContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const int64_t b = ctx.node.attrs.get_int("blocksize", 0);
  if (x.rank() != 4 || b < 1 || b >= (int64_t{1} << 31) || x[2] % b != 0 || x[3] % b != 0 ||
      x[1] > std::numeric_limits<int64_t>::max() / (b * b)) {
    throw InvalidGraphError(at_node(ctx) + "SpaceToDepth needs a 4-D input whose H and W divide by blocksize (input " +
                            x.str() + ", blocksize " + std::to_string(b) + ")");
  }
  const int64_t n = x[0], c = x[1], h = x[2] / b, w = x[3] / b;
  expect_output_shape(ctx, Shape{n, c * b * b, h, w});
  return plan_kernel(ctx, transpose_plan({n, c, h, b, w, b}, {0, 3, 5, 1, 2, 4}), "SpaceToDepth");
}

/// ReverseSequence-10: for batch entry i, the first sequence_lens[i] steps along time_axis are
/// reversed and the rest copied; time_axis and batch_axis are 0 and 1 in either order.
template <class U>
class ReverseSequenceKernel final : public Kernel {
 public:
  ReverseSequenceKernel(int64_t seq, int64_t batch, int64_t ts, int64_t bs, int64_t inner, std::string who)
      : seq_(seq), batch_(batch), ts_(ts), bs_(bs), inner_(inner), who_(std::move(who)) {}
  void run(KernelIO& io) override {
    const std::vector<int64_t> lens = io.inputs[1].to_int64_vector();
    if (static_cast<int64_t>(lens.size()) != batch_) throw Error(who_ + ": sequence_lens must have one entry per batch");
    for (int64_t l : lens) {
      if (l < 0 || l > seq_) {
        throw Error(who_ + ": sequence length " + std::to_string(l) + " is out of range [0, " + std::to_string(seq_) + "]");
      }
    }
    const U* x = io.inputs[0].data_as<U>();
    U* y = io.outputs[0].data_as<U>();
    for (int64_t b = 0; b < batch_; ++b) {
      const int64_t len = lens[static_cast<size_t>(b)];
      for (int64_t t = 0; t < seq_; ++t) {
        const int64_t src = t < len ? len - 1 - t : t;
        std::copy_n(x + src * ts_ + b * bs_, inner_, y + t * ts_ + b * bs_);
      }
    }
  }
  std::string impl_name() const override { return "cpu:ReverseSequence"; }

 private:
  int64_t seq_, batch_, ts_, bs_, inner_;
  std::string who_;
};

std::unique_ptr<Kernel> make_reverse_sequence(const KernelBuildContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const int64_t ta = ctx.node.attrs.get_int("time_axis", 0), ba = ctx.node.attrs.get_int("batch_axis", 1);
  if (x.rank() < 2 || !((ta == 0 && ba == 1) || (ta == 1 && ba == 0))) {
    throw InvalidGraphError(at_node(ctx) + "ReverseSequence needs rank >= 2 and time_axis/batch_axis 0 and 1");
  }
  expect_output_shape(ctx, x);
  const std::vector<int64_t> st = contiguous_strides(x);
  const int64_t inner = span_numel(x, 2, x.rank());
  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(ctx.input_type(0), ctx.node.describe(), [&](auto tag) {
    k = std::make_unique<ReverseSequenceKernel<typename decltype(tag)::type>>(
        x[static_cast<size_t>(ta)], x[static_cast<size_t>(ba)], st[static_cast<size_t>(ta)], st[static_cast<size_t>(ba)],
        inner, ctx.node.describe());
  });
  return k;
}

}  // namespace

void register_reorder_kernels(Registrar& r) {
  add_cpu_kernel(r, "DepthToSpace", make_depth_to_space);
  add_cpu_kernel(r, "SpaceToDepth", make_space_to_depth);
  add_cpu_kernel(r, "ReverseSequence", make_reverse_sequence);
}

}  // namespace ge::cpu
