// Writes the small ONNX models and tensors the gec command-line tests use (no Python needed):
//   relu.onnx          x: f32[2,3] → Relu → y
//   no_kernel.onnx     x: f32[2,3] → test.NoKernel → y   (op defined by the op_only test plugin)
//   corrupt.onnx       bytes that are not a protobuf ModelProto
//   wrong_input/input_0.pb   f32[3,3] (relu.onnx wants f32[2,3])
//   wrong_dtype/input_0.pb   i64[2,3]
//   tiny_cnn/          a small CNN with an independently computed reference (tiny_cnn.h)
//   dyn_matmul/        x: f32[batch,4], b: f32[batch,3] → MatMul(x, W) + b → y: f32[batch,3] with
//                      W[i][j] = i - j (a 4×3 initializer); test_data_set_0..2 at batch 1, 3, 2 with
//                      x[r][i] = r + i, b[r][j] = 10 j and y computed here by the definition
//                      y[r][j] = sum_i x[r][i] W[i][j] + b[r][j]; dyn_bad_rank/, dyn_bad_fixed/,
//                      dyn_bad_bind/ hold inputs that break the model's own dims
//   staged_select/     x: f32[batch,4] → total = ReduceSum(Relu(x)); t = Transpose(NonZero(Relu(x)));
//                      values = 2·GatherND(x, t); unique = Unique(GatherND(x, t)); count = Shape(unique):
//                      two nodes whose output shapes depend on the data (no output shape declared);
//                      test_data_set_0..2 at batch 3, 1 and 2 (the last all negative: NonZero gives
//                      [2, 0]) with references computed here by the definitions
//   staged_parallel/   a: f32[2,3], b: i64[2,2] → na = NonZero(a), nab = Concat(na, NonZero(b), axis 1):
//                      two data-dependent nodes neither downstream of the other (the prefix of the
//                      cut at one holds the other); one test set, references by the definition
//   einsum_upper/      x: f32[2,3] → Einsum "JI" (implicit output: the labels in alphabetical order,
//                      Operators.md) → y: f32[3,2] = the transpose; one test set, x[j][i] = 10 j + i
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <tuple>

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
onnx::TensorProto floats(std::vector<int64_t> dims, const std::vector<float>& v) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t.add_dims(d);
  for (float x : v) t.add_float_data(x);
  return t;
}

void add_dyn_io(onnx::ValueInfoProto* vi, const std::string& name, int64_t fixed) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("batch");
  tt->mutable_shape()->add_dim()->set_dim_value(fixed);
}

