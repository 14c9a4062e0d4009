// plugins/framework_ops/bias_add.cc — BiasAdd (TensorFlow tf.nn.bias_add, CANN BiasAdd) -> ONNX
// Add, the bias [C] broadcast along the channel axis: the last axis for NHWC (numpy broadcasting
// as it is), axis 1 for NCHW (the bias reshaped to [C, 1, ..., 1] first). Without a bias: zeros
// (Keras's default bias_initializer).
#include "framework_ops.h"
#include "ge/sdk/error.h"

namespace ge::framework_ops {

std::vector<Node*> expand_bias_add(Node& n, int64_t) {
  Graph& g = *n.graph();
  const std::string who = n.describe();
  Value* x = n.input(0);
  Value* bias = n.input(1);
  const size_t rank = x->shape.rank();
  if (rank < 2) throw InvalidGraphError(who + ": input '" + x->name() + "' has shape " + x->shape.str() + "; BiasAdd needs a channel axis");
  const bool nhwc = is_nhwc(n);
  const int64_t C = nhwc ? x->shape[rank - 1] : x->shape[1];
  if (bias && (bias->shape.rank() != 1 || bias->shape[0] != C))
    throw InvalidGraphError(who + ": bias '" + bias->name() + "' has shape " + bias->shape.str() + "; expected [" +
                            std::to_string(C) + "] (the channels of '" + x->name() + "')");
  if (!bias) bias = add_param(g, n, "bias", Shape{C}, std::vector<float>(C, 0.0f), "zeros, Keras's bias init");
  const std::string name = n.name();
  Value* y = n.output(0);
  g.remove_node(&n);
  std::vector<Node*> made;
  if (!nhwc && rank > 2 && bias->is_constant()) {
    // A constant bias is stored as [C, 1, ..., 1] directly, so the graph is Conv + Add(constant)
    // even before constant folding (what the fusion rules match).
    std::vector<int64_t> shape(rank - 1, 1);
    shape[0] = C;
    Value* r = g.add_constant(g.unique_value_name(bias->name() + "_nchw"), bias->data->reshaped(Shape(shape)));
    made.push_back(add(g, "Add", name, {x, r}, {y}));
    if (bias->uses().empty() && !bias->is_graph_input() && !bias->is_graph_output()) g.remove_value(bias);
    return made;
  }
  if (!nhwc && rank > 2) {
    std::vector<int64_t> shape(rank - 1, 1);
    shape[0] = C;
    Value* r = g.add_value(g.unique_value_name(name + "/bias_nchw"));
    made.push_back(add(g, "Reshape", name + "/reshape", {bias, add_ints(g, name + "/bias_shape", shape)}, {r}));
    bias = r;
  }
  made.push_back(add(g, "Add", name, {x, bias}, {y}));
  return made;
}

}  // namespace ge::framework_ops
