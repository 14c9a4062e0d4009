// Writes the small ONNX models and tensors the gec command-line tests use (no Python needed):
//   relu.onnx          x: f32[2,3] → Relu → y
//   no_kernel.onnx     x: f32[2,3] → test.NoKernel → y   (op defined by the op_only test plugin)
//   corrupt.onnx       bytes that are not a protobuf ModelProto
//   wrong_input/input_0.pb   f32[3,3] (relu.onnx wants f32[2,3])
//   wrong_dtype/input_0.pb   i64[2,3]
//   tiny_cnn/          a small CNN with an independently computed reference (tiny_cnn.h)
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "tiny_cnn.h"

namespace fs = std::filesystem;

namespace {
onnx::ModelProto single_op_model(const std::string& op, const std::string& domain) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ge-tests");
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  if (!domain.empty()) {
    auto* o2 = m.add_opset_import();
    o2->set_domain(domain);
    o2->set_version(1);
  }
  auto* g = m.mutable_graph();
  g->set_name(op + "_graph");
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_domain(domain);
  n->set_name("the_" + op);
  n->add_input("x");
  n->add_output("y");
  for (const char* name : {"x", "y"}) {
    auto* vi = std::string(name) == "x" ? g->add_input() : g->add_output();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(2);
    tt->mutable_shape()->add_dim()->set_dim_value(3);
  }
  return m;
}

void write(const google::protobuf::Message& m, const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  m.SerializeToOstream(&out);
}

onnx::TensorProto tensor(onnx::TensorProto::DataType dt, std::vector<int64_t> dims) {
  onnx::TensorProto t;
  t.set_data_type(dt);
  int64_t n = 1;
  for (auto d : dims) {
    t.add_dims(d);
    n *= d;
  }
  size_t bytes = static_cast<size_t>(n) * (dt == onnx::TensorProto::INT64 ? 8 : 4);
  t.set_raw_data(std::string(bytes, '\0'));
  return t;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_test_models OUT_DIR\n";
    return 2;
  }
  fs::path out = argv[1];
  write(single_op_model("Relu", ""), out / "relu.onnx");
  write(single_op_model("NoKernel", "test"), out / "no_kernel.onnx");
  std::ofstream(out / "corrupt.onnx", std::ios::binary) << "\x08\x07garbage that is not a ModelProto\xff\xff\xff";
  write(tensor(onnx::TensorProto::FLOAT, {3, 3}), out / "wrong_input" / "input_0.pb");
  write(tensor(onnx::TensorProto::INT64, {2, 3}), out / "wrong_dtype" / "input_0.pb");
  ge::test::write_tiny_cnn((out / "tiny_cnn").string());
  return 0;
}
