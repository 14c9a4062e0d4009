// plugins/cpu_backend/forwarding_registrar.h — a Registrar that passes every registration on to
// another one; the kernel routings (bf16.cc, layout_preferences.cc) derive from it and override
// add_kernel only, so nothing else a registration function adds is dropped on the way.
#pragma once
#include "ge/sdk/plugin.h"

namespace ge::cpu {

class ForwardingRegistrar : public Registrar {
 public:
  explicit ForwardingRegistrar(Registrar& r) : r_(r) {}
  const std::string& plugin_name() const override { return r_.plugin_name(); }
  const std::string& plugin_dir() const override { return r_.plugin_dir(); }
  std::string options_toml() const override { return r_.options_toml(); }
  void add_op(OpDef def) override { r_.add_op(std::move(def)); }
  void set_shape_inference(const std::string& d, const std::string& op, ShapeInferenceFn fn) override {
    r_.set_shape_inference(d, op, std::move(fn));
  }
  void add_kernel(KernelDef def) override { r_.add_kernel(std::move(def)); }
  void add_backend(std::shared_ptr<Backend> b) override { r_.add_backend(std::move(b)); }
  void add_frontend(std::shared_ptr<Frontend> f) override { r_.add_frontend(std::move(f)); }
  void add_pass(std::shared_ptr<Pass> p) override { r_.add_pass(std::move(p)); }
  void add_fusion_rule(std::shared_ptr<FusionRule> rule) override { r_.add_fusion_rule(std::move(rule)); }
  void add_memory_planner(std::shared_ptr<MemoryPlanner> p) override { r_.add_memory_planner(std::move(p)); }
  void add_scheduler(std::shared_ptr<Scheduler> s) override { r_.add_scheduler(std::move(s)); }
  void add_format_preference(const std::string& b, FormatPreferenceFn fn) override {
    r_.add_format_preference(b, std::move(fn));
  }
  void add_plan_section(PlanSectionDef def) override { r_.add_plan_section(std::move(def)); }
  void add_cost_model(const std::string& b, CostModelFactory f) override { r_.add_cost_model(b, std::move(f)); }
  void add_device_simulator(const std::string& b, DeviceSimulatorFn fn) override { r_.add_device_simulator(b, std::move(fn)); }
  void add_function_expander(const std::string& d, const std::string& op, FunctionExpander fx) override {
    r_.add_function_expander(d, op, std::move(fx));
  }
  void declare_option(OptionDecl decl) override { r_.declare_option(std::move(decl)); }

 protected:
  Registrar& r_;
};

}  // namespace ge::cpu
