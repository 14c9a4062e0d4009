// tests/difftest/gen_ops.cc — op families of the generator: elementwise unary and binary ops with
// broadcasting, activations, comparisons and Where, Cast, integer arithmetic, and data movement
// (Reshape, Transpose, Slice, Concat, Split, Gather, Expand, Tile, Pad, …), reductions, Softmax.
// Attribute values follow the ONNX operator specs (onnx/docs/Operators.md) at opsets 13 and 17.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "gen_builder.h"

namespace ge::difftest {
namespace {

enum class Domain { Any, Exact, Positive, Bounded };
struct UnaryOp {
  const char* op;
  Domain domain;
  double out_mag;  ///< < 0: same as the input's; else a bound of the output's magnitude
  bool keeps_exact;
};

// Discontinuous ops (Domain::Exact) read only exact tensors; Positive ones read |x| + c; Bounded
// ones read a value of magnitude ≤ 3 (Tanh of it otherwise).
const std::vector<UnaryOp>& unary_ops() {
  static const std::vector<UnaryOp> ops = {
      {"Relu", Domain::Any, -1, true},         {"Abs", Domain::Any, -1, true},
      {"Neg", Domain::Any, -1, true},          {"Identity", Domain::Any, -1, true},
      {"Sigmoid", Domain::Any, 1, false},      {"Tanh", Domain::Any, 1, false},
      {"Erf", Domain::Any, 1, false},          {"Sin", Domain::Bounded, 1, false},
      {"Cos", Domain::Bounded, 1, false},      {"Atan", Domain::Any, 1.6, false},
      {"Asinh", Domain::Any, -1, false},       {"Softsign", Domain::Any, 1, false},
      {"Exp", Domain::Bounded, 20, false},     {"Sinh", Domain::Bounded, 10, false},
      {"Cosh", Domain::Bounded, 10, false},    {"Softplus", Domain::Bounded, 3.1, false},
      {"Log", Domain::Positive, 3, false},     {"Sqrt", Domain::Positive, -1, false},
      {"Reciprocal", Domain::Positive, 2, false},
      {"LeakyRelu", Domain::Any, -1, false},   {"Elu", Domain::Any, -1, false},
      {"Selu", Domain::Any, -1, false},        {"Celu", Domain::Any, -1, false},
      {"HardSigmoid", Domain::Any, 1, false},  {"HardSwish", Domain::Any, -1, false},
      {"Clip", Domain::Any, -1, false},        {"Floor", Domain::Exact, -1, true},
      {"Ceil", Domain::Exact, -1, true},       {"Round", Domain::Exact, -1, true},
      {"Sign", Domain::Exact, 1, true},        {"ThresholdedRelu", Domain::Exact, -1, true},
      {"Shrink", Domain::Exact, -1, true},
  };
  return ops;
}

bool unary(Builder& b) {
  std::vector<const UnaryOp*> avail;
  for (const UnaryOp& u : unary_ops())
    if (b.has(u.op)) avail.push_back(&u);
  const UnaryOp& u = *b.rng.pick(avail);
  const Slot* s = b.pick_float(u.domain == Domain::Exact ? std::function<bool(const Slot&)>([](const Slot& x) { return x.exact; }) : nullptr);
  if (!s) return false;
  const Slot in = *s;
  Value* x = in.v;
  if (u.domain == Domain::Positive) x = b.positive(x, b.rng.coin(0.5) ? 0.5f : 1.0f);
  if (u.domain == Domain::Bounded) x = b.bounded(x, 3);
  if (!x) return false;
  Attributes a;
  std::vector<Operand> ops = {Operand::of(x)};
  const std::string op = u.op;
  if (op == "LeakyRelu") a.set("alpha", static_cast<float>(b.rng.pick(std::vector<double>{0.01, 0.1, 0.2, 1.5})));
  if (op == "Elu" || op == "Celu") a.set("alpha", static_cast<float>(b.rng.pick(std::vector<double>{0.5, 1.0, 2.0})));
  if (op == "Selu" && b.rng.coin(0.3)) a.set("gamma", 1.2f);
  if (op == "HardSigmoid" && b.rng.coin(0.5)) a.set("alpha", 0.25f);
  if (op == "ThresholdedRelu") a.set("alpha", static_cast<float>(b.rng.pick(std::vector<double>{0.0, 0.25, 0.5})));
  if (op == "Shrink") {
    a.set("lambd", 0.3f);
    if (b.rng.coin(0.5)) a.set("bias", 0.1f);
  }
  if (op == "Clip") {
    // opset >= 11: min and max are optional scalar inputs; either may be omitted.
    const int form = static_cast<int>(b.rng.uni(0, 3));  // 0: Relu6, 1: min only, 2: max only, 3: both
    ops.push_back(form != 2 ? Operand::konst(b.scalar_f(form == 0 ? 0.0f : -0.5f)) : Operand::none());
    ops.push_back(form != 1 ? Operand::konst(b.scalar_f(form == 0 ? 6.0f : 0.5f)) : Operand::none());
  }
  auto out = b.emit(op, ops, a);
  if (out.empty()) return false;
  const bool exact = u.keeps_exact && in.exact && x == in.v;
  b.push(out[0], exact, u.out_mag < 0 ? in.mag * 1.1 : u.out_mag);
  return true;
}

/// A second operand for a broadcasting binary op whose first is `x`.
Operand partner(Builder& b, const Slot& x, double& mag, bool& exact, bool want_exact) {
  const int kind = static_cast<int>(b.rng.uni(0, 9));
  if (kind <= 3) {  // an existing value: same shape, or any (shape inference rejects a misfit)
    const Slot* y = b.pick_float([&](const Slot& s) {
      return (!want_exact || s.exact) && (kind <= 1 ? s.v->shape == x.v->shape : true);
    });
    if (y) {
      mag = y->mag;
      exact = y->exact;
      return Operand::of(y->v);
    }
  }
  if (kind == 4) {
    mag = x.mag;
    exact = x.exact;
    return Operand::of(x.v);
  }
  Shape s = b.broadcast_partner(x.v->shape);
  mag = 0.6;
  exact = true;
  if (kind <= 6) return Operand::input(DataType::Float32, s);
  return Operand::konst(b.uniform(s, -1, 1));
}

bool binary(Builder& b) {
  static const std::vector<std::string> ops = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "PRelu", "Sum", "Mean"};
  std::vector<std::string> avail;
  for (const std::string& o : ops)
    if (b.has(o)) avail.push_back(o);
  const std::string op = b.rng.pick(avail);
  const Slot* s = b.pick_float();
  if (!s) return false;
  Slot x = *s;
  double my = 1;
  bool ey = false;
  if (op == "PRelu") {
    // The slope broadcasts unidirectionally to X: a suffix of X's shape with some dims 1.
    Shape ss = x.v->shape;
    std::vector<int64_t> d(ss.dims().begin() + static_cast<std::ptrdiff_t>(b.rng.uni(0, static_cast<int64_t>(ss.rank()))), ss.dims().end());
    for (int64_t& v : d)
      if (b.rng.coin(0.4)) v = 1;
    auto out = b.emit(op, {Operand::of(x.v), Operand::konst(b.uniform(Shape(d), 0, 0.5))});
    if (out.empty()) return false;
    b.push(out[0], false, x.mag);
    return true;
  }
  Operand y = partner(b, x, my, ey, false);
  std::vector<Operand> in = {Operand::of(x.v), y};
  double mag = std::max(x.mag, my);
  if (op == "Div") {
    Value* yv = y.existing;
    if (!yv) {
      if (y.constant) {  // a constant denominator: keep it away from 0
        for (float& f : y.constant->span<float>()) f = f < 0 ? f - 0.5f : f + 0.5f;
        in[1] = y;
      } else {
        yv = b.g->add_input(b.fresh("x"), y.new_input->first, y.new_input->second);
      }
    }
    if (yv) {
      Value* d = b.positive(yv, 0.5f);
      if (!d) return false;
      in[1] = Operand::of(d);
    }
    mag = x.mag * 2;
  } else if (op == "Pow") {
    Value* base = b.positive(x.v, 0.5f);
    if (!base) return false;
    in[0] = Operand::of(base);
    if (b.rng.coin(0.6)) {
      in[1] = Operand::konst(b.scalar_f(static_cast<float>(b.rng.pick(std::vector<double>{2, 3, 0.5, -1, 1.5})), b.rng.coin(0.7)));
    } else if (y.existing) {
      Value* e = b.bounded(y.existing, 1.5);
      if (!e) return false;
      in[1] = Operand::of(e);
    }
    mag = std::pow(x.mag + 1, 3) + 2;
  } else if (op == "Mul") {
    mag = x.mag * my + 0.1;
  } else if ((op == "Sum" || op == "Mean" || op == "Max" || op == "Min") && b.rng.coin(0.3)) {
    double m3;
    bool e3;
    in.push_back(partner(b, x, m3, e3, false));
    mag = std::max(mag, m3);
    ey = ey && e3;
  }
  if (op == "Add" || op == "Sub" || op == "Sum") mag = x.mag + my;
  auto out = b.emit(op, in);
  if (out.empty()) return false;
  b.push(out[0], (op == "Max" || op == "Min") && x.exact && ey, mag);
  return true;
}

/// Greater/Less/Equal… of exact tensors → bool, then Where or a logical op or Cast.
bool compare(Builder& b) {
  static const std::vector<std::string> ops = {"Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal"};
  std::vector<std::string> avail;
  for (const std::string& o : ops)
    if (b.has(o)) avail.push_back(o);
  const Slot* s = b.pick_float([](const Slot& x) { return x.exact; });
  if (!s || avail.empty()) return false;
  Slot x = *s;
  double my;
  bool ey;
  Operand y = partner(b, x, my, ey, true);
  if (!ey) return false;
  auto out = b.emit(b.rng.pick(avail), {Operand::of(x.v), y});
  if (out.empty()) return false;
  b.push(out[0], true, 1);
  return true;
}

bool where(Builder& b) {
  const Slot* c = b.pick_from(b.bools);
  if (!c) return false;
  Value* cond = c->v;
  const Slot* s = b.pick_float();
  if (!s) return false;
  Slot x = *s;
  double my;
  bool ey;
  Operand y = partner(b, x, my, ey, false);
  std::vector<Operand> in = {Operand::of(cond), Operand::of(x.v), y};
  if (b.rng.coin(0.5)) std::swap(in[1], in[2]);
  auto out = b.emit("Where", in);
  if (out.empty()) return false;
  b.push(out[0], c->exact && x.exact && ey, std::max(x.mag, my));
  return true;
}

bool logical(Builder& b) {
  const Slot* c = b.pick_from(b.bools);
  if (!c) return false;
  Value* a = c->v;
  const int k = static_cast<int>(b.rng.uni(0, 4));
  std::vector<Value*> out;
  if (k == 0) {
    out = b.emit("Not", {Operand::of(a)});
  } else if (k == 4) {  // back to float
    Attributes at;
    at.set("to", int64_t{1});
    out = b.emit("Cast", {Operand::of(a)}, at);
    if (out.empty()) return false;
    b.push(out[0], true, 1);
    return true;
  } else {
    const Slot* d = b.pick_from(b.bools);
    out = b.emit(k == 1 ? "And" : k == 2 ? "Or" : "Xor", {Operand::of(a), Operand::of(d->v)});
  }
  if (out.empty()) return false;
  b.push(out[0], true, 1);
  return true;
}

/// Cast: f32 → f16 → f32 (rounding to half), exact f32 → i32/i64, integer → f32.
bool cast(Builder& b) {
  Attributes a;
  const int k = static_cast<int>(b.rng.uni(0, 2));
  if (k == 0) {
    const Slot* s = b.pick_float([](const Slot& x) { return x.mag < 1000; });
    if (!s) return false;
    Slot x = *s;
    a.set("to", int64_t{10});
    auto h = b.emit("Cast", {Operand::of(x.v)}, a);
    if (h.empty()) return false;
    Attributes back;
    back.set("to", int64_t{1});
    auto f = b.emit("Cast", {Operand::of(h[0])}, back);
    if (f.empty()) return false;
    b.push(f[0], false, x.mag);
    return true;
  }
  if (k == 1) {
    const Slot* s = b.pick_float([](const Slot& x) { return x.exact && x.mag < 1e6; });
    if (!s) return false;
    Slot x = *s;
    Value* in = x.v;  // truncation toward zero: exact input, exact result
    a.set("to", int64_t{b.rng.coin(0.5) ? 6 : 7});
    auto i = b.emit("Cast", {Operand::of(in)}, a);
    if (i.empty()) return false;
    b.push(i[0], true, x.mag);
    return true;
  }
  const Slot* s = b.pick_from(b.ints);
  if (!s) return false;
  a.set("to", int64_t{1});
  auto f = b.emit("Cast", {Operand::of(s->v)}, a);
  if (f.empty()) return false;
  b.push(f[0], true, s->mag);
  return true;
}

/// Integer arithmetic on the integer pool (exact everywhere).
bool int_arith(Builder& b) {
  const Slot* s = b.pick_from(b.ints);
  if (!s) return false;
  Slot x = *s;
  static const std::vector<std::string> ops = {"Add", "Sub", "Mul", "Max", "Min", "Abs", "Neg"};
  const std::string op = b.rng.pick(ops);
  std::vector<Operand> in = {Operand::of(x.v)};
  if (op != "Abs" && op != "Neg") {
    Tensor c = Tensor::allocate(x.v->dtype, Shape{});
    if (x.v->dtype == DataType::Int32) c.span<int32_t>()[0] = static_cast<int32_t>(b.rng.uni(-3, 3));
    else c.span<int64_t>()[0] = b.rng.uni(-3, 3);
    const Slot* y = b.pick_from(b.ints, [&](const Slot& t) { return t.v->dtype == x.v->dtype; });
    in.push_back(y && b.rng.coin(0.5) ? Operand::of(y->v) : Operand::konst(c));
  }
  auto out = b.emit(op, in);
  if (out.empty()) return false;
  b.push(out[0], true, x.mag * 3 + 3);
  return true;
}

// ---- data movement

bool push_like(Builder& b, const std::vector<Value*>& out, const Slot& x) {
  if (out.empty()) return false;
  for (Value* v : out) b.push(v, x.exact, x.mag);
  return true;
}

/// A random data slot of any pool (float mostly).
const Slot* pick_any(Builder& b) {
  if (!b.ints.empty() && b.rng.coin(0.1)) return b.pick_from(b.ints);
  if (!b.bools.empty() && b.rng.coin(0.05)) return b.pick_from(b.bools);
  return b.pick_float();
}

bool reshape(Builder& b) {
  const Slot* s = pick_any(b);
  if (!s) return false;
  Slot x = *s;
  const Shape& sh = x.v->shape;
  const int k = static_cast<int>(b.rng.uni(0, 3));
  Attributes a;
  if (k == 0) {  // Reshape to a random factorization, with a -1 or a 0 now and then
    int64_t n = sh.numel();
    std::vector<int64_t> d;
    const int rank = static_cast<int>(b.rng.uni(1, 4));
    for (int i = 0; i + 1 < rank; ++i) {
      std::vector<int64_t> divs;
      for (int64_t f = 1; f <= n; ++f)
        if (n % f == 0) divs.push_back(f);
      const int64_t f = b.rng.pick(divs);
      d.push_back(f);
      n /= f;
    }
    d.push_back(n);
    if (b.rng.coin(0.3)) d[static_cast<size_t>(b.rng.uni(0, rank - 1))] = -1;
    if (b.rng.coin(0.2) && sh.rank() > 0 && d.size() > 0 && d[0] == sh[0]) d[0] = 0;
    return push_like(b, b.emit("Reshape", {Operand::of(x.v), Operand::konst(Builder::ints64(d))}), x);
  }
  if (k == 1) {
    a.set("axis", b.rng.uni(-static_cast<int64_t>(sh.rank()), static_cast<int64_t>(sh.rank())));
    return push_like(b, b.emit("Flatten", {Operand::of(x.v)}, a), x);
  }
  if (k == 2) {
    std::vector<int64_t> ones;
    for (size_t i = 0; i < sh.rank(); ++i)
      if (sh[i] == 1 && b.rng.coin(0.7)) ones.push_back(b.rng.coin(0.3) ? static_cast<int64_t>(i) - static_cast<int64_t>(sh.rank()) : static_cast<int64_t>(i));
    std::vector<Operand> in = {Operand::of(x.v)};
    if (!ones.empty() || b.rng.coin(0.5)) {
      if (b.opset() >= 13) in.push_back(Operand::konst(Builder::ints64(ones)));
      else a.set("axes", ones);
    }
    if (ones.empty() && in.size() > 1) return false;
    return push_like(b, b.emit("Squeeze", in, a), x);
  }
  if (sh.rank() >= 5) return false;
  std::vector<int64_t> axes = {b.rng.uni(-static_cast<int64_t>(sh.rank()) - 1, static_cast<int64_t>(sh.rank()))};
  if (b.rng.coin(0.3)) axes.push_back(b.rng.uni(0, static_cast<int64_t>(sh.rank()) + 1));
  return push_like(b, b.emit("Unsqueeze", {Operand::of(x.v), Operand::konst(Builder::ints64(axes))}), x);
}

bool transpose(Builder& b) {
  const Slot* s = pick_any(b);
  if (!s) return false;
  Slot x = *s;
  std::vector<int64_t> perm(x.v->shape.rank());
  std::iota(perm.begin(), perm.end(), 0);
  for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[static_cast<size_t>(b.rng.uni(0, static_cast<int64_t>(i) - 1))]);
  Attributes a;
  if (b.rng.coin(0.9)) a.set("perm", perm);
  return push_like(b, b.emit("Transpose", {Operand::of(x.v)}, a), x);
}

