// plugins/ascend_backend/preferences.cc — backend "ascend"'s format preferences (read by the
// layout pass, docs/layout.md): fp16 Conv / ge.FusedConv are anchors reading NC1HWC0 (C0 = 16)
// activations and constant FRACTAL_Z weights (converted at compile time), writing NC1HWC0 — with
// at most 4 input channels NC1HWC0_C04 and FRACTAL_Z_C04 instead (CANN's small-channel path);
// fp16 pools, Concat and the elementwise ops with f(0) = 0 follow (run on NC1HWC0 where that
// removes conversions). fp16 MatMul / Gemm are anchors reading both matrix operands in
// FRACTAL_NZ (the Cube's operand format; a constant B converted at compile time, activations
// through TransData) and writing a plain result. fp32 nodes (must_keep_origin_dtype, AI CPU) keep
// plain layouts.
#include <set>

#include "cube.h"
#include "ge/sdk/plugin.h"
#include "preferences.h"

namespace ge::ascend {
namespace {

bool half(const Value* v) { return v && v->dtype == DataType::Float16; }

std::optional<NodeFormats> ascend_preference(const Node& n) {
  if (!half(n.input(0))) return std::nullopt;
  NodeFormats f;
  f.inputs.assign(n.num_inputs(), Format::NCHW);
  f.outputs.assign(n.num_outputs(), Format::NC1HWC0);
  if (n.domain().empty() && (n.op_type() == "MatMul" || n.op_type() == "Gemm")) {
    // A and B in FRACTAL_NZ (rank >= 2 each: a rank-1 MatMul operand has no matrix layout);
    // Gemm's C and the result stay plain (the result feeds Vector ops that read plain rows).
    for (size_t i : {size_t{0}, size_t{1}})
      if (!n.input(i) || n.input(i)->shape.rank() < 2 || n.input(i)->dtype != DataType::Float16) return std::nullopt;
    f.outputs.assign(n.num_outputs(), Format::ND);
    f.inputs.assign(n.num_inputs(), Format::ND);
    f.inputs[0] = f.inputs[1] = Format::FRACTAL_NZ;
    return f;
  }
  const bool conv = (n.domain().empty() && n.op_type() == "Conv") || (n.domain() == "ge" && n.op_type() == "FusedConv");
  if (conv) {
    const Value* x = n.input(0);
    const Value* w = n.input(1);
    if (x->shape.rank() != 4 || !w || !w->is_constant() || n.attrs.get_int("group", 1) != 1) return std::nullopt;
    // Small-channel convolutions (C <= 4, CANN's enable_small_channel): the C04 pair, whose
    // reduction order is the one the Cube uses for them (ConvKOrder, cube.h) — 4 channels per
    // pixel in global memory instead of 16.
    const bool c04 = ConvKOrder::uses_c04(x->shape[1], 1);
    f.inputs[0] = c04 ? Format::NC1HWC0_C04 : Format::NC1HWC0;
    f.inputs[1] = c04 ? Format::FRACTAL_Z_C04 : Format::FRACTAL_Z;
    if (n.num_inputs() > 2) f.inputs[2] = Format::ND;
    if (n.input(3)) f.inputs[3] = Format::NC1HWC0;
    return f;
  }
  if (!n.domain().empty() || n.input(0)->shape.rank() != 4) return std::nullopt;
  f.follows = true;
  static const std::set<std::string> pools{"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"};
  const std::string& op = n.op_type();
  if (pools.count(op)) {
    if (n.num_outputs() > 1 && n.output(1)) return std::nullopt;
    f.inputs[0] = Format::NC1HWC0;
    return f;
  }
  if (op == "BatchNormalization") {  // per channel: the parameters stay plain [C]
    for (size_t k = 1; k < n.num_outputs(); ++k)
      if (n.output(k)) return std::nullopt;
    f.inputs.assign(n.num_inputs(), Format::ND);
    f.inputs[0] = Format::NC1HWC0;
    return f;
  }
  if (op == "Relu" || op == "LeakyRelu") {
    f.inputs[0] = Format::NC1HWC0;
    return f;
  }
  if (op == "Clip") {  // f(0) = 0 only when min <= 0 <= max (constant bounds)
    for (size_t i : {size_t{1}, size_t{2}}) {
      const Value* b = n.input(i);
      if (!b) continue;
      if (!b->is_constant()) return std::nullopt;
      const float v = b->dtype == DataType::Float16 ? half_to_float(b->data->data_as<uint16_t>()[0]) : b->data->data_as<float>()[0];
      if (i == 1 ? v > 0.f : v < 0.f) return std::nullopt;
    }
    f.inputs[0] = Format::NC1HWC0;
    return f;
  }
  if (op == "Add" || op == "Sub" || op == "Mul") {
    if (!n.input(1) || n.input(0)->shape != n.input(1)->shape || n.output(0)->shape != n.input(0)->shape) return std::nullopt;
    f.inputs[0] = f.inputs[1] = Format::NC1HWC0;
    return f;
  }
  if (op == "Concat" && n.attrs.get_int("axis", 1) == 1) {
    for (const Value* v : n.inputs())
      if (!v || v->shape.rank() != 4) return std::nullopt;
    f.inputs.assign(n.num_inputs(), Format::NC1HWC0);
    return f;
  }
  return std::nullopt;
}

}  // namespace

void register_preferences(Registrar& r) { r.add_format_preference("ascend", ascend_preference); }

}  // namespace ge::ascend
