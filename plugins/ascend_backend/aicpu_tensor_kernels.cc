// plugins/ascend_backend/aicpu_tensor_kernels.cc — AI CPU kernels that rearrange or reduce
// float tensors: Transpose, Slice (constant starts/ends/axes/steps), Gather. Operands are read
// through tensor_io.h, so fp16 and fp32, any format. (ReduceMean moved to vector_rows.cc, which
// runs it on the Vector unit or the AI CPU.)
#include <algorithm>
#include <memory>

#include "ge/sdk/error.h"
#include "kernels.h"
#include "tensor_io.h"
#include "tiling_load.h"

namespace ge::ascend {
namespace {

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.rank(), 1);
  for (size_t d = s.rank(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

/// Walks every output element in row-major order; `src` maps the output multi-index to an input
/// flat index.
template <class F>
void for_each_index(const Shape& out, F&& f) {
  const size_t r = out.rank();
  std::vector<int64_t> idx(r, 0);
  for (int64_t i = 0; i < out.numel(); ++i) {
    f(i, idx);
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
}

class TransposeKernel : public Kernel {
 public:
  explicit TransposeKernel(const KernelBuildContext& ctx) : node_(ctx.node) {
    require_float(ctx, 0);
    const size_t r = ctx.input_shape(0).rank();
    perm_ = ctx.node.attrs.get_ints("perm");
    if (perm_.empty())
      for (size_t d = r; d-- > 0;) perm_.push_back(static_cast<int64_t>(d));
    if (perm_.size() != r) throw InvalidGraphError("Transpose: perm has the wrong length in " + who(node_));
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]);
    const auto st = strides_of(io.inputs[0].shape());
    std::vector<float> y(static_cast<size_t>(io.outputs[0].numel()));
    for_each_index(io.outputs[0].shape(), [&](int64_t i, const std::vector<int64_t>& idx) {
      int64_t src = 0;
      for (size_t d = 0; d < idx.size(); ++d) src += idx[d] * st[static_cast<size_t>(perm_[d])];
      y[static_cast<size_t>(i)] = x[static_cast<size_t>(src)];
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return "aicpu:Transpose"; }

 private:
  const Node& node_;
  std::vector<int64_t> perm_;
};

class SliceKernel : public Kernel {
 public:
  explicit SliceKernel(const KernelBuildContext& ctx) : node_(ctx.node) {
    require_float(ctx, 0);
    const Shape& in = ctx.input_shape(0);
    const int64_t r = static_cast<int64_t>(in.rank());
    auto ints = [&](size_t i) -> std::vector<int64_t> {
      if (!ctx.has_input(i)) return {};
      const Tensor* t = ctx.input_data(i);
      if (!t) throw UnsupportedError("Slice: input " + std::to_string(i) + " must be constant in " + who(node_));
      return t->to_int64_vector();
    };
    const auto starts = ints(1), ends = ints(2);
    auto axes = ints(3), steps = ints(4);
    if (axes.empty())
      for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
    if (steps.empty()) steps.assign(starts.size(), 1);
    start_.assign(static_cast<size_t>(r), 0);
    step_.assign(static_cast<size_t>(r), 1);
    for (size_t k = 0; k < starts.size(); ++k) {
      int64_t a = axes[k] < 0 ? axes[k] + r : axes[k];
      if (a < 0 || a >= r || steps[k] == 0) throw InvalidGraphError("Slice: bad axis or step in " + who(node_));
      const int64_t dim = in[static_cast<size_t>(a)];
      int64_t s = starts[k] < 0 ? starts[k] + dim : starts[k];
      s = steps[k] > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
      start_[static_cast<size_t>(a)] = s;
      step_[static_cast<size_t>(a)] = steps[k];
    }
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]);
    const auto st = strides_of(io.inputs[0].shape());
    std::vector<float> y(static_cast<size_t>(io.outputs[0].numel()));
    for_each_index(io.outputs[0].shape(), [&](int64_t i, const std::vector<int64_t>& idx) {
      int64_t src = 0;
      for (size_t d = 0; d < idx.size(); ++d) src += (start_[d] + idx[d] * step_[d]) * st[d];
      y[static_cast<size_t>(i)] = x[static_cast<size_t>(src)];
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return "aicpu:Slice"; }

 private:
  const Node& node_;
  std::vector<int64_t> start_, step_;
};

class GatherKernel : public Kernel {
 public:
  explicit GatherKernel(const KernelBuildContext& ctx) : node_(ctx.node) {
    require_float(ctx, 0);
    const DataType it = ctx.input_type(1);
    if (it != DataType::Int64 && it != DataType::Int32)
      throw UnsupportedError("Gather: indices must be int32 or int64 in " + who(node_));
    const int64_t r = static_cast<int64_t>(ctx.input_shape(0).rank());
    axis_ = ctx.node.attrs.get_int("axis", 0);
    if (axis_ < 0) axis_ += r;
    if (axis_ < 0 || axis_ >= r) throw InvalidGraphError("Gather: axis out of range in " + who(node_));
  }
  void run(KernelIO& io) override {
    const Shape& in = io.inputs[0].shape();
    const std::vector<float> x = read_plain(io.inputs[0]);
    const std::vector<int64_t> ind = io.inputs[1].to_int64_vector();
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis_; ++d) outer *= in[static_cast<size_t>(d)];
    for (size_t d = static_cast<size_t>(axis_) + 1; d < in.rank(); ++d) inner *= in[d];
    const int64_t dim = in[static_cast<size_t>(axis_)];
    std::vector<float> y(static_cast<size_t>(io.outputs[0].numel()));
    size_t o = 0;
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t k : ind) {
        const int64_t j = k < 0 ? k + dim : k;
        if (j < 0 || j >= dim) throw Error("Gather: index " + std::to_string(k) + " out of range [" + std::to_string(-dim) + ", " + std::to_string(dim) + ") in " + who(node_));
        std::copy_n(x.begin() + (a * dim + j) * inner, inner, y.begin() + static_cast<int64_t>(o));
        o += static_cast<size_t>(inner);
      }
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return "aicpu:Gather"; }

 private:
  const Node& node_;
  int64_t axis_ = 0;
};

}  // namespace

void register_aicpu_tensor_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  r.add_kernel({"ascend", "", "Transpose",
                aicpu_only([](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<TransposeKernel>(c); }, dir), ""});
  r.add_kernel({"ascend", "", "Slice",
                aicpu_only([](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<SliceKernel>(c); }, dir), ""});
  r.add_kernel({"ascend", "", "Gather",
                aicpu_only([](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<GatherKernel>(c); }, dir), ""});
}

}  // namespace ge::ascend
