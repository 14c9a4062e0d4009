// plugins/cpu_backend/winograd_pass.cc — `cpu_conv_winograd`: 3×3 stride-1 convolutions computed
// by Winograd's minimal filtering algorithm (Lavin & Gray, "Fast Algorithms for Convolutional
// Neural Networks", CVPR 2016) on oneDNN's implementations of it (oneDNN 2.6,
// dnnl::algorithm::convolution_winograd: F(2×2, 3×3), then F(4×4, 3×3) where that one declines).
//
// F(m×m, 3×3) computes an m×m output tile from an (m+2)×(m+2) input tile with (m+2)² instead of
// 9m² multiplications (2.25× fewer for m = 2, 4× for m = 4) plus input/output transforms, so the
// rounding differs from the direct sum: the pass declares NumericsEffect::Reassociates and
// numerics = "strict" skips it. oneDNN's own heuristic (convolution_auto) takes Winograd only at
// batch ≥ 4; measured here (gec profile, 1 thread, docs/cpu.md) it is faster at batch 1 too:
// resnet50's sixteen 3×3 stride-1 convs 2.0–2.4 ms → 0.9–1.7 ms each, unet_small's 1.3–2.0 ms →
// 0.7–1.3 ms, squeezenet1_1's 27×27 and 55×55 expand convs 1.2–1.5× faster, its 13×13 ones equal.
//
// Candidates: ONNX Conv and ge.FusedConv with float32 operands, 2-D, 3×3 kernel, stride 1,
// dilation 1, group 1, constant weights (transformed once at kernel build), not marked for bf16
// (cpu_precision runs first), and channel counts and image size where Winograd measured faster
// (winograd_pays below). A candidate gets the attribute cpu_conv_algorithm = "winograd"; the
// kernel (conv.cc) asks oneDNN for a Winograd primitive with the node's post-ops and takes the
// direct one where oneDNN has none for that configuration (the profile's kernel name says which:
// "jit_fp32_wino_2x3", "jit_wino_4x3" or "jit"). The layout pass leaves such a node's weights
// OIHW (layout_preferences.cc): they are reordered into oneDNN's Winograd layout at build.
//
// Option cpu.conv_algorithm: "auto" (default; the above) or "direct" (no node marked).
// Report counter: cpu.conv.winograd (nodes marked).
#include <string>

#include "bf16.h"
#include "conv.h"
#include "ge/sdk/pass.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

/// Where oneDNN's Winograd kernels lose to its direct one (gec profile, 1 thread, AMD EPYC, per
/// conv, direct / Winograd; docs/cpu.md): with few channels the per-tile transforms, whose cost
/// grows with C + M, outweigh the saved multiplications, whose number grows with C·M —
/// 16 → 16 channels at 64×64 and 128×128 outputs 0.78–0.91 (yolo_small, unet_small); and a large
/// image over few input channels — inception_v3's 32 → 32 and 32 → 64 at 147×147 0.79 and 0.88,
/// where 16 → 32 at 64×64 (1.40), 16 → 64 at 55×55 (1.48), 32 → 32 at 64×64 (1.15–1.25) and
/// 48 → 16 at 128×128 (1.40) still gain. `C` input channels (per group: one group here), `M`
/// output channels, `spatial` output H·W.
bool winograd_pays(int64_t C, int64_t M, int64_t spatial) {
  if (C * M <= 16 * 16) return false;
  if (spatial >= 128 * 128 && C <= 32) return false;
  return true;
}

bool is_winograd_candidate(const Node& n) {
  const bool conv = (n.domain().empty() && n.op_type() == "Conv") || (n.domain() == "ge" && n.op_type() == "FusedConv");
  if (!conv || n.attrs.has(kComputeDtypeAttr)) return false;
  const Value *x = n.input(0), *w = n.input(1), *y = n.output(0);
  if (!x || !w || !y || x->dtype != DataType::Float32 || w->dtype != DataType::Float32 || y->dtype != DataType::Float32)
    return false;
  if (x->shape.rank() != 4 || w->shape.rank() != 4 || !w->is_constant() || !w->data) return false;
  if (w->shape[2] != 3 || w->shape[3] != 3 || n.attrs.get_int("group", 1) != 1 || y->shape.numel() == 0) return false;
  for (const char* a : {"strides", "dilations"})
    for (int64_t v : n.attrs.get_ints(a))
      if (v != 1) return false;
  return winograd_pays(w->shape[1], w->shape[0], y->shape[2] * y->shape[3]);
}

class CpuConvWinogradPass : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "cpu_conv_winograd";
    i.stage = Stage::Fusion;  // after the fusion rules (ge.FusedConv exists) and cpu_precision, before layout
    i.min_level = OptLevel::O2;
    i.numerics = NumericsEffect::Reassociates;
    i.summary = "cpu: 3x3 stride-1 fp32 convolutions by Winograd's algorithm (oneDNN's F(2x2,3x3) / F(4x4,3x3))";
    i.options = {"cpu.conv_algorithm"};
    i.after = {"cpu_precision"};
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    if (ctx.backend() != "cpu" || ctx.string_option("cpu", "conv_algorithm", "auto") == "direct") return false;
    int64_t marked = 0;
    for (Node* n : g.nodes()) {
      if (!is_winograd_candidate(*n)) continue;
      n->attrs.set(kConvAlgorithmAttr, std::string("winograd"));
      ++marked;
    }
    ctx.count("cpu.conv.winograd", marked);
    return marked > 0;
  }
};

}  // namespace

std::shared_ptr<Pass> make_cpu_conv_winograd_pass() { return std::make_shared<CpuConvWinogradPass>(); }

}  // namespace ge::cpu
