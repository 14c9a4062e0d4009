// plugins/framework_ops/batchnorm.cc — BatchNorm / BatchNorm2d (PyTorch) / FusedBatchNorm
// (TensorFlow, CANN) in inference -> ONNX BatchNormalization (onnx/docs/Operators.md):
// Y = scale * (X - mean) / sqrt(var + epsilon) + B per channel. Without parameters: PyTorch's
// init (torch/nn/modules/batchnorm.py: weight 1, bias 0, running_mean 0, running_var 1).
#include "framework_ops.h"
#include "ge/sdk/error.h"

namespace ge::framework_ops {

std::vector<Node*> expand_batchnorm(Node& n, int64_t) {
  Graph& g = *n.graph();
  const std::string who = n.describe();
  Value* x = n.input(0);
  if (x->shape.rank() < 2)
    throw InvalidGraphError(who + ": input '" + x->name() + "' has shape " + x->shape.str() + "; BatchNorm needs [N, C, ...]");
  int given = 0;
  for (size_t i = 1; i < 5; ++i) given += n.input(i) != nullptr;
  if (given != 0 && given != 4)
    throw InvalidGraphError(who + ": " + std::to_string(given) + " of the 4 parameters (scale, B, mean, var) given; give all or none");
  if (n.attrs.get_int("is_training", 0) != 0)
    throw UnsupportedError(who + ": is_training = 1 (batch statistics) is training; GE runs inference only");
  if (n.attrs.has("eps") && n.attrs.has("epsilon"))
    throw InvalidGraphError(who + ": both eps and epsilon given");
  const float eps = n.attrs.has("epsilon") ? n.attrs.get_float("epsilon", 1e-5f) : n.attrs.get_float("eps", 1e-5f);
  const bool nhwc = is_nhwc(n);
  const int64_t C = nhwc ? x->shape[x->shape.rank() - 1] : x->shape[1];
  if (n.attrs.has("num_features") && n.attrs.get_int("num_features", 0) != C)
    throw InvalidGraphError(who + ": num_features = " + std::to_string(n.attrs.get_int("num_features", 0)) +
                            " but input '" + x->name() + "' has " + std::to_string(C) + " channels");
  std::vector<Value*> params(n.inputs().begin() + 1, n.inputs().end());
  params.resize(4, nullptr);
  if (given == 0) {
    const char* what[] = {"weight", "bias", "running_mean", "running_var"};
    const float value[] = {1, 0, 0, 1};
    for (int i = 0; i < 4; ++i)
      params[i] = add_param(g, n, what[i], Shape{C}, std::vector<float>(C, value[i]),
                            std::string(value[i] ? "ones" : "zeros") + ", PyTorch's BatchNorm init");
  }
  const std::string name = n.name();
  Value* y = n.output(0);
  const size_t rank = x->shape.rank();
  g.remove_node(&n);
  std::vector<Node*> made;
  std::vector<int64_t> to_nchw{0, static_cast<int64_t>(rank) - 1}, to_nhwc{0};
  for (size_t i = 1; i + 1 < rank; ++i) to_nchw.push_back(static_cast<int64_t>(i));
  for (size_t i = 2; i < rank; ++i) to_nhwc.push_back(static_cast<int64_t>(i));
  to_nhwc.push_back(1);
  Value* in = nhwc ? transpose(g, name + "/to_nchw", x, to_nchw, made) : x;
  Value* out = nhwc ? g.add_value(g.unique_value_name(name + "/bn")) : y;
  Attributes a;
  a.set("epsilon", eps);
  made.push_back(add(g, "BatchNormalization", name, {in, params[0], params[1], params[2], params[3]}, {out}, std::move(a)));
  if (nhwc) {
    Attributes t;
    t.set("perm", to_nhwc);
    made.push_back(add(g, "Transpose", name + "/to_nhwc", {out}, {y}, std::move(t)));
  }
  return made;
}

}  // namespace ge::framework_ops
