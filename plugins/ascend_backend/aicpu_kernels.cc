// plugins/ascend_backend/aicpu_kernels.cc — the AI CPU fallback: shape ops that only move bytes
// (Flatten, Reshape, Squeeze, Unsqueeze, Identity, Dropout in inference) and Softmax in fp32
// (an fp16 operand is widened, the result rounded to the output dtype). Plain layouts only.
#include <cmath>
#include <cstring>
#include <memory>

#include "ge/sdk/error.h"
#include "kernels.h"
#include "tensor_io.h"
#include "tiling_load.h"

namespace ge::ascend {
namespace {

bool plain(Format f) { return f == Format::ND || f == Format::NCHW; }

class CopyKernel : public Kernel {
 public:
  explicit CopyKernel(const KernelBuildContext& ctx) : node_(ctx.node) {
    if (!plain(ctx.node.input(0)->format) || !plain(ctx.node.output(0)->format))
      throw UnsupportedError(ctx.node.op_type() + ": the AI CPU reads plain layouts only in " + who(node_));
  }
  void run(KernelIO& io) override {
    if (io.outputs[0].nbytes() != io.inputs[0].nbytes())
      throw Error(node_.op_type() + ": input and output sizes differ in " + who(node_));
    if (io.outputs[0].data() != io.inputs[0].data())
      std::memcpy(io.outputs[0].data(), io.inputs[0].data(), io.inputs[0].nbytes());
  }
  std::string impl_name() const override { return "aicpu:copy:" + node_.op_type(); }

 private:
  const Node& node_;
};

class SoftmaxKernel : public Kernel {
 public:
  explicit SoftmaxKernel(const KernelBuildContext& ctx) : node_(ctx.node) {
    require_float(ctx, 0);
    const Shape& s = ctx.input_shape(0);
    const int64_t r = static_cast<int64_t>(s.rank());
    int64_t axis = ctx.node.attrs.get_int("axis", ctx.opset >= 13 ? -1 : 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) throw InvalidGraphError("Softmax: axis out of range in " + who(node_));
    // opset >= 13: along one axis; before: over the flattened axes [axis, r).
    outer_ = 1, len_ = 1, inner_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= s[d];
    if (ctx.opset >= 13) {
      len_ = s[axis];
      for (int64_t d = axis + 1; d < r; ++d) inner_ *= s[d];
    } else {
      for (int64_t d = axis; d < r; ++d) len_ *= s[d];
    }
  }
  void run(KernelIO& io) override {
    std::vector<float> x = read_plain(io.inputs[0]);
    for (int64_t o = 0; o < outer_; ++o)
      for (int64_t i = 0; i < inner_; ++i) {
        float* p = x.data() + o * len_ * inner_ + i;
        float m = -INFINITY;
        for (int64_t k = 0; k < len_; ++k) m = std::max(m, p[k * inner_]);
        double sum = 0;
        for (int64_t k = 0; k < len_; ++k) sum += (p[k * inner_] = std::exp(p[k * inner_] - m));
        for (int64_t k = 0; k < len_; ++k) p[k * inner_] = static_cast<float>(p[k * inner_] / sum);
      }
    write_plain(io.outputs[0], x, who(node_));
  }
  std::string impl_name() const override { return "aicpu:fp32:Softmax"; }

 private:
  const Node& node_;
  int64_t outer_ = 1, len_ = 1, inner_ = 1;
};

}  // namespace

void register_aicpu_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  auto copy = [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<CopyKernel>(c); };
  for (const char* op : {"Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Dropout"})
    r.add_kernel({"ascend", "", op, aicpu_only(copy, dir), ""});
  r.add_kernel({"ascend", "", "Softmax",
                aicpu_only([](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<SoftmaxKernel>(c); }, dir), ""});
}

}  // namespace ge::ascend
