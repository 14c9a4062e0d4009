// plugins/cpu_backend/bf16.h — the cpu backend's bf16 mixed precision (cpu.precision_mode =
// "allow_mix_precision_bf16", docs/cpu.md): what the `cpu_precision` pass (precision_pass.cc)
// records on a node and how the kernels execute it.
//
// A node the pass puts in bf16 carries the attribute cpu_compute_dtype = "bfloat16" (and
// cpu_bf16_fallback = "emulate" when the manifest allows running without the instructions). Its
// constant matrix operands were rounded to bf16 at compile time (stored as float32 whose low 16
// bits are zero, so the conversion at plan load is exact). At plan load (kernel build) the CPU's
// capability decides:
//  - Native: oneDNN's bf16 primitives (bf16 source and weights, fp32 accumulation and fp32
//    destination, oneDNN "Data Types: bfloat16"); the source is reordered fp32 → bf16 at run time,
//    the weights once at build.
//  - Emulated (no AVX512_BF16 and cpu_bf16_fallback = "emulate"; or a kernel without a bf16 form,
//    e.g. the direct depthwise kernel): the fp32 kernel reads operands rounded to bf16. A product
//    of two bf16 numbers (8-bit significands) is exact in fp32 (24 bits), so this computes what
//    the native kernel computes up to the summation order — the same numerics, no speed-up.
//  - Refused (no AVX512_BF16, no fallback): ge::UnsupportedError naming the node and the CPU.
// The capability is oneDNN's effective ISA (dnnl::get_effective_cpu_isa(), which ONEDNN_MAX_CPU_ISA
// caps) containing avx512_core_bf16; GE_CPU_BF16=absent|present overrides the detection (tests
// simulate a CPU without bf16, or ask for oneDNN's bf16 primitives on one without: oneDNN 2.6 has
// none below avx512_core, and each node then runs emulated — register_with_bf16_routing).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <dnnl.hpp>

#include "ge/sdk/kernel.h"
#include "ge/sdk/plugin.h"

namespace ge::cpu {

inline constexpr const char* kComputeDtypeAttr = "cpu_compute_dtype";  ///< "bfloat16"
inline constexpr const char* kBf16FallbackAttr = "cpu_bf16_fallback";  ///< "emulate"

/// The op types the pass may put in bf16 (those with a bf16-capable kernel here), op_key form.
const std::vector<std::string>& bf16_op_types();

enum class Bf16Exec { Off, Native, Emulated };
/// True when the CPU runs oneDNN's bf16 instructions (see above; GE_CPU_BF16 overrides).
bool cpu_has_bf16();
/// "AVX512_BF16 (oneDNN ISA avx512_core_bf16)" or what oneDNN's effective ISA is, for messages.
std::string cpu_isa_description();
/// How a node runs: Off without the attribute; Native / Emulated / throws UnsupportedError.
Bf16Exec bf16_exec(const KernelBuildContext& ctx);
/// True when the kernel of ctx should build its native bf16 form (false while the routing below
/// rebuilds it in fp32).
bool bf16_native(const KernelBuildContext& ctx);

/// Round to nearest even to bf16, kept in a float (NaN stays NaN; overflow rounds to inf as in
/// oneDNN's cvt_float_to_bfloat16).
float round_to_bf16(float x);
void round_to_bf16(const float* x, float* y, int64_t n);

/// `d` with data type `t` (same dims, same layout).
dnnl::memory::desc with_dtype(const dnnl::memory::desc& d, dnnl::memory::data_type t);

/// Registers the family's kernels so that a bf16 node of a bf16_op_types() op runs as bf16_exec
/// says: the kernel's native form (its impl_name() then contains "bf16"), else the fp32 kernel
/// wrapped to read its inputs 0 and 1 rounded to bf16 (impl "bf16_emulated(<why>):<impl>") — on a
/// CPU without bf16 (fallback "emulate"), for a kernel without a bf16 form, or where oneDNN has no
/// bf16 implementation of the node's configuration (its UnsupportedError at build).
void register_with_bf16_routing(Registrar& r, void (*register_family)(Registrar&));

}  // namespace ge::cpu
