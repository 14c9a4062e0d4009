// tests/support/kernel_harness.h — runs one kernel outside the runtime, for kernel unit tests.
//
//   ge::test::KernelHarness h(ge::cpu::register_conv_kernels);
//   auto out = h.run("Conv", {x, w}, {ge::test::OutSpec{ge::DataType::Float32, {1,8,5,5}}},
//                    attrs, /*opset=*/13, /*constant_inputs=*/{1});
#pragma once
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ge/sdk/error.h"
#include "ge/sdk/ir.h"
#include "ge/sdk/kernel.h"
#include "ge/sdk/plugin.h"

namespace ge::test {

/// A Registrar that only collects what a registration function adds.
class CollectingRegistrar : public Registrar {
 public:
  OpRegistry ops;
  KernelRegistry kernels;
  std::vector<std::shared_ptr<Backend>> backends;
  const std::string& plugin_name() const override { return name_; }
  const std::string& plugin_dir() const override { return dir_; }
  std::string options_toml() const override { return ""; }
  void add_op(OpDef d) override { ops.add(std::move(d)); }
  void set_shape_inference(const std::string& dom, const std::string& op, ShapeInferenceFn f) override {
    ops.set_infer(dom, op, std::move(f));
  }
  void add_kernel(KernelDef d) override { kernels.add(std::move(d)); }
  void add_backend(std::shared_ptr<Backend> b) override { backends.push_back(std::move(b)); }
  void add_frontend(std::shared_ptr<Frontend>) override {}
  void add_pass(std::shared_ptr<Pass> p) override { passes.push_back(std::move(p)); }
  void add_fusion_rule(std::shared_ptr<FusionRule> r) override { rules.push_back(std::move(r)); }
  void add_memory_planner(std::shared_ptr<MemoryPlanner> p) override { planners.push_back(std::move(p)); }
  void add_scheduler(std::shared_ptr<Scheduler> s) override { schedulers.push_back(std::move(s)); }
  std::vector<std::shared_ptr<MemoryPlanner>> planners;
  std::vector<std::shared_ptr<Scheduler>> schedulers;
  std::vector<std::shared_ptr<Pass>> passes;
  std::vector<std::shared_ptr<FusionRule>> rules;

 private:
  std::string name_ = "test", dir_ = ".";
};

struct OutSpec {
  DataType dtype;
  Shape shape;
};

class KernelHarness {
 public:
  explicit KernelHarness(const std::function<void(Registrar&)>& reg) { reg(r_); }
  CollectingRegistrar& registrar() { return r_; }
  /// impl_name() of the kernel the last run() built.
  const std::string& last_impl() const { return last_impl_; }

  /// Builds a one-node graph of `op_type` ("Conv", or "domain.Op" as "ge.FusedConv") (inputs listed in `constant_inputs` become constants, the rest
  /// graph inputs; an empty Tensor (no data) is an omitted optional input, an OutSpec of dtype
  /// Undefined an omitted optional output), creates the "cpu" kernel and runs it once. Returns the
  /// outputs. `out0_shares_input` >= 0 makes output 0 a view of that input's buffer (a copy of the
  /// input), as a memory planner's in-place reuse does.
  std::vector<Tensor> run(const std::string& op_type, const std::vector<Tensor>& inputs,
                          const std::vector<OutSpec>& outs, const Attributes& attrs = {},
                          int64_t opset = 13, std::set<size_t> constant_inputs = {},
                          int threads = 1, int out0_shares_input = -1) {
    Graph g("harness");
    g.opsets[""] = opset;
    std::vector<Value*> in_vals;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].data() == nullptr && inputs[i].dtype() == DataType::Undefined) {
        in_vals.push_back(nullptr);
        continue;
      }
      std::string name = "in" + std::to_string(i);
      in_vals.push_back(constant_inputs.count(i) ? g.add_constant(name, inputs[i])
                                                 : g.add_input(name, inputs[i].dtype(), inputs[i].shape()));
    }
    std::vector<Value*> out_vals;
    for (size_t i = 0; i < outs.size(); ++i) {
      // An Undefined dtype is an omitted optional output.
      out_vals.push_back(outs[i].dtype == DataType::Undefined
                             ? nullptr
                             : g.add_value("out" + std::to_string(i), outs[i].dtype, outs[i].shape));
    }
    // "ge.FusedConv": domain "ge", op FusedConv.
    const size_t dot = op_type.find('.');
    const std::string domain = dot == std::string::npos ? "" : op_type.substr(0, dot);
    const std::string op = dot == std::string::npos ? op_type : op_type.substr(dot + 1);
    if (!domain.empty()) g.opsets[domain] = 1;
    Node* n = g.add_node(op, "node", in_vals, out_vals, attrs, domain);
    const KernelDef* def = r_.kernels.find("cpu", domain, op);
    if (!def) throw Error("no cpu kernel for " + op_type);
    KernelBuildContext ctx{*n, opset, threads};
    std::unique_ptr<Kernel> k = def->factory(ctx);
    last_impl_ = k->impl_name();
    std::vector<Tensor> in_t(inputs.begin(), inputs.end());
    std::vector<Tensor> out_t;
    for (auto& o : outs) out_t.push_back(o.dtype == DataType::Undefined ? Tensor() : Tensor::allocate(o.dtype, o.shape));
    if (out0_shares_input >= 0) {  // the input becomes a view of output 0's buffer, holding its values
      Tensor& shared = in_t.at(out0_shares_input);
      if (shared.nbytes() != out_t.at(0).nbytes()) throw Error("in-place input and output 0 differ in size");
      std::memcpy(out_t[0].data(), shared.data(), shared.nbytes());
      shared = Tensor::view(shared.dtype(), shared.shape(), out_t[0].data());
    }
    KernelIO io{in_t, out_t};
    k->run(io);
    return out_t;
  }

 private:
  CollectingRegistrar r_;
  std::string last_impl_;
};

}  // namespace ge::test
