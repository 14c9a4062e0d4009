// ge/sdk/plugin.h — how a plugin introduces itself to the host.
//
// A plugin is a shared library exporting one C function, GE_PLUGIN_ENTRY_SYMBOL, that returns a
// pointer to a static GePluginDescriptor. The host checks the SDK ABI (major must equal the
// host's, minor must not be newer), the plugin's version against the manifest's requirement,
// then calls `register_fn` with a Registrar. If register_fn throws, everything that plugin
// registered is removed again and loading fails naming the plugin.
//
// Use the GE_PLUGIN macro:
//
//   static void register_me(ge::Registrar& r) { r.add_kernel({...}); }
//   GE_PLUGIN("my_plugin", "1.0.0", register_me)
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "ge/sdk/device_sim.h"
#include "ge/sdk/frontend.h"
#include "ge/sdk/kernel.h"
#include "ge/sdk/layout.h"
#include "ge/sdk/memory.h"
#include "ge/sdk/op_registry.h"
#include "ge/sdk/options.h"
#include "ge/sdk/pass.h"
#include "ge/sdk/plan_section.h"
#include "ge/sdk/schedule.h"

/// SDK ABI version. Major changes break plugins; minor changes add to the SDK compatibly.
/// 1.4: Format gained NC1HWC0_C04 and FRACTAL_Z_C04 (types.h) — a plugin asking for them needs a
/// host whose SDK library knows their storage sizes; SimulatedNode and DeviceSimulation
/// (device_sim.h) gained bound_us — the host refuses a device simulator built before 1.4.
/// 1.5: op metadata as data (OpMeta, OpRegistry::apply_meta, parse_op_meta_toml in op_registry.h);
/// function bodies (FunctionExpander, Registrar::add_function_expander).
/// 1.6: op contracts as registry data (OpDef/OpMeta view, inplace_inputs, max_operands,
/// elementwise_instruction, cost_class; Graph::ops; FusionRule::anchor_ops may be empty); typed
/// options (ge/sdk/options.h, Registrar::declare_option, Scheduler::option_decls,
/// PassContext::typed_option); pass order constraints (PassInfo::after, before); several plugins'
/// format preferences per backend. OpDef's and PassInfo's layouts changed: the host refuses op
/// definitions and passes from a plugin built before 1.6.
/// 1.7: kernels that allocate their outputs at run (KernelDef::allocates_outputs,
/// KernelBuildContext::dynamic_outputs) for ops whose output shape depends on input values.
/// 1.8: verify_graph / verify_graph_or_throw on a mutable Graph& check inference in place
/// (verifier.h), without copying the graph.
/// 1.9: dense node and value ids (Node::id, Value::id, Graph::node_id_bound, value_id_bound,
/// node_by_id, value_by_id in ir.h); Node and Value gained trailing members, Graph's layout is
/// unchanged. Removing an edge is O(1) and moves the value's last use into its place: the order
/// of Value::uses() is no longer the order the edges were made in.
/// 1.10: symbolic dims (ge/sdk/dim_expr.h; Value::symbolic_dims, set_symbolic_dims, dim_exprs);
/// Value gained a trailing member; the text IR prints and parses symbolic dims;
/// Graph::is_topological.
#define GE_SDK_ABI_MAJOR 1
#define GE_SDK_ABI_MINOR 10
#define GE_PLUGIN_ENTRY_SYMBOL "ge_plugin_entry"

namespace ge {

/// Handed to a plugin's registration callback. Every object registered is owned by the host's
/// registries; objects keep the plugin's library loaded.
class Registrar {
 public:
  virtual ~Registrar() = default;
  /// Name of the plugin being registered (from its descriptor).
  virtual const std::string& plugin_name() const = 0;
  /// Directory holding the plugin's library (for data files shipped beside it).
  virtual const std::string& plugin_dir() const = 0;
  /// Options from the manifest section named like the plugin, as TOML text ("" if none).
  virtual std::string options_toml() const = 0;