bool slice(Builder& b) {
  const Slot* s = pick_any(b);
  if (!s) return false;
  Slot x = *s;
  const Shape& sh = x.v->shape;
  if (sh.rank() == 0) return false;
  std::vector<int64_t> starts, ends, axes, steps;
  for (size_t i = 0; i < sh.rank(); ++i) {
    if (!b.rng.coin(0.5) && !(i + 1 == sh.rank() && axes.empty())) continue;
    const int64_t d = sh[i];
    int64_t step = b.rng.pick(std::vector<int64_t>{1, 1, 1, 2, -1, 3, -2});
    int64_t st = b.rng.uni(-d, d - 1), en = b.rng.uni(-d - 1, d + 1);
    if (b.rng.coin(0.15)) en = step > 0 ? INT64_MAX : INT64_MIN;  // "to the end" as exporters write it
    if (step > 0 && (st < 0 ? st + d : st) >= (en < 0 ? en + d : std::min(en, d))) std::swap(st, en);
    axes.push_back(b.rng.coin(0.2) ? static_cast<int64_t>(i) - static_cast<int64_t>(sh.rank()) : static_cast<int64_t>(i));
    starts.push_back(st);
    ends.push_back(en);
    steps.push_back(step);
  }
  std::vector<Operand> in = {Operand::of(x.v), Operand::konst(Builder::ints64(starts)), Operand::konst(Builder::ints64(ends))};
  const bool unit = std::all_of(steps.begin(), steps.end(), [](int64_t v) { return v == 1; });
  in.push_back(Operand::konst(Builder::ints64(axes)));
  if (!unit || b.rng.coin(0.5)) in.push_back(Operand::konst(Builder::ints64(steps)));
  return push_like(b, b.emit("Slice", in), x);
}

