// tests/core/test_onnx_validation.cc — the ONNX frontend refuses malformed or hostile models with
// a ge::Error naming the tensor or file, before any library (onnx::shape_inference) reads them:
// external data outside the model's folder or past its file's end, non-numeric offsets, sizes
// that do not match the dims, dims whose product overflows, duplicate graph inputs, and model
// paths that are not regular files (a FIFO would block the read forever).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ge/core/onnx_frontend.h"
#include "ge/sdk/error.h"
#include "ge/sdk/verifier.h"

namespace ge {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path root = fs::temp_directory_path() / ("ge_onnx_validation_" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(root);
    fs::create_directories(root / "model");
  }
  ~TempDir() { fs::remove_all(root); }
  fs::path model() const { return root / "model"; }
};

/// y = Add(x, w) with x: f32[2] an input and w: f32[2] the initializer `w`.
onnx::ModelProto add_model(const onnx::TensorProto& w) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("add");
  auto io = [](onnx::ValueInfoProto* v, const char* name) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(2);
  };
  io(g->add_input(), "x");
  io(g->add_output(), "y");
  *g->add_initializer() = w;
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Add");
  n->add_input("x");
  n->add_input(w.name());
  n->add_output("y");
  return m;
}

onnx::TensorProto weight(std::vector<int64_t> dims = {2}) {
  onnx::TensorProto w;
  w.set_name("w");
  w.set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) w.add_dims(d);
  return w;
}

onnx::TensorProto external(const std::string& location, const std::string& offset = "0") {
  onnx::TensorProto w = weight();
  w.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = w.add_external_data();
  kv->set_key("location"), kv->set_value(location);
  kv = w.add_external_data();
  kv->set_key("offset"), kv->set_value(offset);
  return w;
}

std::string save(const onnx::ModelProto& m, const fs::path& path) {
  std::ofstream out(path, std::ios::binary);
  m.SerializeToOstream(&out);
  return path.string();
}

void write_floats(const fs::path& p, std::vector<float> v) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
}

