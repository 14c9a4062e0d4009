// vendor_swish — an out-of-tree GE plugin: a new op type vendor.Swish (definition, shape
// inference, CPU kernel) and the fusion rule sigmoid_mul_swish that rewrites x * Sigmoid(x) into
// it. Built against the installed SDK only (CMakeLists.txt: find_package(ge_sdk) +
// ge_add_plugin); see README.md for the manifest that loads it.
//
// Swish(x) = x * sigmoid(x) = x / (1 + exp(-x))  (Ramachandran et al. 2017, "Searching for
// Activation Functions"; SiLU in PyTorch). The kernel evaluates the unfused Sigmoid + Mul's
// formula (s = 1 / (1 + exp(-x)); y = x * s), so the rewrite declares itself exact; its std::exp
// and the CPU backend's vectorized exp may differ in the last bit.
//
// It also shows the SDK's contracts for third parties: an option of its own section
// (`[vendor_swish] min_elements`, declared with its type and range, so a wrong value in a manifest
// is an error naming the file and line), the in-place contract of its op (OpDef::inplace_inputs),
// and format preferences for the CPU backend (vendor.Swish is elementwise: it runs on NC1HWC0
// where its neighbours do, with no TransData around it).
#include <cmath>

#include "ge/sdk/plugin.h"

namespace {

constexpr const char* kDomain = "vendor";

class SwishKernel final : public ge::Kernel {
 public:
  void run(ge::KernelIO& io) override {
    const float* x = io.inputs[0].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    // Every stored element, the channel padding of a blocked layout included (elementwise: the
    // layout does not change what is computed).
    const int64_t n = static_cast<int64_t>(io.outputs[0].nbytes() / sizeof(float));
    for (int64_t i = 0; i < n; ++i) {
      const float s = 1.0f / (1.0f + std::exp(-x[i]));
      y[i] = x[i] * s;
    }
  }
  std::string impl_name() const override { return "vendor:Swish"; }
};

/// Sigmoid + Mul → vendor.Swish, where the Mul reads x and Sigmoid(x) in either order.
class SigmoidMulSwish final : public ge::FusionRule {
 public:
  ge::FusionRuleInfo info() const override {
    return {"sigmoid_mul_swish", ge::NumericsEffect::Exact, ge::OptLevel::O2, /*priority=*/100,
            "x * Sigmoid(x) -> vendor.Swish(x)"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Mul"}; }

  bool match(ge::Node& anchor, const ge::PassContext& ctx, ge::Match& m) const override {
    using P = ge::Pattern;
    static const P pattern =
        P::op("Mul", {P::op("Sigmoid", {P::any("x")}).as("sig"), P::any("x")}).as("mul").commutative();
    m = {};
    if (!ge::match_pattern(pattern, anchor, m)) return false;
    if (m.value("x")->dtype != ge::DataType::Float32) return false;  // the kernel is float32 only
    // [vendor_swish] min_elements: smaller tensors keep Sigmoid + Mul.
    if (m.value("x")->numel() < ctx.int_option("vendor_swish", "min_elements", 0)) return false;
    // Sigmoid's output feeds only this Mul and is no graph output; fuse_flags permit it.
    if (!ge::interior_is_private(m, "mul")) return false;
    if (!ge::fuse_flags_allow(m, "mul", ctx.ops(), *anchor.graph())) return false;
    // Only where the target backend can run the fused op.
    return ctx.kernels().find(ctx.backend(), kDomain, "Swish") != nullptr;
  }

  void rewrite(ge::Graph& g, ge::PassContext& ctx, const ge::Match& m) const override {
    ge::Node* mul = m.node("mul");
    ge::Node* sig = m.node("sig");
    ge::Value* x = m.value("x");
    ge::Value* y = mul->output(0);  // kept: its name, consumers and graph-output slot stay
    ge::Value* s = sig->output(0);
    const std::string name = mul->name();
    g.remove_node(mul);
    g.remove_node(sig);
    g.remove_value(s);
    g.opsets.try_emplace(kDomain, 1);
    ge::Node* swish = g.add_node("Swish", name, {x}, {y}, {}, kDomain);
    ctx.infer_shapes(*swish);
    if (!y->uses().empty()) g.sort_topologically();  // the new node was appended at the end
  }
};

void register_vendor_swish(ge::Registrar& r) {
  ge::OpDef d;
  d.op_type = "Swish";
  d.domain = kDomain;
  d.since_version = 1;
  d.inputs = {{"X", {ge::DataType::Float32}}};
  d.outputs = {{"Y", {ge::DataType::Float32}}};
  d.pattern = ge::OpPattern::Elementwise;
  d.fuse_flag = ge::FuseFlag::Fusable;
  d.numerics = "same float operations as Sigmoid followed by Mul";
  d.doc = "x * sigmoid(x) = x / (1 + exp(-x)) (Swish / SiLU).";
  d.inplace_inputs = {0};  // the kernel reads x[i] before it writes y[i]
  r.add_op(d);
  r.declare_option({"vendor_swish.min_elements", ge::OptionType::Int, int64_t{0}, 0, {}, {},
                    "sigmoid_mul_swish fuses only tensors of at least this many elements", ge::OptionPhase::Compile, ""});
  r.add_format_preference("cpu", [](const ge::Node& n) -> std::optional<ge::NodeFormats> {
    if (n.domain() != kDomain || n.op_type() != "Swish") return std::nullopt;  // the CPU backend's ops
    if (!n.input(0) || n.input(0)->shape.rank() != 4) return std::nullopt;    // NC1HWC0 is 4-D
    ge::NodeFormats f;
    f.inputs = {ge::Format::NC1HWC0};
    f.outputs = {ge::Format::NC1HWC0};
    f.follows = true;  // layout-agnostic: blocked only where its neighbours are
    return f;
  });
  r.set_shape_inference(kDomain, "Swish", [](ge::InferContext& c) {  // identity
    c.set_output(0, c.input_type(0), c.input_shape(0));
  });
  r.add_kernel({"cpu", kDomain, "Swish",
                [](const ge::KernelBuildContext&) { return std::make_unique<SwishKernel>(); }, ""});
  r.add_fusion_rule(std::make_shared<SigmoidMulSwish>());
}

}  // namespace

GE_PLUGIN("vendor_swish", "1.0.0", register_vendor_swish)
