// tests/cpu_backend/test_elementwise_dtypes.cc — the elementwise, activation, comparison,
// logical and cast kernels per (op, dtype family), against values stated here: the ONNX
// definitions (docs/Operators.md) evaluated in double or long double, or hand-computed edge
// cases (INT_MIN, NaN, negative Mod operands, zero-size broadcast, float -> int of NaN/inf).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "ge/sdk/error.h"
#include "kernel_harness.h"
#include "kernels.h"
#include "tensor_test_util.h"

namespace ge::test {
namespace {

using DT = DataType;
using cpu::bfloat16;
using cpu::half;

KernelHarness& harness() {
  static KernelHarness h([](Registrar& r) {
    cpu::register_elementwise_kernels(r);
    cpu::register_fused_elementwise_kernels(r);
  });
  return h;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The elements of a bool tensor (values<bool> would brace-initialize vector<bool> from pointers).
std::vector<bool> bools(const Tensor& t) {
  std::vector<bool> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.data_as<bool>()[i]);
  return v;
}

/// A tensor of dtype T from doubles (float16/bfloat16 rounded to nearest even).
template <class T> Tensor from_doubles(Shape s, const std::vector<double>& v) {
  std::vector<T> t;
  for (double d : v) {
    if constexpr (std::is_same_v<T, half>) t.push_back(cpu::to_half(static_cast<float>(d)));
    else if constexpr (std::is_same_v<T, bfloat16>) t.push_back(cpu::to_bfloat16(static_cast<float>(d)));
    else t.push_back(static_cast<T>(d));
  }
  return make<T>(std::move(s), t);
}
template <class T> std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const T x = t.data_as<T>()[i];
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) v.push_back(cpu::to_float(x));
    else v.push_back(static_cast<double>(x));
  }
  return v;
}
/// Relative tolerance of one dtype's results against an exact reference.
template <class T> double tol() {
  if constexpr (std::is_same_v<T, double>) return 1e-12;
  else if constexpr (std::is_same_v<T, float>) return 2e-6;
  else if constexpr (std::is_same_v<T, half>) return 2e-3;
  else return 1.6e-2;  // bfloat16: 8 significant bits, input and output each rounded
}
void expect_close(double got, double want, double rtol, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": got " << got << ", want NaN";
  } else if (std::isinf(want)) {
    EXPECT_EQ(got, want) << what;
  } else {
    EXPECT_NEAR(got, want, rtol * std::max(1.0, std::fabs(want))) << what;
  }
}

struct UnaryCase {
  const char* op;
  std::vector<double> x;
  std::function<double(double)> ref;  // the ONNX definition, in double
  Attributes attrs = {};
};

