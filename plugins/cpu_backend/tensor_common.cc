// plugins/cpu_backend/tensor_common.cc — element conversions of tensor_common.h and the
// registration of the tensor families declared there.
#include "tensor_common.h"

namespace ge::cpu::arith {

double load_double(const Tensor& t, int64_t i) {
  double v = 0;
  if (!visit(NumericBool{}, t.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        v = static_cast<double>(Num<T>::load(t.data_as<T>()[i]));
      })) {
    throw UnsupportedError("dtype " + std::string(dtype_name(t.dtype())) + " has no numeric value");
  }
  return v;
}

void store_double(Tensor& t, int64_t i, double v) {
  if (!visit(NumericBool{}, t.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        using A = typename Num<T>::acc;
        t.data_as<T>()[i] = Num<T>::store(static_cast<A>(v));
      })) {
    throw UnsupportedError("dtype " + std::string(dtype_name(t.dtype())) + " has no numeric value");
  }
}

}  // namespace ge::cpu::arith
