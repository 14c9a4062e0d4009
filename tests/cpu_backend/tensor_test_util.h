// tests/cpu_backend/tensor_test_util.h — building and reading small tensors in kernel tests.
#pragma once
#include <algorithm>
#include <vector>

#include "elementwise_common.h"  // ge::cpu::dtype_of
#include "ge/sdk/tensor.h"

namespace ge::test {

/// A tensor of shape `s` holding `v` (row-major); T's dtype via ge::cpu::dtype_of.
template <class T>
Tensor make(Shape s, const std::vector<T>& v) {
  Tensor t = Tensor::allocate(cpu::dtype_of<T>(), std::move(s));
  std::copy(v.begin(), v.end(), t.data_as<T>());
  return t;
}

/// 0, 1, 2, ... as T in shape `s`.
template <class T>
Tensor iota(Shape s) {
  std::vector<T> v(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(i);
  return make<T>(std::move(s), v);
}

template <class T>
std::vector<T> values(const Tensor& t) {
  return {t.data_as<T>(), t.data_as<T>() + t.numel()};
}

/// An omitted optional input for KernelHarness::run.
inline Tensor omitted() { return Tensor(); }

}  // namespace ge::test