/// Every float op over float32, float64, float16 and bfloat16 (inputs representable in all).
std::vector<UnaryCase> float_unary_cases() {
  const std::vector<double> any = {-3.5, -1, -0.25, 0, 0.5, 1.25, 3};
  const std::vector<double> pos = {0.125, 0.5, 1, 2, 7.5};
  const std::vector<double> unit = {-0.75, -0.5, 0, 0.25, 0.875};
  Attributes alpha2;
  alpha2.set("alpha", 2.0f);
  Attributes hs;
  hs.set("alpha", 0.25f);
  hs.set("beta", 0.5f);
  Attributes selu;
  selu.set("alpha", 2.0f);
  selu.set("gamma", 3.0f);
  Attributes shrink;
  shrink.set("bias", 0.5f);
  shrink.set("lambd", 1.0f);
  return {
      {"Exp", any, [](double x) { return std::exp(x); }},
      {"Log", pos, [](double x) { return std::log(x); }},
      {"Sqrt", pos, [](double x) { return std::sqrt(x); }},
      {"Reciprocal", pos, [](double x) { return 1 / x; }},
      {"Floor", any, [](double x) { return std::floor(x); }},
      {"Ceil", any, [](double x) { return std::ceil(x); }},
      {"Round", {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.75}, [](double x) { return std::nearbyint(x); }},
      {"Abs", any, [](double x) { return std::fabs(x); }},
      {"Neg", any, [](double x) { return -x; }},
      {"Sign", any, [](double x) { return double((x > 0) - (x < 0)); }},
      {"Sin", any, [](double x) { return std::sin(x); }},
      {"Cos", any, [](double x) { return std::cos(x); }},
      {"Tan", unit, [](double x) { return std::tan(x); }},
      {"Asin", unit, [](double x) { return std::asin(x); }},
      {"Acos", unit, [](double x) { return std::acos(x); }},
      {"Atan", any, [](double x) { return std::atan(x); }},
      {"Sinh", any, [](double x) { return std::sinh(x); }},
      {"Cosh", any, [](double x) { return std::cosh(x); }},
      {"Asinh", any, [](double x) { return std::asinh(x); }},
      {"Acosh", {1, 1.5, 2, 7.5}, [](double x) { return std::acosh(x); }},
      {"Atanh", unit, [](double x) { return std::atanh(x); }},
      {"Erf", any, [](double x) { return std::erf(x); }},
      {"Sigmoid", any, [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"Tanh", any, [](double x) { return std::tanh(x); }},
      {"Relu", any, [](double x) { return x > 0 ? x : 0; }},
      {"Softplus", any, [](double x) { return std::log(1 + std::exp(x)); }},
      {"Softsign", any, [](double x) { return x / (1 + std::fabs(x)); }},
      {"HardSwish", any, [](double x) { return x * std::clamp(x / 6 + 0.5, 0.0, 1.0); }},
      {"HardSigmoid", any, [](double x) { return std::clamp(0.25 * x + 0.5, 0.0, 1.0); }, hs},
      {"LeakyRelu", any, [](double x) { return x < 0 ? 2 * x : x; }, alpha2},
      {"Elu", any, [](double x) { return x < 0 ? 2 * (std::exp(x) - 1) : x; }, alpha2},
      {"Selu", any, [](double x) { return 3 * (x > 0 ? x : 2 * (std::exp(x) - 1)); }, selu},
      {"Celu", any, [](double x) { return std::max(0.0, x) + std::min(0.0, 2 * (std::exp(x / 2) - 1)); }, alpha2},
      {"ThresholdedRelu", any, [](double x) { return x > 2 ? x : 0; }, alpha2},
      {"Shrink", any, [](double x) { return x < -1 ? x + 0.5 : (x > 1 ? x - 0.5 : 0); }, shrink},
  };
}

template <class T> void check_float_unary() {
  const DT dt = cpu::dtype_of<T>();
  for (const UnaryCase& c : float_unary_cases()) {
    const Shape s{static_cast<int64_t>(c.x.size())};
    auto out = harness().run(c.op, {from_doubles<T>(s, c.x)}, {{dt, s}}, c.attrs, 17);
    const auto got = to_doubles<T>(out[0]);
    for (size_t i = 0; i < c.x.size(); ++i) {
      // The reference sees the input as the dtype stores it.
      const double xin = to_doubles<T>(from_doubles<T>({1}, {c.x[i]}))[0];
      expect_close(got[i], c.ref(xin), tol<T>(), std::string(c.op) + "(" + std::to_string(xin) + ") " +
                                                     std::string(dtype_name(dt)));
    }
  }
}

TEST(CpuElementwiseDtypes, FloatUnaryFloat32) { check_float_unary<float>(); }
TEST(CpuElementwiseDtypes, FloatUnaryFloat64) { check_float_unary<double>(); }
TEST(CpuElementwiseDtypes, FloatUnaryFloat16) { check_float_unary<half>(); }
TEST(CpuElementwiseDtypes, FloatUnaryBFloat16) { check_float_unary<bfloat16>(); }

/// The vectorized float32 transcendentals over a dense sweep, against long double: at most a
/// few ulp (relative 6e-7; absolute near erf's and tanh's zero).
TEST(CpuElementwiseDtypes, VectorizedTranscendentalsAreAccurate) {
  struct F {
    const char* op;
    double lo, hi;
    std::function<long double(long double)> ref;
  };
  const F fs[] = {{"Exp", -87, 88, [](long double x) { return expl(x); }},
                  {"Log", 1e-30, 1e30, [](long double x) { return logl(x); }},
                  {"Sigmoid", -80, 80, [](long double x) { return 1 / (1 + expl(-x)); }},
                  {"Tanh", -12, 12, [](long double x) { return tanhl(x); }},
                  {"Erf", -6, 6, [](long double x) { return erfl(x); }}};
  for (const F& f : fs) {
    const int64_t n = 100003;  // odd: exercises the masked tail
    std::vector<float> x(n);
    for (int64_t i = 0; i < n; ++i) {
      const double t = static_cast<double>(i) / (n - 1);
      x[i] = static_cast<float>(f.op == std::string("Log") ? f.lo * std::pow(f.hi / f.lo, t) : f.lo + (f.hi - f.lo) * t);
    }
    auto out = harness().run(f.op, {make<float>({n}, x)}, {{DT::Float32, {n}}}, {}, 17);
    const float* y = out[0].data_as<float>();
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      const long double r = f.ref(x[i]);
      const double err = static_cast<double>(std::fabs((y[i] - r) / std::max<long double>(std::fabs(r), 1e-6L)));
      worst = std::max(worst, err);
    }
    EXPECT_LT(worst, 6e-7) << f.op;
  }
}

