// plugins/cpu_backend/fused_elementwise.cc — ge.FusedElementwise: the SSA program of the
// elementwise_chain rule (plugins/fusion/ops/elementwise.toml) evaluated in one pass over memory.
//
// The output is cut into blocks of kBlock elements. For each block every instruction writes its
// result into a scratch buffer of kBlock floats (the last one writes straight into the output),
// so intermediates stay in L1 and no buffer exceeds kBlock * 4 bytes = 4 KiB. Inputs of the output's shape are read in place; a one-element
// input is a scalar operand; other broadcast inputs are seen through their collapsed loop plans (broadcast.h).
// Blocks are cut so that they never cross a run of such an input, which then is a scalar (a
// per-channel [C,1,1] bias) or a pointer per block; only when runs are short is it gathered.
// Scratch is allocated once at build time, one set per thread; run() allocates nothing. On
// NC1HWC0 (operands of the output's shape or broadcast along N, H and W, elementwise_blocked.cc) the
// program runs over the stored elements, a broadcast operand seen through its storage shape.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

#include "blocked.h"
#include "broadcast.h"
#include "elementwise_common.h"
#include "elementwise_ops.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

constexpr int64_t kBlock = 1024;  // 4 KiB per buffer: a program's buffers stay in L1 (2048: 25% slower)
constexpr size_t kMaxOperands = 256;  // inputs + instructions; the factory refuses more

enum class Op {
  Add, Sub, Mul, Div, Pow, Max, Min,  // binary
  Sqrt, Erf, Relu, Sigmoid, Clip, Tanh, Exp, Log, Neg, Abs, Reciprocal, Floor, Ceil, LeakyRelu, Elu, Selu, Celu,
  ThresholdedRelu, HardSigmoid, HardSwish, Softplus, Softsign
};

struct Instr {
  Op op;
  int a = 0, b = 0;  // operand indices into [inputs..., results...]
  float p0 = 0, p1 = 0;  // immediates: Clip min/max, alpha (LeakyRelu, Elu, Celu, ThresholdedRelu), alpha/gamma (Selu), alpha/beta (HardSigmoid)
};

/// How an input is read: in place (same shape as the output), as a scalar, or gathered.
enum class Access { Direct, Scalar, Gather };

struct Operand {
  const float* p;
  bool scalar;
};

// Formulas match the unfused kernels (elementwise_*.cc) so the fused graph gives equal bits.
// eval() is compiled for x86-64-v4 and v3 besides the baseline (the loader picks one: GCC
// target_clones) so the per-instruction loops over a block run 16 or 8 lanes wide; with FMA
// contraction off for this file (-ffp-contract=off, CMakeLists.txt: a pragma on eval() alone
// would stop the functors inlining into it) every instruction stays one IEEE operation per element
// (alpha*x + beta is not fused), as in the unfused kernels, compiled for the baseline: equal bits.
template <class F>
[[gnu::always_inline]] inline void binary(Operand x, Operand y, float* out, int64_t n, F f) {
  if (!x.scalar && !y.scalar) {
    for (int64_t k = 0; k < n; ++k) out[k] = f(x.p[k], y.p[k]);
  } else if (x.scalar && !y.scalar) {
    const float a = x.p[0];
    for (int64_t k = 0; k < n; ++k) out[k] = f(a, y.p[k]);
  } else if (!x.scalar) {
    const float b = y.p[0];
    for (int64_t k = 0; k < n; ++k) out[k] = f(x.p[k], b);
  } else {
    const float v = f(x.p[0], y.p[0]);
    for (int64_t k = 0; k < n; ++k) out[k] = v;
  }
}

