// Shared helpers of the plan tests: one environment for the process, compiled models, plans in
// memory and on disk.
#pragma once
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ge/core/environment.h"
#include "ge/core/session.h"
#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/pipeline.h"
#include "ge/core/plan.h"
#include "ge/core/runtime.h"
#include "ge/core/semver.h"

namespace plan_test {

inline std::shared_ptr<ge::core::Environment> env() {
  static std::shared_ptr<ge::core::Environment> e =
      ge::core::load_environment(ge::core::load_manifest(ge::core::default_manifest_path()));
  return e;
}

inline std::string tiny_cnn_dir() { return std::string(GE_TEST_MODELS_DIR) + "/tiny_cnn"; }

/// squeezenet1_1's folder under GE_SHARED_DIR, or "" when the shared models are absent.
inline std::string squeezenet_dir() {
  const char* s = std::getenv("GE_SHARED_DIR");
  if (!s || !*s) return "";
  std::string d = std::string(s) + "/models/squeezenet1_1";
  return std::filesystem::exists(d + "/squeezenet1_1.onnx") ? d : "";
}

/// Imports and compiles at O2 for the cpu backend.
inline std::shared_ptr<ge::Graph> compile(const std::string& model) {
  ge::core::ImportOptions io;
  std::shared_ptr<ge::Graph> g = ge::core::import_model(*env(), model, io);
  ge::core::CompileOptions co = ge::core::CompileOptions::from_manifest(env()->manifest);
  ge::core::compile_graph(*g, *env(), co);
  return g;
}

inline std::string temp_path(const std::string& leaf) {
  return (std::filesystem::temp_directory_path() / ("ge_plan_test_" + std::to_string(::getpid()) + "_" + leaf)).string();
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

inline bool bitwise_equal(const ge::Tensor& a, const ge::Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

/// Runs one loaded plan from `threads` application threads at once, `runs_each` runs per thread,
/// each thread on its own Session, and checks that every run's outputs equal `want` bit for bit
/// (docs/plan.md: several threads run one loaded plan, weights shared, arenas separate).
inline void expect_concurrent_runs_bitwise(ge::LoadedPlan& plan, const std::vector<ge::Tensor>& inputs,
                                           const std::vector<ge::Tensor>& want, int threads = 4, int runs_each = 50) {
  std::atomic<int> runs{0}, mismatches{0}, errors{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      try {
        ge::Session s = plan.new_session();
        for (int i = 0; i < runs_each; ++i) {
          std::vector<ge::Tensor> out = s.run(inputs);
          for (size_t k = 0; k < out.size(); ++k) mismatches += !bitwise_equal(out[k], want[k]);
          ++runs;
        }
      } catch (const std::exception&) {
        ++errors;
      }
    });
  for (auto& t : pool) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(runs.load(), threads * runs_each);
  EXPECT_EQ(mismatches.load(), 0);
}

/// The message of the ge::Error that parsing `bytes` throws; "" when it loads.
inline std::string refusal(const std::vector<uint8_t>& bytes, size_t len, const ge::core::Environment& e) {
  try {
    ge::core::parse_plan(bytes.data(), len, nullptr, e, "t.gep");
  } catch (const ge::Error& err) {
    return err.what();
  }
  return "";
}

}  // namespace plan_test
