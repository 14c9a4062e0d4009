// plugins/framework_ops/params.cc — parameters a layer-style op creates when its graph gives none,
// initialised as PyTorch's layers do (reset_parameters in torch/nn/modules/conv.py, linear.py).
#include <cmath>
#include <cstdint>
#include <random>

#include "framework_ops.h"

namespace ge::framework_ops {

std::vector<float> uniform_fan_in(const std::string& key, int64_t count, int64_t fan_in) {
  uint32_t h = 2166136261u;  // FNV-1a, 32 bit
  for (unsigned char c : key) h = (h ^ c) * 16777619u;
  std::mt19937 rng(h);
  const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) {
    const double u = static_cast<double>(rng() >> 8) / 16777216.0;  // [0, 1), 24 bits
    x = static_cast<float>((2 * u - 1) * bound);
  }
  return v;
}

}  // namespace ge::framework_ops