TEST(CpuElementwiseDtypes, TranscendentalSpecialValues) {
  const std::vector<float> x = {0.f, -0.f, 1.f, -1.f, static_cast<float>(kInf), static_cast<float>(-kInf),
                                static_cast<float>(kNaN), 100.f, -110.f, 1e-40f};
  auto run = [&](const char* op) { return values<float>(harness().run(op, {make<float>({10}, x)}, {{DT::Float32, {10}}})[0]); };
  auto e = run("Exp");
  EXPECT_EQ(e[0], 1.f);
  EXPECT_EQ(e[4], static_cast<float>(kInf));
  EXPECT_EQ(e[5], 0.f);
  EXPECT_TRUE(std::isnan(e[6]));
  EXPECT_EQ(e[7], static_cast<float>(kInf));  // e^100 overflows float32
  EXPECT_EQ(e[8], 0.f);
  auto l = run("Log");
  EXPECT_EQ(l[0], static_cast<float>(-kInf));
  EXPECT_EQ(l[2], 0.f);
  EXPECT_TRUE(std::isnan(l[3]));
  EXPECT_EQ(l[4], static_cast<float>(kInf));
  EXPECT_TRUE(std::isnan(l[5]));
  EXPECT_TRUE(std::isnan(l[6]));
  EXPECT_NEAR(l[9], std::log(1e-40), 1e-5);  // a subnormal input
  auto s = run("Sigmoid");
  EXPECT_EQ(s[0], 0.5f);
  EXPECT_EQ(s[4], 1.f);
  EXPECT_EQ(s[5], 0.f);
  EXPECT_TRUE(std::isnan(s[6]));
  auto t = run("Tanh");
  EXPECT_EQ(t[0], 0.f);
  EXPECT_TRUE(std::signbit(t[1]));
  EXPECT_EQ(t[4], 1.f);
  EXPECT_EQ(t[5], -1.f);
  EXPECT_TRUE(std::isnan(t[6]));
  auto r = run("Erf");
  EXPECT_EQ(r[0], 0.f);
  EXPECT_EQ(r[4], 1.f);
  EXPECT_EQ(r[5], -1.f);
  EXPECT_TRUE(std::isnan(r[6]));
}

TEST(CpuElementwiseDtypes, NegAbsOfIntMinWrap) {
  // Two's complement: -INT_MIN is INT_MIN (numpy's np.negative / np.abs give the same).
  auto out = harness().run("Neg", {make<int8_t>({3}, {-128, 5, 127})}, {{DT::Int8, {3}}});
  EXPECT_EQ(values<int8_t>(out[0]), (std::vector<int8_t>{-128, -5, -127}));
  out = harness().run("Abs", {make<int32_t>({3}, {INT32_MIN, -7, 7})}, {{DT::Int32, {3}}});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{INT32_MIN, 7, 7}));
  out = harness().run("Neg", {make<int64_t>({2}, {INT64_MIN, 1})}, {{DT::Int64, {2}}});
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{INT64_MIN, -1}));
  out = harness().run("Abs", {make<int16_t>({2}, {INT16_MIN, -1})}, {{DT::Int16, {2}}});
  EXPECT_EQ(values<int16_t>(out[0]), (std::vector<int16_t>{INT16_MIN, 1}));
  out = harness().run("Abs", {make<uint8_t>({2}, {255, 0})}, {{DT::UInt8, {2}}});
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<uint8_t>{255, 0}));
  out = harness().run("Sign", {make<int16_t>({3}, {-9, 0, 4})}, {{DT::Int16, {3}}});
  EXPECT_EQ(values<int16_t>(out[0]), (std::vector<int16_t>{-1, 0, 1}));
  out = harness().run("Sign", {make<uint64_t>({2}, {0, 9})}, {{DT::UInt64, {2}}});
  EXPECT_EQ(values<uint64_t>(out[0]), (std::vector<uint64_t>{0, 1}));
}

