// plugins/ascend_backend/aicpu_kernels.cc — the AI CPU fallback: shape ops that only move bytes
// (Flatten, Reshape, Squeeze, Unsqueeze, Identity, Dropout in inference). Plain layouts only.
// (Softmax moved to the Vector unit: vector_rows.cc, which also runs it on the AI CPU.)
#include <cmath>
#include <cstring>
#include <memory>

#include "ge/sdk/error.h"
#include "kernels.h"
#include "tensor_io.h"
#include "tiling_load.h"
#include "util.h"

namespace ge::ascend {
namespace {


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

}  // namespace

void register_aicpu_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  auto copy = [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<CopyKernel>(c); };
  for (const char* op : {"Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Dropout"})
    r.add_kernel({"ascend", "", op, aicpu_only(copy, dir), ""});
}

}  // namespace ge::ascend
