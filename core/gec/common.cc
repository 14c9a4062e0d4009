#include "common.h"

#include <filesystem>
#include <random>
#include <sstream>
#include <thread>

#include "ge/core/manifest.h"
#include "ge/core/onnx_frontend.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"

namespace fs = std::filesystem;

namespace gec {

void CommonOptions::add_to(CLI::App& app) {
  app.add_option("--manifest", manifest, "Deployment manifest (TOML); default: the installed default.toml");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error, off (default: GE_LOG_LEVEL or warn)");
  app.add_option("--backend", backend, "Backend to run on (default: the manifest's [backend] name)");
  app.add_option("--threads", threads, "Threads for kernels (default: the manifest's, else all cores)");
  app.add_option("--input-shape", input_shapes, "Override a graph input's shape: NAME:D0,D1,... (repeatable)");
  app.add_flag("--keep-initializer-inputs", keep_initializer_inputs,
               "Keep initializers that are also graph inputs (old IR) as inputs instead of constants");
}

std::unique_ptr<ge::core::Environment> CommonOptions::load_environment() const {
  if (!log_level.empty()) ge::set_log_level(log_level);
  std::string path = manifest.empty() ? ge::core::default_manifest_path() : manifest;
  return ge::core::load_environment(ge::core::load_manifest(path));
}

ge::core::ImportOptions CommonOptions::import_options(const ge::core::Environment& env) const {
  ge::core::ImportOptions o;
  o.frontend.keep_initializer_inputs = keep_initializer_inputs;
  for (const std::string& spec : input_shapes) {
    auto colon = spec.rfind(':');
    if (colon == std::string::npos || colon == 0)
      throw ge::Error("--input-shape '" + spec + "': expected NAME:D0,D1,...");
    std::vector<int64_t> dims;
    std::istringstream is(spec.substr(colon + 1));
    std::string d;
    while (std::getline(is, d, ',')) {
      try {
        size_t used = 0;
        long long v = std::stoll(d, &used);
        if (used != d.size() || v < 0) throw std::invalid_argument(d);
        dims.push_back(v);
      } catch (const std::exception&) {
        throw ge::Error("--input-shape '" + spec + "': '" + d + "' is not a dimension");
      }
    }
    o.frontend.input_shapes[spec.substr(0, colon)] = dims;
  }
  return o;
}

std::string CommonOptions::backend_name(const ge::core::Environment& env) const {
  return backend.empty() ? env.manifest.backend : backend;
}

int CommonOptions::thread_count(const ge::core::Environment& env) const {
  if (threads > 0) return threads;
  if (env.manifest.threads > 0) return env.manifest.threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<ge::Tensor> read_inputs(const std::string& dir, const ge::Graph& g) {
  if (!fs::is_directory(dir)) throw ge::Error("--inputs: '" + dir + "' is not a directory");
  std::vector<ge::Tensor> out;
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    std::string p = (fs::path(dir) / ("input_" + std::to_string(i) + ".pb")).string();
    if (!fs::exists(p))
      throw ge::Error("--inputs: '" + p + "' is missing (graph input #" + std::to_string(i) + " '" + g.inputs()[i]->name() + "')");
    out.push_back(ge::core::read_tensor_file(p));
  }
  return out;
}

std::vector<ge::Tensor> random_inputs(const ge::Graph& g, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  std::vector<ge::Tensor> out;
  for (const ge::Value* v : g.inputs()) {
    ge::Tensor t = ge::Tensor::allocate(v->dtype, v->shape);
    int64_t n = t.numel();
    switch (v->dtype) {
      case ge::DataType::Float32: for (int64_t i = 0; i < n; ++i) t.data_as<float>()[i] = static_cast<float>(uni(rng)); break;
      case ge::DataType::Float64: for (int64_t i = 0; i < n; ++i) t.data_as<double>()[i] = uni(rng); break;
      case ge::DataType::Float16:
        for (int64_t i = 0; i < n; ++i) t.data_as<uint16_t>()[i] = ge::float_to_half(static_cast<float>(uni(rng)));
        break;
      case ge::DataType::Int64: for (int64_t i = 0; i < n; ++i) t.data_as<int64_t>()[i] = rng() & 1; break;
      case ge::DataType::Int32: for (int64_t i = 0; i < n; ++i) t.data_as<int32_t>()[i] = rng() & 1; break;
      case ge::DataType::Bool: for (int64_t i = 0; i < n; ++i) t.data_as<bool>()[i] = rng() & 1; break;
      default: {
        auto* b = static_cast<uint8_t*>(t.data());
        for (size_t i = 0; i < t.nbytes(); ++i) b[i] = rng() & 1;  // small non-negative values
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace gec