TEST(CpuElementwiseDtypes, IntegerAddSubMulWrap) {
  // numpy's integer arithmetic wraps modulo 2^bits (C++'s signed overflow is undefined; UBSan
  // fuzz finding: an int64 Mul of 2^40 by 2^40 in a folded shape subgraph).
  const int64_t big = int64_t{1} << 40;
  auto out = harness().run("Mul", {make<int64_t>({2}, {big, 3}), make<int64_t>({2}, {big, -5})}, {{DT::Int64, {2}}});
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{0, -15}));  // 2^80 = 0 mod 2^64
  out = harness().run("Add", {make<int64_t>({1}, {INT64_MAX}), make<int64_t>({1}, {1})}, {{DT::Int64, {1}}});
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{INT64_MIN}));
  out = harness().run("Sub", {make<int32_t>({1}, {INT32_MIN}), make<int32_t>({1}, {1})}, {{DT::Int32, {1}}});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{INT32_MAX}));
  // uint16 · uint16 would overflow the int it promotes to: 65535² = 4294836225 = 1 mod 2^16.
  out = harness().run("Mul", {make<uint16_t>({1}, {65535}), make<uint16_t>({1}, {65535})}, {{DT::UInt16, {1}}});
  EXPECT_EQ(values<uint16_t>(out[0]), (std::vector<uint16_t>{1}));
}

TEST(CpuElementwiseDtypes, ModNegativeOperandsBothWays) {
  const std::vector<int32_t> a = {7, -7, 7, -7, 6, INT32_MIN, 5};
  const std::vector<int32_t> b = {3, 3, -3, -3, 3, -1, 0};
  // fmod = 0: sign of the divisor (Python's %): 7%3=1, -7%3=2, 7%-3=-2, -7%-3=-1.
  auto out = harness().run("Mod", {make<int32_t>({7}, a), make<int32_t>({7}, b)}, {{DT::Int32, {7}}});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{1, 2, -2, -1, 0, 0, 0}));
  // fmod = 1: sign of the dividend (C's fmod): 1, -1, 1, -1.
  Attributes fm;
  fm.set("fmod", int64_t{1});
  out = harness().run("Mod", {make<int32_t>({7}, a), make<int32_t>({7}, b)}, {{DT::Int32, {7}}}, fm);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{1, -1, 1, -1, 0, 0, 0}));
  out = harness().run("Mod", {make<int8_t>({4}, {-128, 100, -5, 5}), make<int8_t>({}, {-3})}, {{DT::Int8, {4}}});
  EXPECT_EQ(values<int8_t>(out[0]), (std::vector<int8_t>{-2, -2, -2, -1}));
  out = harness().run("Mod", {make<uint16_t>({2}, {65535, 9}), make<uint16_t>({2}, {10, 4})}, {{DT::UInt16, {2}}});
  EXPECT_EQ(values<uint16_t>(out[0]), (std::vector<uint16_t>{5, 1}));
  out = harness().run("Mod", {make<double>({4}, {5.5, -5.5, 5.5, -5.5}), make<double>({4}, {2, 2, -2, -2})},
                      {{DT::Float64, {4}}}, fm);
  EXPECT_EQ(values<double>(out[0]), (std::vector<double>{1.5, -1.5, 1.5, -1.5}));
  // Floats need fmod = 1 (Mod-13).
  EXPECT_THROW(harness().run("Mod", {make<float>({1}, {1}), make<float>({1}, {1})}, {{DT::Float32, {1}}}), InvalidGraphError);
}

TEST(CpuElementwiseDtypes, BitShiftPastTheWidthIsZero) {
  Attributes l, r;
  l.set("direction", std::string("LEFT"));
  r.set("direction", std::string("RIGHT"));
  auto out = harness().run("BitShift", {make<uint8_t>({4}, {1, 255, 3, 1}), make<uint8_t>({4}, {7, 1, 8, 200})}, {{DT::UInt8, {4}}}, l);
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<uint8_t>{128, 254, 0, 0}));
  out = harness().run("BitShift", {make<uint64_t>({2}, {~uint64_t{0}, 1}), make<uint64_t>({}, {63})}, {{DT::UInt64, {2}}}, r);
  EXPECT_EQ(values<uint64_t>(out[0]), (std::vector<uint64_t>{1, 0}));
}