bool concat(Builder& b) {
  const Slot* s = pick_any(b);
  if (!s) return false;
  Slot x = *s;
  const Shape& sh = x.v->shape;
  if (sh.rank() == 0) return false;
  const int64_t axis = b.rng.uni(0, static_cast<int64_t>(sh.rank()) - 1);
  std::vector<Operand> in = {Operand::of(x.v)};
  bool exact = x.exact;
  double mag = x.mag;
  const int n = static_cast<int>(b.rng.uni(1, 3));
  std::vector<Slot>& pool = x.v->dtype == DataType::Float32 ? b.floats : x.v->dtype == DataType::Bool ? b.bools : b.ints;
  for (int i = 0; i < n; ++i) {
    const Slot* y = b.pick_from(pool, [&](const Slot& t) {
      if (t.v->dtype != x.v->dtype || t.v->shape.rank() != sh.rank()) return false;
      for (size_t k = 0; k < sh.rank(); ++k)
        if (static_cast<int64_t>(k) != axis && t.v->shape[k] != sh[k]) return false;
      return true;
    });
    if (y && b.rng.coin(0.7)) {
      in.push_back(Operand::of(y->v));
      exact &= y->exact;
      mag = std::max(mag, y->mag);
    } else if (x.v->dtype == DataType::Float32) {
      Shape p = sh;
      p[static_cast<size_t>(axis)] = b.rng.uni(1, 4);
      in.push_back(b.rng.coin(0.5) ? Operand::input(DataType::Float32, p) : Operand::konst(b.uniform(p, -1, 1)));
    } else {
      in.push_back(Operand::of(x.v));
    }
  }
  Attributes a;
  a.set("axis", b.rng.coin(0.3) ? axis - static_cast<int64_t>(sh.rank()) : axis);
  auto out = b.emit("Concat", in, a);
  if (out.empty()) return false;
  b.push(out[0], exact, mag);
  return true;
}

