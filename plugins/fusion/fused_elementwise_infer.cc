// plugins/fusion/fused_elementwise_infer.cc — shape inference of ge.FusedElementwise: checks the
// SSA program (ops/elementwise.toml documents the encoding) and sets the output to the numpy
// broadcast of all inputs, which equals the root's shape since every op in the tree broadcasts.
#include <set>
#include <string>

#include "ge/sdk/op_registry.h"
#include "registration.h"

namespace ge::fusion {
namespace {

/// Operand count of an instruction, or -1 for an op the program may not contain.
/// The ops of ops/elementwise.toml (the elementwise_chain rule's fusable_ops).
int fused_op_arity(const std::string& op) {
  static const std::set<std::string> binary{"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"};
  static const std::set<std::string> unary{"Sqrt", "Erf",  "Relu",  "Sigmoid", "Clip",      "Tanh", "Exp",
                                           "Log",  "Neg",  "Abs",   "Reciprocal", "Floor",  "Ceil", "LeakyRelu",
                                           "Elu",  "Selu", "Celu",  "ThresholdedRelu", "HardSigmoid", "HardSwish",
                                           "Softplus", "Softsign"};
  if (binary.count(op)) return 2;
  if (unary.count(op)) return 1;
  return -1;
}

/// The float parameters an instruction reads from `imms` (ops/elementwise.toml).
size_t fused_op_imms(const std::string& op) {
  if (op == "Clip" || op == "Selu" || op == "HardSigmoid") return 2;
  if (op == "LeakyRelu" || op == "Elu" || op == "Celu" || op == "ThresholdedRelu") return 1;
  return 0;
}

void infer_fused_elementwise(InferContext& ctx) {
  const Node& n = ctx.node();
  const auto* ops_attr = n.attrs.find("ops");
  if (!ops_attr || !std::holds_alternative<std::vector<std::string>>(*ops_attr)) ctx.fail("needs a strings attribute 'ops'");
  const auto& ops = std::get<std::vector<std::string>>(*ops_attr);
  const std::vector<int64_t> args = ctx.attr_ints("args");
  const std::vector<float> imms = n.attrs.get_floats("imms");
  if (ops.empty()) ctx.fail("empty program");
  const auto nin = static_cast<int64_t>(ctx.num_inputs());
  size_t a = 0, nimms = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const int arity = fused_op_arity(ops[i]);
    if (arity < 0) ctx.fail("instruction " + std::to_string(i) + ": unsupported op '" + ops[i] + "'");
    for (int k = 0; k < arity; ++k, ++a) {
      if (a >= args.size()) ctx.fail("args ends inside instruction " + std::to_string(i));
      if (args[a] < 0 || args[a] >= nin + static_cast<int64_t>(i))
        ctx.fail("instruction " + std::to_string(i) + " reads operand " + std::to_string(args[a]) +
                 ", which is not an input or an earlier result");
    }
    nimms += fused_op_imms(ops[i]);
  }
  if (a != args.size()) ctx.fail("args has " + std::to_string(args.size() - a) + " operands past the last instruction");
  if (imms.size() != nimms)
    ctx.fail("imms holds " + std::to_string(imms.size()) + " values, the program's instructions read " + std::to_string(nimms) +
             " (Clip [min, max]; LeakyRelu, Elu, Celu, ThresholdedRelu [alpha]; Selu [alpha, gamma]; HardSigmoid [alpha, beta])");
  if (nin == 0) ctx.fail("needs at least one input");
  // float32 as the rule makes it; float16 after a backend's precision pass (ascend force_fp16)
  // lowered the whole node. One dtype for all inputs and the output.
  const DataType t = ctx.input_type(0);
  if (t != DataType::Float32 && t != DataType::Float16) ctx.fail("input 0 is not float32 or float16");
  Shape out = ctx.input_shape(0);
  for (int64_t i = 0; i < nin; ++i) {
    if (ctx.input_type(i) != t) ctx.fail("input " + std::to_string(i) + " is not " + std::string(dtype_name(t)) + " like input 0");
    out = broadcast_shapes(out, ctx.input_shape(i), n.describe());
  }
  ctx.set_output(0, t, out);
}

}  // namespace

GE_FUSION_INFER("ge", "FusedElementwise", infer_fused_elementwise);

}  // namespace ge::fusion
