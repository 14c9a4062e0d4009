#include <gtest/gtest.h>

#include "ge/sdk/error.h"
#include "ge/sdk/pattern.h"

using namespace ge;
using P = Pattern;

namespace {
Value* act(Graph& g, const std::string& name) { return g.add_value(name, DataType::Float32, {1, 4}); }

// x * Sigmoid(x); the same capture name "x" on both sides ties them to one value.
P swish() { return P::op("Mul", {P::op("Sigmoid", {P::any("x")}).as("sig"), P::any("x")}).as("mul").commutative(); }

// x → Sigmoid → s ; Mul(x, s) or Mul(s, x) → y
struct Swish {
  Graph g{"swish"};
  Value *x, *s, *y;
  Node *sig, *mul;
  explicit Swish(bool sigmoid_first) {
    x = g.add_input("x", DataType::Float32, {1, 4});
    s = act(g, "s");
    y = act(g, "y");
    sig = g.add_node("Sigmoid", "sig", {x}, {s});
    mul = g.add_node("Mul", "mul", sigmoid_first ? std::vector<Value*>{s, x} : std::vector<Value*>{x, s}, {y});
    g.mark_output(y);
  }
};

// x → Conv(w) → c → Add(c, b) → a → Relu → r (output)
struct ConvAddRelu {
  Graph g{"car"};
  Value *x, *w, *b, *c, *a, *r;
  Node *conv, *add, *relu;
  ConvAddRelu() {
    g.opsets[""] = 13;
    x = g.add_input("x", DataType::Float32, {1, 4});
    w = g.add_constant("w", Tensor::allocate(DataType::Float32, {4, 4, 1, 1}));
    b = g.add_constant("b", Tensor::allocate(DataType::Float32, {4}));
    c = act(g, "c");
    a = act(g, "a");
    r = act(g, "r");
    Attributes at;
    at.set("group", int64_t{1});
    conv = g.add_node("Conv", "conv", {x, w}, {c}, at);
    add = g.add_node("Add", "add", {c, b}, {a});
    relu = g.add_node("Relu", "relu", {a}, {r});
    g.mark_output(r);
  }
  static P pattern() {
    P conv = P::op("Conv", {P::any("x"), P::constant("w")}).as("conv").where([](const Node& n) {
      return n.attrs.get_int("group", 1) == 1;
    });
    return P::op("Relu|Clip", {P::op("Add", {conv, P::constant("b")}).as("add").commutative()}).as("relu");
  }
};

OpDef def(const std::string& op, FuseFlag f) {
  OpDef d;
  d.op_type = op;
  d.fuse_flag = f;
  return d;
}
}  // namespace

TEST(Pattern, SwishMatchesInBothInputOrders) {
  for (bool sigmoid_first : {false, true}) {
    Swish s(sigmoid_first);
    Match m;
    ASSERT_TRUE(match_pattern(swish(), *s.mul, m)) << "sigmoid_first=" << sigmoid_first;
    EXPECT_EQ(m.node("mul"), s.mul);
    EXPECT_EQ(m.node("sig"), s.sig);
    EXPECT_EQ(m.value("x"), s.x);
    EXPECT_EQ(m.value("sig"), s.s);  // `as` also captures the matched output value
    EXPECT_EQ(m.value("mul"), s.y);
  }
}

TEST(Pattern, NonCommutativePatternMatchesOnlyItsOrder) {
  Swish s(/*sigmoid_first=*/false);
  P p = P::op("Mul", {P::op("Sigmoid", {P::any("x")}), P::any("x")});
  Match m;
  EXPECT_FALSE(match_pattern(p, *s.mul, m));
}

TEST(Pattern, RepeatedCaptureMustBindTheSameValue) {
  // z * Sigmoid(x): "x" would bind x under Sigmoid and z beside it.
  Graph g;
  Value* x = g.add_input("x", DataType::Float32, {1, 4});
  Value* z = g.add_input("z", DataType::Float32, {1, 4});
  Value* s = act(g, "s");
  Value* y = act(g, "y");
  g.add_node("Sigmoid", "sig", {x}, {s});
  Node* mul = g.add_node("Mul", "mul", {z, s}, {y});
  Match m;
  EXPECT_FALSE(match_pattern(swish(), *mul, m));
}

TEST(Pattern, NestedCommutativeBacktracksWhenALaterSiblingFails) {
  // Add(Mul(p, q), q) against Add(Mul(a, b).commutative(), a): the first order binds a = p and
  // only the sibling `a` shows that it must be a = q.
  Graph g;
  Value* p = g.add_input("p", DataType::Float32, {1, 4});
  Value* q = g.add_input("q", DataType::Float32, {1, 4});
  Value* t = act(g, "t");
  Value* y = act(g, "y");
  g.add_node("Mul", "mul", {p, q}, {t});
  Node* add = g.add_node("Add", "add", {t, q}, {y});
  P pat = P::op("Add", {P::op("Mul", {P::any("a"), P::any("b")}).as("mul").commutative(), P::any("a")});
  Match m;
  ASSERT_TRUE(match_pattern(pat, *add, m));
  EXPECT_EQ(m.value("a"), q);
  EXPECT_EQ(m.value("b"), p);
}

