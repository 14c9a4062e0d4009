// plugins/ascend_backend/aicpu_kernels.cc — the AI CPU: shape ops that only move bytes (Flatten,
// Reshape, Squeeze, Unsqueeze, Identity, Dropout in inference), and the AI CPU engine for every op
// the emulator has no kernel class for. In CANN an AI CPU op is CPU code run on the device's ARM
// cores on ND-format data (CANN's "AI CPU operator development" guide); here it is the host cpu
// backend's kernel for the op, found at kernel build through the SDK's kernel registry
// (KernelDelegate, ge/sdk/kernel.h), run in the op's own dtype on plain layouts. Plain layouts
// only. (Softmax moved to the Vector unit: vector_rows.cc, which also runs it on the AI CPU.)
#include <cmath>
#include <cstring>
#include <memory>
#include <span>

#include "ge/sdk/error.h"
#include "ge/sdk/kernel_delegate.h"
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

/// An op with no AI Core kernel class: the cpu backend's kernel, built for the same node (shapes,
/// dtypes, constant inputs), on the AI CPU. An fp16 result that overflowed to inf from finite
/// inputs stops the run, as the AI Core kernels' results do (tensor_io.h).
class DelegatedAicpuKernel : public Kernel {
 public:
  DelegatedAicpuKernel(const KernelBuildContext& ctx, const KernelFactory& cpu) : node_(ctx.node) {
    for (const std::vector<Value*>* vs : {&node_.inputs(), &node_.outputs()})
      for (const Value* v : *vs)
        if (v && !plain(v->format))
          throw UnsupportedError("ascend: " + who(node_) + ": the AI CPU reads plain layouts only (ND / NCHW), but '" +
                                 v->name() + "' is " + std::string(format_name(v->format)));
    inner_ = cpu(ctx);
    if (!inner_) throw Error("ascend: " + who(node_) + ": the cpu kernel factory returned no kernel");
  }
  void run(KernelIO& io) override {
    inner_->run(io);
    for (size_t k = 0; k < io.outputs.size(); ++k) {
      const Tensor& o = io.outputs[k];
      if (o.dtype() != DataType::Float16 || !o.data()) continue;
      const uint16_t* h = o.data_as<uint16_t>();
      for (int64_t i = 0; i < o.numel(); ++i)
        if ((h[i] & 0x7fffu) == 0x7c00u && !has_inf(io.inputs))
          throw Error("ascend: fp16 overflow in " + who(node_) + " (AI CPU): output " + std::to_string(k) + " element " +
                      std::to_string(i) + " is " + ((h[i] & 0x8000u) ? "-" : "+") +
                      "inf from finite inputs (keep the node in fp32 with ascend.keep_dtype, or precision_mode "
                      "must_keep_origin_dtype)");
    }
  }
  std::string impl_name() const override { return "aicpu:" + node_.op_type() + ":" + inner_->impl_name(); }

 private:
  static bool has_inf(std::span<const Tensor> ins) {
    for (const Tensor& t : ins) {
      if (!t.data()) continue;
      if (t.dtype() == DataType::Float16) {
        const uint16_t* h = t.data_as<uint16_t>();
        for (int64_t i = 0; i < t.numel(); ++i)
          if ((h[i] & 0x7fffu) == 0x7c00u) return true;
      } else if (t.dtype() == DataType::Float32) {
        const float* f = t.data_as<float>();
        for (int64_t i = 0; i < t.numel(); ++i)
          if (std::isinf(f[i])) return true;
      }
    }
    return false;
  }
  const Node& node_;
  std::unique_ptr<Kernel> inner_;
};

}  // namespace

void register_aicpu_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  auto copy = [](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<CopyKernel>(c); };
  for (const char* op : {"Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Dropout"})
    r.add_kernel({"ascend", "", op, aicpu_only(copy, dir), ""});
  // Every op the cpu backend runs: the declaration's factory builds the node with the
  // emulator's own kernel class when it has one (its refusal of an AI Core task stands), else —
  // and when its own class refuses an AI CPU task (UnsupportedError: a 1-D pool, an attribute
  // its loop lacks) — with the cpu backend's kernel on the AI CPU.
  r.add_kernel(kernel_delegate_def("ascend", "cpu", [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> {
    const DelegatedKernels* k = delegated_kernels();
    if (!k || !k->delegate) throw Error("ascend: " + who(c.node) + ": the AI CPU engine was called outside its kernel delegate");
    if (k->own) {
      try {
        return k->own->factory(c);
      } catch (const UnsupportedError&) {
        if (load_task(c.node, dir).engine != Engine::AiCpu) throw;
      }
    } else if (load_task(c.node, dir).engine != Engine::AiCpu) {
      throw Error("ascend: " + who(c.node) + ": corrupted tiling: " + kAttrEngine + " = '" +
                  c.node.attrs.get_string(kAttrEngine, "") + "' but the op has only an AI CPU kernel");
    }
    return std::make_unique<DelegatedAicpuKernel>(c, k->delegate->factory);
  }));
}

}  // namespace ge::ascend
