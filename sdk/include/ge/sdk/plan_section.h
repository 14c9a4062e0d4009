// ge/sdk/plan_section.h — a backend's own section of a plan file (docs/plan.md, "Backend sections").
//
// A backend may store, beside the optimized graph, what its device runtime is handed: the
// Ascend backend's offline model (.om) stores its task list, the SoC it was compiled for and
// the weights region in device formats. The core knows no backend: a plugin registers a
// PlanSectionDef with Registrar::add_plan_section (ABI 1.2), and the core
//   - on save (ge::core::serialize_plan) calls `write` for every section registered for the
//     plan's backend and stores the bytes in the header (`Header.sections`: name, plugin, data);
//   - on load (ge::core::parse_plan), after the graph passed every generic check, calls
//     `validate` for every section of the file. A section no plugin of the loading environment
//     reads, or a registered section of the plan's backend missing from the file, is refused.
// `write` and `validate` throw ge::Error to refuse; the core prefixes the message with
// "plan 'FILE': section 'NAME': ". Both run once per save / load, not per inference.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ge/sdk/ir.h"

namespace ge {

/// Where a constant's bytes lie in the plan's weights section (bytes from the section's start).
struct WeightsRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// What a section writer or validator sees. Implemented by the host; plugins only call it.
class PlanSectionContext {
 public:
  virtual ~PlanSectionContext() = default;
  /// The compiled graph being saved, or the graph as loaded from the file (before load-time
  /// passes: the graph the section was written for).
  virtual const Graph& graph() const = 0;
  /// The plan's backend ("ascend").
  virtual const std::string& backend() const = 0;
  /// A manifest option of the saving / loading environment as TOML text of its value
  /// ("\"Ascend910A\"", "4"); nullopt when the manifest does not set it.
  virtual std::optional<std::string> option(const std::string& section, const std::string& key) const = 0;
  /// Where the data of constant `v` is stored in the weights section; nullopt for a value
  /// without stored data (activations) or stored inline.
  virtual std::optional<WeightsRange> weights_range(const Value& v) const = 0;
  /// Size of the weights section in bytes.
  virtual uint64_t weights_bytes() const = 0;
};

/// A backend section. `name` is unique across plugins; by convention "<backend>.<what>"
/// ("ascend.om").
struct PlanSectionDef {
  std::string name;
  /// Written into plans compiled for this backend, and required in them at load.
  std::string backend;
  /// The section's bytes for the graph being saved (any encoding the plugin documents).
  std::function<std::string(const PlanSectionContext&)> write;
  /// Checks the stored bytes against the loaded graph; throws ge::Error naming what disagrees.
  std::function<void(const PlanSectionContext&, const std::string& bytes)> validate;
  /// Optional: a human-readable description of the bytes for `gec inspect --format sections`
  /// (a summary; with `detail`, a full listing). Throws ge::Error on unreadable bytes.
  std::function<std::string(const std::string& bytes, bool detail)> describe;
};

}  // namespace ge
