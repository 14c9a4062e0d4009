// The PassContext the pass manager gives passes and fusion rules (core-internal).
#pragma once
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "ge/core/environment.h"
#include "ge/core/pipeline.h"
#include "ge/sdk/pass.h"

namespace ge::core {

class HostPassContext : public PassContext {
 public:
  HostPassContext(const Environment& env, const CompileOptions& opts, const Graph& g,
                  std::map<std::string, int64_t>& counters)
      : env_(env), opts_(opts), graph_(g), counters_(counters) {}

  const OpRegistry& ops() const override { return env_.ops; }
  const KernelRegistry& kernels() const override { return env_.kernels; }
  const std::string& backend() const override { return opts_.backend; }
  OptLevel opt_level() const override { return opts_.opt_level; }
  bool strict_numerics() const override { return opts_.strict_numerics; }
  std::optional<std::string> option(const std::string& section, const std::string& key) const override;
  bool rule_enabled(const std::string& rule) const override;
  void count(const std::string& counter, int64_t n) override { counters_[counter] += n; }
  void infer_shapes(Node& n) const override;
  std::optional<std::vector<Tensor>> evaluate(const Node& n) const override;
  const MemoryPlanner* memory_planner(const std::string& name) const override {
    auto it = env_.memory_planners.find(name);
    return it == env_.memory_planners.end() ? nullptr : it->second.get();
  }
  std::vector<std::string> memory_planners() const override {
    std::vector<std::string> out;
    for (auto& [n, p] : env_.memory_planners) out.push_back(n);
    return out;
  }
  const Scheduler* scheduler(const std::string& name) const override {
    auto it = env_.schedulers.find(name);
    return it == env_.schedulers.end() ? nullptr : it->second.get();
  }
  std::vector<std::string> schedulers() const override {
    std::vector<std::string> out;
    for (auto& [n, s] : env_.schedulers) out.push_back(n);
    return out;
  }
  /// The compiled backend's own cost model when it registered one (built on first use), else the
  /// machine's.
  const CostModel* cost_model() const override {
    if (!cost_model_) cost_model_ = env_.cost_model_for(opts_.backend);
    return cost_model_.get();
  }
  int threads() const override { return std::max(1, opts_.threads); }
  std::optional<DeviceSimulation> simulate_device(const Graph& g) const override {
    return env_.simulate_device(opts_.backend, g);
  }

  const FormatPreferenceFn* format_preference(const std::string& backend) const override {
    auto it = env_.format_preferences.find(backend);
    return it == env_.format_preferences.end() ? nullptr : &it->second;
  }

  /// Why a pass or rule does not run ("" when it runs).
  std::string skip_reason(const std::string& name, OptLevel min_level, NumericsEffect numerics) const;

 private:
  const Environment& env_;
  const CompileOptions& opts_;
  const Graph& graph_;
  std::map<std::string, int64_t>& counters_;
  mutable std::shared_ptr<const CostModel> cost_model_;
};

}  // namespace ge::core
