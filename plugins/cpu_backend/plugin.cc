// plugins/cpu_backend/plugin.cc — entry point of libge_cpu_backend.so: the "cpu" Backend, the
// cpu_precision pass and every kernel family of kernels.h.
#include "bf16.h"
#include "blocked.h"
#include "cpu_backend.h"
#include "kernels.h"

namespace {

/// Every kernel family; run through register_with_blocked_routing, which sends NC1HWC0 nodes to
/// the blocked kernels and makes plain-only kernels refuse blocked operands.
void register_kernels(ge::Registrar& r) {
  ge::cpu::register_conv_kernels(r);
  ge::cpu::register_fused_conv_kernels(r);
  ge::cpu::register_matmul_kernels(r);
  ge::cpu::register_norm_kernels(r);
  ge::cpu::register_pool_kernels(r);
  ge::cpu::register_reduce_kernels(r);
  ge::cpu::register_elementwise_kernels(r);
  ge::cpu::register_tensor_kernels(r);
  ge::cpu::register_transdata_kernels(r);
  ge::cpu::register_split_kernels(r);
  ge::cpu::register_fused_elementwise_kernels(r);
  ge::cpu::register_fused_matmul_kernels(r);
  ge::cpu::register_fused_norm_kernels(r);
  ge::cpu::register_fused_attention_kernels(r);
  ge::cpu::register_squeeze_excitation_kernels(r);
  ge::cpu::register_nn_kernels(r);
}

void register_blocked_routed(ge::Registrar& r) { ge::cpu::register_with_blocked_routing(r, register_kernels); }

/// Kernels go through two routings: bf16 (bf16.h: native or emulated bf16 for the nodes
/// cpu_precision marked), then NC1HWC0.
void register_cpu_backend(ge::Registrar& r) {
  r.add_backend(ge::cpu::make_cpu_backend());
  r.add_pass(ge::cpu::make_cpu_precision_pass());
  r.add_pass(ge::cpu::make_cpu_conv_winograd_pass());
  r.declare_option({"cpu.conv_algorithm", ge::OptionType::String, std::string("auto"), {}, {}, {"auto", "direct"},
                    "auto: 3x3 stride-1 fp32 convolutions by Winograd where oneDNN implements it (relaxed numerics); "
                    "direct: every convolution direct (docs/cpu.md)",
                    ge::OptionPhase::Compile, ""});
  // The [cpu] options with one type (cpu.keep_dtype takes a list or a file name: the pass checks it).
  r.declare_option({"cpu.precision_mode", ge::OptionType::String, std::string("must_keep_origin_dtype"), {}, {},
                    {"must_keep_origin_dtype", "allow_mix_precision_bf16"},
                    "fp32 everywhere, or bf16 operands with fp32 accumulation for Conv/MatMul/Gemm (docs/cpu.md)",
                    ge::OptionPhase::Compile, ""});
  r.declare_option({"cpu.modify_mixlist", ge::OptionType::String, std::string(""), {}, {}, {},
                    "a file changing the white/black/gray lists of allow_mix_precision_bf16", ge::OptionPhase::Compile, ""});
  r.declare_option({"cpu.bf16_fallback", ge::OptionType::String, std::string("refuse"), {}, {}, {"refuse", "emulate"},
                    "on a CPU without AVX512_BF16: refuse the plan, or compute bf16 operands in fp32", ge::OptionPhase::Compile, ""});
  ge::cpu::register_with_bf16_routing(r, register_blocked_routed);
  ge::cpu::register_format_preferences(r);
}

}  // namespace

GE_PLUGIN("cpu_backend", "0.1.0", register_cpu_backend)