bool split(Builder& b) {
  const Slot* s = pick_any(b);
  if (!s) return false;
  Slot x = *s;
  const Shape& sh = x.v->shape;
  std::vector<size_t> axes;
  for (size_t i = 0; i < sh.rank(); ++i)
    if (sh[i] >= 2) axes.push_back(i);
  if (axes.empty()) return false;
  const size_t axis = b.rng.pick(axes);
  const int64_t d = sh[axis];
  Attributes a;
  a.set("axis", static_cast<int64_t>(axis));
  std::vector<Operand> in = {Operand::of(x.v)};
  int parts;
  if (b.rng.coin(0.5)) {  // explicit sizes
    std::vector<int64_t> sizes;
    int64_t left = d;
    while (left > 0 && sizes.size() < 3) {
      const int64_t p = sizes.size() == 2 ? left : b.rng.uni(1, left);
      sizes.push_back(p);
      left -= p;
    }
    if (left > 0) sizes.back() += left;
    parts = static_cast<int>(sizes.size());
    if (b.opset() >= 13) in.push_back(Operand::konst(Builder::ints64(sizes)));
    else a.set("split", sizes);
  } else {  // equal parts
    std::vector<int> divs;
    for (int k = 2; k <= 4; ++k)
      if (d % k == 0) divs.push_back(k);
    if (divs.empty()) return false;
    parts = b.rng.pick(divs);
  }
  auto out = b.emit("Split", in, a, parts);
  return push_like(b, out, x);
}

