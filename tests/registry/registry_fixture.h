// tests/registry/registry_fixture.h — the standard registry plugin's registrations collected
// into a real ge::OpRegistry, once per test binary.
#pragma once
#include <set>
#include <string>

#include "ge/registry/standard_ops.h"

namespace ge::test {

// Collects what the plugin registers into a real ge::OpRegistry.
class TestRegistrar : public Registrar {
 public:
  OpRegistry reg;
  std::set<std::string> inferred;
  const std::string& plugin_name() const override { return name_; }
  const std::string& plugin_dir() const override { return name_; }
  std::string options_toml() const override { return ""; }
  void add_op(OpDef d) override {
    d.source = name_;
    reg.add(std::move(d));
  }
  void set_shape_inference(const std::string& domain, const std::string& op,
                           ShapeInferenceFn fn) override {
    inferred.insert(op);
    reg.set_infer(domain, op, std::move(fn));
  }
  void add_kernel(KernelDef) override {}
  void add_backend(std::shared_ptr<Backend>) override {}
  void add_frontend(std::shared_ptr<Frontend>) override {}
  void add_pass(std::shared_ptr<Pass>) override {}
  void add_fusion_rule(std::shared_ptr<FusionRule>) override {}
  void add_memory_planner(std::shared_ptr<MemoryPlanner>) override {}
  void add_scheduler(std::shared_ptr<Scheduler>) override {}
  void add_function_expander(const std::string& domain, const std::string& op, FunctionExpander fx) override {
    reg.set_expander(domain, op, std::move(fx));
  }

 private:
  std::string name_ = "registry";
};

inline TestRegistrar& registrar() {
  static TestRegistrar* r = [] {
    auto* t = new TestRegistrar;
    registry::register_standard_ops(*t);
    return t;
  }();
  return *r;
}

}  // namespace ge::test
