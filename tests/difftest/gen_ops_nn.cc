// tests/difftest/gen_ops_nn.cc — op families of the generator: Conv, ConvTranspose, pools,
// MatMul, Gemm, normalizations, and the source patterns of GE's fusion and simplify rules
// (plugins/fusion/*.cc: conv_bn, conv_bias_act, conv_add_act, matmul_add, gemm_act, gelu,
// bias_gelu, layer_norm, add_layernorm, attention, squeeze_excitation, split_concat, merge_transposes,
// merge_reshapes, remove_noop, CSE), so that random graphs reach the rewrites and their legality
// checks, not only the kernels. Weights are uniform with variance 1/fan-in (He et al. 2015's
// scaling without the factor 2), which keeps activations near unit magnitude through a chain.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "gen_builder.h"

namespace ge::difftest {
namespace {

/// Uniform weights of variance 1/fan_in: U(-a, a) has variance a²/3.
Tensor weights(Builder& b, Shape s, int64_t fan_in) {
  const double a = std::sqrt(3.0 / static_cast<double>(std::max<int64_t>(1, fan_in)));
  return b.uniform(std::move(s), -a, a);
}

const Slot* rank_slot(Builder& b, size_t lo, size_t hi) {
  return b.pick_float([&](const Slot& s) { return s.v->shape.rank() >= lo && s.v->shape.rank() <= hi; });
}

Tensor channel_vec(Builder& b, int64_t c, double lo, double hi) { return b.uniform(Shape{c}, lo, hi); }

/// Conv (or ConvTranspose) of x with random valid attributes; the output value or nullptr.
Value* conv_node(Builder& b, const Slot& x, bool transpose, bool allow_auto_pad = true) {
  const Shape& sh = x.v->shape;
  const size_t sp = sh.rank() - 2;
  const int64_t c = sh[1];
  std::vector<int64_t> divs;
  for (int64_t g = 1; g <= c; ++g)
    if (c % g == 0) divs.push_back(g);
  const int64_t group = b.rng.coin(0.6) ? 1 : b.rng.coin(0.5) ? c : b.rng.pick(divs);
  const int64_t mult = group == c && b.rng.coin(0.6) ? 1 : b.rng.uni(1, std::max<int64_t>(1, 24 / group));
  const int64_t m = group * std::min<int64_t>(mult, 32);
  std::vector<int64_t> k, strides, dil, pads(2 * sp, 0), outpad;
  bool any_dil = b.rng.coin(0.15), any_stride = b.rng.coin(0.35);
  for (size_t i = 0; i < sp; ++i) {
    k.push_back(b.rng.pick(std::vector<int64_t>{1, 3, 3, 2, 5}));
    strides.push_back(any_stride ? b.rng.uni(1, 3) : 1);
    dil.push_back(any_dil ? b.rng.uni(1, 2) : 1);
    pads[i] = b.rng.uni(0, k[i] - 1);
    pads[i + sp] = b.rng.coin(0.7) ? pads[i] : b.rng.uni(0, k[i] - 1);
    outpad.push_back(transpose && b.rng.coin(0.3) ? b.rng.uni(0, std::max(strides[i], dil[i]) - 1) : 0);
  }
  Attributes a;
  a.set("kernel_shape", k);
  if (any_stride || b.rng.coin(0.3)) a.set("strides", strides);
  if (any_dil) a.set("dilations", dil);
  if (group > 1 || b.rng.coin(0.2)) a.set("group", group);
  const int pad_form = allow_auto_pad ? static_cast<int>(b.rng.uni(0, 9)) : 0;
  if (pad_form == 8) a.set("auto_pad", std::string(b.rng.coin(0.5) ? "SAME_UPPER" : "SAME_LOWER"));
  else if (pad_form == 9) a.set("auto_pad", std::string("VALID"));
  else if (pad_form > 2) a.set("pads", pads);
  if (transpose && std::any_of(outpad.begin(), outpad.end(), [](int64_t v) { return v > 0; })) a.set("output_padding", outpad);
  const int64_t ksize = std::accumulate(k.begin(), k.end(), int64_t{1}, std::multiplies<>());
  std::vector<int64_t> wd = transpose ? std::vector<int64_t>{c, m / group} : std::vector<int64_t>{m, c / group};
  wd.insert(wd.end(), k.begin(), k.end());
  std::vector<Operand> in = {Operand::of(x.v), Operand::konst(weights(b, Shape(wd), (c / group) * ksize))};
  if (b.rng.coin(0.6)) in.push_back(Operand::konst(channel_vec(b, m, -0.3, 0.3)));
  auto out = b.emit(transpose ? "ConvTranspose" : "Conv", in, a);
  return out.empty() ? nullptr : out[0];
}

bool conv(Builder& b) {
  const Slot* s = rank_slot(b, 3, 4);
  if (!s) return false;
  Slot x = *s;
  Value* y = conv_node(b, x, false);
  if (!y) return false;
  b.push(y, false, x.mag + 0.3);
  return true;
}

bool conv_transpose(Builder& b) {
  const Slot* s = rank_slot(b, 3, 4);
  if (!s) return false;
  Slot x = *s;
  Value* y = conv_node(b, x, true);
  if (!y) return false;
  b.push(y, false, x.mag * 2 + 0.3);
  return true;
}

bool pool(Builder& b) {
  const Slot* s = rank_slot(b, 3, 4);
  if (!s) return false;
  Slot x = *s;
  const size_t sp = x.v->shape.rank() - 2;
  const int k = static_cast<int>(b.rng.uni(0, 9));
  Attributes a;
  if (k >= 7) {
    const std::string op = k == 7 ? "GlobalAveragePool" : k == 8 ? "GlobalMaxPool" : "GlobalLpPool";
    if (!b.has(op)) return false;
    auto out = b.emit(op, {Operand::of(x.v)}, a);
    if (out.empty()) return false;
    b.push(out[0], op == "GlobalMaxPool" && x.exact, x.mag * (op == "GlobalLpPool" ? 8 : 1));
    return true;
  }
  const std::string op = k <= 3 ? "MaxPool" : k <= 5 ? "AveragePool" : "LpPool";
  if (!b.has(op)) return false;
  std::vector<int64_t> ks, st, pads(2 * sp, 0), dil;
  const bool strided = b.rng.coin(0.6), dilated = op == "MaxPool" && b.rng.coin(0.15);
  for (size_t i = 0; i < sp; ++i) {
    ks.push_back(b.rng.uni(1, 3));
    st.push_back(strided ? b.rng.uni(1, 3) : 1);
    dil.push_back(dilated ? 2 : 1);
    pads[i] = b.rng.uni(0, ks[i] - 1);
    pads[i + sp] = b.rng.uni(0, ks[i] - 1);
  }
  a.set("kernel_shape", ks);
  if (strided) a.set("strides", st);
  if (dilated) a.set("dilations", dil);
  if (b.rng.coin(0.5)) a.set("pads", pads);
  if (op != "LpPool" && b.rng.coin(0.25)) a.set("ceil_mode", int64_t{1});
  if (op == "AveragePool" && b.rng.coin(0.4)) a.set("count_include_pad", int64_t{1});
  if (op == "LpPool") a.set("p", int64_t{2});
  if (b.rng.coin(0.1)) a.set("auto_pad", std::string("SAME_UPPER"));
  if (a.has("auto_pad")) a.erase("pads");
  if (a.has("auto_pad")) a.erase("ceil_mode");
  auto out = b.emit(op, {Operand::of(x.v)}, a);
  if (out.empty()) return false;
  b.push(out[0], op == "MaxPool" && x.exact, x.mag * (op == "LpPool" ? 3 : 1));
  return true;
}

/// MatMul of x with a constant weight, a batched constant, another pool value, or x's own transpose.
Value* matmul_node(Builder& b, const Slot& x, double& mag, bool const_2d_only = false) {
  const Shape& sh = x.v->shape;
  const int64_t k = sh[sh.rank() - 1];
  const int form = const_2d_only ? 0 : static_cast<int>(b.rng.uni(0, 5));
  Operand w = Operand::none();
  mag = x.mag + 0.1;
  if (form <= 2) {
    const int64_t n = b.rng.uni(1, 24);
    w = Operand::konst(weights(b, Shape{k, n}, k));
  } else if (form == 3) {
    if (sh.rank() < 2) return nullptr;
    std::vector<int64_t> d(sh.dims().begin(), sh.dims().end() - 2);
    if (!d.empty() && b.rng.coin(0.5)) d[0] = 1;
    d.push_back(k);
    d.push_back(b.rng.uni(1, 12));
    w = Operand::konst(weights(b, Shape(d), k));
  } else if (form == 4) {
    const Slot* y = b.pick_float([&](const Slot& s) { return s.v->shape.rank() >= 2 && s.v->shape[s.v->shape.rank() - 2] == k; });
    if (!y) return nullptr;
    w = Operand::of(y->v);
    mag = x.mag * y->mag * std::sqrt(static_cast<double>(k));
  } else {  // x · xᵀ over the last two dims
    if (sh.rank() < 2) return nullptr;
    std::vector<int64_t> perm(sh.rank());
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    Attributes a;
    a.set("perm", perm);
    auto t = b.emit("Transpose", {Operand::of(x.v)}, a);
    if (t.empty()) return nullptr;
    w = Operand::of(t[0]);
    mag = x.mag * x.mag * std::sqrt(static_cast<double>(k));
  }
  auto out = b.emit("MatMul", {Operand::of(x.v), w});
  return out.empty() ? nullptr : out[0];
}

bool matmul(Builder& b) {
  const Slot* s = rank_slot(b, 1, 4);
  if (!s) return false;
  Slot x = *s;
  double mag;
  Value* y = matmul_node(b, x, mag);
  if (!y) return false;
  b.push(y, false, mag);
  return true;
}

bool gemm(Builder& b) {
  const Slot* s = rank_slot(b, 2, 2);
  if (!s) return false;
  Slot x = *s;
  const bool ta = b.rng.coin(0.3), tb = b.rng.coin(0.4);
  const int64_t m = x.v->shape[ta ? 1 : 0], k = x.v->shape[ta ? 0 : 1], n = b.rng.uni(1, 24);
  Attributes a;
  if (ta) a.set("transA", int64_t{1});
  if (tb) a.set("transB", int64_t{1});
  if (b.rng.coin(0.3)) a.set("alpha", 0.5f);
  if (b.rng.coin(0.3)) a.set("beta", 2.0f);
  std::vector<Operand> in = {Operand::of(x.v), Operand::konst(weights(b, tb ? Shape{n, k} : Shape{k, n}, k))};
  const int cf = static_cast<int>(b.rng.uni(0, 5));
  const std::vector<Shape> cshapes = {Shape{n}, Shape{1, n}, Shape{m, n}, Shape{m, 1}, Shape{}};
  if (cf < 5) in.push_back(Operand::konst(b.uniform(cshapes[static_cast<size_t>(cf)], -0.5, 0.5)));
  auto out = b.emit("Gemm", in, a);
  if (out.empty()) return false;
  b.push(out[0], false, x.mag * 2 + 1);
  return true;
}

bool batchnorm(Builder& b) {
  const Slot* s = rank_slot(b, 2, 4);
  if (!s) return false;
  Slot x = *s;
  const int64_t c = x.v->shape[1];
  Attributes a;
  if (b.rng.coin(0.5)) a.set("epsilon", b.rng.coin(0.5) ? 1e-3f : 1e-5f);
  if (b.has("InstanceNormalization") && x.v->shape.rank() >= 3 && b.rng.coin(0.25)) {
    auto out = b.emit("InstanceNormalization", {Operand::of(x.v), Operand::konst(channel_vec(b, c, 0.5, 1.5)),
                                                Operand::konst(channel_vec(b, c, -0.5, 0.5))}, a);
    if (out.empty()) return false;
    b.push(out[0], false, 4);
    return true;
  }
  auto out = b.emit("BatchNormalization",
                    {Operand::of(x.v), Operand::konst(channel_vec(b, c, 0.5, 1.5)), Operand::konst(channel_vec(b, c, -0.5, 0.5)),
                     Operand::konst(channel_vec(b, c, -0.5, 0.5)), Operand::konst(channel_vec(b, c, 0.5, 1.5))},
                    a);
  if (out.empty()) return false;
  b.push(out[0], false, x.mag * 2 + 1);
  return true;
}

bool layernorm(Builder& b) {
  if (b.opset() < 17) return false;
  const Slot* s = rank_slot(b, 1, 4);
  if (!s) return false;
  Slot x = *s;
  const int64_t r = static_cast<int64_t>(x.v->shape.rank());
  const int64_t axis = b.rng.coin(0.6) ? -1 : b.rng.uni(-r, r - 1);
  const int64_t na = axis < 0 ? axis + r : axis;
  std::vector<int64_t> nd(x.v->shape.dims().begin() + na, x.v->shape.dims().end());
  Attributes a;
  a.set("axis", axis);
  if (b.rng.coin(0.4)) a.set("epsilon", 1e-3f);
  std::vector<Operand> in = {Operand::of(x.v), Operand::konst(b.uniform(Shape(nd), 0.5, 1.5))};
  if (b.rng.coin(0.7)) in.push_back(Operand::konst(b.uniform(Shape(nd), -0.5, 0.5)));
  auto out = b.emit("LayerNormalization", in, a);
  if (out.empty()) return false;
  b.push(out[0], false, 4);
  return true;
}

bool lrn(Builder& b) {
  const Slot* s = rank_slot(b, 4, 4);
  if (!s) return false;
  Slot x = *s;
  Attributes a;
  a.set("size", b.rng.pick(std::vector<int64_t>{1, 3, 5}));
  if (b.rng.coin(0.5)) a.set("alpha", 0.01f);
  auto out = b.emit("LRN", {Operand::of(x.v)}, a);
  if (out.empty()) return false;
  b.push(out[0], false, x.mag);
  return true;
}

// ---- the fusion rules' source patterns

Value* activation(Builder& b, Value* y, double& mag) {
  const int k = static_cast<int>(b.rng.uni(0, 4));
  if (k == 0) return y;
  if (k == 3) {
    auto c = b.emit("Clip", {Operand::of(y), Operand::konst(b.scalar_f(0)), Operand::konst(b.scalar_f(6))});
    return c.empty() ? y : c[0];
  }
  auto a = b.emit(k == 1 || k == 4 ? "Relu" : "Sigmoid", {Operand::of(y)});
  if (k == 2) mag = 1;
  return a.empty() ? y : a[0];
}

/// Conv → BatchNormalization [→ act] (conv_bn, then conv_bias_act).
bool conv_bn_act(Builder& b) {
  const Slot* s = rank_slot(b, 4, 4);
  if (!s) return false;
  Slot x = *s;
  Value* y = conv_node(b, x, false, false);
  if (!y) return false;
  const int64_t m = y->shape[1];
  auto bn = b.emit("BatchNormalization", {Operand::of(y), Operand::konst(channel_vec(b, m, 0.5, 1.5)),
                                          Operand::konst(channel_vec(b, m, -0.5, 0.5)), Operand::konst(channel_vec(b, m, -0.5, 0.5)),
                                          Operand::konst(channel_vec(b, m, 0.5, 1.5))});
  if (bn.empty()) return false;
  double mag = x.mag * 2 + 1;
  b.push(activation(b, bn[0], mag), false, mag);
  return true;
}

/// Conv → Add(per-channel constant | residual) [→ act] (conv_bias_act, conv_add_act).
bool conv_add_act(Builder& b) {
  const Slot* s = rank_slot(b, 4, 4);
  if (!s) return false;
  Slot x = *s;
  Value* y = conv_node(b, x, false, false);
  if (!y) return false;
  Operand z = Operand::none();
  const int form = static_cast<int>(b.rng.uni(0, 3));
  if (form == 0) z = Operand::konst(b.uniform(Shape{1, y->shape[1], 1, 1}, -0.3, 0.3));
  else if (form == 1) z = Operand::konst(b.uniform(Shape{y->shape[1], 1, 1}, -0.3, 0.3));
  else if (y->shape == x.v->shape) z = Operand::of(x.v);
  else z = Operand::input(DataType::Float32, y->shape);
  std::vector<Operand> in = {Operand::of(y), z};
  if (b.rng.coin(0.3)) std::swap(in[0], in[1]);
  auto add = b.emit("Add", in);
  if (add.empty()) return false;
  double mag = x.mag * 2 + 1;
  b.push(activation(b, add[0], mag), false, mag);
  return true;
}

/// A squeeze-and-excitation block: GlobalAveragePool → 1×1 Conv → Relu → 1×1 Conv →
/// Sigmoid | HardSigmoid → Mul with the input (conv_bias_act, squeeze_excitation, elementwise_chain).
bool squeeze_excitation(Builder& b) {
  const Slot* s = rank_slot(b, 4, 4);
  if (!s) return false;
  Slot x = *s;
  const int64_t c = x.v->shape[1], r = std::max<int64_t>(1, c / 4);
  auto pool = b.emit("GlobalAveragePool", {Operand::of(x.v)});
  if (pool.empty()) return false;
  auto fc1 = b.emit("Conv", {Operand::of(pool[0]), Operand::konst(b.uniform(Shape{r, c, 1, 1}, -0.5, 0.5)),
                             Operand::konst(b.uniform(Shape{r}, -0.2, 0.2))});
  if (fc1.empty()) return false;
  auto act = b.emit("Relu", {Operand::of(fc1[0])});
  if (act.empty()) return false;
  auto fc2 = b.emit("Conv", {Operand::of(act[0]), Operand::konst(b.uniform(Shape{c, r, 1, 1}, -0.5, 0.5)),
                             Operand::konst(b.uniform(Shape{c}, -0.2, 0.2))});
  if (fc2.empty()) return false;
  auto gate = b.emit(b.rng.coin(0.5) ? "Sigmoid" : "HardSigmoid", {Operand::of(fc2[0])});
  if (gate.empty()) return false;
  auto y = b.emit("Mul", {Operand::of(x.v), Operand::of(gate[0])});
  if (y.empty()) return false;
  b.push(y[0], false, x.mag);
  return true;
}

/// GELU in one of its exported erf forms (gelu rule shapes A, B, C).
Value* gelu_erf(Builder& b, Value* x0) {
  // |x| <= 3: below that, 1 + erf(x/√2) cancels to a few ulps of fp32 and the unfused reference
  // itself is off by percents — a fused kernel's exact Φ(x) then "disagrees" with it.
  Value* x = b.bounded(x0, 3);
  if (!x) return nullptr;
  const bool div = b.rng.coin(0.5);
  auto sc = b.emit(div ? "Div" : "Mul", {Operand::of(x), Operand::konst(b.scalar_f(div ? 1.4142135f : 0.70710677f))});
  if (sc.empty()) return nullptr;
  auto e = b.emit("Erf", {Operand::of(sc[0])});
  if (e.empty()) return nullptr;
  auto p = b.emit("Add", {Operand::of(e[0]), Operand::konst(b.scalar_f(1.0f))});
  if (p.empty()) return nullptr;
  const int form = static_cast<int>(b.rng.uni(0, 2));
  std::vector<Value*> r;
  if (form == 0) {
    auto m = b.emit("Mul", {Operand::of(x), Operand::of(p[0])});
    if (m.empty()) return nullptr;
    r = b.emit("Mul", {Operand::of(m[0]), Operand::konst(b.scalar_f(0.5f))});
  } else if (form == 1) {
    auto h = b.emit("Mul", {Operand::of(p[0]), Operand::konst(b.scalar_f(0.5f))});
    if (h.empty()) return nullptr;
    r = b.emit("Mul", {Operand::of(x), Operand::of(h[0])});
  } else {
    auto h = b.emit("Mul", {Operand::of(x), Operand::konst(b.scalar_f(0.5f))});
    if (h.empty()) return nullptr;
    r = b.emit("Mul", {Operand::of(h[0]), Operand::of(p[0])});
  }
  return r.empty() ? nullptr : r[0];
}

/// MatMul(x, W) → Add(bias) [→ Relu | LeakyRelu | Tanh | HardSwish | Elu | Sigmoid | Swish | GELU]
/// (matmul_add, gemm_act, gelu, bias_gelu).
bool matmul_add_act(Builder& b) {
  const Slot* s = rank_slot(b, 2, 3);
  if (!s) return false;
  Slot x = *s;
  double mag;
  Value* y = matmul_node(b, x, mag, true);
  if (!y) return false;
  const int64_t n = y->shape[y->shape.rank() - 1];
  auto add = b.emit("Add", {Operand::of(y), Operand::konst(b.uniform(b.rng.coin(0.8) ? Shape{n} : Shape{1, n}, -0.3, 0.3))});
  if (add.empty()) return false;
  Value* out = add[0];
  const int act = static_cast<int>(b.rng.uni(0, 3));
  if (act == 1) {  // the exact ones (also fused under strict numerics) and the transcendental ones
    const std::string op = b.rng.pick(std::vector<std::string>{"Relu", "LeakyRelu", "Tanh", "HardSwish", "Elu"});
    Attributes at;
    if (op == "LeakyRelu" || op == "Elu") at.set("alpha", op == "Elu" ? 0.7f : 0.1f);
    auto a = b.emit(op, {Operand::of(out)}, at);
    if (!a.empty()) out = a[0];
  }
  if (act == 2) {
    auto a = b.emit("Sigmoid", {Operand::of(out)});
    if (!a.empty() && b.rng.coin(0.5)) a = b.emit("Mul", {Operand::of(a[0]), Operand::of(out)});  // Swish
    if (!a.empty()) out = a[0];
  }
  if (act == 3) {
    Value* g = gelu_erf(b, out);
    if (g) out = g;
  }
  b.push(out, false, mag + 0.5);
  return true;
}

bool gelu(Builder& b) {
  const Slot* s = b.pick_float();
  if (!s) return false;
  Slot x = *s;
  Value* y = x.v;
  if (b.rng.coin(0.4) && y->shape.rank() > 0) {  // a bias before it (bias_gelu)
    auto a = b.emit("Add", {Operand::of(y), Operand::konst(b.uniform(Shape{y->shape[y->shape.rank() - 1]}, -0.3, 0.3))});
    if (!a.empty()) y = a[0];
  }
  Value* g = gelu_erf(b, y);
  if (!g) return false;
  b.push(g, false, x.mag + 0.3);
  return true;
}

/// The decomposed LayerNorm over the last axis [after an Add] (layer_norm, add_layernorm).
bool layer_norm_decomposed(Builder& b) {
  const Slot* s = rank_slot(b, 2, 4);
  if (!s) return false;
  Slot xs = *s;
  Value* x = xs.v;
  if (b.rng.coin(0.4)) {
    const Slot* y = b.pick_float([&](const Slot& t) { return t.v->shape == x->shape && t.v != x; });
    auto a = b.emit("Add", {Operand::of(x), y ? Operand::of(y->v) : Operand::input(DataType::Float32, x->shape)});
    if (!a.empty()) x = a[0];
  }
  const int64_t d = x->shape[x->shape.rank() - 1];
  Attributes ax;
  ax.set("axes", std::vector<int64_t>{-1});
  auto mean = b.emit("ReduceMean", {Operand::of(x)}, ax);
  if (mean.empty()) return false;
  auto diff = b.emit("Sub", {Operand::of(x), Operand::of(mean[0])});
  if (diff.empty()) return false;
  auto sq = b.emit("Pow", {Operand::of(diff[0]), Operand::konst(b.scalar_f(2.0f))});
  if (sq.empty()) return false;
  auto var = b.emit("ReduceMean", {Operand::of(sq[0])}, ax);
  if (var.empty()) return false;
  auto ve = b.emit("Add", {Operand::of(var[0]), Operand::konst(b.scalar_f(1e-5f))});
  if (ve.empty()) return false;
  auto sd = b.emit("Sqrt", {Operand::of(ve[0])});
  if (sd.empty()) return false;
  auto n = b.emit("Div", {Operand::of(diff[0]), Operand::of(sd[0])});
  if (n.empty()) return false;
  auto g = b.emit("Mul", {Operand::of(n[0]), Operand::konst(b.uniform(Shape{d}, 0.5, 1.5))});
  if (g.empty()) return false;
  auto y = b.emit("Add", {Operand::of(g[0]), Operand::konst(b.uniform(Shape{d}, -0.5, 0.5))});
  if (y.empty()) return false;
  b.push(y[0], false, 4);
  return true;
}

/// MatMul(Q, Kᵀ) → scale → [Add mask | Where(cond, fill, ·)] → Softmax(-1) → MatMul(·, V)
/// (attention), with the scale on the scores, on Q before the product (ViT's export), or none
/// (T5's).
bool attention(Builder& b) {
  const Slot* s = rank_slot(b, 3, 4);
  if (!s) return false;
  Slot x = *s;
  const Shape& sh = x.v->shape;
  const size_t r = sh.rank();
  std::vector<int64_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[r - 1], perm[r - 2]);
  Attributes pa;
  pa.set("perm", perm);
  const Slot* ks = b.pick_float([&](const Slot& t) { return t.v->shape == sh; });
  auto kt = b.emit("Transpose", {Operand::of(ks ? ks->v : x.v)}, pa);
  if (kt.empty()) return false;
  const double d = static_cast<double>(sh[r - 1]);
  const bool div = b.rng.coin(0.5);
  auto scale_of = [&](Value* v) {
    return b.emit(div ? "Div" : "Mul", {Operand::of(v), Operand::konst(b.scalar_f(static_cast<float>(div ? std::sqrt(d) : 1 / std::sqrt(d))))});
  };
  const int where_scale = static_cast<int>(b.rng.uni(0, 2));  // 0: scores, 1: Q, 2: none
  Value* q = x.v;
  if (where_scale == 1) {
    auto qs = scale_of(q);
    if (qs.empty()) return false;
    q = qs[0];
  }
  auto qk = b.emit("MatMul", {Operand::of(q), Operand::of(kt[0])});
  if (qk.empty()) return false;
  Value* logits = qk[0];
  if (where_scale == 0) {
    auto sc = scale_of(logits);
    if (sc.empty()) return false;
    logits = sc[0];
  }
  const int64_t sq = sh[r - 2];
  const int mask = static_cast<int>(b.rng.uni(0, 2));  // 0: none, 1: Add, 2: Where
  if (mask == 1) {
    auto m = b.emit("Add", {Operand::of(logits), Operand::konst(b.uniform(b.rng.coin(0.5) ? Shape{sq, sq} : Shape{1, 1, sq, sq}, -1, 0))});
    if (!m.empty()) logits = m[0];
  } else if (mask == 2) {  // GPT-2's causal mask, key after query → -10000 (finfo.min would meet
                           // the ascend-fp16 configuration's documented overflow refusal)
    Tensor cond = Tensor::allocate(DataType::Bool, Shape{sq, sq});
    for (int64_t i = 0; i < sq; ++i)
      for (int64_t j = 0; j < sq; ++j) cond.data_as<bool>()[i * sq + j] = j > i;
    auto w = b.emit("Where", {Operand::konst(cond), Operand::konst(b.scalar_f(-10000.f)), Operand::of(logits)});
    if (!w.empty()) logits = w[0];
  }
  Attributes sa;
  sa.set("axis", int64_t{-1});
  auto sm = b.emit("Softmax", {Operand::of(logits)}, sa);
  if (sm.empty()) return false;
  const Slot* vs = b.pick_float([&](const Slot& t) { return t.v->shape == sh; });
  auto o = b.emit("MatMul", {Operand::of(sm[0]), Operand::of(vs ? vs->v : x.v)});
  if (o.empty()) return false;
  b.push(o[0], false, x.mag + 0.5);
  return true;
}

/// Split → Concat of all the pieces in order on the same axis, or Concat(Concat(a, b), c).
bool split_concat(Builder& b) {
  const Slot* s = b.pick_float([](const Slot& t) {
    return std::any_of(t.v->shape.dims().begin(), t.v->shape.dims().end(), [](int64_t d) { return d >= 2; });
  });
  if (!s) return false;
  Slot x = *s;
  const Shape& sh = x.v->shape;
  std::vector<int64_t> axes;
  for (size_t i = 0; i < sh.rank(); ++i)
    if (sh[i] >= 2 && sh[i] % 2 == 0) axes.push_back(static_cast<int64_t>(i));
  if (axes.empty()) return false;
  const int64_t axis = b.rng.pick(axes);
  Attributes a;
  a.set("axis", axis);
  auto parts = b.emit("Split", {Operand::of(x.v)}, a, 2);
  if (parts.empty()) return false;
  std::vector<Operand> in;
  if (b.rng.coin(0.6)) {
    for (Value* p : parts) in.push_back(Operand::of(p));
  } else {  // nested: Concat(Concat(p1, p0), p1)
    auto inner = b.emit("Concat", {Operand::of(parts[1]), Operand::of(parts[0])}, a);
    if (inner.empty()) return false;
    in = {Operand::of(inner[0]), Operand::of(parts[1])};
  }
  auto out = b.emit("Concat", in, a);
  if (out.empty()) return false;
  b.push(out[0], x.exact, x.mag);
  return true;
}

/// Transpose → Transpose (merge_transposes), Reshape → Reshape (merge_reshapes).
bool movement_chain(Builder& b) {
  const Slot* s = rank_slot(b, 2, 4);
  if (!s) return false;
  Slot x = *s;
  const size_t r = x.v->shape.rank();
  Value* y = x.v;
  for (int i = 0; i < 2; ++i) {
    Attributes a;
    std::vector<int64_t> perm(r);
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t k = r; k > 1; --k) std::swap(perm[k - 1], perm[static_cast<size_t>(b.rng.uni(0, static_cast<int64_t>(k) - 1))]);
    if (b.rng.coin(0.5)) {
      a.set("perm", perm);
      auto t = b.emit("Transpose", {Operand::of(y)}, a);
      if (t.empty()) return false;
      y = t[0];
    } else {
      std::vector<int64_t> d = y->shape.dims();
      std::reverse(d.begin(), d.end());  // same numel
      if (b.rng.coin(0.3)) d = {-1};
      auto t = b.emit("Reshape", {Operand::of(y), Operand::konst(Builder::ints64(d))});
      if (t.empty()) return false;
      y = t[0];
    }
  }
  b.push(y, x.exact, x.mag);
  return true;
}

