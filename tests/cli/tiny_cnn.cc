#include "tiny_cnn.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

namespace fs = std::filesystem;

namespace ge::test {

namespace {
constexpr int C = 3, H = 16, W = 16, K = 8, P = 8, O = 10;  // P: pooled size

onnx::TensorProto make_tensor(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t.add_dims(d);
  t.set_raw_data(v.data(), v.size() * sizeof(float));
  return t;
}

void add_io(onnx::ValueInfoProto* vi, const std::string& name, std::vector<int64_t> dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in, std::string out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + out);
  for (auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

void ints_attr(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}

void int_attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
}  // namespace

void write_tiny_cnn(const std::string& dir) {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  auto fill = [&](size_t n) { std::vector<float> v(n); for (auto& x : v) x = u(rng); return v; };
  std::vector<float> x = fill(C * H * W), w = fill(K * C * 9), b = fill(K), fw = fill(O * K * P * P), fb = fill(O);

  // Reference, in double.
  std::vector<double> conv(K * H * W);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < H; ++i)
      for (int j = 0; j < W; ++j) {
        double s = b[k];
        for (int c = 0; c < C; ++c)
          for (int di = 0; di < 3; ++di)
            for (int dj = 0; dj < 3; ++dj) {
              int ii = i + di - 1, jj = j + dj - 1;
              if (ii >= 0 && ii < H && jj >= 0 && jj < W) s += double(w[((k * C + c) * 3 + di) * 3 + dj]) * x[(c * H + ii) * W + jj];
            }
        conv[(k * H + i) * W + j] = std::max(s, 0.0);
      }
  std::vector<double> pooled(K * P * P);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j)
        pooled[(k * P + i) * P + j] = std::max({conv[(k * H + 2 * i) * W + 2 * j], conv[(k * H + 2 * i) * W + 2 * j + 1],
                                                conv[(k * H + 2 * i + 1) * W + 2 * j], conv[(k * H + 2 * i + 1) * W + 2 * j + 1]});
  std::vector<float> y(O);
  for (int o = 0; o < O; ++o) {
    double s = fb[o];
    for (int q = 0; q < K * P * P; ++q) s += double(fw[o * K * P * P + q]) * pooled[q];
    y[o] = static_cast<float>(s);
  }

  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ge-tests tiny_cnn");
  auto* os = m.add_opset_import();
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("tiny_cnn");
  add_io(g->add_input(), "x", {1, C, H, W});
  add_io(g->add_output(), "y", {1, O});
  *g->add_initializer() = make_tensor("w", {K, C, 3, 3}, w);
  *g->add_initializer() = make_tensor("b", {K}, b);
  *g->add_initializer() = make_tensor("fw", {O, K * P * P}, fw);
  *g->add_initializer() = make_tensor("fb", {O}, fb);
  auto* cv = add_node(g, "Conv", {"x", "w", "b"}, "c");
  ints_attr(cv, "pads", {1, 1, 1, 1});
  ints_attr(cv, "kernel_shape", {3, 3});
  add_node(g, "Relu", {"c"}, "r");
  auto* mp = add_node(g, "MaxPool", {"r"}, "p");
  ints_attr(mp, "kernel_shape", {2, 2});
  ints_attr(mp, "strides", {2, 2});
  add_node(g, "Flatten", {"p"}, "f");
  auto* gm = add_node(g, "Gemm", {"f", "fw", "fb"}, "y");
  int_attr(gm, "transB", 1);

  fs::create_directories(fs::path(dir) / "test_data_set_0");
  std::ofstream(fs::path(dir) / "model.onnx", std::ios::binary) << m.SerializeAsString();
  std::ofstream(fs::path(dir) / "test_data_set_0" / "input_0.pb", std::ios::binary)
      << make_tensor("x", {1, C, H, W}, x).SerializeAsString();
  std::ofstream(fs::path(dir) / "test_data_set_0" / "output_0.pb", std::ios::binary)
      << make_tensor("y", {1, O}, y).SerializeAsString();
}

}  // namespace ge::test
