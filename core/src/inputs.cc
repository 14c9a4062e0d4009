#include "ge/core/inputs.h"

#include <random>

namespace ge::core {

std::vector<Tensor> random_inputs(const Graph& g, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  std::vector<Tensor> out;
  for (const Value* v : g.inputs()) {
    Tensor t = Tensor::allocate(v->dtype, v->shape);
    int64_t n = t.numel();
    switch (v->dtype) {
      case DataType::Float32: for (int64_t i = 0; i < n; ++i) t.data_as<float>()[i] = static_cast<float>(uni(rng)); break;
      case DataType::Float64: for (int64_t i = 0; i < n; ++i) t.data_as<double>()[i] = uni(rng); break;
      case DataType::Float16:
        for (int64_t i = 0; i < n; ++i) t.data_as<uint16_t>()[i] = float_to_half(static_cast<float>(uni(rng)));
        break;
      case DataType::Int64: for (int64_t i = 0; i < n; ++i) t.data_as<int64_t>()[i] = rng() & 1; break;
      case DataType::Int32: for (int64_t i = 0; i < n; ++i) t.data_as<int32_t>()[i] = rng() & 1; break;
      case DataType::Bool: for (int64_t i = 0; i < n; ++i) t.data_as<bool>()[i] = rng() & 1; break;
      default: {
        auto* b = static_cast<uint8_t*>(t.data());
        for (size_t i = 0; i < t.nbytes(); ++i) b[i] = rng() & 1;  // small non-negative values
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace ge::core