bool gather(Builder& b) {
  const Slot* s = pick_any(b);
  if (!s) return false;
  Slot x = *s;
  const Shape& sh = x.v->shape;
  if (sh.rank() == 0) return false;
  const int64_t axis = b.rng.uni(0, static_cast<int64_t>(sh.rank()) - 1);
  const int64_t d = sh[static_cast<size_t>(axis)];
  Attributes a;
  a.set("axis", axis);
  if (b.has("GatherElements") && b.rng.coin(0.3)) {
    Shape is = sh;
    is[static_cast<size_t>(axis)] = b.rng.uni(1, d + 1);
    Tensor idx = Tensor::allocate(DataType::Int64, is);
    for (int64_t& v : idx.span<int64_t>()) v = b.rng.uni(-d, d - 1);
    return push_like(b, b.emit("GatherElements", {Operand::of(x.v), Operand::konst(idx)}, a), x);
  }
  std::vector<int64_t> is;
  const int r = static_cast<int>(b.rng.uni(0, 2));
  for (int i = 0; i < r; ++i) is.push_back(b.rng.uni(1, 4));
  Tensor idx = Tensor::allocate(b.rng.coin(0.7) ? DataType::Int64 : DataType::Int32, Shape(is));
  if (idx.dtype() == DataType::Int64)
    for (int64_t& v : idx.span<int64_t>()) v = b.rng.uni(-d, d - 1);
  else
    for (int32_t& v : idx.span<int32_t>()) v = static_cast<int32_t>(b.rng.uni(-d, d - 1));
  return push_like(b, b.emit("Gather", {Operand::of(x.v), Operand::konst(idx)}, a), x);
}