TEST(CpuElementwiseDtypes, MinMaxPropagateNaNAndBroadcast) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = harness().run("Max", {make<float>({3}, {1, nan, 3}), make<float>({3}, {nan, 2, 1}), make<float>({}, {2})},
                           {{DT::Float32, {3}}});
  auto v = values<float>(out[0]);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], 3.f);
  out = harness().run("Min", {make<float>({2}, {nan, 0}), make<float>({2}, {5, -1})}, {{DT::Float32, {2}}});
  v = values<float>(out[0]);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], -1.f);
  out = harness().run("Min", {make<int64_t>({2, 1}, {5, -5}), make<int64_t>({3}, {0, 10, -10})}, {{DT::Int64, {2, 3}}});
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{0, 5, -10, -5, -5, -10}));
  out = harness().run("Max", {make<uint32_t>({2}, {4000000000u, 1})}, {{DT::UInt32, {2}}});
  EXPECT_EQ(values<uint32_t>(out[0]), (std::vector<uint32_t>{4000000000u, 1}));
  out = harness().run("Max", {from_doubles<half>({2}, {1.5, -2}), from_doubles<half>({2}, {-1, 3})}, {{DT::Float16, {2}}});
  EXPECT_EQ(to_doubles<half>(out[0]), (std::vector<double>{1.5, 3}));
  out = harness().run("Mean", {make<double>({2}, {1, 2}), make<double>({2}, {2, 4}), make<double>({1}, {6})},
                      {{DT::Float64, {2}}});
  EXPECT_EQ(values<double>(out[0]), (std::vector<double>{3, 4}));
  out = harness().run("Sum", {from_doubles<bfloat16>({2}, {1, 2}), from_doubles<bfloat16>({2}, {0.5, 4})}, {{DT::BFloat16, {2}}});
  EXPECT_EQ(to_doubles<bfloat16>(out[0]), (std::vector<double>{1.5, 6}));
}

TEST(CpuElementwiseDtypes, ArithmeticOnFloat16AndBFloat16) {
  // Computed in float32, rounded once: 1 + 2^-11 is not a float16 (ties to even -> 1).
  auto out = harness().run("Add", {from_doubles<half>({3}, {1, 1, 65504}), from_doubles<half>({3}, {0.00048828125, 0.0009765625, 65504})},
                           {{DT::Float16, {3}}});
  EXPECT_EQ(to_doubles<half>(out[0]), (std::vector<double>{1, 1.0009765625, kInf}));
  out = harness().run("Div", {from_doubles<bfloat16>({2}, {1, -3}), from_doubles<bfloat16>({}, {4})}, {{DT::BFloat16, {2}}});
  EXPECT_EQ(to_doubles<bfloat16>(out[0]), (std::vector<double>{0.25, -0.75}));
  out = harness().run("Pow", {from_doubles<half>({2}, {3, 2}), make<int64_t>({2}, {2, 10})}, {{DT::Float16, {2}}});
  EXPECT_EQ(to_doubles<half>(out[0]), (std::vector<double>{9, 1024}));
  out = harness().run("Mul", {make<int16_t>({2}, {300, -2}), make<int16_t>({2}, {300, 3})}, {{DT::Int16, {2}}});
  EXPECT_EQ(values<int16_t>(out[0]), (std::vector<int16_t>{24464, -6}));
}

