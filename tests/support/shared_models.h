// tests/support/shared_models.h — the shared models (../shared/models) and their reference data.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "ge/core/onnx_frontend.h"
#include "ge/sdk/tensor.h"

namespace ge::test {

inline std::filesystem::path shared_dir() {
  if (const char* e = std::getenv("GE_SHARED_DIR")) return e;
  return std::filesystem::path(__FILE__).parent_path() / "../../../shared";
}

/// Every models/<name>/<name>.onnx and models/onnx-light/<name>/model.onnx, sorted.
inline std::vector<std::filesystem::path> shared_models() {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  fs::path root = shared_dir() / "models";
  if (!fs::exists(root)) return out;
  for (auto& d : fs::directory_iterator(root)) {
    if (!d.is_directory()) continue;
    fs::path named = d.path() / (d.path().filename().string() + ".onnx");
    if (fs::exists(named)) out.push_back(named);
  }
  if (fs::exists(root / "onnx-light"))
    for (auto& d : fs::directory_iterator(root / "onnx-light"))
      if (fs::exists(d.path() / "model.onnx")) out.push_back(d.path() / "model.onnx");
  std::sort(out.begin(), out.end());
  return out;
}

/// prefix0.pb, prefix1.pb, … of a test_data_set directory.
inline std::vector<Tensor> read_set(const std::filesystem::path& dir, const std::string& prefix) {
  std::vector<Tensor> out;
  for (int k = 0; std::filesystem::exists(dir / (prefix + std::to_string(k) + ".pb")); ++k)
    out.push_back(core::read_tensor_file((dir / (prefix + std::to_string(k) + ".pb")).string()));
  return out;
}

/// ‖x − y‖ / ‖y‖ (0 when both are zero).
inline double relative_error(const Tensor& got, const Tensor& want) {
  auto x = got.to_double_vector(), y = want.to_double_vector();
  if (x.size() != y.size()) return INFINITY;
  double d = 0, n = 0;
  for (size_t k = 0; k < x.size(); ++k) d += (x[k] - y[k]) * (x[k] - y[k]), n += y[k] * y[k];
  return std::sqrt(d / std::max(n, 1e-30));
}

}  // namespace ge::test
