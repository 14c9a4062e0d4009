// plugins/framework_ops/relu6.cc — Relu6 (TensorFlow tf.nn.relu6, CANN Relu6, PyTorch ReLU6):
// Y = min(max(X, 0), 6) -> ONNX Clip (min and max as inputs from opset 11, attributes before).
#include "framework_ops.h"

namespace ge::framework_ops {

std::vector<Node*> expand_relu6(Node& n, int64_t opset) {
  Graph& g = *n.graph();
  const std::string name = n.name();
  Value* x = n.input(0);
  Value* y = n.output(0);
  g.remove_node(&n);
  if (opset < 11) {
    Attributes a;
    a.set("min", 0.0f);
    a.set("max", 6.0f);
    return {add(g, "Clip", name, {x}, {y}, std::move(a))};
  }
  return {add(g, "Clip", name, {x, add_scalar(g, name + "/min", 0.0f), add_scalar(g, name + "/max", 6.0f)}, {y})};
}

}  // namespace ge::framework_ops