/// Nodes that compute their input unchanged — or look as if they did (remove_noop, identity
/// removal): Reshape to the same shape, identity Transpose, Cast to f32, Add of 0, Mul by 1,
/// single-input Concat/Sum/Max, Dropout, Identity — and a node repeated on the same input (CSE).
bool noop(Builder& b) {
  const Slot* s = b.pick_float();
  if (!s) return false;
  Slot x = *s;
  const Shape& sh = x.v->shape;
  const int k = static_cast<int>(b.rng.uni(0, 9));
  std::vector<Value*> out;
  Attributes a;
  switch (k) {
    case 0: out = b.emit("Reshape", {Operand::of(x.v), Operand::konst(Builder::ints64(sh.dims()))}); break;
    case 1: {
      std::vector<int64_t> p(sh.rank());
      std::iota(p.begin(), p.end(), 0);
      a.set("perm", p);
      out = b.emit("Transpose", {Operand::of(x.v)}, a);
      break;
    }
    case 2: a.set("to", int64_t{1}); out = b.emit("Cast", {Operand::of(x.v)}, a); break;
    case 3: out = b.emit("Add", {Operand::of(x.v), Operand::konst(Tensor::allocate(DataType::Float32, b.broadcast_partner(sh)))}); break;
    case 4: {
      Tensor one = b.uniform(b.broadcast_partner(sh), 1, 1);
      out = b.emit("Mul", {Operand::of(x.v), Operand::konst(one)});
      break;
    }
    case 5: {
      if (sh.rank() == 0) return false;
      const std::string op = b.rng.pick(std::vector<std::string>{"Concat", "Sum", "Max", "Min", "Mean"});
      if (op == "Concat") a.set("axis", int64_t{0});
      out = b.emit(op, {Operand::of(x.v)}, a);
      break;
    }
    case 6: out = b.emit(b.has("Dropout") ? "Dropout" : "Identity", {Operand::of(x.v)}); break;
    default: {  // the same node twice on the same input (CSE), both read further on
      const std::string op = b.rng.pick(std::vector<std::string>{"Relu", "Sigmoid", "Abs", "Neg"});
      auto u = b.emit(op, {Operand::of(x.v)});
      auto v = b.emit(op, {Operand::of(x.v)});
      if (u.empty() || v.empty()) return false;
      out = b.emit("Add", {Operand::of(u[0]), Operand::of(v[0])});
      break;
    }
  }
  if (out.empty()) return false;
  b.push(out[0], x.exact && k <= 2, x.mag * 2);
  return true;
}

}  // namespace