void write_dyn_matmul(const fs::path& dir) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ge-tests");
  auto* os = m.add_opset_import();
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("dyn_matmul");
  std::vector<float> w(12);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) w[i * 3 + j] = static_cast<float>(i - j);
  *g->add_initializer() = floats({4, 3}, w);
  g->mutable_initializer(0)->set_name("W");
  auto* mm = g->add_node();
  mm->set_op_type("MatMul");
  mm->set_name("mm");
  mm->add_input("x");
  mm->add_input("W");
  mm->add_output("xw");
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("add");
  add->add_input("xw");
  add->add_input("b");
  add->add_output("y");
  add_dyn_io(g->add_input(), "x", 4);
  add_dyn_io(g->add_input(), "b", 3);
  add_dyn_io(g->add_output(), "y", 3);
  write(m, dir / "model.onnx");
  const int64_t batches[] = {1, 3, 2};
  for (int k = 0; k < 3; ++k) {
    const int64_t n = batches[k];
    std::vector<float> x, b, y;
    for (int64_t r = 0; r < n; ++r) {
      for (int i = 0; i < 4; ++i) x.push_back(static_cast<float>(r + i));
      for (int j = 0; j < 3; ++j) b.push_back(10.0f * static_cast<float>(j));
      for (int j = 0; j < 3; ++j) {
        float acc = 10.0f * static_cast<float>(j);
        for (int i = 0; i < 4; ++i) acc += static_cast<float>(r + i) * w[i * 3 + j];
        y.push_back(acc);
      }
    }
    const fs::path set = dir / ("test_data_set_" + std::to_string(k));
    write(floats({n, 4}, x), set / "input_0.pb");
    write(floats({n, 3}, b), set / "input_1.pb");
    write(floats({n, 3}, y), set / "output_0.pb");
  }
  write(floats({2, 4, 1}, std::vector<float>(8, 1.0f)), dir / "dyn_bad_rank" / "input_0.pb");
  write(floats({2, 3}, std::vector<float>(6, 1.0f)), dir / "dyn_bad_rank" / "input_1.pb");
  write(floats({2, 5}, std::vector<float>(10, 1.0f)), dir / "dyn_bad_fixed" / "input_0.pb");
  write(floats({2, 3}, std::vector<float>(6, 1.0f)), dir / "dyn_bad_fixed" / "input_1.pb");
  write(floats({2, 4}, std::vector<float>(8, 1.0f)), dir / "dyn_bad_bind" / "input_0.pb");
  write(floats({3, 3}, std::vector<float>(9, 1.0f)), dir / "dyn_bad_bind" / "input_1.pb");
}
onnx::TensorProto int64s(std::vector<int64_t> dims, const std::vector<int64_t>& v) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t.add_dims(d);
  for (int64_t x : v) t.add_int64_data(x);
  return t;
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::string& name,
                          std::vector<std::string> ins, std::vector<std::string> outs) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& i : ins) n->add_input(i);
  for (auto& o : outs) n->add_output(o);
  return n;
}

