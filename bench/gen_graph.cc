// gen_graph: writes a synthetic ONNX model of about N nodes for compile-time scaling runs.
//
//   gen_graph KIND NODES OUT.onnx
//
// KIND is one block repeated until the graph holds NODES nodes (the last block may be cut short
// by a plain Relu chain so the count is exact):
//   chain      Relu → Add c → Mul c → Sigmoid                                  (4 nodes)
//   residual   x + Relu(MatMul(Relu(MatMul(x, W1)), W2)), then Relu            (5 nodes)
//   wide       8 parallel branches (Relu/Sigmoid/Add c/Mul c, 2 nodes each) joined by Sum (17)
//   attention  single-head self-attention: Q,K,V MatMuls, Transpose, MatMul, Div, Softmax,
//              MatMul, output MatMul, residual Add                                  (10 nodes)
//   mixed      the four blocks in turn
// Tensors are tiny ([1,8,16]) and the weights are shared initializers, so a run costs little and
// import + compile time is what the graph's size drives. Opset 13, static shapes.
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {
constexpr int64_t S = 8, D = 16;  // x: f32[1,S,D]

struct Builder {
  onnx::GraphProto* g;
  int64_t nodes = 0;
  int64_t next = 0;

  std::string fresh() { return "t" + std::to_string(next++); }

  std::string node(const std::string& op, std::vector<std::string> in) {
    auto* n = g->add_node();
    std::string out = fresh();
    n->set_op_type(op);
    n->set_name(op + "_" + out);
    for (auto& i : in) n->add_input(i);
    n->add_output(out);
    ++nodes;
    return out;
  }
  std::string node_attr_i(const std::string& op, std::vector<std::string> in, const char* attr, int64_t v) {
    std::string out = node(op, std::move(in));
    auto* a = g->mutable_node(g->node_size() - 1)->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
    return out;
  }
  std::string node_attr_ints(const std::string& op, std::vector<std::string> in, const char* attr,
                             std::vector<int64_t> v) {
    std::string out = node(op, std::move(in));
    auto* a = g->mutable_node(g->node_size() - 1)->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
    return out;
  }
};

void add_initializer(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims, std::mt19937& rng,
                     float scale) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (auto d : dims) {
    t->add_dims(d);
    n *= d;
  }
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng);
  t->set_raw_data(v.data(), v.size() * sizeof(float));
}

void add_io(onnx::ValueInfoProto* vi, const std::string& name) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (auto d : {int64_t{1}, S, D}) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

std::string chain(Builder& b, std::string x) {
  x = b.node("Relu", {x});
  x = b.node("Add", {x, "c_add"});
  x = b.node("Mul", {x, "c_mul"});
  return b.node("Sigmoid", {x});
}

std::string residual(Builder& b, std::string x) {
  std::string h = b.node("MatMul", {x, "w1"});
  h = b.node("Relu", {h});
  h = b.node("MatMul", {h, "w2"});
  h = b.node("Add", {x, h});
  return b.node("Relu", {h});
}

std::string wide(Builder& b, std::string x) {
  static const char* first[] = {"Relu", "Sigmoid", "Add", "Mul"};
  std::vector<std::string> branches;
  for (int i = 0; i < 8; ++i) {
    std::string op = first[i % 4];
    std::string h = (op == "Add") ? b.node("Add", {x, "c_add"}) : (op == "Mul") ? b.node("Mul", {x, "c_mul"})
                                                                                 : b.node(op, {x});
    h = b.node(i % 2 ? "Relu" : "Sigmoid", {h});
    branches.push_back(h);
  }
  return b.node("Sum", branches);
}

std::string attention(Builder& b, std::string x) {
  std::string q = b.node("MatMul", {x, "wq"});
  std::string k = b.node("MatMul", {x, "wk"});
  std::string v = b.node("MatMul", {x, "wv"});
  std::string kt = b.node_attr_ints("Transpose", {k}, "perm", {0, 2, 1});
  std::string s = b.node("MatMul", {q, kt});
  s = b.node("Div", {s, "c_scale"});
  std::string p = b.node_attr_i("Softmax", {s}, "axis", -1);
  std::string o = b.node("MatMul", {p, v});
  o = b.node("MatMul", {o, "wo"});
  return b.node("Add", {x, o});
}

constexpr int64_t block_size(const std::string_view kind) {
  return kind == "chain" ? 4 : kind == "residual" ? 5 : kind == "wide" ? 17 : kind == "attention" ? 10 : 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: gen_graph chain|residual|wide|attention|mixed NODES OUT.onnx\n");
    return 2;
  }
  std::string kind = argv[1];
  int64_t target = std::atoll(argv[2]);
  const std::vector<std::string> kinds = {"chain", "residual", "wide", "attention"};
  if (kind != "mixed" && block_size(kind) == 0) {
    std::fprintf(stderr, "gen_graph: error: unknown kind '%s'\n", kind.c_str());
    return 2;
  }
  if (target < 1) {
    std::fprintf(stderr, "gen_graph: error: NODES must be >= 1\n");
    return 2;
  }

  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ge-bench-gen_graph");
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name(kind + "_" + std::to_string(target));
  std::mt19937 rng(8);
  const float ws = 1.0f / static_cast<float>(D);  // keeps activations bounded over many blocks
  for (const char* w : {"w1", "w2", "wq", "wk", "wv", "wo"}) add_initializer(g, w, {D, D}, rng, ws);
  add_initializer(g, "c_add", {D}, rng, 0.1f);
  add_initializer(g, "c_mul", {D}, rng, 1.0f);
  add_initializer(g, "c_scale", {}, rng, 0.0f);
  g->mutable_initializer(g->initializer_size() - 1)->set_raw_data(std::string("\x00\x00\x80\x40", 4));  // 4.0f
  add_io(g->add_input(), "x");

  Builder b{g};
  std::string x = "x";
  for (size_t i = 0;; ++i) {
    const std::string& k = kind == "mixed" ? kinds[i % kinds.size()] : kind;
    if (b.nodes + block_size(k) > target) break;
    x = k == "chain" ? chain(b, x) : k == "residual" ? residual(b, x) : k == "wide" ? wide(b, x) : attention(b, x);
  }
  while (b.nodes < target) x = b.node("Relu", {x});
  // Name the last tensor "y" so the graph output has a stable name.
  auto* last = g->mutable_node(g->node_size() - 1);
  last->set_output(0, "y");
  add_io(g->add_output(), "y");

  std::ofstream out(argv[3], std::ios::binary);
  if (!out || !m.SerializeToOstream(&out)) {
    std::fprintf(stderr, "gen_graph: error: cannot write '%s'\n", argv[3]);
    return 1;
  }
  std::printf("%s: %lld nodes (%s)\n", argv[3], static_cast<long long>(b.nodes), kind.c_str());
  return 0;
}
