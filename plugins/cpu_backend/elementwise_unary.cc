// plugins/cpu_backend/elementwise_unary.cc — unary math (ONNX Operators.md: Abs, Neg,
// Reciprocal, Floor, Ceil, Round, Sign, Exp, Log, Sqrt, Erf, Sin ... Atanh, IsNaN, IsInf, Not)
// on every dtype of their schemas; float16/bfloat16 are computed in float32 (elementwise_common.h).
#include <cmath>
#include <limits>
#include <type_traits>

#include "elementwise_common.h"
#include "elementwise_ops.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {
using namespace ops;
}  // namespace

void register_unary_kernels(Registrar& r) {
  // Types per the schemas at opset 13 (Abs, Sign: every numeric type; Neg: the signed ones;
  // Round and the trigonometric family: float16/32/64, bfloat16 accepted as well).
  add_map_kernel(r, "Abs", unary_factory<AbsOp>("Abs", AnyNumericTypes{}));
  add_map_kernel(r, "Neg", unary_factory<NegOp>("Neg", AnySignedTypes{}));
  add_map_kernel(r, "Sign", unary_factory<SignOp>("Sign", AnyNumericTypes{}));
  add_map_kernel(r, "Reciprocal", unary_factory<ReciprocalOp>("Reciprocal", AnyFloatTypes{}));
  add_map_kernel(r, "Floor", unary_factory<FloorOp>("Floor", AnyFloatTypes{}));
  add_map_kernel(r, "Ceil", unary_factory<CeilOp>("Ceil", AnyFloatTypes{}));
  add_map_kernel(r, "Round", unary_factory<RoundOp>("Round", AnyFloatTypes{}));
  add_map_kernel(r, "Exp", unary_factory<ExpOp>("Exp", AnyFloatTypes{}));
  add_map_kernel(r, "Log", unary_factory<LogOp>("Log", AnyFloatTypes{}));
  add_map_kernel(r, "Sqrt", unary_factory<SqrtOp>("Sqrt", AnyFloatTypes{}));
  add_map_kernel(r, "Erf", unary_factory<ErfOp>("Erf", AnyNumericTypes{}));
  add_map_kernel(r, "Sin", unary_factory<SinOp>("Sin", AnyFloatTypes{}));
  add_map_kernel(r, "Cos", unary_factory<CosOp>("Cos", AnyFloatTypes{}));
  add_map_kernel(r, "Tan", unary_factory<TanOp>("Tan", AnyFloatTypes{}));
  add_map_kernel(r, "Asin", unary_factory<AsinOp>("Asin", AnyFloatTypes{}));
  add_map_kernel(r, "Acos", unary_factory<AcosOp>("Acos", AnyFloatTypes{}));
  add_map_kernel(r, "Atan", unary_factory<AtanOp>("Atan", AnyFloatTypes{}));
  add_map_kernel(r, "Sinh", unary_factory<SinhOp>("Sinh", AnyFloatTypes{}));
  add_map_kernel(r, "Cosh", unary_factory<CoshOp>("Cosh", AnyFloatTypes{}));
  add_map_kernel(r, "Asinh", unary_factory<AsinhOp>("Asinh", AnyFloatTypes{}));
  add_map_kernel(r, "Acosh", unary_factory<AcoshOp>("Acosh", AnyFloatTypes{}));
  add_map_kernel(r, "Atanh", unary_factory<AtanhOp>("Atanh", AnyFloatTypes{}));
  add_cpu_kernel(r, "IsNaN", map_factory<IsNaNOp, bool>("IsNaN", AnyFloatTypes{}, [](const KernelBuildContext&) {
                   return IsNaNOp{};
                 }));
  add_cpu_kernel(r, "IsInf", map_factory<IsInfOp, bool>("IsInf", AnyFloatTypes{}, [](const KernelBuildContext& c) {
                   return IsInfOp{c.node.attrs.get_int("detect_positive", 1) != 0,
                                  c.node.attrs.get_int("detect_negative", 1) != 0};
                 }));
  add_cpu_kernel(r, "Not", unary_factory<NotOp>("Not", Types<bool>{}));
}

}  // namespace ge::cpu
