// plugins/cpu_backend/bf16.cc — bf16 execution of the nodes cpu_precision put in bf16 (bf16.h):
// capability detection, rounding, and the routing that picks native or emulated kernels.
#include "bf16.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cpu_backend.h"
#include "forwarding_registrar.h"

namespace ge::cpu {

const std::vector<std::string>& bf16_op_types() {
  static const std::vector<std::string> ops{"Conv", "ConvTranspose", "MatMul", "Gemm", "ge.FusedConv", "ge.FusedMatMul"};
  return ops;
}

namespace {

bool isa_has_bf16(dnnl::cpu_isa isa) {
  const unsigned want = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_bf16);
  return (static_cast<unsigned>(isa) & want) == want;  // oneDNN's ISA values are nested bit masks
}

std::string isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "isa 0x" + [&] {
      char b[16];
      std::snprintf(b, sizeof b, "%x", static_cast<unsigned>(isa));
      return std::string(b);
    }();
  }
}

/// GE_CPU_BF16: "present" / "absent" override the detection; unset or anything else: detect.
const char* bf16_override() {
  const char* e = std::getenv("GE_CPU_BF16");
  if (!e) return nullptr;
  if (std::strcmp(e, "present") == 0 || std::strcmp(e, "absent") == 0) return e;
  return nullptr;
}

/// Wraps a fp32 kernel: inputs 0 and 1, when float32 and not compile-time constants (those were
/// rounded by cpu_precision), are rounded to bf16 into scratch buffers before it runs.
class Bf16EmulatedKernel : public Kernel {
 public:
  Bf16EmulatedKernel(std::unique_ptr<Kernel> inner, const KernelBuildContext& ctx, std::string why)
      : inner_(std::move(inner)), why_(std::move(why)) {
    for (size_t i = 0; i < 2 && i < ctx.node.num_inputs(); ++i) {
      const Value* v = ctx.node.input(i);
      if (v && v->dtype == DataType::Float32 && !v->data) rounded_.push_back(i);
    }
    scratch_.resize(rounded_.size());
  }
  void run(KernelIO& io) override {
    std::vector<Tensor> in(io.inputs.begin(), io.inputs.end());
    for (size_t j = 0; j < rounded_.size(); ++j) {
      const Tensor& t = io.inputs[rounded_[j]];
      if (!t.data()) continue;
      const int64_t n = t.storage_numel();
      if (static_cast<int64_t>(scratch_[j].size()) < n) scratch_[j].resize(static_cast<size_t>(n));
      round_to_bf16(t.data_as<float>(), scratch_[j].data(), n);
      in[rounded_[j]] = Tensor::view(DataType::Float32, t.shape(), scratch_[j].data(), t.format());
    }
    KernelIO io2{in, io.outputs};
    inner_->run(io2);
  }
  std::string impl_name() const override { return "bf16_emulated(" + why_ + "):" + inner_->impl_name(); }

 private:
  std::unique_ptr<Kernel> inner_;
  std::string why_;
  std::vector<size_t> rounded_;
  std::vector<std::vector<float>> scratch_;
};

/// Set while a native-capable kernel is rebuilt in fp32 (bf16_native() is then false).
thread_local bool t_fp32_build = false;

struct Fp32Build {
  Fp32Build() { t_fp32_build = true; }
  ~Fp32Build() { t_fp32_build = false; }
};

std::string key_of(const KernelDef& d) { return d.domain.empty() ? d.op_type : d.domain + "." + d.op_type; }

class Bf16Routing : public ForwardingRegistrar {
 public:
  using ForwardingRegistrar::ForwardingRegistrar;
  void add_kernel(KernelDef def) override {
    const auto& ops = bf16_op_types();
    if (std::find(ops.begin(), ops.end(), key_of(def)) != ops.end()) {
      def.factory = [inner = std::move(def.factory)](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
        const Bf16Exec e = bf16_exec(ctx);
        if (e == Bf16Exec::Off) return inner(ctx);
        if (e == Bf16Exec::Emulated) return std::make_unique<Bf16EmulatedKernel>(inner(ctx), ctx, "no bf16 CPU");
        std::unique_ptr<Kernel> k;
        try {
          k = inner(ctx);  // a native-capable kernel reads bf16_native(ctx) itself
        } catch (const UnsupportedError&) {
          // oneDNN has no bf16 implementation of this configuration: the fp32 kernel on
          // bf16-rounded operands computes the same (bf16.h), so only this node loses the speed-up.
          Fp32Build fp32;
          return std::make_unique<Bf16EmulatedKernel>(inner(ctx), ctx, "no oneDNN bf16 implementation");
        }
        if (k->impl_name().find("bf16") != std::string::npos) return k;
        return std::make_unique<Bf16EmulatedKernel>(std::move(k), ctx, "no bf16 form of this kernel");
      };
    }
    r_.add_kernel(std::move(def));
  }
};

}  // namespace

bool cpu_has_bf16() {
  if (const char* o = bf16_override()) return std::strcmp(o, "present") == 0;
  return isa_has_bf16(dnnl::get_effective_cpu_isa());
}

std::string cpu_isa_description() {
  std::string s = "oneDNN's effective ISA is " + isa_name(dnnl::get_effective_cpu_isa());
  if (const char* o = bf16_override()) s += std::string("; GE_CPU_BF16=") + o + " overrides the detection";
  return s;
}

bool bf16_native(const KernelBuildContext& ctx) { return !t_fp32_build && bf16_exec(ctx) == Bf16Exec::Native; }

Bf16Exec bf16_exec(const KernelBuildContext& ctx) {
  const Attributes& a = ctx.node.attrs;
  if (!a.has(kComputeDtypeAttr)) return Bf16Exec::Off;
  const std::string dt = a.get_string(kComputeDtypeAttr, "");
  if (dt != "bfloat16")
    throw InvalidGraphError("attribute " + std::string(kComputeDtypeAttr) + " = '" + dt +
                            "' is not a compute dtype of the cpu backend (known: bfloat16) in " + who(ctx));
  if (cpu_has_bf16()) return Bf16Exec::Native;
  if (a.get_string(kBf16FallbackAttr, "") == "emulate") return Bf16Exec::Emulated;
  throw UnsupportedError("cpu.precision_mode allow_mix_precision_bf16: " + who(ctx) +
                         " computes in bf16, but this CPU has no AVX512_BF16 (" + cpu_isa_description() +
                         "); compile for fp32 (cpu.precision_mode = \"must_keep_origin_dtype\") or allow bf16 "
                         "operands computed in fp32 without the speed-up (cpu.bf16_fallback = \"emulate\")");
}

float round_to_bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) {
    u |= 0x00400000u;  // quiet NaN, payload's top bit kept
  } else {
    u += 0x7fffu + ((u >> 16) & 1u);  // round half to even on bit 16
  }
  u &= 0xffff0000u;
  std::memcpy(&x, &u, 4);
  return x;
}

void round_to_bf16(const float* x, float* y, int64_t n) {
  parallel_range(n, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) y[i] = round_to_bf16(x[i]);
  });
}

dnnl::memory::desc with_dtype(const dnnl::memory::desc& d, dnnl::memory::data_type t) {
  dnnl::memory::desc r = d;
  r.data.data_type = static_cast<dnnl_data_type_t>(t);
  return r;
}

void register_with_bf16_routing(Registrar& r, void (*register_family)(Registrar&)) {
  Bf16Routing routing(r);
  register_family(routing);
}

}  // namespace ge::cpu
