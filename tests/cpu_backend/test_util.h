// tests/cpu_backend/test_util.h — small helpers for the CPU kernel unit tests.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ge/sdk/attribute.h"
#include "ge/sdk/error.h"
#include "ge/sdk/tensor.h"

namespace ge::test {

inline Tensor f32(Shape s, const std::vector<float>& v) {
  Tensor t = Tensor::allocate(DataType::Float32, s);
  EXPECT_EQ(static_cast<size_t>(t.numel()), v.size()) << "test data size for " << s.str();
  for (size_t i = 0; i < v.size() && i < static_cast<size_t>(t.numel()); ++i) t.data_as<float>()[i] = v[i];
  return t;
}

/// 0, 1, 2, ... (the ONNX examples' np.arange inputs).
inline Tensor iota(Shape s, float start = 0.0f) {
  Tensor t = Tensor::allocate(DataType::Float32, s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = start + static_cast<float>(i);
  return t;
}

/// Deterministic pseudo-random values in [-1, 1).
inline Tensor rnd(Shape s, uint32_t seed = 1) {
  Tensor t = Tensor::allocate(DataType::Float32, s);
  for (int64_t i = 0; i < t.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    t.data_as<float>()[i] = static_cast<float>(seed >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return t;
}

inline std::vector<float> values(const Tensor& t) { return {t.data_as<float>(), t.data_as<float>() + t.numel()}; }

inline void expect_near(const Tensor& got, const std::vector<float>& want, float tol = 1e-4f) {
  ASSERT_EQ(static_cast<size_t>(got.numel()), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got.data_as<float>()[i], want[i], tol * std::max(1.0f, std::fabs(want[i]))) << "at element " << i;
}

inline Attributes attrs(std::initializer_list<std::pair<std::string, AttrValue>> kv) {
  Attributes a;
  for (auto& [k, v] : kv) a.set(k, v);
  return a;
}
using Ints = std::vector<int64_t>;

}  // namespace ge::test
