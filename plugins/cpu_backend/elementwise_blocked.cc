// plugins/cpu_backend/elementwise_blocked.cc — elementwise ops on NC1HWC0 operands.
//
// When every tensor operand has the output's logical shape and format, an elementwise op is the
// same loop over the stored elements whatever the layout; on NC1HWC0 the loop also covers the
// padding channels, so only ops with f(0) = 0 (f(0, 0) = 0) run here — they keep the padding
// zero (ge/sdk/types.h). Scalar operands (Clip's min / max) are plain constants.
#include <algorithm>
#include <limits>
#include <string>

#include "blocked.h"
#include "cpu_backend.h"

namespace ge::cpu {
namespace {

enum class Op { Add, Sub, Mul, Relu, LeakyRelu, Clip };

/// Clip's bounds from attributes (opset < 11) or constant scalar inputs; nullopt when an input
/// bound is not a constant scalar.
std::optional<std::pair<float, float>> clip_bounds(const Node& n) {
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (n.attrs.has("min")) lo = n.attrs.get_float("min", lo);
  if (n.attrs.has("max")) hi = n.attrs.get_float("max", hi);
  for (size_t i = 1; i < 3; ++i) {
    const Value* v = n.input(i);
    if (!v) continue;
    if (!v->data || v->data->numel() != 1 || v->dtype != DataType::Float32) return std::nullopt;
    (i == 1 ? lo : hi) = v->data->data_as<float>()[0];
  }
  return std::make_pair(lo, hi);
}

std::optional<Op> blocked_op(const Node& n) {
  if (!n.domain().empty()) return std::nullopt;
  const std::string& t = n.op_type();
  if (t == "Add") return Op::Add;
  if (t == "Sub") return Op::Sub;
  if (t == "Mul") return Op::Mul;
  if (t == "Relu") return Op::Relu;
  if (t == "LeakyRelu") return Op::LeakyRelu;
  if (t == "Clip") return Op::Clip;
  return std::nullopt;
}

class BlockedElementwiseKernel : public CpuKernel {
 public:
  BlockedElementwiseKernel(const KernelBuildContext& ctx, Op op) : CpuKernel(ctx), op_(op) {
    if (op == Op::LeakyRelu) alpha_ = ctx.node.attrs.get_float("alpha", 0.01f);
    if (op == Op::Clip) std::tie(lo_, hi_) = *clip_bounds(ctx.node);
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    float* y = io.outputs[0].data_as<float>();
    const float* a = io.inputs[0].data_as<float>();
    const float* b = op_ <= Op::Mul ? io.inputs[1].data_as<float>() : nullptr;
    const Op op = op_;
    const float alpha = alpha_, lo = lo_, hi = hi_;
    parallel_range(io.outputs[0].storage_numel(), 1 << 14, [&](int64_t s, int64_t e) {
      switch (op) {
        case Op::Add: for (int64_t i = s; i < e; ++i) y[i] = a[i] + b[i]; break;
        case Op::Sub: for (int64_t i = s; i < e; ++i) y[i] = a[i] - b[i]; break;
        case Op::Mul: for (int64_t i = s; i < e; ++i) y[i] = a[i] * b[i]; break;
        case Op::Relu: for (int64_t i = s; i < e; ++i) y[i] = std::max(a[i], 0.f); break;
        case Op::LeakyRelu: for (int64_t i = s; i < e; ++i) y[i] = a[i] >= 0.f ? a[i] : alpha * a[i]; break;
        case Op::Clip: for (int64_t i = s; i < e; ++i) y[i] = std::min(std::max(a[i], lo), hi); break;
      }
    });
  }
  std::string impl_name() const override { return "cpu:elementwise:nc1hwc0"; }

 private:
  Op op_;
  float alpha_ = 0.f, lo_ = 0.f, hi_ = 0.f;
};

}  // namespace

bool elementwise_supports_blocked(const Node& n) {
  auto op = blocked_op(n);
  const Value* y = n.output(0);
  if (!op || !y || y->shape.rank() != 4 || y->dtype != DataType::Float32 || n.num_outputs() != 1) return false;
  const size_t tensor_inputs = *op <= Op::Mul ? 2 : 1;
  if (n.num_inputs() < tensor_inputs) return false;
  for (size_t i = 0; i < tensor_inputs; ++i)
    if (!n.input(i) || n.input(i)->shape != y->shape || n.input(i)->dtype != DataType::Float32) return false;
  if (*op == Op::Clip) {
    auto b = clip_bounds(n);
    return b && b->first <= 0.f && b->second >= 0.f;  // clip(0) = 0 keeps the padding zero
  }
  if (*op == Op::LeakyRelu) return true;
  return n.num_inputs() == tensor_inputs;
}

std::unique_ptr<Kernel> make_blocked_elementwise(const KernelBuildContext& ctx) {
  if (!elementwise_supports_blocked(ctx.node))
    throw UnsupportedError(ctx.node.op_type() + ": NC1HWC0 needs same-shape float32 rank-4 operands and f(0) = 0 in " + who(ctx));
  const Value* y = ctx.node.output(0);
  const size_t tensor_inputs = *blocked_op(ctx.node) <= Op::Mul ? 2 : 1;
  for (size_t i = 0; i < tensor_inputs; ++i)
    if (ctx.node.input(i)->format != y->format)
      throw UnsupportedError(ctx.node.op_type() + ": input " + std::to_string(i) + " is " +
                             std::string(format_name(ctx.node.input(i)->format)) + ", output " +
                             std::string(format_name(y->format)) + " (all NC1HWC0 or none) in " + who(ctx));
  return std::make_unique<BlockedElementwiseKernel>(ctx, *blocked_op(ctx.node));
}

}  // namespace ge::cpu