bool expand_tile_pad(Builder& b) {
  const Slot* s = b.pick_float();
  if (!s) return false;
  Slot x = *s;
  const Shape& sh = x.v->shape;
  const int k = static_cast<int>(b.rng.uni(0, 3));
  if (k == 0) {  // Expand: 1-dims grow, a leading dim now and then
    std::vector<int64_t> d = sh.dims();
    for (int64_t& v : d)
      if (v == 1 && b.rng.coin(0.6)) v = b.rng.uni(2, 4);
    if (b.rng.coin(0.3)) d.insert(d.begin(), b.rng.uni(1, 3));
    if (b.rng.coin(0.2) && !d.empty()) d[d.size() - 1] = 1;  // a 1 in the target keeps the input's dim
    return push_like(b, b.emit("Expand", {Operand::of(x.v), Operand::konst(Builder::ints64(d))}), x);
  }
  if (k == 1) {
    std::vector<int64_t> rep;
    for (size_t i = 0; i < sh.rank(); ++i) rep.push_back(b.rng.coin(0.3) ? 2 : 1);
    return push_like(b, b.emit("Tile", {Operand::of(x.v), Operand::konst(Builder::ints64(rep))}), x);
  }
  if (k == 2) {
    const std::string mode = b.rng.pick(std::vector<std::string>{"constant", "constant", "reflect", "edge"});
    std::vector<int64_t> pads(sh.rank() * 2, 0);
    for (size_t i = 0; i < sh.rank(); ++i) {
      if (!b.rng.coin(0.5)) continue;
      const int64_t lim = mode == "reflect" ? sh[i] - 1 : 3;
      if (lim <= 0) continue;
      pads[i] = b.rng.uni(0, lim);
      pads[i + sh.rank()] = b.rng.uni(mode == "constant" ? -std::min<int64_t>(1, sh[i] - 1) : 0, lim);
    }
    Attributes a;
    a.set("mode", mode);
    std::vector<Operand> in = {Operand::of(x.v), Operand::konst(Builder::ints64(pads))};
    if (mode == "constant" && b.rng.coin(0.5)) in.push_back(Operand::konst(b.scalar_f(0.25f)));
    return push_like(b, b.emit("Pad", in, a), x);
  }
  if (sh.rank() != 4) return false;
  Attributes a;
  const int64_t bs = 2;
  if (b.rng.coin(0.5) && b.has("SpaceToDepth")) {
    a.set("blocksize", bs);
    return push_like(b, b.emit("SpaceToDepth", {Operand::of(x.v)}, a), x);
  }
  a.set("blocksize", bs);
  if (b.rng.coin(0.5)) a.set("mode", std::string("CRD"));
  return push_like(b, b.emit("DepthToSpace", {Operand::of(x.v)}, a), x);
}

