// ge/sdk/pass.h — graph passes and fusion rules, as plugins provide them.
//
// The pass manager (core) runs passes stage by stage in DESIGN.md's order. Each pass declares its
// name, stage, the lowest optimization level that runs it, its numerics effect and whether it is
// light enough to run when a plan is loaded. Fusion rules are the fusion stage's unit: one rule =
// pattern + legality check + rewrite (ONNX Runtime's optimizer and TVM's FuseOps are the models).
#pragma once
#include <map>
#include <memory>
#include <optional>

#include "ge/sdk/options.h"
#include <string>
#include <vector>

#include "ge/sdk/device_sim.h"
#include "ge/sdk/ir.h"
#include "ge/sdk/kernel.h"
#include "ge/sdk/layout.h"
#include "ge/sdk/memory.h"
#include "ge/sdk/op_registry.h"
#include "ge/sdk/pattern.h"
#include "ge/sdk/schedule.h"

namespace ge {

enum class Stage { Import, Canonicalize, Simplify, Fusion, Layout, Schedule, Memory, Codegen };
std::string_view stage_name(Stage s);  ///< "import", "canonicalize", ...
Stage stage_from_name(std::string_view s);  ///< throws ge::Error on unknown

/// O0 none, O1 basic (simplify), O2 standard (+ fusion; default), O3 aggressive.
enum class OptLevel { O0 = 0, O1 = 1, O2 = 2, O3 = 3 };
OptLevel opt_level_from_name(std::string_view s);  ///< "O0".."O3"; throws ge::Error otherwise

/// How a rewrite can change floating-point results. Under numerics = "strict" only Exact runs.
enum class NumericsEffect { Exact, Reassociates, ReducesPrecision };
std::string_view numerics_effect_name(NumericsEffect e);  ///< "exact", "reassociates", "reduces_precision"

struct PassInfo {
  std::string name;  ///< unique; what `--disable` and `[compile] disable` name
  Stage stage = Stage::Simplify;
  OptLevel min_level = OptLevel::O1;
  NumericsEffect numerics = NumericsEffect::Exact;
  bool runtime_safe = false;  ///< light and exact enough to run at plan load
  std::string summary;
  /// Manifest options the pass reads, as "section.key" (e.g. "simplify.fold_limit_bytes"). The
  /// pass manager refuses manifest keys that no loaded pass declares.
  std::vector<std::string> options;
  /// (ABI 1.6) Passes or fusion rules of the same stage this pass runs after / before, by name
  /// (names not loaded are ignored: their plugin may be off). Within a stage, units otherwise run
  /// fusion rules first (by priority), then passes in registration order. A constraint on a unit
  /// of another stage must agree with the stage order; a cycle is an error naming its passes.
  std::vector<std::string> after, before;
};

/// What a pass or rule sees besides the graph: registries, settings, options, statistics.
class PassContext {
 public:
  virtual ~PassContext() = default;
  virtual const OpRegistry& ops() const = 0;
  virtual const KernelRegistry& kernels() const = 0;
  /// Backend the graph is compiled for ("cpu", "ascend").
  virtual const std::string& backend() const = 0;
  virtual OptLevel opt_level() const = 0;
  virtual bool strict_numerics() const = 0;
  /// A manifest option "section.key" as TOML text of its value (e.g. "1048576", "\"auto\""),
  /// or std::nullopt when absent. Sections: fusion, layout, memory, scheduler, …
  virtual std::optional<std::string> option(const std::string& section, const std::string& key) const = 0;
  /// (ABI 1.6) option() parsed as `type` by ge::parse_option_as (ge/sdk/options.h); std::nullopt
  /// when unset. Throws ge::ConfigError naming "section.key" on a value of another type (a
  /// declared option was checked when the environment was loaded: that does not happen then).
  std::optional<OptionData> typed_option(const std::string& section, const std::string& key, OptionType type) const;
  /// typed_option() of one type, or `dflt` when unset.
  std::string string_option(const std::string& section, const std::string& key, const std::string& dflt) const;
  int64_t int_option(const std::string& section, const std::string& key, int64_t dflt) const;
  bool bool_option(const std::string& section, const std::string& key, bool dflt) const;
  std::vector<std::string> strings_option(const std::string& section, const std::string& key,
                                          const std::vector<std::string>& dflt) const;
  /// True when the fusion rule may run: not disabled by name, in `[fusion] enable` when that is
  /// given, and allowed by the level and numerics policy.
  virtual bool rule_enabled(const std::string& rule) const = 0;
  /// Adds n to a named counter of the report (e.g. fusion rule applications).
  virtual void count(const std::string& counter, int64_t n = 1) = 0;
  /// Re-runs the registry's shape inference of one node (after a rewrite created or changed it);
  /// throws ge::Error naming the node.
  virtual void infer_shapes(Node& n) const = 0;
  /// Evaluates a node whose inputs all carry data with the host backend's kernels; returns the
  /// outputs, or std::nullopt when no host kernel exists.
  virtual std::optional<std::vector<Tensor>> evaluate(const Node& n) const = 0;
  /// The memory planner registered under `name`, or null; and the names of all of them.
  virtual const MemoryPlanner* memory_planner(const std::string& name) const = 0;
  virtual std::vector<std::string> memory_planners() const = 0;
  /// (ABI 1.1) The format preference function registered for `backend` (Registrar::
  /// add_format_preference), or null when that backend registered none.
  virtual const FormatPreferenceFn* format_preference(const std::string& backend) const { return nullptr; }
  // Added with SDK ABI minor 1 (not pure: contexts built against ABI 1.0 keep working).
  /// The scheduler registered under `name`, or null; and the names of all of them.
  virtual const Scheduler* scheduler(const std::string& name) const { (void)name; return nullptr; }
  virtual std::vector<std::string> schedulers() const { return {}; }
  /// The cost model of the backend being compiled when it registered one (Registrar::
  /// add_cost_model, ge/sdk/device_sim.h), else the machine's (calibrated by `gec calibrate`,
  /// else defaults); null when none.
  virtual const CostModel* cost_model() const { return nullptr; }
  /// Thread budget of one inference (`--threads`, else the manifest's, else all cores); ≥ 1.
  virtual int threads() const { return 1; }
  /// (ABI 1.1) One inference of `g` simulated on the compiled backend's device
  /// (Registrar::add_device_simulator, ge/sdk/device_sim.h); std::nullopt when the backend
  /// registered no simulator (the host's backends). Throws what the simulator throws.
  virtual std::optional<DeviceSimulation> simulate_device(const Graph& g) const { (void)g; return std::nullopt; }
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual PassInfo info() const = 0;
  /// Rewrites the graph in place; returns true when it changed anything. Throwing is allowed:
  /// the pass manager restores the graph from before the pass and reports the pass by name.
  virtual bool run(Graph& g, PassContext& ctx) = 0;
};

struct FusionRuleInfo {
  std::string name;  ///< e.g. "conv_bn"; what `[fusion] enable/disable` and `--disable` name
  NumericsEffect numerics = NumericsEffect::Exact;
  OptLevel min_level = OptLevel::O2;
  /// Higher runs first. Built-in generic rules use 0..99; vendor rules should use >= 100 so that
  /// they run before the generic ones (as in the vendor's own engine).
  int priority = 0;
  std::string summary;
};

/// A fusion rule: pattern (match), legality check (match returns nothing when illegal), rewrite.
class FusionRule {
 public:
  virtual ~FusionRule() = default;
  virtual FusionRuleInfo info() const = 0;
  /// Op types a match can be anchored at (the pattern's root, usually its last node). Empty: every
  /// op type (ABI 1.6; for a rule whose ops are registry data, e.g. OpDef::elementwise_instruction).
  virtual std::vector<std::string> anchor_ops() const = 0;
  /// Pattern and legality check: tries to match at `anchor`, including every legality check
  /// (interior_is_private, fuse_flags_allow, attributes, shapes). Returns true and fills `m`
  /// with what the rewrite needs when the rewrite may proceed.
  virtual bool match(Node& anchor, const PassContext& ctx, Match& m) const = 0;
  /// Performs the rewrite of a successful match; must leave a valid graph with inferred shapes
  /// (PassContext::infer_shapes on new nodes).
  virtual void rewrite(Graph& g, PassContext& ctx, const Match& m) const = 0;
};

}  // namespace ge
