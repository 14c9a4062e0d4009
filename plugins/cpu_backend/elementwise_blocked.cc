// plugins/cpu_backend/elementwise_blocked.cc — elementwise ops on NC1HWC0 operands.
//
// When every tensor operand has the output's logical shape and format, an elementwise op is the
// same loop over the stored elements whatever the layout (Add/Sub/Mul also take one channel
// vector [N, C, 1, 1], applied lane by lane to each 16-channel block); on NC1HWC0 the loop also covers the
// padding channels, so only ops with f(0) = 0 (f(0, 0) = 0) run here — they keep the padding
// zero (ge/sdk/types.h). Scalar operands (Clip's min / max) are plain constants. Any other
// same-shape unary op (and ge.FusedElementwise) runs its plain kernel over the stored elements and
// then sets the padding back to zero (make_blocked_map): with C a multiple of 16 there is none.
// ge.FusedElementwise also takes operands broadcast along N, H and W (a squeeze-excitation scale).
#include <algorithm>
#include <limits>
#include <string>
#include <unordered_set>

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
    if (op <= Op::Mul) {
      const Shape& ys = ctx.output_shape(0);
      for (int i = 0; i < 2; ++i)
        if (ctx.input_shape(i) != ys) {
          vector_operand_ = i;
          vector_images_ = ctx.input_shape(i)[0];
        }
    }
    if (op == Op::LeakyRelu) alpha_ = ctx.node.attrs.get_float("alpha", 0.01f);
    if (op == Op::Clip) std::tie(lo_, hi_) = *clip_bounds(ctx.node);
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    float* y = io.outputs[0].data_as<float>();
    const float* a = io.inputs[0].data_as<float>();
    const float* b = op_ <= Op::Mul ? io.inputs[1].data_as<float>() : nullptr;
    if (vector_operand_ >= 0) return run_channel_vector(y, a, b, io.outputs[0].shape());
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
  std::string impl_name() const override {
    return vector_operand_ >= 0 ? "cpu:elementwise:nc1hwc0:channel_vector" : "cpu:elementwise:nc1hwc0";
  }

 private:
  /// One operand is [N' (1 or N), C, 1, 1]: stored as [N', C1, 1, 1, 16], its 16 lanes of block
  /// (n, c1) apply to every (h, w) of that block of the output [N, C1, H, W, 16]. The padding
  /// lanes of both operands are zero and f(0, 0) = 0 for Add, Sub and Mul: it stays zero.
  void run_channel_vector(float* y, const float* a, const float* b, const Shape& ys) const {
    const int64_t n = ys[0], c1 = (ys[1] + kFormatC0 - 1) / kFormatC0, hw = ys[2] * ys[3];
    const bool a_vec = vector_operand_ == 0, per_image = vector_images_ > 1;
    const float* full = a_vec ? b : a;
    const float* vec = a_vec ? a : b;
    const Op op = op_;
    const int64_t min_blocks = std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(1, hw * kFormatC0));
    parallel_range(n * c1, min_blocks, [&](int64_t s, int64_t e) {
      for (int64_t blk = s; blk < e; ++blk) {
        const float* v = vec + (per_image ? blk : blk % c1) * kFormatC0;
        const float* x = full + blk * hw * kFormatC0;
        float* o = y + blk * hw * kFormatC0;
        for (int64_t p = 0; p < hw; ++p, x += kFormatC0, o += kFormatC0) {
          switch (op) {
            case Op::Add: for (int64_t l = 0; l < kFormatC0; ++l) o[l] = x[l] + v[l]; break;
            case Op::Mul: for (int64_t l = 0; l < kFormatC0; ++l) o[l] = x[l] * v[l]; break;
            case Op::Sub:
              if (a_vec) for (int64_t l = 0; l < kFormatC0; ++l) o[l] = v[l] - x[l];
              else for (int64_t l = 0; l < kFormatC0; ++l) o[l] = x[l] - v[l];
              break;
            default: break;
          }
        }
      }
    });
  }

  Op op_;
  int vector_operand_ = -1;   // the [N', C, 1, 1] operand of Add/Sub/Mul, or -1 (same shapes)
  int64_t vector_images_ = 1;  // its N
  float alpha_ = 0.f, lo_ = 0.f, hi_ = 0.f;
};

}  // namespace

bool elementwise_supports_blocked(const Node& n) {
  auto op = blocked_op(n);
  const Value* y = n.output(0);
  if (!op || !y || y->shape.rank() != 4 || y->dtype != DataType::Float32 || n.num_outputs() != 1) return false;
  const size_t tensor_inputs = *op <= Op::Mul ? 2 : 1;
  if (n.num_inputs() < tensor_inputs) return false;
  int vectors = 0;
  for (size_t i = 0; i < tensor_inputs; ++i) {
    const Value* v = n.input(i);
    if (!v || v->dtype != DataType::Float32) return false;
    if (v->shape == y->shape) continue;
    // Add/Sub/Mul: one operand may be a channel vector [N or 1, C, 1, 1] (a squeeze-excitation
    // scale); a constant one stays out (the layout pass converts constants only for anchors).
    const Shape& s = v->shape;
    if (tensor_inputs != 2 || v->is_constant() || s.rank() != 4 || s[1] != y->shape[1] || s[2] != 1 || s[3] != 1 ||
        (s[0] != 1 && s[0] != y->shape[0]))
      return false;
    ++vectors;
  }
  if (vectors > 1) return false;
  if (*op == Op::Clip) {
    auto b = clip_bounds(n);
    return b && b->first <= 0.f && b->second >= 0.f;  // clip(0) = 0 keeps the padding zero
  }
  if (*op == Op::LeakyRelu) return true;
  return n.num_inputs() == tensor_inputs;
}