TEST(CpuElementwiseDtypes, ComparisonsAndLogic) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = harness().run("Less", {make<float>({3}, {1, nan, 3}), make<float>({}, {2})}, {{DT::Bool, {3}}});
  EXPECT_EQ(bools(out[0]), (std::vector<bool>{true, false, false}));
  out = harness().run("GreaterOrEqual", {make<uint64_t>({3}, {0, 5, ~uint64_t{0}}), make<uint64_t>({3}, {0, 6, 1})}, {{DT::Bool, {3}}});
  EXPECT_EQ(bools(out[0]), (std::vector<bool>{true, false, true}));
  out = harness().run("Equal", {make<bool>({2, 1}, {true, false}), make<bool>({2}, {true, false})}, {{DT::Bool, {2, 2}}});
  EXPECT_EQ(bools(out[0]), (std::vector<bool>{true, false, false, true}));
  out = harness().run("Equal", {make<float>({1}, {nan}), make<float>({1}, {nan})}, {{DT::Bool, {1}}});
  EXPECT_EQ(bools(out[0]), (std::vector<bool>{false}));
  out = harness().run("LessOrEqual", {make<int8_t>({2}, {-128, 127}), make<int8_t>({2}, {-128, -1})}, {{DT::Bool, {2}}});
  EXPECT_EQ(bools(out[0]), (std::vector<bool>{true, false}));
  out = harness().run("Greater", {from_doubles<half>({2}, {0.5, -1}), from_doubles<half>({2}, {0.25, 0})}, {{DT::Bool, {2}}});
  EXPECT_EQ(bools(out[0]), (std::vector<bool>{true, false}));
  const Tensor p = make<bool>({4}, {true, true, false, false}), q = make<bool>({4}, {true, false, true, false});
  EXPECT_EQ(bools(harness().run("And", {p, q}, {{DT::Bool, {4}}})[0]), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(bools(harness().run("Or", {p, q}, {{DT::Bool, {4}}})[0]), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(bools(harness().run("Xor", {p, q}, {{DT::Bool, {4}}})[0]), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(bools(harness().run("Not", {p}, {{DT::Bool, {4}}})[0]), (std::vector<bool>{false, false, true, true}));
  EXPECT_THROW(harness().run("And", {make<int32_t>({1}, {1}), make<int32_t>({1}, {1})}, {{DT::Bool, {1}}}), UnsupportedError);
}

TEST(CpuElementwiseDtypes, IsNaNIsInf) {
  const std::vector<double> x = {1, kNaN, kInf, -kInf};
  auto out = harness().run("IsNaN", {from_doubles<half>({4}, x)}, {{DT::Bool, {4}}});
  EXPECT_EQ(bools(out[0]), (std::vector<bool>{false, true, false, false}));
  Attributes pos;
  pos.set("detect_negative", int64_t{0});
  out = harness().run("IsInf", {from_doubles<double>({4}, x)}, {{DT::Bool, {4}}}, pos);
  EXPECT_EQ(bools(out[0]), (std::vector<bool>{false, false, true, false}));
}

TEST(CpuElementwiseDtypes, WhereBroadcastsAllThree) {
  // cond [2,1], X [1,3], Y scalar -> [2,3].
  auto out = harness().run("Where", {make<bool>({2, 1}, {true, false}), make<int64_t>({1, 3}, {1, 2, 3}), make<int64_t>({}, {-1})},
                           {{DT::Int64, {2, 3}}});
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
  out = harness().run("Where", {make<bool>({3}, {false, true, false}), from_doubles<half>({3}, {1, 2, 3}), from_doubles<half>({3}, {4, 5, 6})},
                      {{DT::Float16, {3}}});
  EXPECT_EQ(to_doubles<half>(out[0]), (std::vector<double>{4, 2, 6}));
  out = harness().run("Where", {make<bool>({2}, {true, false}), make<bool>({2}, {false, false}), make<bool>({2}, {true, true})},
                      {{DT::Bool, {2}}});
  EXPECT_EQ(bools(out[0]), (std::vector<bool>{false, true}));
}

TEST(CpuElementwiseDtypes, ZeroSizeBroadcastDims) {
  // [0,3] + [1,3] -> [0,3]; [2,0] with [2,1] -> [2,0]: empty outputs, nothing read or written.
  auto out = harness().run("Add", {make<float>({0, 3}, {}), make<float>({1, 3}, {1, 2, 3})}, {{DT::Float32, {0, 3}}});
  EXPECT_EQ(out[0].numel(), 0);
  out = harness().run("Where", {make<bool>({2, 0}, {}), make<float>({2, 1}, {1, 2}), make<float>({}, {0})}, {{DT::Float32, {2, 0}}});
  EXPECT_EQ(out[0].numel(), 0);
  out = harness().run("Max", {make<int32_t>({0}, {}), make<int32_t>({1}, {4}), make<int32_t>({}, {2})}, {{DT::Int32, {0}}});
  EXPECT_EQ(out[0].numel(), 0);
  out = harness().run("Sigmoid", {make<float>({0, 4}, {})}, {{DT::Float32, {0, 4}}});
  EXPECT_EQ(out[0].numel(), 0);
  // A size-0 axis against a size-2 one does not broadcast.
  EXPECT_THROW(harness().run("Add", {make<float>({0}, {}), make<float>({2}, {1, 2})}, {{DT::Float32, {0}}}), InvalidGraphError);
}

Tensor cast(const Tensor& x, DT to) {
  Attributes a;
  a.set("to", static_cast<int64_t>(to));
  return harness().run("Cast", {x}, {{to, x.shape()}}, a)[0];
}

TEST(CpuElementwiseDtypes, CastNaNAndInfinityToIntegersAsOnnxRuntimeOnX86) {
  // ORT's static_cast compiles to cvttss2si: NaN and out-of-range give the "integer
  // indefinite" 0x80..0 of the 32- or 64-bit register, then the low bits are kept.
  const Tensor x = make<float>({5}, {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(), 300.75f, -1.5f});
  EXPECT_EQ(values<int32_t>(cast(x, DT::Int32)), (std::vector<int32_t>{INT32_MIN, INT32_MIN, INT32_MIN, 300, -1}));
  EXPECT_EQ(values<int8_t>(cast(x, DT::Int8)), (std::vector<int8_t>{0, 0, 0, 44, -1}));  // 300 = 0x12c -> 0x2c
  EXPECT_EQ(values<uint8_t>(cast(x, DT::UInt8)), (std::vector<uint8_t>{0, 0, 0, 44, 255}));
  EXPECT_EQ(values<int16_t>(cast(x, DT::Int16)), (std::vector<int16_t>{0, 0, 0, 300, -1}));
  EXPECT_EQ(values<int64_t>(cast(x, DT::Int64)), (std::vector<int64_t>{INT64_MIN, INT64_MIN, INT64_MIN, 300, -1}));
  EXPECT_EQ(values<uint32_t>(cast(x, DT::UInt32)), (std::vector<uint32_t>{0, 0, 0, 300, 0xffffffffu}));
  const uint64_t two63 = uint64_t{1} << 63;
  EXPECT_EQ(values<uint64_t>(cast(x, DT::UInt64)), (std::vector<uint64_t>{two63, 0, two63, 300, ~uint64_t{0}}));
  EXPECT_EQ(bools(cast(x, DT::Bool)), (std::vector<bool>{true, true, true, true, true}));
  const Tensor d = make<double>({3}, {kNaN, 3e9, -2.5});
  EXPECT_EQ(values<int32_t>(cast(d, DT::Int32)), (std::vector<int32_t>{INT32_MIN, INT32_MIN, -2}));
  EXPECT_EQ(values<uint32_t>(cast(d, DT::UInt32)), (std::vector<uint32_t>{0, 3000000000u, 0xfffffffeu}));
}

TEST(CpuElementwiseDtypes, CastBetweenWidthsAndFloatFormats) {
  // Integer -> integer keeps the low bits (the Cast-13 text: 200 int16 -> -56 int8).
  EXPECT_EQ(values<int8_t>(cast(make<int16_t>({2}, {200, -129}), DT::Int8)), (std::vector<int8_t>{-56, 127}));
  EXPECT_EQ(values<uint16_t>(cast(make<int64_t>({2}, {-1, 65537}), DT::UInt16)), (std::vector<uint16_t>{65535, 1}));
  EXPECT_EQ(values<float>(cast(make<bool>({2}, {true, false}), DT::Float32)), (std::vector<float>{1, 0}));
  EXPECT_EQ(bools(cast(make<int32_t>({3}, {0, -4, 1}), DT::Bool)), (std::vector<bool>{false, true, true}));
  // float -> float16 rounds to nearest even: 1 + 2^-11 is a tie -> 1; 1 + 3*2^-11 -> 1 + 2^-9;
  // 65520 overflows to inf.
  auto h = to_doubles<half>(cast(make<float>({3}, {1.00048828125f, 1.00146484375f, 65520.f}), DT::Float16));
  EXPECT_EQ(h, (std::vector<double>{1, 1.001953125, kInf}));
  EXPECT_EQ(values<int32_t>(cast(from_doubles<half>({2}, {-2.75, 1000}), DT::Int32)), (std::vector<int32_t>{-2, 1000}));
  // float -> bfloat16 keeps the upper 16 bits (ONNX 1.12's test_cast_FLOAT_to_BFLOAT16).
  auto b = cast(make<float>({2}, {1.0078125f + 0.00390625f, -3.f}), DT::BFloat16);
  EXPECT_EQ(to_doubles<bfloat16>(b), (std::vector<double>{1.0078125, -3}));
  EXPECT_EQ(values<double>(cast(from_doubles<bfloat16>({1}, {0.5}), DT::Float64)), (std::vector<double>{0.5}));
  // CastLike takes the target from its second input.
  auto out = harness().run("CastLike", {make<double>({2}, {2.5, -7}), make<int16_t>({1}, {0})}, {{DT::Int16, {2}}});
  EXPECT_EQ(values<int16_t>(out[0]), (std::vector<int16_t>{2, -7}));
}

TEST(CpuElementwiseDtypes, ClipShrinkPReluOnIntegersAndFloat16) {
  auto out = harness().run("Clip", {make<int8_t>({4}, {-128, -3, 5, 127}), make<int8_t>({}, {-4}), make<int8_t>({}, {100})},
                           {{DT::Int8, {4}}});
  EXPECT_EQ(values<int8_t>(out[0]), (std::vector<int8_t>{-4, -3, 5, 100}));
  out = harness().run("Clip", {from_doubles<half>({3}, {-2, 0.5, 9}), omitted(), from_doubles<half>({}, {1})}, {{DT::Float16, {3}}});
  EXPECT_EQ(to_doubles<half>(out[0]), (std::vector<double>{-2, 0.5, 1}));
  Attributes sh;
  sh.set("bias", 1.5f);
  sh.set("lambd", 2.0f);
  out = harness().run("Shrink", {make<int32_t>({4}, {-5, -2, 2, 7})}, {{DT::Int32, {4}}}, sh);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{-3, 0, 0, 5}));  // -5+1.5=-3.5 -> -3, 7-1.5=5.5 -> 5
  out = harness().run("PRelu", {make<float>({2, 2}, {-1, 2, -3, 4}), make<float>({2, 1}, {0.5f, 2})}, {{DT::Float32, {2, 2}}});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{-0.5f, 2, -6, 4}));
  out = harness().run("PRelu", {make<int64_t>({3}, {-4, 0, 4}), make<int64_t>({}, {3})}, {{DT::Int64, {3}}});
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{-12, 0, 4}));
  // Integer slope products wrap modulo 2^32 as Mul's do (a signed overflow was undefined; fuzz
  // finding, UBSan): (-251715840)^2 = 63 360 864 106 905 600 ≡ -977207296 (mod 2^32).
  out = harness().run("PRelu", {make<int32_t>({2}, {-251715840, 5}), make<int32_t>({2}, {-251715840, -251715840})},
                      {{DT::Int32, {2}}});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{-977207296, 5}));
}

