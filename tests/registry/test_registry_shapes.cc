// Tests for registry/: every definition parses and has shape inference, and shape inference
// gives the exact shapes of onnx/docs/Operators.md for the cases that are easy to get wrong.
#include <gtest/gtest.h>

#include <limits>
#include <set>

#include "ge/registry/standard_ops.h"
#include "ge/sdk/error.h"

using namespace ge;

namespace {

// Collects what the plugin registers into a real ge::OpRegistry.
class TestRegistrar : public Registrar {
 public:
  OpRegistry reg;
  std::set<std::string> inferred;
  const std::string& plugin_name() const override { return name_; }
  const std::string& plugin_dir() const override { return name_; }
  std::string options_toml() const override { return ""; }
  void add_op(OpDef d) override {
    d.source = name_;
    reg.add(std::move(d));
  }
  void set_shape_inference(const std::string& domain, const std::string& op,
                           ShapeInferenceFn fn) override {
    inferred.insert(op);
    reg.set_infer(domain, op, std::move(fn));
  }
  void add_kernel(KernelDef) override {}
  void add_backend(std::shared_ptr<Backend>) override {}
  void add_frontend(std::shared_ptr<Frontend>) override {}
  void add_pass(std::shared_ptr<Pass>) override {}
  void add_fusion_rule(std::shared_ptr<FusionRule>) override {}
  void add_memory_planner(std::shared_ptr<MemoryPlanner>) override {}
  void add_scheduler(std::shared_ptr<Scheduler>) override {}

