// plugins/ascend_backend/vector_fused.cc — the fused elementwise ops on the Vector unit, in
// 16-element units like the other elementwise ops (vector_walk.h): ge.Gelu (with the bias of
// BiasGelu) and ge.FusedElementwise (its SSA program, plugins/fusion/ops/elementwise.toml,
// interpreted per element).
//
// Numerics (docs/ascend.md, "Kernels"): operands widened exactly to fp32; every instruction of
// the fused op computes in fp32 in UB registers and nothing in between is rounded; the output
// element is rounded once to the output dtype. So a fused chain under force_fp16 rounds once where
// the unfused ops round after every op (it is closer to the fp32 reference, not bit-equal to the
// unfused fp16 graph).
//   Gelu: y = 0.5 · x · (1 + erf(x / √2)), x = X + bias (bias: one value per element of X's last
//         dim) — the erf form (Hendrycks & Gimpel 2016), host erff.
//   FusedElementwise: the ops of plugins/fusion/ops/elementwise.toml with numpy broadcasting of
//         the inputs to the output shape; instruction results are evaluated at the output
//         element's index (a broadcast intermediate has the same value there).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <variant>

#include "ge/sdk/error.h"
#include "kernels.h"
#include "tensor_io.h"
#include "vector_walk.h"

namespace ge::ascend {
namespace {

/// Element strides of `in` broadcast to `out` (0 on broadcast axes).
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<int64_t> s(out.rank(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < in.rank() && k < out.rank(); ++k) {
    const size_t ai = in.rank() - 1 - k, ao = out.rank() - 1 - k;
    s[ao] = in[ai] == 1 ? 0 : stride;
    stride *= in[ai];
  }
  return s;
}

class GeluKernel : public Kernel {
 public:
  GeluKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir) {
    require_float(ctx, 0);
    const Shape& x = ctx.input_shape(0);
    last_ = x.rank() ? x[x.rank() - 1] : 1;
    if (ctx.node.num_inputs() > 1 && ctx.has_input(1)) {
      require_float(ctx, 1);
      if (ctx.input_shape(1).numel() != last_)
        throw UnsupportedError("Gelu: bias " + ctx.input_shape(1).str() + " is not one value per element of X's last dim in " + who(node_));
    }
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]);
    const std::vector<float> b = io.inputs.size() > 1 && io.inputs[1].data() ? read_plain(io.inputs[1]) : std::vector<float>();
    std::vector<float> y(x.size());
    walk_.elements([&](int64_t i) {
      const float v = b.empty() ? x[i] : x[i] + b[i % last_];
      y[i] = 0.5f * v * (1.f + std::erf(v * static_cast<float>(M_SQRT1_2)));
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl(node_.num_inputs() > 1 && node_.input(1) ? "BiasGelu" : "Gelu"); }

 private:
  const Node& node_;
  VectorWalk walk_;
  int64_t last_ = 1;
};

enum class Op {
  Add, Sub, Mul, Div, Pow, Max, Min, Sqrt, Erf, Relu, Sigmoid, Clip, Tanh, Exp, Log, Neg, Abs, Reciprocal, Floor, Ceil,
  LeakyRelu, Elu, Selu, Celu, ThresholdedRelu, HardSigmoid, HardSwish, Softplus, Softsign
};

struct Instr {
  Op op;
  int64_t a = 0, b = 0;  // operands: < inputs → inputs[k], else result k - inputs
  float lo = 0, hi = 0;  // immediates: Clip [min, max], alpha (and Selu's gamma, HardSigmoid's beta)
};

class FusedElementwiseKernel : public Kernel {
 public:
  FusedElementwiseKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir) {
    const std::string what = "FusedElementwise in " + who(node_);
    nin_ = static_cast<int64_t>(ctx.node.num_inputs());
    for (int64_t i = 0; i < nin_; ++i) {
      if (!ctx.has_input(static_cast<size_t>(i))) throw InvalidGraphError(what + ": input " + std::to_string(i) + " is missing");
      require_float(ctx, static_cast<size_t>(i));
    }
    const AttrValue* ops = ctx.node.attrs.find("ops");
    if (!ops || !std::holds_alternative<std::vector<std::string>>(*ops)) throw InvalidGraphError(what + ": needs a strings attribute 'ops'");
    const auto& names = std::get<std::vector<std::string>>(*ops);
    const std::vector<int64_t> args = ctx.node.attrs.get_ints("args");
    const std::vector<float> imms = ctx.node.attrs.get_floats("imms");
    struct Form {
      Op op;
      int operands, imms;
    };
    static const std::map<std::string, Form> table = {
        {"Add", {Op::Add, 2, 0}},         {"Sub", {Op::Sub, 2, 0}},       {"Mul", {Op::Mul, 2, 0}},
        {"Div", {Op::Div, 2, 0}},         {"Pow", {Op::Pow, 2, 0}},       {"Max", {Op::Max, 2, 0}},
        {"Min", {Op::Min, 2, 0}},         {"Sqrt", {Op::Sqrt, 1, 0}},     {"Erf", {Op::Erf, 1, 0}},
        {"Relu", {Op::Relu, 1, 0}},       {"Clip", {Op::Clip, 1, 2}},     {"Sigmoid", {Op::Sigmoid, 1, 0}},
        {"Tanh", {Op::Tanh, 1, 0}},       {"Exp", {Op::Exp, 1, 0}},       {"Log", {Op::Log, 1, 0}},
        {"Neg", {Op::Neg, 1, 0}},         {"Abs", {Op::Abs, 1, 0}},       {"Reciprocal", {Op::Reciprocal, 1, 0}},
        {"Floor", {Op::Floor, 1, 0}},     {"Ceil", {Op::Ceil, 1, 0}},     {"LeakyRelu", {Op::LeakyRelu, 1, 1}},
        {"Elu", {Op::Elu, 1, 1}},         {"Selu", {Op::Selu, 1, 2}},     {"Celu", {Op::Celu, 1, 1}},
        {"ThresholdedRelu", {Op::ThresholdedRelu, 1, 1}}, {"HardSigmoid", {Op::HardSigmoid, 1, 2}},
        {"HardSwish", {Op::HardSwish, 1, 0}}, {"Softplus", {Op::Softplus, 1, 0}}, {"Softsign", {Op::Softsign, 1, 0}}};
    size_t a = 0, c = 0;
    for (size_t i = 0; i < names.size(); ++i) {
      auto it = table.find(names[i]);
      if (it == table.end()) throw UnsupportedError(what + ": op '" + names[i] + "' in the program");
      Instr ins{it->second.op};
      for (int k = 0; k < it->second.operands; ++k) {
        if (a >= args.size()) throw InvalidGraphError(what + ": 'args' too short for the program");
        const int64_t v = args[a++];
        if (v < 0 || v >= nin_ + static_cast<int64_t>(i)) throw InvalidGraphError(what + ": operand " + std::to_string(v) + " of instruction " + std::to_string(i) + " is not defined before it");
        (k == 0 ? ins.a : ins.b) = v;
      }
      const int ni = it->second.imms;
      if (c + ni > imms.size()) throw InvalidGraphError(what + ": 'imms' too short for its " + names[i] + " instructions");
      if (ni > 0) ins.lo = imms[c++];
      if (ni > 1) ins.hi = imms[c++];
      prog_.push_back(ins);
    }
    if (prog_.empty() || a != args.size()) throw InvalidGraphError(what + ": empty program or unused 'args'");
  }
  void run(KernelIO& io) override {
    const Shape& out = io.outputs[0].shape();
    const size_t r = out.rank();
    std::vector<std::vector<float>> in;
    std::vector<std::vector<int64_t>> st;
    for (const Tensor& t : io.inputs) in.push_back(read_plain(t)), st.push_back(broadcast_strides(t.shape(), out));
    std::vector<float> y(static_cast<size_t>(out.numel()));
    walk_.elements([&](int64_t i) {
      float regs[256];  // fp32 UB registers: inputs then results (the fusion rule keeps programs under 256 operands)
      std::vector<float> big;
      float* v = regs;
      if (nin_ + static_cast<int64_t>(prog_.size()) > 256) big.resize(static_cast<size_t>(nin_) + prog_.size()), v = big.data();
      for (int64_t k = 0; k < nin_; ++k) {
        int64_t off = 0, rem = i;
        for (size_t d = r; d-- > 0;) off += (rem % out[d]) * st[k][d], rem /= out[d];
        v[k] = in[k][off];
      }
      for (size_t p = 0; p < prog_.size(); ++p) {
        const Instr& s = prog_[p];
        const float x0 = v[s.a], x1 = v[s.b];
        float o = 0;
        switch (s.op) {
          case Op::Add: o = x0 + x1; break;
          case Op::Sub: o = x0 - x1; break;
          case Op::Mul: o = x0 * x1; break;
          case Op::Div: o = x0 / x1; break;
          case Op::Pow: o = std::pow(x0, x1); break;
          case Op::Sqrt: o = std::sqrt(x0); break;
          case Op::Erf: o = std::erf(x0); break;
          case Op::Relu: o = x0 > 0.f ? x0 : 0.f; break;
          case Op::Sigmoid: o = 1.f / (1.f + std::exp(-x0)); break;
          case Op::Clip: o = std::min(std::max(x0, s.lo), s.hi); break;
          // ONNX Operators.md definitions, in fp32 as the host computes them.
          case Op::Max: o = (x0 != x0 || x1 != x1) ? NAN : std::max(x0, x1); break;
          case Op::Min: o = (x0 != x0 || x1 != x1) ? NAN : std::min(x0, x1); break;
          case Op::Tanh: o = std::tanh(x0); break;
          case Op::Exp: o = std::exp(x0); break;
          case Op::Log: o = std::log(x0); break;
          case Op::Neg: o = -x0; break;
          case Op::Abs: o = std::fabs(x0); break;
          case Op::Reciprocal: o = 1.f / x0; break;
          case Op::Floor: o = std::floor(x0); break;
          case Op::Ceil: o = std::ceil(x0); break;
          case Op::LeakyRelu: o = x0 < 0.f ? s.lo * x0 : x0; break;
          case Op::Elu: o = x0 < 0.f ? s.lo * std::expm1(x0) : x0; break;
          case Op::Selu: o = s.hi * (x0 > 0.f ? x0 : s.lo * std::expm1(x0)); break;
          case Op::Celu: o = x0 > 0.f ? x0 : s.lo * std::expm1(x0 / s.lo); break;
          case Op::ThresholdedRelu: o = x0 > s.lo ? x0 : 0.f; break;
          case Op::HardSigmoid: o = std::clamp(s.lo * x0 + s.hi, 0.f, 1.f); break;
          case Op::HardSwish: o = x0 * std::clamp(x0 / 6.f + 0.5f, 0.f, 1.f); break;
          case Op::Softplus: o = std::max(x0, 0.f) + std::log1p(std::exp(-std::fabs(x0))); break;
          case Op::Softsign: o = x0 / (1.f + std::fabs(x0)); break;
        }
        v[nin_ + static_cast<int64_t>(p)] = o;
      }
      y[i] = v[nin_ + static_cast<int64_t>(prog_.size()) - 1];
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl("FusedElementwise"); }

 private:
  const Node& node_;
  VectorWalk walk_;
  int64_t nin_ = 0;
  std::vector<Instr> prog_;
};

template <class K>
KernelFactory factory(const std::string& dir) {
  return [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<K>(c, dir); };
}

}  // namespace

void register_fused_vector_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  r.add_kernel({"ascend", "ge", "Gelu", factory<GeluKernel>(dir), ""});
  r.add_kernel({"ascend", "ge", "FusedElementwise", factory<FusedElementwiseKernel>(dir), ""});
}

}  // namespace ge::ascend