/// The ge::Error message of loading `path` ("" when it loads).
std::string load_error(const std::string& path) {
  try {
    core::make_onnx_frontend()->load(path, {});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(OnnxValidation, ExternalDataInsideTheFolderLoads) {
  TempDir d;
  write_floats(d.model() / "w.bin", {7, 7, 1.5f, -2});
  auto g = core::make_onnx_frontend()->load(save(add_model(external("w.bin", "8")), d.model() / "m.onnx"), {});
  const Value* w = g->find_value("w");
  ASSERT_TRUE(w && w->data);
  EXPECT_EQ(w->data->to_double_vector(), (std::vector<double>{1.5, -2}));
}

TEST(OnnxValidation, ExternalDataOutsideTheFolderIsRefused) {
  TempDir d;
  write_floats(d.root / "secret.bin", {1, 2});
  const std::string rel = load_error(save(add_model(external("../secret.bin")), d.model() / "m.onnx"));
  EXPECT_NE(rel.find("resolves outside the model's folder"), std::string::npos) << rel;
  const std::string abs = load_error(save(add_model(external((d.root / "secret.bin").string())), d.model() / "m.onnx"));
  EXPECT_NE(abs.find("must be a path relative to the model's folder"), std::string::npos) << abs;
  fs::create_symlink(d.root / "secret.bin", d.model() / "link.bin");
  const std::string link = load_error(save(add_model(external("link.bin")), d.model() / "m.onnx"));
  EXPECT_NE(link.find("resolves outside the model's folder"), std::string::npos) << link;
}

TEST(OnnxValidation, ExternalDataOffsetsAreCheckedNumbers) {
  TempDir d;
  write_floats(d.model() / "w.bin", {1, 2});
  std::string e = load_error(save(add_model(external("w.bin", "abc")), d.model() / "m.onnx"));
  EXPECT_NE(e.find("external data offset 'abc' is not a non-negative integer"), std::string::npos) << e;
  e = load_error(save(add_model(external("w.bin", "99999999999999999999")), d.model() / "m.onnx"));
  EXPECT_NE(e.find("is not a non-negative integer"), std::string::npos) << e;
  e = load_error(save(add_model(external("w.bin", "4")), d.model() / "m.onnx"));
  EXPECT_NE(e.find("lies past the end"), std::string::npos) << e;
  fs::create_directory(d.model() / "sub");
  e = load_error(save(add_model(external("sub")), d.model() / "m.onnx"));
  EXPECT_NE(e.find("is a directory"), std::string::npos) << e;
}

TEST(OnnxValidation, TensorSizesAreCheckedBeforeShapeInference) {
  TempDir d;
  onnx::TensorProto w = weight();
  w.set_raw_data(std::string(64, '\1'));  // 64 bytes for 2 floats: onnx::ParseData would read past dims
  std::string e = load_error(save(add_model(w), d.model() / "m.onnx"));
  EXPECT_NE(e.find("model file '"), std::string::npos) << e;
  EXPECT_NE(e.find("raw_data has 64 bytes"), std::string::npos) << e;

  w = weight({-2});
  e = load_error(save(add_model(w), d.model() / "m.onnx"));
  EXPECT_NE(e.find("negative dimension"), std::string::npos) << e;

  w = weight({int64_t{1} << 32, int64_t{1} << 32});
  e = load_error(save(add_model(w), d.model() / "m.onnx"));
  EXPECT_NE(e.find("more than 2^59 elements"), std::string::npos) << e;

  w = weight();
  w.set_data_type(77);
  e = load_error(save(add_model(w), d.model() / "m.onnx"));
  EXPECT_NE(e.find("is not an ONNX data type"), std::string::npos) << e;

  w = weight();
  w.add_float_data(1);  // one element for a shape of two
  e = load_error(save(add_model(w), d.model() / "m.onnx"));
  EXPECT_NE(e.find("has 1 elements, shape [2] needs 2"), std::string::npos) << e;
}

TEST(OnnxValidation, DuplicateGraphInputIsRefused) {
  TempDir d;
  onnx::TensorProto w = weight();
  w.add_float_data(1), w.add_float_data(2);
  onnx::ModelProto m = add_model(w);
  *m.mutable_graph()->add_input() = m.graph().input(0);
  const std::string e = load_error(save(m, d.model() / "m.onnx"));
  EXPECT_NE(e.find("graph input 'x' is listed twice"), std::string::npos) << e;
}

TEST(OnnxValidation, ModelPathMustBeARegularFile) {
  TempDir d;
  const fs::path fifo = d.model() / "fifo.onnx";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string e = load_error(fifo.string());  // a blocking open would hang here
  EXPECT_NE(e.find("is not a regular file"), std::string::npos) << e;
  fs::create_directory(d.model() / "dir.onnx");
  e = load_error((d.model() / "dir.onnx").string());
  EXPECT_NE(e.find("is a directory"), std::string::npos) << e;
  fs::create_symlink("loop.onnx", d.model() / "loop.onnx");
  e = load_error((d.model() / "loop.onnx").string());
  EXPECT_NE(e.find("cannot be opened"), std::string::npos) << e;
}

}  // namespace
}  // namespace ge