/// The unfused kernels' functors (elementwise_ops.h), bulk path included, so equal bits.
template <class F>
[[gnu::always_inline]] inline void unary(Operand x, float* out, int64_t n, const F& f) {
  if (x.scalar) {
    float v;
    map_elements<float, float>(f, x.p, &v, 1);
    for (int64_t k = 0; k < n; ++k) out[k] = v;
  } else {
    map_elements<float, float>(f, x.p, out, n);
  }
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void eval(const Instr& in, Operand x, Operand y, float* out, int64_t n) {
  switch (in.op) {
    case Op::Add: return binary(x, y, out, n, [](float a, float b) { return a + b; });
    case Op::Sub: return binary(x, y, out, n, [](float a, float b) { return a - b; });
    case Op::Mul: return binary(x, y, out, n, [](float a, float b) { return a * b; });
    case Op::Div: return binary(x, y, out, n, [](float a, float b) { return a / b; });
    case Op::Pow: return binary(x, y, out, n, [](float a, float b) { return ops::pow_f32(a, b); });
    case Op::Max: return binary(x, y, out, n, ops::MaxOp{});
    case Op::Min: return binary(x, y, out, n, ops::MinOp{});
    case Op::Sqrt: return unary(x, out, n, ops::SqrtOp{});
    case Op::Erf: return unary(x, out, n, ops::ErfOp{});
    case Op::Relu: return unary(x, out, n, ops::ReluOp{});
    case Op::Sigmoid: return unary(x, out, n, ops::SigmoidOp{});
    case Op::Clip: {
      const float lo = in.p0, hi = in.p1;
      return unary(x, out, n, [lo, hi](float a) {
        const float v = a < lo ? lo : a;
        return hi < v ? hi : v;
      });
    }
    case Op::Tanh: return unary(x, out, n, ops::TanhOp{});
    case Op::Exp: return unary(x, out, n, ops::ExpOp{});
    case Op::Log: return unary(x, out, n, ops::LogOp{});
    case Op::Neg: return unary(x, out, n, ops::NegOp{});
    case Op::Abs: return unary(x, out, n, ops::AbsOp{});
    case Op::Reciprocal: return unary(x, out, n, ops::ReciprocalOp{});
    case Op::Floor: return unary(x, out, n, ops::FloorOp{});
    case Op::Ceil: return unary(x, out, n, ops::CeilOp{});
    case Op::LeakyRelu: return unary(x, out, n, ops::LeakyReluOp{in.p0});
    case Op::Elu: return unary(x, out, n, ops::EluOp{in.p0});
    case Op::Selu: return unary(x, out, n, ops::SeluOp{in.p0, in.p1});
    case Op::Celu: return unary(x, out, n, ops::CeluOp{in.p0});
    case Op::ThresholdedRelu: return unary(x, out, n, ops::ThresholdedReluOp{in.p0});
    case Op::HardSigmoid: return unary(x, out, n, ops::HardSigmoidOp{in.p0, in.p1});
    case Op::HardSwish: return unary(x, out, n, ops::HardSwishOp{});
    case Op::Softplus: return unary(x, out, n, ops::SoftplusOp{});
    case Op::Softsign: return unary(x, out, n, ops::SoftsignOp{});
  }
}

bool is_binary(Op op) { return op <= Op::Min; }

class FusedElementwiseKernel final : public Kernel {
 public:
  /// `input_numel`: elements of each input as stored (what a hoisted instruction runs over).
  FusedElementwiseKernel(std::vector<Instr> prog, std::vector<Access> access, std::vector<loops::LoopPlan> plans,
                         const std::vector<int64_t>& input_numel, int64_t numel, int threads)
      : prog_(std::move(prog)), access_(std::move(access)), plans_(std::move(plans)), numel_(numel),
        threads_(std::max(1, threads)) {
    const size_t nin = access_.size();
    // Loop-invariant hoisting: an instruction that reads one broadcast input (and scalars, and
    // instructions hoisted from that input) runs once per run() over that input's own elements
    // (a squeeze-excitation's HardSigmoid over C values, not over every pixel); its result is then
    // read through the input's plan. Same functors per element, so the same bits.
    src_.assign(prog_.size(), -1);
    for (size_t k = 0; k + 1 < prog_.size(); ++k) {  // the last instruction writes the output
      const Instr& ins = prog_[k];
      int source = -1;
      bool ok = true;
      for (int j = 0; j < (is_binary(ins.op) ? 2 : 1); ++j) {
        const int o = j == 0 ? ins.a : ins.b;
        int from = -1;
        if (static_cast<size_t>(o) < nin) {
          if (access_[o] == Access::Scalar) continue;
          if (access_[o] == Access::Gather) from = o;
        } else {
          from = src_[o - nin];
        }
        ok = ok && from >= 0 && (source < 0 || source == from);
        source = from;
      }
      if (ok && source >= 0) src_[k] = source;
    }
    // Operands ([inputs..., results...]) that an instruction evaluated per block reads.
    read_per_block_.assign(nin + prog_.size(), false);
    for (size_t k = 0; k < prog_.size(); ++k) {
      if (src_[k] >= 0) continue;
      const Instr& ins = prog_[k];
      read_per_block_[ins.a] = true;
      if (is_binary(ins.op)) read_per_block_[ins.b] = true;
    }
    hoisted_.resize(prog_.size());
    for (size_t k = 0; k < prog_.size(); ++k)
      if (src_[k] >= 0) hoisted_[k].resize(static_cast<size_t>(input_numel[src_[k]]));
    // Blocks never cross a run boundary of a broadcast input when they are cut from rows of
    // row_ = gcd of those inputs' run lengths; each such input is then a scalar or a pointer per
    // block, with no copy. A short row (e.g. gcd(7, 9)) would make tiny blocks: gather instead.
    int64_t g = 0;
    for (size_t i = 0; i < nin; ++i)
      if (access_[i] == Access::Gather) g = std::gcd(g, plans_[i].dims.back());
    row_ = g >= 256 ? g : 0;
    // Per thread: one buffer per gathered operand (input or hoisted result) and per non-final
    // instruction evaluated per block.
    size_t per_thread = 0;
    for (size_t i = 0; i < nin; ++i) per_thread += access_[i] == Access::Gather && read_per_block_[i];
    for (size_t k = 0; k + 1 < prog_.size(); ++k) per_thread += 1;
    // A block holds at most min(kBlock, numel) elements, and only outputs of kParallelMin
    // elements or more run on several threads (run()): small kernels get small, single buffers.
    scratch_.resize(numel_ >= loops::kParallelMin ? threads_ : 1);
    const size_t block = static_cast<size_t>(std::max<int64_t>(1, std::min(kBlock, numel_)));
    for (auto& sc : scratch_)
      for (size_t i = 0; i < per_thread; ++i) sc.emplace_back(block);
  }

  void run(KernelIO& io) override {
    if (numel_ == 0) return;  // an empty output (a zero dim) has no blocks
    float* y = io.outputs[0].data_as<float>();
    const float* in[kMaxOperands];  // no heap allocation in run()
    for (size_t i = 0; i < io.inputs.size(); ++i) in[i] = io.inputs[i].data_as<float>();
    const size_t nin = io.inputs.size();
    for (size_t k = 0; k < prog_.size(); ++k) {
      if (src_[k] < 0) continue;
      auto operand = [&](int o) -> Operand {
        if (static_cast<size_t>(o) < nin) return {in[o], access_[o] == Access::Scalar};
        return {hoisted_[o - nin].data(), false};
      };
      const Instr& ins = prog_[k];
      eval(ins, operand(ins.a), is_binary(ins.op) ? operand(ins.b) : Operand{nullptr, true}, hoisted_[k].data(),
           static_cast<int64_t>(hoisted_[k].size()));
    }
    const int64_t row = row_ > 0 ? row_ : numel_, per_row = (row + kBlock - 1) / kBlock;
    const int64_t blocks = numel_ / row * per_row;
    auto block = [&](int64_t b, int t) {
      const int64_t r = b / per_row, c = b % per_row;
      run_block(in, nin, y, r * row + c * kBlock, std::min(kBlock, row - c * kBlock), t);
    };
    if (threads_ > 1 && numel_ >= loops::kParallelMin) {
#pragma omp parallel for num_threads(threads_) schedule(static)
      for (int64_t b = 0; b < blocks; ++b) block(b, omp_get_thread_num());
    } else {
      for (int64_t b = 0; b < blocks; ++b) block(b, 0);
    }
  }
  /// "cpu:FusedElementwise[N]" for N instructions, "[N,hoisted=H]" when H of them run per input.
  std::string impl_name() const override {
    const auto hoisted = std::count_if(src_.begin(), src_.end(), [](int v) { return v >= 0; });
    return "cpu:FusedElementwise[" + std::to_string(prog_.size()) +
           (hoisted ? ",hoisted=" + std::to_string(hoisted) + "]" : "]");
  }

 private:
  void run_block(const float* const* in, size_t nin, float* y, int64_t b0, int64_t n, int t) {
    auto& scratch = scratch_[t];  // this thread's buffers
    Operand ops[kMaxOperands];
    size_t s = 0;
    // A broadcast operand (input i, or a result hoisted from it) for output positions [b0, b0+n).
    auto broadcast = [&](const loops::LoopPlan& p, const float* x) -> Operand {
      if (row_ > 0) {
        // The block lies inside one run of this input: constant (per-channel bias) or contiguous.
        const int64_t st = p.strides[1].back();
        if (st == 0 || st == 1) return {x + offset_of(p, b0), st == 0};
      }
      gather(p, x, b0, n, scratch[s].data());
      return {scratch[s++].data(), false};
    };
    for (size_t i = 0; i < nin; ++i) {
      switch (access_[i]) {
        case Access::Direct: ops[i] = {in[i] + b0, false}; break;
        case Access::Scalar: ops[i] = {in[i], true}; break;
        case Access::Gather:
          // An input only hoisted instructions read is not gathered (nor read) per block.
          ops[i] = read_per_block_[i] ? broadcast(plans_[i], in[i]) : Operand{nullptr, true};
          break;
      }
    }
    for (size_t k = 0; k < prog_.size(); ++k) {
      if (src_[k] >= 0) {
        // Gathered only when an instruction evaluated per block reads it (hoisted ones read
        // hoisted_ itself in run()).
        const bool read = read_per_block_[nin + k];
        ops[nin + k] = read ? broadcast(plans_[src_[k]], hoisted_[k].data()) : Operand{nullptr, true};
        continue;
      }
      float* out = k + 1 == prog_.size() ? y + b0 : scratch[s++].data();
      const Instr& ins = prog_[k];
      eval(ins, ops[ins.a], ops[ins.b], out, n);
      ops[nin + k] = {out, false};
    }
  }

  /// Element offset in the input of output position b0.
  static int64_t offset_of(const loops::LoopPlan& p, int64_t b0) {
    int64_t off = 0;
    for (int d = static_cast<int>(p.dims.size()) - 1; d >= 0; --d) {
      off += (b0 % p.dims[d]) * p.strides[1][d];
      b0 /= p.dims[d];
    }
    return off;
  }

  /// dst[k] = row[(phase + k) % period] for k < len: the first period copied, then the filled
  /// span copied onto its end until len.
  static void fill_periodic(float* dst, const float* row, int64_t period, int64_t phase, int64_t len) {
    const int64_t first = std::min(period - phase, len);
    std::memcpy(dst, row + phase, static_cast<size_t>(first) * sizeof(float));
    float* d = dst + first;
    const int64_t rest = len - first;
    if (rest <= 0) return;
    int64_t have = std::min(period, rest);
    std::memcpy(d, row, static_cast<size_t>(have) * sizeof(float));
    while (have < rest) {
      const int64_t c = std::min(have, rest - have);
      std::memcpy(d + have, d, static_cast<size_t>(c) * sizeof(float));
      have += c;
    }
  }

  /// Copies output positions [b0, b0+n) of a broadcast input: the plan's operand 1 strides are
  /// the input's (0 on broadcast axes); one index division per block, then runs along the row.
  static void gather(const loops::LoopPlan& p, const float* x, int64_t b0, int64_t n, float* dst) {
    const int nd = static_cast<int>(p.dims.size());
    int64_t idx[16], off = 0, r = b0;
    for (int d = nd - 1; d >= 0; --d) {
      idx[d] = r % p.dims[d];
      r /= p.dims[d];
      off += idx[d] * p.strides[1][d];
    }
    const int64_t inner = p.dims[nd - 1], st = p.strides[1][nd - 1];
    // A contiguous row repeated along the axis before it (stride 0: an NC1HWC0 channel vector
    // [C1, 1, 1, C0] over [C1, H, W, C0]): all the repeats at once, doubling the copied span.
    const bool repeats = nd >= 2 && st == 1 && p.strides[1][nd - 2] == 0;
    for (int64_t done = 0; done < n;) {
      if (repeats) {
        const int64_t phase = idx[nd - 1];
        const int64_t len = std::min((p.dims[nd - 2] - idx[nd - 2]) * inner - phase, n - done);
        fill_periodic(dst + done, x + off - phase, inner, phase, len);
        done += len;
        off -= phase;  // to the start of the next row of axis nd - 3 (axis nd - 2 has stride 0)
        idx[nd - 1] = idx[nd - 2] = 0;
        for (int d = nd - 3; d >= 0; --d) {
          off += p.strides[1][d];
          if (++idx[d] < p.dims[d]) break;
          off -= p.strides[1][d] * p.dims[d];
          idx[d] = 0;
        }
        continue;
      }
      const int64_t len = std::min(inner - idx[nd - 1], n - done);
      if (st == 0) {
        std::fill(dst + done, dst + done + len, x[off]);
      } else if (st == 1) {
        std::memcpy(dst + done, x + off, len * sizeof(float));
      } else {
        for (int64_t k = 0; k < len; ++k) dst[done + k] = x[off + k * st];
      }
      done += len;
      // Advance to the next row start (odometer over the outer axes).
      off -= idx[nd - 1] * st;
      idx[nd - 1] = 0;
      for (int d = nd - 2; d >= 0; --d) {
        off += p.strides[1][d];
        if (++idx[d] < p.dims[d]) break;
        off -= p.strides[1][d] * p.dims[d];
        idx[d] = 0;
      }
    }
  }

  std::vector<Instr> prog_;
  std::vector<Access> access_;
  std::vector<loops::LoopPlan> plans_;
  int64_t numel_;
  int64_t row_ = 0;  // 0: blocks cut from the flat output, broadcast inputs gathered
  int threads_;
  std::vector<int> src_;                   // per instruction: the broadcast input it is hoisted to, or -1
  std::vector<bool> read_per_block_;       // per operand: read by an instruction evaluated per block
  std::vector<std::vector<float>> hoisted_;  // per hoisted instruction: its result over its input
  std::vector<std::vector<std::vector<float>>> scratch_;
};

std::unique_ptr<Kernel> make_fused_elementwise(const KernelBuildContext& ctx) {
  const Node& node = ctx.node;
  const std::string what = node.describe();
  const auto* ops_attr = node.attrs.find("ops");
  if (!ops_attr || !std::holds_alternative<std::vector<std::string>>(*ops_attr))
    throw InvalidGraphError(what + ": needs a strings attribute 'ops'");
  const auto& names = std::get<std::vector<std::string>>(*ops_attr);
  const std::vector<int64_t> args = node.attrs.get_ints("args");
  const std::vector<float> imms = node.attrs.get_floats("imms");
  const size_t nin = node.num_inputs();
  if (nin + names.size() > kMaxOperands) throw UnsupportedError(what + ": program too large (over 256 operands)");
  // op name -> (op, operand count, immediates consumed from `imms`)
  struct Form {
    Op op;
    int operands, imms;
  };
  static const std::map<std::string, Form> table = {
      {"Add", {Op::Add, 2, 0}},
      {"Sub", {Op::Sub, 2, 0}},
      {"Mul", {Op::Mul, 2, 0}},
      {"Div", {Op::Div, 2, 0}},
      {"Pow", {Op::Pow, 2, 0}},
      {"Max", {Op::Max, 2, 0}},
      {"Min", {Op::Min, 2, 0}},
      {"Sqrt", {Op::Sqrt, 1, 0}},
      {"Erf", {Op::Erf, 1, 0}},
      {"Relu", {Op::Relu, 1, 0}},
      {"Sigmoid", {Op::Sigmoid, 1, 0}},
      {"Clip", {Op::Clip, 1, 2}},
      {"Tanh", {Op::Tanh, 1, 0}},
      {"Exp", {Op::Exp, 1, 0}},
      {"Log", {Op::Log, 1, 0}},
      {"Neg", {Op::Neg, 1, 0}},
      {"Abs", {Op::Abs, 1, 0}},
      {"Reciprocal", {Op::Reciprocal, 1, 0}},
      {"Floor", {Op::Floor, 1, 0}},
      {"Ceil", {Op::Ceil, 1, 0}},
      {"LeakyRelu", {Op::LeakyRelu, 1, 1}},
      {"Elu", {Op::Elu, 1, 1}},
      {"Selu", {Op::Selu, 1, 2}},
      {"Celu", {Op::Celu, 1, 1}},
      {"ThresholdedRelu", {Op::ThresholdedRelu, 1, 1}},
      {"HardSigmoid", {Op::HardSigmoid, 1, 2}},
      {"HardSwish", {Op::HardSwish, 1, 0}},
      {"Softplus", {Op::Softplus, 1, 0}},
      {"Softsign", {Op::Softsign, 1, 0}},
  };
  std::vector<Instr> prog;
  size_t a = 0, c = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = table.find(names[i]);
    if (it == table.end()) throw UnsupportedError(what + ": op '" + names[i] + "' in the program");
    const Form& f = it->second;
    Instr ins{f.op};
    int* slots[2] = {&ins.a, &ins.b};
    for (int k = 0; k < f.operands; ++k, ++a) {
      if (a >= args.size() || args[a] < 0 || args[a] >= static_cast<int64_t>(nin + i))
        throw InvalidGraphError(what + ": bad operand in instruction " + std::to_string(i));
      *slots[k] = static_cast<int>(args[a]);
    }
    if (c + f.imms > imms.size()) throw InvalidGraphError(what + ": imms too short for " + names[i]);
    if (f.imms > 0) ins.p0 = imms[c++];
    if (f.imms > 1) ins.p1 = imms[c++];
    prog.push_back(ins);
  }
  if (prog.empty()) throw InvalidGraphError(what + ": empty program");
  const Shape& out = ctx.output_shape(0);
  if (ctx.output_type(0) != DataType::Float32) unsupported_dtype("FusedElementwise", ctx.output_type(0));
  std::vector<Access> access;
  std::vector<loops::LoopPlan> plans;
  for (size_t i = 0; i < nin; ++i) {
    if (ctx.input_type(i) != DataType::Float32) unsupported_dtype("FusedElementwise", ctx.input_type(i));
    const Shape& s = ctx.input_shape(i);
    plans.push_back(loops::broadcast_plan(out, {s}, what));
    if (s.numel() == 1) access.push_back(Access::Scalar);
    else if (s.numel() == out.numel()) access.push_back(Access::Direct);  // broadcast-free: same layout
    else access.push_back(Access::Gather);
    if (plans.back().dims.size() > 16) throw UnsupportedError(what + ": rank above 16");
  }
  if (ctx.node.output(0)->format == Format::NC1HWC0) {
    // Operands of the output's shape share NC1HWC0's element order: the program runs over the
    // stored elements, padding included, which make_blocked_map sets back to zero afterwards.
    if (!fused_elementwise_supports_blocked(ctx.node))
      throw UnsupportedError(what + ": NC1HWC0 needs tensor inputs of the output's rank-4 shape or broadcast to it "
                                    "along N, H and W");
    // An operand broadcast along N, H and W ([N', C, 1, 1]) is read through the plan of its
    // storage shape [N', C1, 1, 1, C0] against the output's [N, C1, H, W, C0].
    const Shape stored_out(format_storage_dims(out.dims(), Format::NC1HWC0));
    for (size_t i = 0; i < nin; ++i)
      if (access[i] == Access::Gather) {
        const Shape stored_in(format_storage_dims(ctx.input_shape(i).dims(), Format::NC1HWC0));
        plans[i] = loops::broadcast_plan(stored_out, {stored_in}, what);
      }
    std::vector<int64_t> stored_in;
    for (size_t i = 0; i < nin; ++i)
      stored_in.push_back(format_storage_numel(ctx.input_shape(i).dims(), Format::NC1HWC0));
    return make_blocked_map(ctx, std::make_unique<FusedElementwiseKernel>(std::move(prog), std::move(access),
                                                                          std::move(plans), stored_in,
                                                                          stored_out.numel(), ctx.threads));
  }
  std::vector<int64_t> input_numel;
  for (size_t i = 0; i < nin; ++i) input_numel.push_back(ctx.input_shape(i).numel());
  return std::make_unique<FusedElementwiseKernel>(std::move(prog), std::move(access), std::move(plans), input_numel,
                                                  out.numel(), ctx.threads);
}

}  // namespace

void register_fused_elementwise_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "ge", "FusedElementwise", make_fused_elementwise, ""});
}

}  // namespace ge::cpu