TEST(CpuElementwiseDtypes, UnsupportedCombinationsNameOpNodeAndDtype) {
  try {
    harness().run("Sigmoid", {make<int32_t>({1}, {1})}, {{DT::Int32, {1}}});
    FAIL() << "expected UnsupportedError";
  } catch (const UnsupportedError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("Sigmoid: dtype i32 not supported"), std::string::npos) << m;
    EXPECT_NE(m.find("node"), std::string::npos) << m;
  }
  EXPECT_THROW(harness().run("BitShift", {make<int32_t>({1}, {1}), make<int32_t>({1}, {1})}, {{DT::Int32, {1}}}), UnsupportedError);
  EXPECT_THROW(harness().run("Not", {make<float>({1}, {1})}, {{DT::Float32, {1}}}), UnsupportedError);
}

/// Runs ge.FusedElementwise (domain "ge", which KernelHarness::run does not look up) on one input.
std::vector<float> run_fused(const Tensor& x, const Attributes& a) {
  Graph g("fused");
  g.opsets[""] = 17;
  g.opsets["ge"] = 1;
  Value* in = g.add_input("x", DT::Float32, x.shape());
  Value* out = g.add_value("y", DT::Float32, x.shape());
  Node* node = g.add_node("FusedElementwise", "fused", {in}, {out}, a, "ge");
  const KernelDef* def = harness().registrar().kernels.find("cpu", "ge", "FusedElementwise");
  if (!def) throw Error("no FusedElementwise kernel");
  KernelBuildContext ctx{*node, 1, 1};
  auto k = def->factory(ctx);
  std::vector<Tensor> ins{x}, outs{Tensor::allocate(DT::Float32, x.shape())};
  KernelIO io{ins, outs};
  k->run(io);
  return values<float>(outs[0]);
}

