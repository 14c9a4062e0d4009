// plugins/cpu_backend/layout_preferences.cc — the CPU backend's format preferences (read by
// the layout pass, ge/sdk/layout.h, docs/layout.md) and the routing of NC1HWC0 nodes to the
// blocked kernels.
//
// Anchors: Conv and ge.FusedConv with 2-D float32 activations, when oneDNN has an optimized
// (non-reference) kernel for nChw16c — source blocked when C >= 16 (a first layer with 3 input
// channels reads NCHW and writes nChw16c), Z (the residual) and Y blocked, B plain, and constant
// W in the blocked layout oneDNN's chosen convolution wants (OIhw16i16o, Ohwi16o, Goihw16g), so
// the layout pass converts it at compile time and the kernel uses a plan's weights in place.
// Runtime (non-constant) weights stay plain: no weight TransData ever runs.
// Layout-agnostic (`follows`): pools, Resize over H and W, ConvTranspose, BatchNormalization with
// constant parameters, ge.SqueezeExcitation (its S [N, C, 1, 1] in X's format), same-shape elementwise ops
// (any unary map and ge.FusedElementwise too: the padding is zeroed after them), channel Concat of
// multiples of 16 channels, Pad on H and W — they run blocked only where that removes conversions.
#include <string>
#include <unordered_set>

#include "blocked.h"
#include "conv.h"
#include "cpu_backend.h"
#include "forwarding_registrar.h"