std::vector<FamilyEntry> nn_families() {
  return {
      {"conv", {"Conv"}, 8, conv},
      {"conv_transpose", {"ConvTranspose"}, 3, conv_transpose},
      {"pool", {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool", "GlobalLpPool"}, 5, pool},
      {"matmul", {"MatMul", "Transpose"}, 6, matmul},
      {"gemm", {"Gemm"}, 3, gemm},
      {"batchnorm", {"BatchNormalization", "InstanceNormalization"}, 3, batchnorm},
      {"layernorm", {"LayerNormalization"}, 2, layernorm},
      {"lrn", {"LRN"}, 1, lrn},
      {"conv_bn_act", {"Conv", "BatchNormalization", "Relu", "Sigmoid", "Clip"}, 3, conv_bn_act},
      {"conv_add_act", {"Conv", "Add", "Relu", "Sigmoid", "Clip"}, 3, conv_add_act},
      {"squeeze_excitation", {"GlobalAveragePool", "Conv", "Relu", "Sigmoid", "HardSigmoid", "Mul"}, 2, squeeze_excitation},
      {"matmul_add_act", {"MatMul", "Add", "Relu", "Sigmoid", "Erf", "Mul", "Div"}, 3, matmul_add_act},
      {"gelu", {"Erf", "Add", "Mul", "Div"}, 2, gelu},
      {"layer_norm_decomposed", {"ReduceMean", "Sub", "Pow", "Add", "Sqrt", "Div", "Mul"}, 2, layer_norm_decomposed},
      {"attention", {"MatMul", "Transpose", "Softmax", "Div", "Mul", "Add", "Where"}, 2, attention},
      {"split_concat", {"Split", "Concat"}, 2, split_concat},
      {"movement_chain", {"Transpose", "Reshape"}, 2, movement_chain},
      {"noop", {"Reshape", "Transpose", "Cast", "Add", "Mul", "Concat", "Sum", "Max", "Min", "Mean", "Dropout", "Identity", "Relu", "Sigmoid", "Abs", "Neg"}, 3, noop},
  };
}

}  // namespace ge::difftest