 private:
  std::string name_ = "registry";
};

TestRegistrar& registrar() {
  static TestRegistrar* r = [] {
    auto* t = new TestRegistrar;
    registry::register_standard_ops(*t);
    return t;
  }();
  return *r;
}

Tensor i64(std::vector<int64_t> v) {
  Tensor t = Tensor::allocate(DataType::Int64, Shape{static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data_as<int64_t>());
  return t;
}
Tensor scalar_bool(bool b) {
  Tensor t = Tensor::allocate(DataType::Bool, Shape{});
  *t.data_as<uint8_t>() = b;
  return t;
}

class Shapes : public ::testing::Test {
 protected:
  Graph g;
  Value* in(Shape s, DataType t = DataType::Float32) {
    return g.add_input(g.unique_value_name("x"), t, std::move(s));
  }
  Value* cst(Tensor t) { return g.add_constant(g.unique_value_name("c"), std::move(t)); }
  /// Adds `op` and runs the definition a model at `opset` uses; returns the node.
  Node* run(const std::string& op, std::vector<Value*> inputs, Attributes attrs = {},
            int64_t opset = 17, size_t num_outputs = 1) {
    std::vector<Value*> outs;
    for (size_t i = 0; i < num_outputs; ++i) outs.push_back(g.add_value(g.unique_value_name("y")));
    Node* n = g.add_node(op, "", std::move(inputs), std::move(outs), std::move(attrs));
    const OpDef* def = registrar().reg.find("", op, opset);
    if (!def) throw std::runtime_error("no definition of " + op);
    InferContext ctx(*n, *def, opset);
    def->infer(ctx);
    return n;
  }
  Shape shape(const std::string& op, std::vector<Value*> inputs, Attributes attrs = {},
              int64_t opset = 17) {
    return run(op, std::move(inputs), std::move(attrs), opset)->output(0)->shape;
  }
};

Attributes A(std::initializer_list<std::pair<const std::string, AttrValue>> kv) {
  Attributes a;
  for (auto& [k, v] : kv) a.set(k, v);
  return a;
}
using Ints = std::vector<int64_t>;

}  // namespace

TEST(RegistryDefs, EveryOpParsesAndHasShapeInference) {
  const std::set<std::string> expected = {
      "Conv", "BatchNormalization", "Relu", "Clip", "Sigmoid", "Add", "Sub", "Mul", "Div", "Pow",
      "Sqrt", "Erf", "Sum", "MatMul", "Gemm", "MaxPool", "AveragePool", "GlobalAveragePool",
      "Flatten", "Reshape", "Transpose", "Concat", "Slice", "Gather", "Unsqueeze", "Squeeze",
      "Shape", "Constant", "Identity", "Dropout", "ReduceMean", "Softmax", "Split"};
  auto& r = registrar();
  std::set<std::string> defined;
  for (const OpDef* d : r.reg.all()) {
    defined.insert(d->op_type);
    EXPECT_TRUE(d->infer) << d->op_type << "-" << d->since_version << " has no shape inference";
    EXPECT_FALSE(d->numerics.empty()) << d->op_type;
    EXPECT_FALSE(d->outputs.empty()) << d->op_type;
  }
  EXPECT_EQ(defined, expected);
  EXPECT_EQ(r.inferred, expected);
  // Every op has a definition usable by every opset from 7 to 17.
  for (const auto& op : expected) {
    if (op == "Erf") continue;  // Erf-9 is the first Erf
    for (int opset = 7; opset <= 17; ++opset)
      EXPECT_NE(r.reg.find("", op, opset), nullptr) << op << " at opset " << opset;
  }
}

TEST(RegistryDefs, VersionsAndMetadata) {
  auto& r = registrar().reg;
  EXPECT_EQ(r.find("", "Softmax", 12)->since_version, 11);
  EXPECT_EQ(std::get<int64_t>(*r.find("", "Softmax", 13)->find_attr("axis")->default_value), -1);
  EXPECT_EQ(r.find("", "Unsqueeze", 12)->inputs.size(), 1u);
  EXPECT_EQ(r.find("", "Unsqueeze", 13)->inputs.size(), 2u);
  EXPECT_EQ(r.find("", "Reshape", 13)->find_attr("allowzero"), nullptr);
  EXPECT_NE(r.find("", "Reshape", 14)->find_attr("allowzero"), nullptr);
  EXPECT_EQ(r.find("", "Clip", 10)->inputs.size(), 1u);
  EXPECT_EQ(r.find("", "Clip", 11)->inputs.size(), 3u);
  EXPECT_EQ(r.find("", "Add", 13)->inputs[0].types.size(), 6u);
  EXPECT_EQ(r.find("", "Add", 14)->inputs[0].types.size(), 10u);
  EXPECT_TRUE(r.find("", "Concat", 13)->inputs[0].variadic);
  EXPECT_TRUE(r.find("", "MaxPool", 12)->find_attr("kernel_shape")->required);
  EXPECT_EQ(r.find("", "Conv", 17)->pattern, OpPattern::OutElementwiseFusable);
  EXPECT_EQ(r.find("", "Add", 17)->pattern, OpPattern::Broadcast);
  EXPECT_EQ(r.find("", "Relu", 17)->pattern, OpPattern::Elementwise);
  EXPECT_EQ(r.find("", "Transpose", 17)->pattern, OpPattern::Injective);
  EXPECT_EQ(r.find("", "ReduceMean", 17)->pattern, OpPattern::Reduce);
  EXPECT_EQ(r.find("", "Shape", 17)->fuse_flag, FuseFlag::Never);
  EXPECT_EQ(r.find("", "Shape", 17)->outputs[0].types, std::vector<DataType>{DataType::Int64});
}

TEST_F(Shapes, ConvSameUpperStride2) {
  auto a = A({{"auto_pad", std::string("SAME_UPPER")}, {"strides", Ints{2, 2}}});
  EXPECT_EQ(shape("Conv", {in({1, 3, 7, 7}), in({8, 3, 3, 3})}, a), (Shape{1, 8, 4, 4}));
}

TEST_F(Shapes, ConvPadsDilationsGroupsBias) {
  auto a = A({{"pads", Ints{1, 1, 1, 1}}, {"dilations", Ints{2, 2}}, {"group", int64_t{2}}});
  EXPECT_EQ(shape("Conv", {in({1, 4, 7, 7}), in({6, 2, 3, 3}), in({6})}, a), (Shape{1, 6, 5, 5}));
  EXPECT_EQ(shape("Conv", {in({2, 3, 10}), in({5, 3, 4})}, A({{"auto_pad", std::string("VALID")}})),
            (Shape{2, 5, 7}));
  EXPECT_THROW(shape("Conv", {in({1, 3, 7, 7}), in({8, 2, 3, 3})}), InvalidGraphError);
  EXPECT_THROW(shape("Conv", {in({1, 3, 7, 7}), in({8, 3, 3, 3}), in({7})}), InvalidGraphError);
  EXPECT_THROW(shape("Conv", {in({1, 3}), in({8, 3})}), UnsupportedError);
}

TEST_F(Shapes, MaxPoolCeilModeAndIndices) {
  auto k3s2 = [](int64_t ceil) {
    return A({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", ceil}});
  };
  EXPECT_EQ(shape("MaxPool", {in({1, 1, 6, 6})}, k3s2(0)), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(shape("MaxPool", {in({1, 1, 6, 6})}, k3s2(1)), (Shape{1, 1, 3, 3}));
  // A last window that would start in the end padding is dropped: 5 + 2 pads, k2 s2 → 3, not 4.
  auto pad = A({{"kernel_shape", Ints{2}}, {"strides", Ints{2}}, {"pads", Ints{1, 1}},
                {"ceil_mode", int64_t{1}}});
  EXPECT_EQ(shape("MaxPool", {in({1, 1, 5})}, pad), (Shape{1, 1, 3}));
  Node* n = run("MaxPool", {in({1, 2, 6, 6})}, k3s2(1), 12, 2);
  EXPECT_EQ(n->output(1)->shape, (Shape{1, 2, 3, 3}));
  EXPECT_EQ(n->output(1)->dtype, DataType::Int64);
  EXPECT_THROW(shape("MaxPool", {in({1, 1, 6, 6})}), InvalidGraphError);  // no kernel_shape
}

TEST_F(Shapes, AveragePoolAndGlobal) {
  auto a = A({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}},
              {"auto_pad", std::string("SAME_LOWER")}});
  EXPECT_EQ(shape("AveragePool", {in({1, 3, 9, 8})}, a), (Shape{1, 3, 5, 4}));
  EXPECT_EQ(shape("GlobalAveragePool", {in({2, 3, 9, 8})}), (Shape{2, 3, 1, 1}));
}

TEST_F(Shapes, BatchNormAndDropout) {
  auto c = [&] { return in({3}); };
  EXPECT_EQ(shape("BatchNormalization", {in({2, 3, 4, 4}), c(), c(), c(), c()}),
            (Shape{2, 3, 4, 4}));
  EXPECT_THROW(shape("BatchNormalization", {in({2, 3, 4, 4}), c(), c(), c(), c()},
                     A({{"training_mode", int64_t{1}}})),
               UnsupportedError);
  EXPECT_THROW(shape("BatchNormalization", {in({2, 3, 4, 4}), in({4}), c(), c(), c()}),
               InvalidGraphError);
  Node* d = run("Dropout", {in({2, 5})}, {}, 13, 2);
  EXPECT_EQ(d->output(0)->shape, (Shape{2, 5}));
  EXPECT_EQ(d->output(1)->dtype, DataType::Bool);
  EXPECT_EQ(run("Dropout", {in({2, 5})}, {}, 7, 2)->output(1)->dtype, DataType::Float32);
  EXPECT_NO_THROW(run("Dropout", {in({2, 5}), nullptr, cst(scalar_bool(false))}, {}, 13));
  EXPECT_THROW(run("Dropout", {in({2, 5}), nullptr, cst(scalar_bool(true))}, {}, 13),
               UnsupportedError);
}

TEST_F(Shapes, SoftmaxKeepsShape) {
  EXPECT_EQ(shape("Softmax", {in({2, 3, 4})}), (Shape{2, 3, 4}));
  EXPECT_EQ(shape("Softmax", {in({2, 3, 4})}, {}, 11), (Shape{2, 3, 4}));
  EXPECT_THROW(shape("Softmax", {in({2, 3})}, A({{"axis", int64_t{2}}})), InvalidGraphError);
}

TEST_F(Shapes, ElementwiseAndBroadcast) {
  EXPECT_EQ(shape("Relu", {in({2, 3})}), (Shape{2, 3}));
  EXPECT_EQ(shape("Add", {in({2, 1, 4}), in({3, 1})}), (Shape{2, 3, 4}));
  EXPECT_EQ(shape("Pow", {in({2, 3}), in({})}), (Shape{2, 3}));
  EXPECT_THROW(shape("Mul", {in({2, 3}), in({4})}), InvalidGraphError);
  EXPECT_EQ(shape("Sum", {in({3}), in({2, 1}), in({1, 3})}), (Shape{2, 3}));
  EXPECT_THROW(shape("Sum", {in({3}), in({2, 3})}, {}, 7), InvalidGraphError);
  EXPECT_EQ(shape("Clip", {in({4}), in({}), in({})}), (Shape{4}));
}

TEST_F(Shapes, MatMulBroadcastAnd1D) {
  EXPECT_EQ(shape("MatMul", {in({2, 1, 3, 4}), in({5, 4, 6})}), (Shape{2, 5, 3, 6}));
  EXPECT_EQ(shape("MatMul", {in({4}), in({4, 6})}), (Shape{6}));
  EXPECT_EQ(shape("MatMul", {in({2, 3, 4}), in({4})}), (Shape{2, 3}));
  EXPECT_EQ(shape("MatMul", {in({4}), in({4})}), (Shape{}));
  EXPECT_THROW(shape("MatMul", {in({3, 4}), in({5, 6})}), InvalidGraphError);
}

TEST_F(Shapes, GemmTranspose) {
  EXPECT_EQ(shape("Gemm", {in({4, 3}), in({4, 5}), in({5})}, A({{"transA", int64_t{1}}})),
            (Shape{3, 5}));
  EXPECT_EQ(shape("Gemm", {in({3, 4}), in({5, 4})}, A({{"transB", int64_t{1}}})), (Shape{3, 5}));
  EXPECT_THROW(shape("Gemm", {in({3, 4}), in({4, 5}), in({4, 5})}), InvalidGraphError);
  EXPECT_THROW(shape("Gemm", {in({3, 4}), in({4, 5})}, {}, 9), InvalidGraphError);  // C required
}

TEST_F(Shapes, ReduceMean) {
  EXPECT_EQ(shape("ReduceMean", {in({2, 3, 4})}, A({{"axes", Ints{-1}}})), (Shape{2, 3, 1}));
  EXPECT_EQ(shape("ReduceMean", {in({2, 3, 4})}, A({{"axes", Ints{0, 2}}, {"keepdims", int64_t{0}}})),
            (Shape{3}));
  EXPECT_EQ(shape("ReduceMean", {in({2, 3, 4})}, A({{"keepdims", int64_t{0}}})), (Shape{}));
}

TEST_F(Shapes, FlattenTransposeConcatGather) {
  EXPECT_EQ(shape("Flatten", {in({2, 3, 4, 5})}, A({{"axis", int64_t{-2}}})), (Shape{6, 20}));
  EXPECT_EQ(shape("Flatten", {in({2, 3})}, A({{"axis", int64_t{0}}})), (Shape{1, 6}));
  EXPECT_EQ(shape("Transpose", {in({2, 3, 4})}), (Shape{4, 3, 2}));
  EXPECT_EQ(shape("Transpose", {in({2, 3, 4})}, A({{"perm", Ints{1, 0, 2}}})), (Shape{3, 2, 4}));
  EXPECT_THROW(shape("Transpose", {in({2, 3, 4})}, A({{"perm", Ints{1, 1, 2}}})), InvalidGraphError);
  auto ax = A({{"axis", int64_t{-1}}});
  EXPECT_EQ(shape("Concat", {in({2, 3}), in({2, 5})}, ax), (Shape{2, 8}));
  EXPECT_THROW(shape("Concat", {in({2, 3}), in({3, 5})}, ax), InvalidGraphError);
  EXPECT_EQ(shape("Gather", {in({5, 6, 7}), in({2, 3}, DataType::Int64)}, A({{"axis", int64_t{1}}})),
            (Shape{5, 2, 3, 7}));
  EXPECT_EQ(shape("Gather", {in({5, 6}), cst(i64({-1}))}), (Shape{1, 6}));
  EXPECT_THROW(shape("Gather", {in({5, 6}), cst(i64({5}))}), InvalidGraphError);
}

TEST_F(Shapes, ReshapeZeroAndMinusOne) {
  EXPECT_EQ(shape("Reshape", {in({2, 3, 4}), cst(i64({0, -1}))}), (Shape{2, 12}));
  EXPECT_EQ(shape("Reshape", {in({2, 3, 4}), cst(i64({-1}))}), (Shape{24}));
  EXPECT_EQ(shape("Reshape", {in({0, 3}), cst(i64({3, 0}))}, A({{"allowzero", int64_t{1}}})),
            (Shape{3, 0}));
  EXPECT_THROW(shape("Reshape", {in({2, 3, 4}), cst(i64({5, -1}))}), InvalidGraphError);
  EXPECT_THROW(shape("Reshape", {in({2, 3}), cst(i64({-1, -1}))}), InvalidGraphError);
  EXPECT_THROW(shape("Reshape", {in({2, 3}), in({2}, DataType::Int64)}), UnsupportedError);
}

TEST_F(Shapes, SliceNegativeStepAndClamping) {
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  // Axis 1 of 6 from the last element backwards by 2: indices 5, 3, 1.
  EXPECT_EQ(shape("Slice", {in({5, 6}), cst(i64({-1})), cst(i64({kMin})), cst(i64({1})),
                            cst(i64({-2}))}),
            (Shape{5, 3}));
  EXPECT_EQ(shape("Slice", {in({5, 6}), cst(i64({1, -100})), cst(i64({kMax, 3}))}), (Shape{4, 3}));
  EXPECT_EQ(shape("Slice", {in({5, 6}), cst(i64({4})), cst(i64({2}))}), (Shape{0, 6}));
  EXPECT_EQ(shape("Slice", {in({5, 6})}, A({{"starts", Ints{1}}, {"ends", Ints{-1}}, {"axes", Ints{1}}}), 9),
            (Shape{5, 4}));
  EXPECT_THROW(shape("Slice", {in({5}), cst(i64({0})), cst(i64({5})), cst(i64({0})), cst(i64({0}))}),
               InvalidGraphError);
}

TEST_F(Shapes, UnsqueezeAndSqueezeBothForms) {
  EXPECT_EQ(shape("Unsqueeze", {in({3, 4})}, A({{"axes", Ints{0, -1}}}), 11), (Shape{1, 3, 4, 1}));
  EXPECT_EQ(shape("Unsqueeze", {in({3, 4}), cst(i64({1}))}, {}, 13), (Shape{3, 1, 4}));
  EXPECT_THROW(shape("Unsqueeze", {in({3, 4})}, {}, 13), InvalidGraphError);  // axes input missing
  EXPECT_EQ(shape("Squeeze", {in({1, 3, 1, 4})}, {}, 11), (Shape{3, 4}));
  EXPECT_EQ(shape("Squeeze", {in({1, 3, 1, 4})}, A({{"axes", Ints{-2}}}), 11), (Shape{1, 3, 4}));
  EXPECT_EQ(shape("Squeeze", {in({1, 3, 1, 4}), cst(i64({0}))}, {}, 13), (Shape{3, 1, 4}));
  EXPECT_THROW(shape("Squeeze", {in({1, 3}), cst(i64({1}))}, {}, 13), InvalidGraphError);
}

TEST_F(Shapes, ShapeSetsData) {
  Node* n = run("Shape", {in({2, 3, 4, 5})}, A({{"start", int64_t{1}}, {"end", int64_t{-1}}}), 15);
  const Value* y = n->output(0);
  EXPECT_EQ(y->dtype, DataType::Int64);
  EXPECT_EQ(y->shape, (Shape{2}));
  ASSERT_NE(y->data, nullptr);
  EXPECT_EQ(y->data->to_int64_vector(), (Ints{3, 4}));
  // Shape-13 ignores start/end (they do not exist there).
  n = run("Shape", {in({2, 3, 4, 5})}, {}, 13);
  EXPECT_EQ(n->output(0)->data->to_int64_vector(), (Ints{2, 3, 4, 5}));
}

TEST_F(Shapes, ConstantSetsData) {
  Node* n = run("Constant", {}, A({{"value_ints", Ints{7, 8, 9}}}));
  EXPECT_EQ(n->output(0)->shape, (Shape{3}));
  EXPECT_EQ(n->output(0)->data->to_int64_vector(), (Ints{7, 8, 9}));
  n = run("Constant", {}, A({{"value_float", 2.5f}}));
  EXPECT_EQ(n->output(0)->shape, (Shape{}));
  EXPECT_EQ(n->output(0)->dtype, DataType::Float32);
  n = run("Constant", {}, A({{"value", i64({1, 2})}}));
  EXPECT_EQ(n->output(0)->data->to_int64_vector(), (Ints{1, 2}));
  EXPECT_THROW(run("Constant", {}, A({{"sparse_value", i64({1})}})), UnsupportedError);
  EXPECT_THROW(run("Constant", {}), InvalidGraphError);
}
