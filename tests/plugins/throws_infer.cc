// Replaces the shape inference of Relu and the function expander of Celu (both the registry's),
// then throws: the host must give both ops back what the registry registered.
#include <stdexcept>

#include "ge/sdk/plugin.h"
static void reg(ge::Registrar& r) {
  r.set_shape_inference("", "Relu", [](ge::InferContext&) { throw std::runtime_error("throws_infer's Relu inference ran"); });
  ge::FunctionExpander fx;
  fx.has_body = [](int64_t) { return false; };
  fx.expand = [](ge::Node&, int64_t) -> std::vector<ge::Node*> { throw std::runtime_error("throws_infer's Celu body ran"); };
  r.add_function_expander("", "Celu", std::move(fx));
  throw std::runtime_error("deliberate failure after replacing Relu's inference and Celu's body");
}
GE_PLUGIN("throws_infer", "1.0.0", reg)
