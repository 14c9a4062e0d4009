// plugins/framework_ops/plugin.cc — entry point of libge_framework_ops.so: the framework-style op
// types of ops/framework.toml and the expanders that map them onto ONNX ops at import.
#include <algorithm>

#include "framework_ops.h"
#include "ge/sdk/error.h"
#include "ge/sdk/plugin.h"

namespace {

void register_framework_ops(ge::Registrar& r) {
  using namespace ge::framework_ops;
  std::vector<std::string> defined;
  for (const OpFile& f : embedded_op_files())
    for (ge::OpDef& d : ge::parse_op_defs_toml(f.text, f.origin)) {
      defined.push_back(d.op_type);
      r.add_op(std::move(d));
    }
  for (const Family& fam : families())
    for (const std::string& op : fam.op_types) {
      if (std::find(defined.begin(), defined.end(), op) == defined.end())
        throw ge::Error("framework_ops: op type '" + op + "' has an expander but no definition in ops/*.toml");
      r.set_shape_inference("", op, [op](ge::InferContext& ctx) {
        ctx.unsupported(op + " is a framework alias: the importer maps it onto ONNX ops when compiling for a backend");
      });
      ge::FunctionExpander fx;
      fx.has_body = [](int64_t) { return true; };
      fx.expand = fam.expand;
      r.add_function_expander("", op, std::move(fx));
    }
}

}  // namespace

GE_PLUGIN("framework_ops", "0.1.0", register_framework_ops)
