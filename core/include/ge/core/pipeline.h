// ge/core/pipeline.h — the pass manager: compilation stages in DESIGN.md's order.
//
// import → canonicalize → simplify → fusion → layout → schedule → memory → codegen.
// Passes and fusion rules come from plugins. Per stage, passes run in registration order (the
// plugin order of the manifest); in the fusion stage the enabled fusion rules run first, by
// descending priority (vendor rules ≥ 100 before the generic ones), each to a fixed point.
#pragma once
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/sdk/ir.h"
#include "ge/sdk/pass.h"

namespace ge::core {

/// Stage names in execution order.
const std::vector<std::string>& pipeline_stages();

struct CompileOptions {
  OptLevel opt_level = OptLevel::O2;
  bool strict_numerics = false;
  std::vector<std::string> disabled;  ///< passes and fusion rules, by name
  std::optional<std::vector<std::string>> fusion_enable;  ///< [fusion] enable: only these rules
  /// When set, only these passes and rules run (tests and `gec opt`-style runs of one pass).
  std::optional<std::vector<std::string>> only;
  std::string backend = "cpu";
  std::string host_backend = "cpu";  ///< evaluates constant subgraphs
  bool verify_each = false;          ///< run the verifier (with shape checks) after every pass
  std::vector<std::string> print_after;  ///< pass names, or "all": print the text IR to `print_to`
  std::ostream* print_to = nullptr;      ///< default std::cerr
  bool fail_on_pass_error = false;
  /// Thread budget of one inference (schedulers split it between streams); `gec` sets --threads.
  int threads = 1;
  /// Called when a stage's last pass has finished (stage name, nodes now); `gec` prints progress.
  std::function<void(const std::string& stage, size_t nodes)> on_stage_done;
  /// Builds again the graph compile_graph is given (`gec` re-imports the model file and propagates
  /// its shapes as before). When set, compile_graph keeps no copy of the graph it received to
  /// undo a failed pass with: it calls this instead, only when a pass fails. Must return a graph
  /// equal to the one passed in (the frontend and shape propagation are deterministic).
  std::function<std::unique_ptr<Graph>()> rebuild_received;

  /// Options of a manifest: [compile] opt_level, numerics, disable; [fusion] enable, disable;
  /// [backend] name.
  static CompileOptions from_manifest(const Manifest& m);
};

struct PassRecord {
  std::string name, stage;
  double ms = 0;
  bool changed = false;
  size_t nodes_after = 0;
  std::string status;  ///< "ran", "skipped: …", "failed: …" (graph restored)
};

struct CompileResult {
  std::vector<PassRecord> passes;
  std::map<std::string, int64_t> counters;  ///< e.g. "fusion.conv_bn" → applications
  double ms = 0;
};

/// Runs every stage after import on `g` in place; verifies the result (with shape checks).
/// Throws ge::Error for an unknown name in `disabled`/`fusion_enable`, a manifest option no loaded
/// pass declares, or — with fail_on_pass_error — a failing pass (naming it).
CompileResult compile_graph(Graph& g, const Environment& env, const CompileOptions& opts);

}  // namespace ge::core
