// plugins/framework_ops/families.cc — which op types each family covers (ops/framework.toml
// defines them; a name here without a definition fails at plugin load).
#include "framework_ops.h"

namespace ge::framework_ops {

std::vector<Node*> expand_conv(Node& n, int64_t opset);
std::vector<Node*> expand_batchnorm(Node& n, int64_t opset);
std::vector<Node*> expand_bias_add(Node& n, int64_t opset);
std::vector<Node*> expand_linear(Node& n, int64_t opset);
std::vector<Node*> expand_matmul_v2(Node& n, int64_t opset);
std::vector<Node*> expand_relu6(Node& n, int64_t opset);

std::span<const Family> families() {
  static const std::vector<Family> f = {
      {{"Conv2d", "Conv2D", "Conv2dBiasRelu"}, expand_conv},
      {{"BatchNorm", "BatchNorm2d", "FusedBatchNorm"}, expand_batchnorm},
      {{"BiasAdd"}, expand_bias_add},
      {{"Linear"}, expand_linear},
      {{"MatMulV2"}, expand_matmul_v2},
      {{"Relu6"}, expand_relu6},
  };
  return f;
}

}  // namespace ge::framework_ops