namespace {

bool same_shape_rank4_f32(const Value* v, const Value* y) {
  return v && v->shape == y->shape && v->dtype == DataType::Float32;
}

/// make_blocked_map's kernel: the map, then zeros over channels C..C1*16 of every (n, h, w).
class ZeroPaddingAfter : public CpuKernel {
 public:
  ZeroPaddingAfter(const KernelBuildContext& ctx, std::unique_ptr<Kernel> map) : CpuKernel(ctx), map_(std::move(map)) {
    const Shape& y = ctx.output_shape(0);
    n_ = y[0], c_ = y[1], hw_ = y[2] * y[3];
    c1_ = (c_ + kFormatC0 - 1) / kFormatC0;
  }
  void run(KernelIO& io) override {
    map_->run(io);
    const int64_t tail = c_ % kFormatC0;
    if (tail == 0) return;
    float* y = io.outputs[0].data_as<float>();
    for (int64_t n = 0; n < n_; ++n) {
      float* block = y + (n * c1_ + c1_ - 1) * hw_ * kFormatC0;
      for (int64_t i = 0; i < hw_; ++i) std::fill(block + i * kFormatC0 + tail, block + (i + 1) * kFormatC0, 0.f);
    }
  }
  std::string impl_name() const override { return map_->impl_name() + ":nc1hwc0"; }

 private:
  std::unique_ptr<Kernel> map_;
  int64_t n_ = 0, c_ = 0, hw_ = 0, c1_ = 0;
};

}  // namespace

std::unordered_set<std::string>& blocked_map_ops() {
  static std::unordered_set<std::string> ops;
  return ops;
}

bool unary_supports_blocked(const Node& n) {
  if (!n.domain().empty() || !blocked_map_ops().count(n.op_type()) || n.num_inputs() != 1 || n.num_outputs() != 1)
    return false;
  const Value* y = n.output(0);
  return y && y->shape.rank() == 4 && y->dtype == DataType::Float32 && same_shape_rank4_f32(n.input(0), y);
}

/// v broadcasts to y (rank 4) along N, H and W only: with the channel count kept, the broadcast
/// holds between the NC1HWC0 storage shapes too ([N', C1, H', W', C0] against [N, C1, H, W, C0]).
bool broadcasts_keeping_channels(const Value* v, const Value* y) {
  if (!v || v->dtype != DataType::Float32 || v->shape.rank() != 4 || v->shape[1] != y->shape[1]) return false;
  for (size_t d : {0, 2, 3})
    if (v->shape[d] != y->shape[d] && v->shape[d] != 1) return false;
  return true;
}

bool fused_elementwise_supports_blocked(const Node& n) {
  if (n.domain() != "ge" || n.op_type() != "FusedElementwise" || n.num_outputs() != 1) return false;
  const Value* y = n.output(0);
  if (!y || y->shape.rank() != 4 || y->dtype != DataType::Float32) return false;
  bool tensor = false;
  for (const Value* v : n.inputs()) {
    if (!v) return false;
    if (v->shape.numel() == 1 && v->is_constant()) continue;  // a scalar operand stays plain
    if (!broadcasts_keeping_channels(v, y)) return false;
    tensor = true;
  }
  return tensor;
}

std::unique_ptr<Kernel> make_blocked_map(const KernelBuildContext& ctx, std::unique_ptr<Kernel> map) {
  const Value* y = ctx.node.output(0);
  if (y->shape.rank() != 4 || y->dtype != DataType::Float32)
    throw UnsupportedError(ctx.node.op_type() + ": NC1HWC0 needs a float32 rank-4 output in " + who(ctx));
  for (const Value* v : ctx.node.inputs())
    if (v && v->format != y->format && !(v->shape.numel() == 1 && v->is_constant()))
      throw UnsupportedError(ctx.node.op_type() + ": input '" + v->name() + "' is " + std::string(format_name(v->format)) +
                             ", output " + std::string(format_name(y->format)) + " (all NC1HWC0 or none) in " + who(ctx));
  return std::make_unique<ZeroPaddingAfter>(ctx, std::move(map));
}

std::unique_ptr<Kernel> make_blocked_elementwise(const KernelBuildContext& ctx) {
  if (!elementwise_supports_blocked(ctx.node))
    throw UnsupportedError(ctx.node.op_type() + ": NC1HWC0 needs float32 rank-4 operands of the output's shape (or "
                           "one channel vector [N,C,1,1] of Add/Sub/Mul) and f(0) = 0 in " + who(ctx));
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