TEST(Pattern, ConvAddConstRelu) {
  ConvAddRelu c;
  Match m;
  ASSERT_TRUE(match_pattern(ConvAddRelu::pattern(), *c.relu, m));
  EXPECT_EQ(m.node("conv"), c.conv);
  EXPECT_EQ(m.node("add"), c.add);
  EXPECT_EQ(m.value("w"), c.w);
  EXPECT_EQ(m.value("b"), c.b);
  EXPECT_EQ(m.value("x"), c.x);
  EXPECT_THROW(m.node("nope"), Error);

  // Bias from a graph input instead of a constant: no match.
  Graph& g = c.g;
  Value* nb = g.add_input("nb", DataType::Float32, {4});
  g.set_input(c.add, 1, nb);
  EXPECT_FALSE(match_pattern(ConvAddRelu::pattern(), *c.relu, m));
  g.set_input(c.add, 1, c.b);
  // The `where` predicate rejects grouped convolution.
  c.conv->attrs.set("group", int64_t{2});
  EXPECT_FALSE(match_pattern(ConvAddRelu::pattern(), *c.relu, m));
}

TEST(Pattern, OutputIndexSelectsTheProducerOutput) {
  Graph g;
  Value* x = g.add_input("x", DataType::Float32, {2, 4});
  Value* s0 = act(g, "s0");
  Value* s1 = act(g, "s1");
  Value* y = act(g, "y");
  g.add_node("Split", "split", {x}, {s0, s1});
  Node* relu = g.add_node("Relu", "relu", {s1}, {y});
  Match m;
  EXPECT_TRUE(match_pattern(P::op("Relu", {P::op("Split").output(1)}), *relu, m));
  EXPECT_FALSE(match_pattern(P::op("Relu", {P::op("Split")}), *relu, m));
}

TEST(Pattern, DomainQualifiedOpTypes) {
  Graph g;
  Value* x = g.add_input("x", DataType::Float32, {1, 4});
  Value* y = act(g, "y");
  Node* n = g.add_node("FusedConv", "fc", {x}, {y}, {}, "ge");
  Match m;
  EXPECT_TRUE(match_pattern(P::op("Conv|ge.FusedConv"), *n, m));
  EXPECT_FALSE(match_pattern(P::op("FusedConv"), *n, m));
}

TEST(Legality, InteriorValueWithAnOutsideConsumerIsNotPrivate) {
  ConvAddRelu c;
  Match m;
  ASSERT_TRUE(match_pattern(ConvAddRelu::pattern(), *c.relu, m));
  EXPECT_TRUE(interior_is_private(m, "relu"));
  Value* z = act(c.g, "z");
  c.g.add_node("Sigmoid", "outside", {c.c}, {z});  // conv's output now also feeds a node outside
  EXPECT_FALSE(interior_is_private(m, "relu"));
}

TEST(Legality, InteriorGraphOutputIsNotPrivate) {
  ConvAddRelu c;
  c.g.mark_output(c.a);
  Match m;
  ASSERT_TRUE(match_pattern(ConvAddRelu::pattern(), *c.relu, m));
  EXPECT_FALSE(interior_is_private(m, "relu"));
}

TEST(Legality, FuseFlagsFromTheRegistry) {
  ConvAddRelu c;
  Match m;
  ASSERT_TRUE(match_pattern(ConvAddRelu::pattern(), *c.relu, m));
  OpRegistry fusable;
  for (const char* op : {"Conv", "Add", "Relu"}) fusable.add(def(op, FuseFlag::Fusable));
  EXPECT_TRUE(fuse_flags_allow(m, "relu", fusable, c.g));
  // Root Conv absorbing its consumers Add and Relu.
  EXPECT_TRUE(fuse_flags_allow(m, "conv", fusable, c.g));

  OpRegistry never;
  never.add(def("Conv", FuseFlag::Fusable));
  never.add(def("Add", FuseFlag::Never));
  never.add(def("Relu", FuseFlag::Fusable));
  EXPECT_FALSE(fuse_flags_allow(m, "relu", never, c.g));

  // Conv may not hand its output to a fused consumer; Relu may not take fused producers.
  OpRegistry no_out;
  no_out.add(def("Conv", FuseFlag::NoFuseOutput));
  no_out.add(def("Add", FuseFlag::Fusable));
  no_out.add(def("Relu", FuseFlag::Fusable));
  EXPECT_FALSE(fuse_flags_allow(m, "relu", no_out, c.g));
  EXPECT_FALSE(fuse_flags_allow(m, "conv", no_out, c.g));
  OpRegistry no_in;
  no_in.add(def("Conv", FuseFlag::Fusable));
  no_in.add(def("Add", FuseFlag::Fusable));
  no_in.add(def("Relu", FuseFlag::NoFuseInput));
  EXPECT_FALSE(fuse_flags_allow(m, "relu", no_in, c.g));

  OpRegistry missing;  // Add unregistered: treated as `never`
  missing.add(def("Conv", FuseFlag::Fusable));
  missing.add(def("Relu", FuseFlag::Fusable));
  EXPECT_FALSE(fuse_flags_allow(m, "relu", missing, c.g));
}
