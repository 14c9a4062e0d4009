// cpu.precision_mode (plugins/cpu_backend/precision_pass.cc, bf16.h): bf16 rounding on hand
// values, the `cpu_precision` pass's graph before and after, the refusals (strict numerics, a CPU
// without bf16 at kernel build, options of the wrong mode, unknown nodes), and bf16 results
// against a reference computed in double from bf16-rounded operands — emulated (the fp32 kernels)
// and native (oneDNN's bf16 primitives, forced with GE_CPU_BF16=present where the CPU lacks them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <random>

#include "bf16.h"
#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "ge/core/pipeline.h"
#include "ge/core/runtime.h"
#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"
#include "pass_harness.h"

namespace ge::cpu {
namespace {

float bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(Bf16Rounding, RoundsToNearestEvenOnHandValues) {
  EXPECT_EQ(round_to_bf16(1.0f), 1.0f);
  EXPECT_EQ(round_to_bf16(1.00390625f), 1.0f);        // 1 + 2^-8: halfway, to the even 1.0
  EXPECT_EQ(round_to_bf16(1.01171875f), 1.015625f);   // 1 + 3*2^-8: halfway, to the even 1 + 2^-6
  EXPECT_EQ(round_to_bf16(1.005859375f), 1.0078125f); // 1 + 3*2^-9: above half, up to 1 + 2^-7
  EXPECT_EQ(round_to_bf16(bits(0x3eaaaaabu)), bits(0x3eab0000u));  // 1/3: 0.333984375
  EXPECT_EQ(round_to_bf16(-3.0f), -3.0f);
  EXPECT_EQ(bits_of(round_to_bf16(bits(0x7f7fffffu))), 0x7f800000u);  // FLT_MAX rounds to inf
  EXPECT_TRUE(std::isinf(round_to_bf16(INFINITY)));
  EXPECT_TRUE(std::isnan(round_to_bf16(NAN)));
  EXPECT_TRUE(std::isnan(round_to_bf16(bits(0x7f800001u))));  // a signalling NaN stays a NaN
}

/// GE_CPU_BF16 for the scope (bf16.h's test override), restored after.
class Bf16Env {
 public:
  explicit Bf16Env(const char* v) {
    if (const char* o = std::getenv("GE_CPU_BF16")) old_ = o, had_ = true;
    if (v) setenv("GE_CPU_BF16", v, 1);
    else unsetenv("GE_CPU_BF16");
  }
  ~Bf16Env() {
    if (had_) setenv("GE_CPU_BF16", old_.c_str(), 1);
    else unsetenv("GE_CPU_BF16");
  }

 private:
  std::string old_;
  bool had_ = false;
};

const char* kBf16Mode = "cpu.precision_mode=\"allow_mix_precision_bf16\"";

// conv (white) → relu (gray) → softmax (black) → kept (white, kept by keep_dtype, reading the
// same weights as conv) → mm (white MatMul with a constant B).
const char* kGraph = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,2,1,2]
  const %w: f32[2,2,1,1] = [1.00390625, 1.01171875, 0.333333343, -3]
  const %b: f32[2,2] = [0.5, 1.00390625, 2, 0.25]
  %c: f32[1,2,1,2] = Conv(%x, %w)  # conv
  %r: f32[1,2,1,2] = Relu(%c)  # relu
  %s: f32[1,2,1,2] = Softmax(%r) {axis=1}  # sm
  %k: f32[1,2,1,2] = Conv(%s, %w)  # kept
  %m: f32[1,2,1,2] = MatMul(%k, %b)  # mm
  output %m
})";

TEST(CpuPrecisionPass, MarksWhiteMatrixOpsAndRoundsTheirConstants) {
  const Compiled r = compile(kGraph, {kBf16Mode, "cpu.keep_dtype=[\"kept\"]"});
  // w stays for `kept` (fp32); conv reads w rounded to bf16 (the hand-rounded values of
  // Bf16Rounding above, printed shortest: 1.0039062 = 1 + 2^-8 -> 1, 1.0117188 = 1 + 3*2^-8 ->
  // 1.015625, 0.33333334 -> 0.33398438 = 0x3eab0000), mm reads b rounded (1 + 2^-8 ties to 1);
  // relu, sm and kept are untouched.
  EXPECT_EQ(print_graph(*r.g, {.max_const_elements = 4}), R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,2,1,2]
  const %w: f32[2,2,1,1] = [1.0039062,1.0117188,0.33333334,-3]
  const %w_bf16: f32[2,2,1,1] = [1,1.015625,0.33398438,-3]
  const %b_bf16: f32[2,2] = [0.5,1,2,0.25]
  %c: f32[1,2,1,2] = Conv(%x, %w_bf16) {cpu_compute_dtype="bfloat16"}  # conv
  %r: f32[1,2,1,2] = Relu(%c)  # relu
  %s: f32[1,2,1,2] = Softmax(%r) {axis=1}  # sm
  %k: f32[1,2,1,2] = Conv(%s, %w)  # kept
  %m: f32[1,2,1,2] = MatMul(%k, %b_bf16) {cpu_compute_dtype="bfloat16"}  # mm
  output %m
}
)");
  EXPECT_EQ(r.c("cpu.precision.bf16_ops"), 2);
  EXPECT_EQ(r.c("cpu.precision.constants"), 2);
  EXPECT_EQ(r.c("cpu.precision.kept.kept:keep_dtype"), 1);
  EXPECT_EQ(r.c("numerics.reduces_precision"), 2);
}

