// Shared pieces of gec's subcommands.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/sdk/tensor.h"

namespace gec {

/// Options every subcommand that loads plugins accepts.
struct CommonOptions {
  std::string manifest;   ///< --manifest; default: the installed default manifest
  std::string log_level;  ///< --log-level
  std::string backend;    ///< --backend; default from the manifest
  int threads = 0;        ///< --threads; 0 = manifest value or all cores
  std::vector<std::string> input_shapes;  ///< --input-shape NAME:D0,D1,...
  bool keep_initializer_inputs = false;

  void add_to(CLI::App& app);
  /// Applies the log level and loads the manifest's plugins.
  std::unique_ptr<ge::core::Environment> load_environment() const;
  ge::core::ImportOptions import_options(const ge::core::Environment& env) const;
  std::string backend_name(const ge::core::Environment& env) const;
  int thread_count(const ge::core::Environment& env) const;
};

/// input_K.pb files of DIR, one per graph input (K in graph-input order).
std::vector<ge::Tensor> read_inputs(const std::string& dir, const ge::Graph& g);
/// Seeded random inputs: floats uniform in [-1, 1), integers in {0, 1}, booleans.
std::vector<ge::Tensor> random_inputs(const ge::Graph& g, uint32_t seed);

int cmd_run(const std::string& model, const CommonOptions& common, CLI::App& sub);
int cmd_plugins(const CommonOptions& common);
int cmd_conformance(const std::string& dir, const CommonOptions& common, const std::vector<std::string>& filters,
                    const std::string& json_path, double timeout_s, bool verbose);

}  // namespace gec