bool reduce(Builder& b) {
  static const std::vector<std::string> ops = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                                               "ReduceL1", "ReduceL2", "ReduceLogSumExp", "ReduceSumSquare",
                                               "ArgMax", "ArgMin"};
  std::vector<std::string> avail;
  for (const std::string& o : ops)
    if (b.has(o)) avail.push_back(o);
  const std::string op = b.rng.pick(avail);
  const bool arg = op == "ArgMax" || op == "ArgMin";
  const Slot* s = b.pick_float([&](const Slot& t) { return (!arg || t.exact) && t.v->shape.rank() > 0; });
  if (!s) return false;
  Slot x = *s;
  const int64_t r = static_cast<int64_t>(x.v->shape.rank());
  Attributes a;
  if (b.rng.coin(0.5)) a.set("keepdims", int64_t{b.rng.coin(0.5)});
  if (arg) {
    a.set("axis", b.rng.uni(-r, r - 1));
    if (b.rng.coin(0.3)) a.set("select_last_index", int64_t{1});
    auto out = b.emit(op, {Operand::of(x.v)}, a);
    if (out.empty()) return false;
    b.push(out[0], true, static_cast<double>(x.v->numel()));
    return true;
  }
  std::vector<int64_t> axes;
  int64_t reduced = 1;
  for (int64_t i = 0; i < r; ++i)
    if (b.rng.coin(0.4)) {
      axes.push_back(b.rng.coin(0.2) ? i - r : i);
      reduced *= x.v->shape[static_cast<size_t>(i)];
    }
  if (axes.empty()) reduced = x.v->numel();
  Value* in = x.v;
  if (op == "ReduceProd") {  // a product of many values under/overflows; keep them near 1
    if (reduced > 16) return false;
    in = b.positive(x.v, 0.5f);
    if (!in) return false;
  }
  if (op == "ReduceLogSumExp") in = b.bounded(x.v, 8);
  if (!in) return false;
  std::vector<Operand> ins = {Operand::of(in)};
  // ReduceSum takes axes as an input from opset 13; the others until opset 18 as an attribute.
  if (!axes.empty() || b.rng.coin(0.3)) {
    if (op == "ReduceSum" && b.opset() >= 13) ins.push_back(Operand::konst(Builder::ints64(axes)));
    else if (!axes.empty()) a.set("axes", axes);
  }
  if (op == "ReduceSum" && axes.empty() && ins.size() > 1 && b.rng.coin(0.5)) a.set("noop_with_empty_axes", int64_t{1});
  auto out = b.emit(op, ins, a);
  if (out.empty()) return false;
  const bool sums = op == "ReduceSum" || op == "ReduceL1" || op == "ReduceSumSquare";
  b.push(out[0], (op == "ReduceMax" || op == "ReduceMin") && x.exact && in == x.v,
         sums ? x.mag * x.mag * static_cast<double>(reduced) + 1 : x.mag + 4);
  return true;
}

