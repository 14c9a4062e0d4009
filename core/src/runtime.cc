#include "ge/core/runtime.h"

#include <chrono>
#include <unordered_map>

#include "ge/core/profiler.h"
#include "ge/sdk/error.h"

namespace ge::core {

struct Executable::Impl {
  struct Step {
    const Node* node;
    std::unique_ptr<Kernel> kernel;
    std::vector<Tensor> inputs, outputs;
  };
  std::vector<Step> steps;
  size_t aliases = 0;  // nodes executed as views of their input (no kernel)
  std::unordered_map<const Value*, Tensor> buffers;  // produced values: a view into the arena or their own buffer
  Tensor arena;  // one allocation for every value the memory stage planned (Graph::arena_bytes)
  // Where each graph input is read: (step, input slot).
  std::vector<std::vector<std::pair<size_t, size_t>>> input_uses;
};

namespace {
/// A node whose only output the memory plan put on its first input's bytes, with the same size,
/// and whose op only moves data (registry pattern injective: Reshape, Flatten, Squeeze, …): its
/// output is the input reinterpreted, so nothing needs to run. In-place elementwise ops also
/// share bytes but compute, and are not injective.
bool is_view(const Node& n, const Graph& g, const Environment& env) {
  if (g.arena_bytes == 0 || n.num_outputs() != 1 || n.num_inputs() == 0) return false;
  const Value* in = n.input(0);
  const Value* out = n.output(0);
  if (!in || !out || in->arena_offset < 0 || out->arena_offset != in->arena_offset) return false;
  if (in->nbytes() != out->nbytes() || out->is_graph_output() || in->is_graph_input()) return false;
  const OpDef* def = env.ops.find(n.domain(), n.op_type(), g.opset(n.domain()));
  return def && def->pattern == OpPattern::Injective;
}
}  // namespace

Executable::Executable(std::shared_ptr<const Graph> graph, const Environment& env, ExecOptions opts)
    : graph_(std::move(graph)), impl_(std::make_unique<Impl>()) {
  Backend& backend = env.backend(opts.backend);
  backend.set_threads(opts.threads);
  const Graph& g = *graph_;
  std::unordered_map<const Value*, size_t> input_index;
  for (size_t i = 0; i < g.inputs().size(); ++i) input_index[g.inputs()[i]] = i;
  impl_->input_uses.resize(g.inputs().size());

  if (g.arena_bytes > 0) impl_->arena = Tensor::allocate(DataType::UInt8, Shape{static_cast<int64_t>(g.arena_bytes)});
  auto tensor_for = [&](const Value* v) -> Tensor {
    if (!v) return Tensor();
    if (v->is_constant()) return *v->data;
    if (input_index.count(v)) return Tensor::view(v->dtype, v->shape, nullptr, v->format);
    auto it = impl_->buffers.find(v);
    if (it == impl_->buffers.end()) {
      Tensor t;
      if (v->arena_offset >= 0 && !v->is_graph_output()) {
        if (static_cast<uint64_t>(v->arena_offset) + v->nbytes() > g.arena_bytes)
          throw Error("value '" + v->name() + "' lies outside the planned arena (offset " +
                      std::to_string(v->arena_offset) + ", " + std::to_string(v->nbytes()) + " bytes, arena " +
                      std::to_string(g.arena_bytes) + ")");
        t = Tensor::view(v->dtype, v->shape, impl_->arena.data_as<uint8_t>() + v->arena_offset, v->format);
      } else {
        t = Tensor::allocate(v->dtype, v->shape, v->format);
      }
      it = impl_->buffers.emplace(v, std::move(t)).first;
    }
    return Tensor::view(v->dtype, v->shape, it->second.data(), v->format);
  };

  // With an arena plan the nodes run in the graph's order (the order the plan's lifetimes were
  // computed for); without one, in a topological order.
  std::vector<Node*> order = g.arena_bytes > 0 ? g.nodes() : g.topological_order();
  for (Node* n : order) {
    if (is_view(*n, g, env)) {
      // The memory plan placed the output on the input's bytes: the node is a view, no kernel.
      tensor_for(n->output(0));
      ++impl_->aliases;
      continue;
    }
    const KernelDef* kd = env.kernels.find(opts.backend, n->domain(), n->op_type());
    if (!kd)
      throw Error(n->describe() + ": no kernel for op type " + n->op_type() + " (backends searched: " + opts.backend + ")");
    KernelBuildContext ctx{*n, g.opset(n->domain()), opts.threads};
    Impl::Step s{n, kd->factory(ctx), {}, {}};
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      const Value* v = n->input(i);
      s.inputs.push_back(tensor_for(v));
      if (v && input_index.count(v)) impl_->input_uses[input_index[v]].emplace_back(impl_->steps.size(), i);
    }
    for (const Value* o : n->outputs()) s.outputs.push_back(tensor_for(o));
    impl_->steps.push_back(std::move(s));
  }
}

Executable::~Executable() = default;

size_t Executable::num_kernels() const { return impl_->steps.size(); }
size_t Executable::num_aliases() const { return impl_->aliases; }
uint64_t Executable::arena_bytes() const { return graph_->arena_bytes; }

std::optional<Tensor> Executable::value(const std::string& name) const {
  const Value* v = graph_->find_value(name);
  if (!v) return std::nullopt;
  auto it = impl_->buffers.find(v);
  if (it == impl_->buffers.end()) return std::nullopt;
  return it->second.clone();
}

const Node& Executable::step_node(size_t i) const { return *impl_->steps.at(i).node; }
std::string Executable::step_kernel(size_t i) const { return impl_->steps.at(i).kernel->impl_name(); }

std::vector<Tensor> Executable::run(const std::vector<Tensor>& inputs) { return run(inputs, RunOptions{}); }

std::vector<Tensor> Executable::run(const std::vector<Tensor>& inputs, const RunOptions& ro) {
  StepTimes* prof = ro.profile;
  if (prof) prof->steps.assign(impl_->steps.size(), StepSpan{});
  auto now_ns = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  const Graph& g = *graph_;
  if (inputs.size() != g.inputs().size())
    throw Error("model expects " + std::to_string(g.inputs().size()) + " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = g.inputs()[i];
    if (inputs[i].dtype() != v->dtype || inputs[i].shape() != v->shape)
      throw Error("input '" + v->name() + "' expects " + std::string(dtype_name(v->dtype)) + v->shape.str() + ", got " +
                  std::string(dtype_name(inputs[i].dtype())) + inputs[i].shape().str());
    for (auto [step, slot] : impl_->input_uses[i])
      impl_->steps[step].inputs[slot].set_data(const_cast<void*>(inputs[i].data()));
  }
  for (size_t k = 0; k < impl_->steps.size(); ++k) {
    auto& s = impl_->steps[k];
    KernelIO io{s.inputs, s.outputs};
    if (prof) prof->steps[k].start_ns = now_ns();
    try {
      s.kernel->run(io);
    } catch (const Error& e) {
      throw Error(s.node->describe() + ": " + e.what());
    }
    if (prof) prof->steps[k].end_ns = now_ns();
  }
  std::vector<Tensor> out;
  for (const Value* v : g.outputs()) {
    if (v->is_constant()) out.push_back(v->data->clone());
    else if (v->is_graph_input()) {
      for (size_t i = 0; i < g.inputs().size(); ++i)
        if (g.inputs()[i] == v) out.push_back(inputs[i].clone());
    } else {
      out.push_back(impl_->buffers.at(v).clone());
    }
  }
  return out;
}

}  // namespace ge::core
