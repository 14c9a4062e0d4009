#include <gtest/gtest.h>

#include <algorithm>

#include "ge/sdk/error.h"
#include "ge/sdk/ir.h"

using namespace ge;

namespace {
// x → Relu → a → Sigmoid → b ; a + b → c (output)
struct Diamond {
  Graph g{"diamond"};
  Value *x, *a, *b, *c;
  Node *relu, *sig, *add;
  Diamond() {
    x = g.add_input("x", DataType::Float32, {2, 3});
    a = g.add_value("a", DataType::Float32, {2, 3});
    b = g.add_value("b", DataType::Float32, {2, 3});
    c = g.add_value("c", DataType::Float32, {2, 3});
    add = g.add_node("Add", "add", {a, b}, {c});  // inserted first on purpose
    relu = g.add_node("Relu", "relu", {x}, {a});
    sig = g.add_node("Sigmoid", "sig", {a}, {b});
    g.mark_output(c);
  }
};
}  // namespace

TEST(Graph, UseListsFollowEdits) {
  Diamond d;
  ASSERT_EQ(d.a->uses().size(), 2u);
  EXPECT_EQ(d.a->producer(), d.relu);
  EXPECT_EQ(d.c->producer(), d.add);
  d.g.set_input(d.add, 1, d.x);
  EXPECT_EQ(d.b->uses().size(), 0u);
  EXPECT_EQ(d.x->uses().size(), 2u);
  d.g.remove_node(d.sig);
  EXPECT_EQ(d.b->producer(), nullptr);
  d.g.remove_value(d.b);
  EXPECT_EQ(d.g.find_value("b"), nullptr);
  EXPECT_EQ(d.g.num_nodes(), 2u);
}

TEST(Graph, TopologicalOrderPutsProducersFirst) {
  Diamond d;
  std::vector<Node*> order = d.g.topological_order();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], d.relu);
  EXPECT_EQ(order[1], d.sig);
  EXPECT_EQ(order[2], d.add);
  d.g.sort_topologically();
  EXPECT_EQ(d.g.nodes()[0], d.relu);
}

TEST(Graph, ReplaceAllUsesRedirectsOutputs) {
  Diamond d;
  Value* c2 = d.g.add_value("c2", DataType::Float32, {2, 3});
  d.g.add_node("Relu", "relu2", {d.c}, {c2});
  d.g.replace_all_uses(d.c, d.a);
  EXPECT_EQ(d.g.outputs()[0], d.a);
  EXPECT_TRUE(d.a->is_graph_output());
  EXPECT_FALSE(d.c->is_graph_output());
  EXPECT_TRUE(d.c->uses().empty());
}

TEST(Graph, DuplicateValueNameIsAnError) {
  Graph g;
  g.add_value("v");
  EXPECT_THROW(g.add_value("v"), InvalidGraphError);
  EXPECT_EQ(g.unique_value_name("v"), "v_1");
}

TEST(Graph, SecondProducerIsAnError) {
  Diamond d;
  EXPECT_THROW(d.g.add_node("Relu", "again", {d.x}, {d.a}), InvalidGraphError);
}

// A value has one definition: a node may not write a graph input either.
TEST(Graph, ProducingAGraphInputIsAnError) {
  Diamond d;
  try {
    d.g.add_node("Relu", "writes_x", {d.c}, {d.x});
    ADD_FAILURE() << "no error";
  } catch (const InvalidGraphError& e) {
    EXPECT_EQ(std::string(e.what()), "node 'writes_x' (Relu): output 'x' is already defined as a graph input");
  }
  EXPECT_EQ(d.x->producer(), nullptr);
  // The refused node's other outputs are left unproduced as well.
  Value* fresh = d.g.add_value("fresh", DataType::Float32, {2, 3});
  EXPECT_THROW(d.g.add_node("Split", "two", {d.c}, {fresh, d.x}), InvalidGraphError);
  EXPECT_EQ(fresh->producer(), nullptr);
  EXPECT_EQ(d.g.num_nodes(), 3u);
}

TEST(Graph, CloneIsDeepButSharesConstantData) {
  Diamond d;
  Value* w = d.g.add_constant("w", Tensor::allocate(DataType::Float32, {3}));
  d.g.set_input(d.add, 1, w);
  auto c = d.g.clone();
  EXPECT_EQ(c->num_nodes(), 3u);
  EXPECT_NE(c->find_value("a"), d.a);
  EXPECT_EQ(c->find_value("w")->data, w->data);
  EXPECT_EQ(c->find_node("add")->input(1), c->find_value("w"));
  EXPECT_EQ(c->outputs()[0]->name(), "c");
}

TEST(Graph, NodesGetUniqueNames) {
  Graph g;
  Value* x = g.add_input("x", DataType::Float32, {1});
  Value* y = g.add_value("y");
  Value* z = g.add_value("z");
  Node* a = g.add_node("Relu", "", {x}, {y});
  Node* b = g.add_node("Relu", "", {y}, {z});
  EXPECT_NE(a->name(), b->name());
  EXPECT_EQ(a->describe(), "node '" + a->name() + "' (Relu)");
}

