// plugins/ascend_backend/cast_op.cc — ge.Cast, the conversion the precision pass inserts
// (fp32 <-> fp16; `to` is the ONNX TensorProto data type code: 1 float32, 10 float16).
#include "ge/sdk/op_registry.h"
#include "ge/sdk/plugin.h"
#include "precision.h"

namespace ge::ascend {
namespace {

constexpr const char* kCastDef = R"(
[[op]]
name = "Cast"
domain = "ge"
since = 1
pattern = "elementwise"
fuse_flag = "never"
numerics = "reduces_precision: fp32 -> fp16 rounds to nearest even"
doc = "Y = X converted to dtype `to` (ONNX code: 1 float32, 10 float16), inserted by ascend_precision."
inputs = [ { name = "X", types = ["float32", "float16"] } ]
outputs = [ { name = "Y", types = ["float32", "float16"] } ]
attrs = [ { name = "to", type = "int" } ]
)";

void infer_cast(InferContext& ctx) {
  if (!ctx.has_input(0)) ctx.fail("missing input 'X'");
  const int64_t to = ctx.attr_int("to");
  if (to != static_cast<int64_t>(DataType::Float16) && to != static_cast<int64_t>(DataType::Float32))
    ctx.fail("'to' must be 1 (float32) or 10 (float16), got " + std::to_string(to));
  ctx.set_output(0, static_cast<DataType>(to), ctx.input_shape(0));
}

}  // namespace

void register_cast_op(Registrar& r) {
  for (OpDef& d : parse_op_defs_toml(kCastDef, "plugins/ascend_backend/cast_op.cc")) r.add_op(std::move(d));
  r.set_shape_inference("ge", "Cast", infer_cast);
}

}  // namespace ge::ascend
