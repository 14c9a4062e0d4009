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
// (cpu_precision runs first). A candidate gets the attribute cpu_conv_algorithm = "winograd"; the
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
  return true;
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