  virtual void add_op(OpDef def) = 0;
  virtual void set_shape_inference(const std::string& domain, const std::string& op_type,
                                   ShapeInferenceFn fn) = 0;
  virtual void add_kernel(KernelDef def) = 0;
  virtual void add_backend(std::shared_ptr<Backend> backend) = 0;
  virtual void add_frontend(std::shared_ptr<Frontend> frontend) = 0;
  /// A graph pass; names are unique across plugins (a second one with the same name throws).
  virtual void add_pass(std::shared_ptr<Pass> pass) = 0;
  /// A fusion rule; names are unique across plugins. The fusion stage applies enabled rules in
  /// descending priority.
  virtual void add_fusion_rule(std::shared_ptr<FusionRule> rule) = 0;
  /// An arena planner, chosen by name with `[memory] planner`.
  virtual void add_memory_planner(std::shared_ptr<MemoryPlanner> planner) = 0;
  /// (ABI 1.1) The format preferences of `backend`'s kernels, read by the layout pass
  /// (ge/sdk/layout.h, docs/layout.md). (ABI 1.6) Several plugins may register one for the same
  /// backend (a third-party kernel for its own ops): the latest registered is asked first and the
  /// first answer is taken. One per plugin and backend; a second one throws ge::Error.
  /// The default implementation (registrars that predate it, test registrars) ignores it.
  virtual void add_format_preference(const std::string& backend, FormatPreferenceFn fn) {}
  /// A scheduler, chosen by name with `[scheduler] name` or `gec --scheduler` (ABI minor 1).
  /// Names are unique across plugins (a second one with the same name throws).
  virtual void add_scheduler(std::shared_ptr<Scheduler> scheduler) = 0;
  /// (ABI 1.2) A backend's own section of plan files (ge/sdk/plan_section.h, docs/plan.md):
  /// written when a plan for `def.backend` is saved, validated when a plan holding it is loaded.
  /// Names are unique across plugins (a second one throws ge::Error). The default
  /// implementation (registrars that predate it, test registrars) ignores it.
  virtual void add_plan_section(PlanSectionDef def) {}
  /// (ABI 1.3) `backend`'s own cost model (ge/sdk/device_sim.h): PassContext::cost_model() returns
  /// it, built once per compilation from the manifest's options, when the graph is compiled for
  /// `backend` (the schedulers' estimates then price that device, not the host). One per backend;
  /// a second one throws ge::Error. The default implementation ignores it.
  virtual void add_cost_model(const std::string& backend, CostModelFactory factory) { (void)backend, (void)factory; }
  /// (ABI 1.3) A simulation of one inference on `backend`'s device (ge/sdk/device_sim.h), shown by
  /// `gec run` beside the measured wall time and by `gec profile` per node. One per backend; a
  /// second one throws ge::Error. The default implementation ignores it. (ABI 1.4) The host
  /// refuses it from a plugin built before 1.4: DeviceSimulation and SimulatedNode gained bound_us.
  virtual void add_device_simulator(const std::string& backend, DeviceSimulatorFn fn) { (void)backend, (void)fn; }
  /// (ABI 1.5) How to replace a node of `op_type` by its function body (op_registry.h); the
  /// importer uses it when the target backend has no kernel for the op. One per op type; the
  /// op must be defined. The default implementation ignores it.
  virtual void add_function_expander(const std::string& domain, const std::string& op_type, FunctionExpander fx) {
    (void)domain, (void)op_type, (void)fx;
  }
  /// (ABI 1.6) Declares a manifest option the plugin reads (ge/sdk/options.h): the host checks
  /// every manifest value and --set of `decl.key` against it (type, range, choices) when it loads
  /// the environment, and `gec plugins --options` lists it. A key declared by two plugins throws
  /// ge::Error naming both. A plugin's own section is named after it (`[NAME]`, keys "NAME.key").
  /// The default implementation (test registrars) ignores it.
  virtual void declare_option(OptionDecl decl) { (void)decl; }
};

}  // namespace ge

extern "C" {
/// Plain-data descriptor a plugin returns. Fields are only ever appended (ABI minor bumps).
struct GePluginDescriptor {
  uint32_t abi_major;
  uint32_t abi_minor;
  const char* name;     ///< unique plugin name, e.g. "cpu_backend"
  const char* version;  ///< semantic version "MAJOR.MINOR.PATCH"
  void (*register_fn)(ge::Registrar&);
};
typedef const GePluginDescriptor* (*GePluginEntryFn)();
}

#define GE_PLUGIN(NAME, VERSION, REGISTER_FN)                                              \
  extern "C" __attribute__((visibility("default"))) const GePluginDescriptor*              \
  ge_plugin_entry() {                                                                      \
    static const GePluginDescriptor d{GE_SDK_ABI_MAJOR, GE_SDK_ABI_MINOR, NAME, VERSION,   \
                                      &REGISTER_FN};                                       \
    return &d;                                                                             \
  }
