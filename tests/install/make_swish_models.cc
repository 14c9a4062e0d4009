// Writes the models of the install test (tests/install/vendor_plugin_test.sh) into OUT_DIR:
//   swish.onnx         x: f32[2,3,4,5] → y = Mul(x, Sigmoid(x))       (fusable)
//   swish_rev.onnx     x: f32[2,3,4,5] → y = Mul(Sigmoid(x), x)       (fusable, other input order)
//   swish_shared.onnx  as swish.onnx, but Sigmoid(x) is a graph output too (must not fuse)
//   test_data_set_0/input_0.pb   x
//   test_data_set_0/output_0.pb  y = x / (1 + exp(-x)), computed here in double precision
//   test_data_set_0/output_1.pb  sigmoid(x) (second output of swish_shared.onnx)
// The reference is independent of GE's kernels: double-precision libm, rounded once to float.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

namespace fs = std::filesystem;

namespace {
const std::vector<int64_t> kShape = {2, 3, 4, 5};

void set_type(onnx::ValueInfoProto* vi, const std::string& name) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : kShape) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::ModelProto swish_model(bool sigmoid_first, bool sigmoid_is_output) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ge-tests");
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("swish");
  auto* sig = g->add_node();
  sig->set_op_type("Sigmoid");
  sig->set_name("sigmoid");
  sig->add_input("x");
  sig->add_output("s");
  auto* mul = g->add_node();
  mul->set_op_type("Mul");
  mul->set_name("mul");
  mul->add_input(sigmoid_first ? "s" : "x");
  mul->add_input(sigmoid_first ? "x" : "s");
  mul->add_output("y");
  set_type(g->add_input(), "x");
  set_type(g->add_output(), "y");
  if (sigmoid_is_output) set_type(g->add_output(), "s");
  return m;
}

onnx::TensorProto float_tensor(const std::string& name, const std::vector<float>& v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : kShape) t.add_dims(d);
  std::string raw(v.size() * sizeof(float), '\0');
  std::memcpy(raw.data(), v.data(), raw.size());
  t.set_raw_data(raw);
  return t;
}

void write(const google::protobuf::Message& m, const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  if (!m.SerializeToOstream(&out)) {
    std::cerr << "make_swish_models: cannot write " << p << "\n";
    std::exit(1);
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_swish_models OUT_DIR\n";
    return 2;
  }
  fs::path out = argv[1];
  write(swish_model(false, false), out / "swish.onnx");
  write(swish_model(true, false), out / "swish_rev.onnx");
  write(swish_model(false, true), out / "swish_shared.onnx");

  int64_t n = 1;
  for (int64_t d : kShape) n *= d;
  std::vector<float> x(n), y(n), s(n);
  for (int64_t i = 0; i < n; ++i) {
    // -12 .. +12 in uneven steps, plus both tails (exp(-x) overflows for x = -100).
    x[i] = i == 0 ? -100.0f : i == 1 ? 100.0f : static_cast<float>(-12.0 + 24.0 * ((i * 37) % n) / (n - 1));
    const double xd = x[i];
    s[i] = static_cast<float>(1.0 / (1.0 + std::exp(-xd)));
    y[i] = static_cast<float>(xd / (1.0 + std::exp(-xd)));
  }
  fs::path data = out / "test_data_set_0";
  write(float_tensor("x", x), data / "input_0.pb");
  write(float_tensor("y", y), data / "output_0.pb");
  write(float_tensor("s", s), data / "output_1.pb");
  return 0;
}