namespace ge {
namespace {

// onnx 1.12's LayerNormalization shape inference indexes dims by `axis` unchecked: axis -7 on a
// rank-2 input segfaulted inside onnx::shape_inference. The frontend skips ONNX's inference
// then (GE's propagation decides and refuses the axis itself).
TEST(OnnxValidation, LayerNormalizationAxisOutOfRangeDoesNotReachOnnxInference) {
  TempDir d;
  onnx::ModelProto m = add_model(weight());
  m.mutable_opset_import(0)->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->mutable_initializer(0)->add_float_data(1), g->mutable_initializer(0)->add_float_data(1);
  onnx::NodeProto* n = g->mutable_node(0);
  n->set_op_type("LayerNormalization");
  n->add_output("mean"), n->add_output("inv_std_dev");  // the outputs whose shape ONNX indexes by axis
  auto* a = n->add_attribute();
  a->set_name("axis"), a->set_type(onnx::AttributeProto::INT), a->set_i(-7);
  auto graph = core::make_onnx_frontend()->load(save(m, d.model() / "ln.onnx"), {});
  EXPECT_EQ(graph->num_nodes(), 1u);
}

// onnx's version converter (run for opsets below 7) builds onnx's IR first, which writes through a
// null value for a graph output nothing defines and has no graph below ir_version 2: refused
// before the converter runs (fuzz findings: tests/fuzz/regressions/onnx_import/).
TEST(OnnxValidation, ModelForTheVersionConverterIsCheckedFirst) {
  TempDir d;
  onnx::TensorProto w = weight();
  w.add_float_data(1), w.add_float_data(2);
  onnx::ModelProto m = add_model(w);
  m.mutable_opset_import(0)->set_version(6);
  m.mutable_graph()->mutable_output(0)->set_name("z");
  const std::string path = save(m, d.model() / "old.onnx");
  EXPECT_EQ(load_error(path), "model file '" + path + "': graph output 'z' is not produced by any node");
  m.mutable_graph()->mutable_output(0)->set_name("y");
  m.set_ir_version(1);
  const std::string path1 = save(m, d.model() / "ir1.onnx");
  EXPECT_EQ(load_error(path1), "model file '" + path1 +
                                   "' has ir_version 1; onnx's version converter (needed for opset 6) reads 2 and later");
  // ir_version 3: an initializer is not a value of its own (onnx/docs/IR.md), so not an output.
  m.set_ir_version(3);
  m.mutable_graph()->mutable_output(0)->set_name("w");
  const std::string path3 = save(m, d.model() / "ir3.onnx");
  EXPECT_EQ(load_error(path3), "model file '" + path3 + "': graph output 'w' is not produced by any node");
  // The same model, well formed, converts and loads.
  m.set_ir_version(8);
  m.mutable_graph()->mutable_output(0)->set_name("y");
  EXPECT_EQ(load_error(save(m, d.model() / "ok.onnx")), "");
}

// onnx 1.12's inference hands EyeLike's function a null type for an input nothing defines, which
// it dereferences: such a graph skips onnx's inference and meets GE's own refusal (fuzz findings:
// tests/fuzz/regressions/onnx_import/, onnx_proto/).
TEST(OnnxValidation, UndefinedNodeInputDoesNotReachOnnxInference) {
  TempDir d;
  onnx::ModelProto m = add_model(weight());
  m.mutable_opset_import(0)->set_version(9);
  onnx::GraphProto* g = m.mutable_graph();
  g->clear_initializer();
  onnx::NodeProto* n = g->mutable_node(0);
  n->set_op_type("EyeLike");
  n->clear_input();
  n->add_input("nowhere");
  // The frontend loads it (a dangling value, as for any undefined name); the verifier refuses it.
  auto graph = core::make_onnx_frontend()->load(save(m, d.model() / "eye.onnx"), {});
  try {
    verify_graph_or_throw(*graph);
    ADD_FAILURE() << "an undefined node input must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "graph 'add' is invalid: node 'EyeLike_1' (EyeLike): input 'nowhere' is never produced (dangling input)");
  }
}

// onnx 1.12's convPoolShapeInference takes Conv's kernel shape from W's dims and reads X's dims
// by it: a rank-2 X with a rank-4 W read past X's dims (SEGV; fuzz finding, the model files are in
// tests/fuzz/regressions/onnx_import/). The frontend's inference fails the node instead and the
// graph loads; GE's propagation then refuses it by name (cli_error_conv*_rank_mismatch).
TEST(OnnxValidation, ConvWhoseWeightRankDiffersFromItsInputLoadsWithoutOnnxInference) {
  TempDir d;
  onnx::TensorProto w;
  w.set_name("w");
  w.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : {2, 3, 3, 3}) w.add_dims(dim);
  for (int i = 0; i < 54; ++i) w.add_float_data(1.f);
  onnx::ModelProto m = add_model(w);
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(5);
  m.mutable_graph()->mutable_node(0)->set_op_type("Conv");
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  auto graph = core::make_onnx_frontend()->load(save(m, d.model() / "conv.onnx"), {});
  EXPECT_EQ(graph->num_nodes(), 1u);
}

}  // namespace
}  // namespace ge