bool softmax(Builder& b) {
  std::vector<std::string> avail;
  for (const char* o : {"Softmax", "LogSoftmax", "Hardmax"})
    if (b.has(o)) avail.push_back(o);
  const std::string op = b.rng.pick(avail);
  const Slot* s = b.pick_float([&](const Slot& t) { return (op != "Hardmax" || t.exact) && t.v->shape.rank() > 0; });
  if (!s) return false;
  Slot x = *s;
  const int64_t r = static_cast<int64_t>(x.v->shape.rank());
  Attributes a;
  if (b.rng.coin(0.8)) a.set("axis", b.rng.uni(-r, r - 1));
  auto out = b.emit(op, {Operand::of(x.v)}, a);
  if (out.empty()) return false;
  b.push(out[0], op == "Hardmax", op == "LogSoftmax" ? x.mag * 2 + std::log(static_cast<double>(x.v->numel())) : 1);
  return true;
}

bool cumsum(Builder& b) {
  const Slot* s = b.pick_float([](const Slot& t) { return t.v->shape.rank() > 0; });
  if (!s) return false;
  Slot x = *s;
  const int64_t r = static_cast<int64_t>(x.v->shape.rank());
  Attributes a;
  if (b.rng.coin(0.3)) a.set("exclusive", int64_t{1});
  if (b.rng.coin(0.3)) a.set("reverse", int64_t{1});
  Tensor axis = Tensor::allocate(DataType::Int64, Shape{});
  axis.span<int64_t>()[0] = b.rng.uni(-r, r - 1);
  auto out = b.emit("CumSum", {Operand::of(x.v), Operand::konst(axis)}, a);
  if (out.empty()) return false;
  b.push(out[0], false, x.mag * static_cast<double>(x.v->shape[static_cast<size_t>(axis.span<int64_t>()[0] < 0 ? axis.span<int64_t>()[0] + r : axis.span<int64_t>()[0])]));
  return true;
}

}  // namespace

std::vector<FamilyEntry> basic_families() {
  std::vector<std::string> unary_names, all;
  for (const UnaryOp& u : unary_ops()) unary_names.push_back(u.op);
  return {
      {"unary", unary_names, 14, unary},
      {"binary", {"Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "PRelu", "Sum", "Mean"}, 14, binary},
      {"compare", {"Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal"}, 2, compare},
      {"where", {"Where"}, 2, where},
      {"logical", {"Not", "And", "Or", "Xor", "Cast"}, 1, logical},
      {"cast", {"Cast"}, 3, cast},
      {"int_arith", {"Add", "Sub", "Mul", "Max", "Min", "Abs", "Neg"}, 1, int_arith},
      {"reshape", {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}, 5, reshape},
      {"transpose", {"Transpose"}, 4, transpose},
      {"slice", {"Slice"}, 4, slice},
      {"concat", {"Concat"}, 4, concat},
      {"split", {"Split"}, 3, split},
      {"gather", {"Gather", "GatherElements"}, 3, gather},
      {"expand_tile_pad", {"Expand", "Tile", "Pad", "DepthToSpace", "SpaceToDepth"}, 3, expand_tile_pad},
      {"reduce", {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                  "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin"}, 6, reduce},
      {"softmax", {"Softmax", "LogSoftmax", "Hardmax"}, 4, softmax},
      {"cumsum", {"CumSum"}, 1, cumsum},
  };
}

}  // namespace ge::difftest