TEST(Graph, IdsAreDenseStableAndRenumberedByClone) {
  Diamond d;
  // Values x, a, b, c were added in that order; nodes add, relu, sig.
  EXPECT_EQ(d.x->id(), 0u);
  EXPECT_EQ(d.c->id(), 3u);
  EXPECT_EQ(d.add->id(), 0u);
  EXPECT_EQ(d.sig->id(), 2u);
  EXPECT_EQ(d.g.node_id_bound(), 3u);
  EXPECT_EQ(d.g.value_id_bound(), 4u);
  // A removed node's id is not reused; the survivors keep theirs.
  d.g.remove_node(d.sig);
  Node* tanh = d.g.add_node("Tanh", "tanh", {d.a}, {d.b});
  EXPECT_EQ(tanh->id(), 3u);
  EXPECT_EQ(d.relu->id(), 1u);
  EXPECT_EQ(d.g.node_id_bound(), 4u);
  EXPECT_EQ(d.g.node_by_id(2), nullptr);  // sig's, removed
  EXPECT_EQ(d.g.node_by_id(3), tanh);
  EXPECT_EQ(d.g.node_by_id(4), nullptr);  // not given out yet
  EXPECT_EQ(d.g.value_by_id(1), d.a);
  // A node refused (its output already has a producer) takes an id and is not found by it.
  EXPECT_THROW(d.g.add_node("Relu", "again", {d.x}, {d.a}), InvalidGraphError);
  EXPECT_EQ(d.g.node_by_id(4), nullptr);
  Value* f = d.g.add_value("f", DataType::Float32, {2, 3});
  Node* exp = d.g.add_node("Exp", "exp", {d.c}, {f});
  EXPECT_EQ(exp->id(), 5u);
  EXPECT_EQ(d.g.node_by_id(5), exp);
  d.g.remove_node(exp);
  d.g.remove_value(f);
  EXPECT_EQ(d.g.value_by_id(4), nullptr);
  // The copy is numbered anew in list order (add, relu, tanh): 0, 1, 2.
  auto c = d.g.clone();
  EXPECT_EQ(c->node_id_bound(), 3u);
  EXPECT_EQ(c->find_node("tanh")->id(), 2u);
  EXPECT_EQ(c->value_id_bound(), 4u);
}

TEST(Graph, NodeListFollowsAddsRemovalsAndReorders) {
  Diamond d;
  EXPECT_EQ(d.g.nodes(), (std::vector<Node*>{d.add, d.relu, d.sig}));
  d.g.sort_topologically();
  EXPECT_EQ(d.g.nodes(), (std::vector<Node*>{d.relu, d.sig, d.add}));
  Value* e = d.g.add_value("e", DataType::Float32, {2, 3});
  Node* neg = d.g.add_node("Neg", "neg", {d.c}, {e});
  EXPECT_EQ(d.g.nodes(), (std::vector<Node*>{d.relu, d.sig, d.add, neg}));
  d.g.remove_node(d.sig);
  EXPECT_EQ(d.g.nodes(), (std::vector<Node*>{d.relu, d.add, neg}));
  d.g.set_node_order({neg, d.add, d.relu});
  EXPECT_EQ(d.g.nodes(), (std::vector<Node*>{neg, d.add, d.relu}));
  Graph other("other");
  other.swap(d.g);
  EXPECT_EQ(other.nodes(), (std::vector<Node*>{neg, d.add, d.relu}));
  EXPECT_TRUE(d.g.nodes().empty());
}

TEST(Graph, TopologicalOrderRefusesAProducerOfAnotherGraph) {
  Diamond d;
  Graph other("other");
  Value* y = other.add_value("y", DataType::Float32, {2, 3});
  Value* z = other.add_value("z", DataType::Float32, {2, 3});
  other.add_node("Relu", "r", {d.c}, {y});  // reads a value whose producer is in d.g
  other.add_node("Relu", "s", {y}, {z});
  try {
    other.topological_order();
    FAIL() << "expected InvalidGraphError";
  } catch (const InvalidGraphError& e) {
    EXPECT_STREQ(e.what(), "graph 'other': an input is produced by a node outside the graph");
  }
}

TEST(Graph, UseListsStayExactUnderManyEditsOfAWidelyReadValue) {
  // One constant read by 200 nodes, some twice; nodes removed and inputs redirected in a fixed
  // pseudo-random order. Every use must name a slot that reads the value, and every such slot
  // must be listed once.
  Graph g;
  Value* w = g.add_constant("w", Tensor::allocate(DataType::Float32, {1}));
  Value* other = g.add_constant("other", Tensor::allocate(DataType::Float32, {1}));
  std::vector<Node*> readers;
  for (int i = 0; i < 200; ++i) {
    Value* out = g.add_value("y" + std::to_string(i), DataType::Float32, {1});
    readers.push_back(g.add_node("Add", "add" + std::to_string(i), {w, i % 3 ? w : other}, {out}));
  }
  auto check = [&](const Value* v) {
    size_t slots = 0;
    for (Node* n : g.nodes())
      for (size_t s = 0; s < n->num_inputs(); ++s) slots += n->input(s) == v;
    ASSERT_EQ(v->uses().size(), slots);
    for (const Use& u : v->uses()) {
      ASSERT_EQ(u.node->input(static_cast<size_t>(u.index)), v);
      ASSERT_EQ(std::count(v->uses().begin(), v->uses().end(), u), 1);
    }
  };
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1103515245u + 12345u, (state >> 8) % 1000; };
  for (int step = 0; step < 150; ++step) {
    Node* n = readers[next() % readers.size()];
    switch (next() % 3) {
      case 0:  // remove the node
        g.remove_node(n);
        readers.erase(std::find(readers.begin(), readers.end(), n));
        break;
      case 1:  // redirect slot 1
        g.set_input(n, 1, n->input(1) == w ? other : w);
        break;
      default:  // append another read of w
        g.append_input(n, w);
    }
    check(w);
    check(other);
  }
  g.replace_all_uses(w, other);
  EXPECT_TRUE(w->uses().empty());
  check(other);
}