void write_staged_select(const fs::path& dir) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ge-tests");
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("staged_select");
  *g->add_initializer() = floats({}, {2.0f});
  g->mutable_initializer(0)->set_name("two");
  add_node(g, "Relu", "relu", {"x"}, {"r"});
  auto* rs = add_node(g, "ReduceSum", "sum", {"r"}, {"total"});
  auto* kd = rs->add_attribute();
  kd->set_name("keepdims");
  kd->set_type(onnx::AttributeProto::INT);
  kd->set_i(0);
  add_node(g, "NonZero", "nonzero", {"r"}, {"nz"});
  auto* tr = add_node(g, "Transpose", "transpose", {"nz"}, {"t"});
  auto* perm = tr->add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  perm->add_ints(1);
  perm->add_ints(0);
  add_node(g, "GatherND", "gather", {"x", "t"}, {"v"});
  add_node(g, "Mul", "twice", {"v", "two"}, {"values"});
  add_node(g, "Unique", "unique", {"v"}, {"unique"});
  add_node(g, "Shape", "shape", {"unique"}, {"count"});
  auto* x = g->add_input();
  x->set_name("x");
  auto* xt = x->mutable_type()->mutable_tensor_type();
  xt->set_elem_type(onnx::TensorProto::FLOAT);
  xt->mutable_shape()->add_dim()->set_dim_param("batch");
  xt->mutable_shape()->add_dim()->set_dim_value(4);
  for (auto [name, dt] : {std::pair{"total", onnx::TensorProto::FLOAT}, {"values", onnx::TensorProto::FLOAT},
                          {"unique", onnx::TensorProto::FLOAT}, {"count", onnx::TensorProto::INT64}}) {
    auto* o = g->add_output();
    o->set_name(name);
    o->mutable_type()->mutable_tensor_type()->set_elem_type(dt);
  }
  write(m, dir / "model.onnx");
  const int64_t batches[] = {3, 1, 2};
  for (int k = 0; k < 3; ++k) {
    const int64_t n = batches[k];
    std::vector<float> xs, values;
    float total = 0;
    for (int64_t r = 0; r < n; ++r)
      for (int64_t i = 0; i < 4; ++i) {
        const float v = k == 2 ? -1.0f : static_cast<float>((r * 4 + i) * 3 % 7 - 3);
        xs.push_back(v);
        if (v > 0) {  // NonZero of Relu(x), row-major; GatherND reads x at those (r, i)
          total += v;
          values.push_back(v);
        }
      }
    std::vector<float> unique = values;
    std::sort(unique.begin(), unique.end());
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    std::vector<float> twice;
    for (float v : values) twice.push_back(2 * v);
    const fs::path set = dir / ("test_data_set_" + std::to_string(k));
    write(floats({n, 4}, xs), set / "input_0.pb");
    write(floats({}, {total}), set / "output_0.pb");
    write(floats({static_cast<int64_t>(twice.size())}, twice), set / "output_1.pb");
    write(floats({static_cast<int64_t>(unique.size())}, unique), set / "output_2.pb");
    write(int64s({1}, {static_cast<int64_t>(unique.size())}), set / "output_3.pb");
  }
}
void write_staged_parallel(const fs::path& dir) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ge-tests");
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("staged_parallel");
  add_node(g, "NonZero", "nz_a", {"a"}, {"na"});
  add_node(g, "NonZero", "nz_b", {"b"}, {"nb"});
  auto* cat = add_node(g, "Concat", "cat", {"na", "nb"}, {"nab"});
  auto* ax = cat->add_attribute();
  ax->set_name("axis");
  ax->set_type(onnx::AttributeProto::INT);
  ax->set_i(1);
  for (auto [name, dt, d0, d1] : {std::tuple{"a", onnx::TensorProto::FLOAT, 2, 3}, {"b", onnx::TensorProto::INT64, 2, 2}}) {
    auto* vi = g->add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(dt);
    tt->mutable_shape()->add_dim()->set_dim_value(d0);
    tt->mutable_shape()->add_dim()->set_dim_value(d1);
  }
  for (const char* name : {"na", "nab"}) {
    auto* o = g->add_output();
    o->set_name(name);
    o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  }
  write(m, dir / "model.onnx");
  // a = [[0,1,0],[2,0,3]]: nonzeros at (0,1), (1,0), (1,2); b = [[1,0],[0,5]]: at (0,0), (1,1)
  const fs::path set = dir / "test_data_set_0";
  write(floats({2, 3}, {0, 1, 0, 2, 0, 3}), set / "input_0.pb");
  write(int64s({2, 2}, {1, 0, 0, 5}), set / "input_1.pb");
  write(int64s({2, 3}, {0, 1, 1, 1, 0, 2}), set / "output_0.pb");
  write(int64s({2, 5}, {0, 1, 1, 0, 1, 1, 0, 2, 0, 1}), set / "output_1.pb");
}
void write_einsum_upper(const fs::path& dir) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ge-tests");
  m.add_opset_import()->set_version(12);
  auto* g = m.mutable_graph();
  g->set_name("einsum_upper");
  auto* e = add_node(g, "Einsum", "einsum", {"x"}, {"y"});
  auto* eq = e->add_attribute();
  eq->set_name("equation");
  eq->set_type(onnx::AttributeProto::STRING);
  eq->set_s("JI");
  auto* vi = g->add_input();
  vi->set_name("x");
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  g->add_output()->set_name("y");
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  write(m, dir / "model.onnx");
  std::vector<float> x, y;
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 3; ++i) x.push_back(static_cast<float>(10 * j + i));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) y.push_back(static_cast<float>(10 * j + i));  // y[i][j] = x[j][i]
  const fs::path set = dir / "test_data_set_0";
  write(floats({2, 3}, x), set / "input_0.pb");
  write(floats({3, 2}, y), set / "output_0.pb");
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
  write_dyn_matmul(out / "dyn_matmul");
  write_staged_select(out / "staged_select");
  write_staged_parallel(out / "staged_parallel");
  write_einsum_upper(out / "einsum_upper");
  return 0;
}