/// ge.FusedElementwise computes the new ops with the unfused kernels' functors: equal bits.
TEST(CpuElementwiseDtypes, FusedProgramMatchesUnfusedBits) {
  const int64_t n = 3001;
  std::vector<float> xv(n);
  for (int64_t i = 0; i < n; ++i) xv[i] = -8.f + 16.f * static_cast<float>(i) / (n - 1);
  const Tensor x = make<float>({n}, xv);
  // SiLU = x * Sigmoid(x); then HardSwish, LeakyRelu(0.1), Tanh, Elu(1.5), Max(., x).
  Attributes fa;
  fa.set("ops", std::vector<std::string>{"Sigmoid", "Mul", "HardSwish", "LeakyRelu", "Tanh", "Elu", "Max"});
  fa.set("args", std::vector<int64_t>{0, 0, 1, 2, 3, 4, 5, 6, 0});
  fa.set("imms", std::vector<float>{0.1f, 1.5f});
  auto fused = run_fused(x, fa);
  // The same chain through the unfused kernels.
  auto run1 = [](const char* op, const Tensor& t, Attributes a = {}) { return harness().run(op, {t}, {{DT::Float32, t.shape()}}, a, 17)[0]; };
  Tensor s = run1("Sigmoid", x);
  Tensor m = harness().run("Mul", {x, s}, {{DT::Float32, {n}}})[0];
  Attributes la, ea;
  la.set("alpha", 0.1f);
  ea.set("alpha", 1.5f);
  Tensor e = run1("Elu", run1("Tanh", run1("LeakyRelu", run1("HardSwish", m), la)), ea);
  auto want = values<float>(harness().run("Max", {e, x}, {{DT::Float32, {n}}})[0]);
  ASSERT_EQ(fused.size(), want.size());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(fused[i], want[i]) << "element " << i;
}

}  // namespace
}  // namespace ge::test