namespace ge::cpu {
namespace {

/// A one-group float32 convolution with channels in multiples of 16 (at least 64 in) that is
/// either 3×3 with stride 2 or 1×k / k×1 with stride 1: oneDNN 2.6's brgemm convolution on NHWC
/// runs these faster than its direct one on nChw16c (gec profile, 1 thread, docs/layout.md) —
/// the 3×3 stride-2 ones, whose weights (up to 9.4 MB in ResNet-50's stage 4) arrive from memory
/// cold every inference, resnet50's three 1040 → 897, 1153 → 898, 1773 → 1201 µs; the 1×k / k×1
/// ones inception_v3's 1×7 and 7×1 at 17×17 278–686 → 238–534 µs (the k×1 ones gain most) and
/// its 1×3 and 3×1 at 8×8 368–397 → 235–251 µs.
/// The layout pass converts their activations NC1HWC0 ↔ NHWC in one TransData each way
/// (compose_transdata).
bool nhwc_conv(const Node& n) {
  const Value* x = n.input(0);
  const Value* w = n.input(1);
  const Value* y = n.output(0);
  if (!x || !w || !y || x->shape.rank() != 4 || w->shape.rank() != 4 || x->dtype != DataType::Float32 ||
      w->dtype != DataType::Float32 || y->dtype != DataType::Float32 || !w->is_constant())
    return false;
  const std::vector<int64_t> strides = n.attrs.get_ints("strides", {1, 1});
  const std::vector<int64_t> dilations = n.attrs.get_ints("dilations", {1, 1});
  const bool one_group = n.attrs.get_int("group", 1) == 1 && dilations == std::vector<int64_t>{1, 1};
  const bool channels = x->shape[1] >= 64 && x->shape[1] % kFormatC0 == 0 && w->shape[0] % kFormatC0 == 0;
  // A 1×k or k×1 kernel (k > 1), stride 1 (inception_v3's factorized 7×7 and 3×3 convs).
  const bool one_by_k = (w->shape[2] == 1) != (w->shape[3] == 1) && strides == std::vector<int64_t>{1, 1};
  if (one_group && channels && one_by_k) return true;
  return one_group && channels && strides == std::vector<int64_t>{2, 2} && w->shape[2] == 3 && w->shape[3] == 3;
}

std::optional<NodeFormats> cpu_format_preference(const Node& n) {
  NodeFormats f;
  f.inputs.assign(n.num_inputs(), Format::NCHW);
  f.outputs.assign(n.num_outputs(), Format::NC1HWC0);
  const int64_t opset = n.graph() ? n.graph()->opset(n.domain()) : 1;
  const bool conv = (n.domain().empty() && n.op_type() == "Conv") || (n.domain() == "ge" && n.op_type() == "FusedConv");
  if (conv) {
    const Value* x = n.input(0);
    if (!x || x->shape.rank() != 4) return std::nullopt;
    if (nhwc_conv(n)) {
      f.outputs.assign(n.num_outputs(), Format::NHWC);
      f.inputs[0] = Format::NHWC;
      if (n.num_inputs() > 3 && n.input(3)) f.inputs[3] = Format::NHWC;
      return f;  // weights stay plain: the kernel reorders constant weights when it builds
    }
    const bool src_blocked = x->shape[1] >= kFormatC0;
    if (conv_is_channel_affine(n)) {  // its own kernel, both sides blocked, weights plain
      if (!src_blocked) return std::nullopt;
      f.inputs[0] = Format::NC1HWC0;
      return f;
    }
    const std::optional<Format> wf = conv_blocked_weight_format(n, opset, src_blocked);
    if (!wf) return std::nullopt;
    if (src_blocked) f.inputs[0] = Format::NC1HWC0;
    // Constant weights in oneDNN's choice (converted at compile time; NCHW when GE has no
    // format for it); a constant already blocked keeps its format (the kernel reorders it).
    // A Winograd node (winograd_pass.cc) keeps plain weights: oneDNN transforms them from OIHW.
    const Value* w = n.input(1);
    if (w->is_constant() && n.attrs.get_string(kConvAlgorithmAttr, "") != "winograd")
      f.inputs[1] = (w->format == Format::ND || w->format == Format::NCHW) ? *wf : w->format;
    if (n.input(3)) f.inputs[3] = Format::NC1HWC0;
    return f;
  }
  f.follows = true;
  if (n.domain().empty() && pool_supports_blocked(n, opset)) {
    f.inputs[0] = Format::NC1HWC0;
    return f;
  }
  if (n.domain().empty() && (resize_supports_blocked(n, opset) || conv_transpose_supports_blocked(n, opset))) {
    f.inputs[0] = Format::NC1HWC0;
    return f;
  }
  if (elementwise_supports_blocked(n)) {
    const size_t tensors = (n.op_type() == "Add" || n.op_type() == "Sub" || n.op_type() == "Mul") ? 2 : 1;
    for (size_t i = 0; i < tensors; ++i) f.inputs[i] = Format::NC1HWC0;
    return f;
  }
  if (squeeze_excitation_supports_blocked(n)) {  // S [N, C2, 1, 1] follows X; weights plain
    f.inputs[0] = Format::NC1HWC0;
    return f;
  }
  if (batchnorm_supports_blocked(n, opset)) {
    f.inputs[0] = Format::NC1HWC0;
    return f;
  }
  if (unary_supports_blocked(n) || fused_elementwise_supports_blocked(n)) {
    for (size_t i = 0; i < n.num_inputs(); ++i)
      if (n.input(i) && !(n.input(i)->shape.numel() == 1 && n.input(i)->is_constant())) f.inputs[i] = Format::NC1HWC0;
    return f;
  }
  if (concat_supports_blocked(n)) {
    f.inputs.assign(n.num_inputs(), Format::NC1HWC0);
    return f;
  }
  if (pad_supports_blocked(n, opset)) {
    f.inputs[0] = Format::NC1HWC0;
    return f;
  }
  return std::nullopt;
}

/// Forwards every registration, wrapping kernel factories: for the ops that have a separate
/// blocked kernel, a node with an NC1HWC0 input 0 or output 0 gets it, any other the plain one;
/// kernels that read plain layouts only refuse blocked operands with an error naming the node.
class BlockedRouting : public ForwardingRegistrar {
 public:
  using ForwardingRegistrar::ForwardingRegistrar;
  void add_kernel(KernelDef def) override {
    static const std::unordered_set<std::string> elementwise{"Add", "Sub", "Mul", "Relu", "LeakyRelu", "Clip"};
    // Kernels that read NC1HWC0 themselves (conv.cc, pool.cc's factories, transdata.cc).
    static const std::unordered_set<std::string> blocked_aware{
        "Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "FusedConv", "TransData", "Resize",
        "ConvTranspose", "FusedElementwise", "BatchNormalization", "SqueezeExcitation"};
    KernelFactory blocked;
    if (def.domain.empty() && elementwise.count(def.op_type)) blocked = make_blocked_elementwise;
    if (def.domain.empty() && def.op_type == "Concat") blocked = make_blocked_concat;
    if (def.domain.empty() && def.op_type == "Pad") blocked = make_blocked_pad;
    if (blocked) {
      def.factory = [plain = std::move(def.factory), blocked](const KernelBuildContext& ctx) {
        return is_blocked(ctx.node.input(0)) || is_blocked(ctx.node.output(0)) ? blocked(ctx) : plain(ctx);
      };
    } else if (!blocked_aware.count(def.op_type) && !(def.domain.empty() && blocked_map_ops().count(def.op_type))) {
      // Every other kernel reads row-major logical shapes: a blocked operand is refused at build.
      def.factory = [plain = std::move(def.factory)](const KernelBuildContext& ctx) {
        auto refuse = [&](const Value* v) {
          if (v && format_is_blocked(v->format))
            throw UnsupportedError(ctx.node.op_type() + ": value '" + v->name() + "' is " +
                                   std::string(format_name(v->format)) +
                                   "; this CPU kernel reads plain layouts only (the layout pass puts a TransData "
                                   "before it) in " + who(ctx));
        };
        for (const Value* v : ctx.node.inputs()) refuse(v);
        for (const Value* v : ctx.node.outputs()) refuse(v);
        return plain(ctx);
      };
    }
    // Every operand's byte count is computed once here, which refuses a product of dims past
    // 2^59 before any kernel multiplies dims of its own (ge/sdk/types.h).
    def.factory = [inner = std::move(def.factory)](const KernelBuildContext& ctx) {
      for (const Value* v : ctx.node.inputs())
        if (v) (void)v->nbytes();
      for (const Value* v : ctx.node.outputs())
        if (v) (void)v->nbytes();
      return inner(ctx);
    };
    r_.add_kernel(std::move(def));
  }
};

}  // namespace

void register_format_preferences(Registrar& r) { r.add_format_preference("cpu", cpu_format_preference); }

void register_with_blocked_routing(Registrar& r, void (*register_family)(Registrar&)) {
  BlockedRouting routing(r);
  register_family(routing);
}

}  // namespace ge::cpu