TEST(CpuPrecisionPass, DefaultModeLeavesTheGraphAlone) {
  const Compiled r = compile(kGraph, {});
  EXPECT_EQ(r.c("cpu.precision.mode.must_keep_origin_dtype"), 1);
  EXPECT_EQ(r.c("numerics.reduces_precision"), 0);
  for (const Node* n : r.g->nodes()) EXPECT_FALSE(n->attrs.has(kComputeDtypeAttr)) << n->name();
}

TEST(CpuPrecisionPass, ModifyMixlistMovesMatMulToTheBlackList) {
  const std::string f = testing::TempDir() + "/cpu_mixlist.json";
  {
    std::ofstream o(f);
    o << R"({ "black-list": { "to-add": ["MatMul"] }, "white-list": { "to-remove": ["MatMul"] } })";
  }
  const Compiled r = compile(kGraph, {kBf16Mode, "cpu.modify_mixlist=\"" + f + "\""});
  for (const Node* n : r.g->nodes())
    EXPECT_EQ(n->attrs.has(kComputeDtypeAttr), n->op_type() == "Conv") << n->name();
  std::remove(f.c_str());
}

TEST(CpuPrecisionPass, Refusals) {
  // Strict numerics: refused, naming the mode.
  EXPECT_NE(error_of([] { compile(kGraph, {kBf16Mode}, /*strict=*/true); })
                .find("cpu.precision_mode 'allow_mix_precision_bf16' reduces precision and numerics = \"strict\""),
            std::string::npos);
  // Strict with the default mode compiles.
  EXPECT_EQ(error_of([] { compile(kGraph, {}, /*strict=*/true); }), "(no error)");
  EXPECT_NE(error_of([] { compile(kGraph, {"cpu.precision_mode=\"bf16\""}); })
                .find("'cpu.precision_mode' must be one of \"must_keep_origin_dtype\", \"allow_mix_precision_bf16\", not \"bf16\""),
            std::string::npos);
  EXPECT_NE(error_of([] { compile(kGraph, {"cpu.bf16_fallback=\"emulate\""}); })
                .find("cpu.bf16_fallback applies to cpu.precision_mode allow_mix_precision_bf16 only"),
            std::string::npos);
  EXPECT_NE(error_of([] { compile(kGraph, {kBf16Mode, "cpu.keep_dtype=[\"nope\"]"}); })
                .find("cpu.keep_dtype: no node named 'nope' in the graph after fusion"),
            std::string::npos);
}

// A 1x1 Conv (C=8 → M=4) then a MatMul with a constant B: the whole graph is white matrix ops.
const char* kMatrixGraph = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,8,3,5]
  const %w: f32[4,8,1,1]
  const %b: f32[5,6]
  %c: f32[1,4,3,5] = Conv(%x, %w)  # conv
  %m: f32[1,4,3,6] = MatMul(%c, %b)  # mm
  output %m
})";

/// Seeded values in [-1, 1) that are not bf16 numbers (so bf16 and fp32 results differ).
Tensor random(const Shape& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  Tensor t = Tensor::allocate(DataType::Float32, s);
  for (float& v : t.span<float>()) v = u(rng);
  return t;
}

/// The graph's result in double from bf16-rounded operands: y = (Rb(W) · Rb(x)) then
/// Rb(y) · Rb(B) — each matrix op rounds its operands to bf16 (its output is fp32, rounded again
/// by the next bf16 op).
std::vector<double> reference(const Tensor& x, const Tensor& w, const Tensor& b) {
  auto rb = [](float v) { return static_cast<double>(round_to_bf16(v)); };
  const float *X = x.data_as<float>(), *W = w.data_as<float>(), *B = b.data_as<float>();
  std::vector<float> c(4 * 15);
  for (int m = 0; m < 4; ++m)
    for (int p = 0; p < 15; ++p) {
      double s = 0;
      for (int k = 0; k < 8; ++k) s += rb(W[m * 8 + k]) * rb(X[k * 15 + p]);
      c[m * 15 + p] = static_cast<float>(s);
    }
  std::vector<double> y(4 * 3 * 6);
  for (int r = 0; r < 12; ++r)
    for (int n = 0; n < 6; ++n) {
      double s = 0;
      for (int k = 0; k < 5; ++k) s += rb(c[r * 5 + k]) * rb(B[k * 6 + n]);
      y[r * 6 + n] = s;
    }
  return y;
}

double rel_l2(const std::vector<double>& a, const std::vector<double>& ref) {
  double d = 0, n = 0;
  for (size_t i = 0; i < a.size(); ++i) d += (a[i] - ref[i]) * (a[i] - ref[i]), n += ref[i] * ref[i];
  return std::sqrt(d / n);
}

struct Bf16Run {
  std::vector<double> y;
  std::vector<double> ref;
  std::vector<std::string> kernels;  ///< impl_name() of each step
};

/// Compiles kMatrixGraph (whole O2 pipeline) with seeded weights and runs it once. The layout
/// stays NCHW (on an AVX-512 CPU the layout pass would block the Conv and add reorders), so the
/// steps are the two matrix nodes whose precision the tests check.
Bf16Run run_matrix_graph(std::vector<std::string> overrides) {
  const Tensor x = random(Shape{1, 8, 3, 5}, 1);
  const Tensor w = random(Shape{4, 8, 1, 1}, 2), b = random(Shape{5, 6}, 3);
  overrides.push_back("layout.format=\"NCHW\"");
  Compiled r = compile(kMatrixGraph, overrides, false, std::nullopt, [&](Graph& g) {
    for (Value* v : g.values())
      if (v->is_constant()) v->data = std::make_shared<const Tensor>(v->name() == "w" ? w.clone() : b.clone());
  });
  core::Executable exe(r.g, *r.env, {"cpu", 1});
  Bf16Run out;
  out.y = exe.run({x})[0].to_double_vector();
  out.ref = reference(x, w, b);
  for (size_t i = 0; i < exe.num_kernels(); ++i) out.kernels.push_back(exe.step_kernel(i));
  return out;
}

TEST(CpuBf16Execution, EmulatedMatchesTheBf16Reference) {
  Bf16Env env("absent");
  const Bf16Run r = run_matrix_graph({kBf16Mode, "cpu.bf16_fallback=\"emulate\""});
  EXPECT_LE(rel_l2(r.y, r.ref), 1e-6);
  for (const std::string& k : r.kernels) EXPECT_EQ(k.rfind("bf16_emulated(no bf16 CPU):onednn:", 0), 0u) << k;
  // fp32 differs from the bf16 reference by far more (the test sees the rounding).
  const Bf16Run f = run_matrix_graph({});
  EXPECT_GE(rel_l2(f.y, r.ref), 1e-4);
}

TEST(CpuBf16Execution, NativeMatchesTheBf16Reference) {
  // oneDNN's bf16 primitives where oneDNN implements them. oneDNN 2.6 has bf16 only from AVX-512
  // (avx512_core) up — on an AVX2 CPU even its reference convolution refuses bf16 — and then each
  // node runs emulated (the routing's per-node fallback), with the same numerics.
  Bf16Env env("present");
  const Bf16Run r = run_matrix_graph({kBf16Mode});
  EXPECT_LE(rel_l2(r.y, r.ref), 1e-6);
  ASSERT_EQ(r.kernels.size(), 2u);
  for (const std::string& k : r.kernels) {
    const bool native = k.rfind("onednn:conv_bf16:", 0) == 0 || k.rfind("onednn:matmul_bf16:", 0) == 0;
    EXPECT_TRUE(native || k.rfind("bf16_emulated(no oneDNN bf16 implementation):", 0) == 0) << k;
    if (!native) std::printf("note: %s (%s)\n", k.c_str(), cpu_isa_description().c_str());
  }
}

TEST(CpuBf16Execution, ACpuWithoutBf16IsRefusedAtKernelBuild) {
  Bf16Env env("absent");
  const std::string e = error_of([] { run_matrix_graph({kBf16Mode}); });
  EXPECT_NE(e.find("cpu.precision_mode allow_mix_precision_bf16: node 'conv' (Conv) computes in bf16, but this CPU has no "
                   "AVX512_BF16"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("cpu.bf16_fallback = \"emulate\""), std::string::npos) << e;
}

}  // namespace
}  // namespace ge::cpu
