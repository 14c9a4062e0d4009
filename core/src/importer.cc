#include "ge/core/importer.h"

#include "import_hook.h"

#include "ge/sdk/error.h"
#include "ge/sdk/kernel_delegate.h"
#include "ge/sdk/log.h"
#include "ge/sdk/verifier.h"

namespace ge::core {

namespace {

std::string type_list(const std::vector<DataType>& types) {
  std::string s;
  for (DataType t : types) s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
  return s;
}

/// A backend's annotation of a node: an attribute `<backend>_<name>` of a registered backend (the
/// cpu backend's cpu_conv_algorithm and cpu_compute_dtype, the ascend backend's ascend_tiling, ...:
/// what its passes decided for its kernels), which a compiled graph exported to ONNX carries.
/// The op's schema does not list it; the backend's kernel checks its value.
bool is_backend_annotation(const std::string& attr, const Environment& env) {
  for (const auto& [backend, b] : env.backends)
    if (attr.size() > backend.size() + 1 && attr.compare(0, backend.size(), backend) == 0 && attr[backend.size()] == '_')
      return true;
  return false;
}

void check_io(const Node& n, const OpDef& def, const Environment& env) {
  auto check = [&](const std::vector<IoDef>& defs, const std::vector<Value*>& vals, const char* kind) {
    size_t required = 0;
    for (size_t i = 0; i < defs.size(); ++i)
      if (!defs[i].optional && !defs[i].variadic) required = i + 1;
    bool variadic = !defs.empty() && defs.back().variadic;
    if (vals.size() < required || (!variadic && vals.size() > defs.size()))
      throw InvalidGraphError(n.describe() + ": has " + std::to_string(vals.size()) + " " + kind + "s; opset " +
                              std::to_string(def.since_version) + " definition takes " +
                              (variadic ? "at least " + std::to_string(required) : std::to_string(defs.size())));
    for (size_t i = 0; i < vals.size(); ++i) {
      const IoDef& d = defs[std::min(i, defs.size() - 1)];
      if (!vals[i]) {
        if (!d.optional && std::string(kind) == "input")
          throw InvalidGraphError(n.describe() + ": required input '" + d.name + "' is missing");
        continue;
      }
      if (std::string(kind) == "output" || d.types.empty()) continue;
      DataType t = vals[i]->dtype;
      if (std::find(d.types.begin(), d.types.end(), t) == d.types.end())
        throw InvalidGraphError(n.describe() + ": input '" + d.name + "' has dtype " + std::string(dtype_name(t)) +
                                ", which " + n.op_type() + "-" + std::to_string(def.since_version) +
                                " does not allow (allowed: " + type_list(d.types) + ")");
    }
  };
  check(def.inputs, n.inputs(), "input");
  check(def.outputs, n.outputs(), "output");
  for (auto& [name, v] : n.attrs.all()) {
    const AttrDef* a = def.find_attr(name);
    if (!a && is_backend_annotation(name, env)) continue;
    if (!a)
      throw InvalidGraphError(n.describe() + ": unknown attribute '" + name + "' for " + n.op_type() + " (opset " +
                              std::to_string(def.since_version) + " definition)");
    AttrType got = attr_type_of(v);
    bool ok = got == a->type || (a->type == AttrType::Float && got == AttrType::Int);
    if (!ok)
      throw InvalidGraphError(n.describe() + ": attribute '" + name + "' is " + std::string(attr_type_name(got)) +
                              ", expected " + std::string(attr_type_name(a->type)));
  }
  for (const AttrDef& a : def.attrs)
    if (a.required && !n.attrs.has(a.name))
      throw InvalidGraphError(n.describe() + ": required attribute '" + a.name + "' is missing");
}

/// Runs the host kernel of `n` on its known inputs and records the results as the outputs' data.
/// A host kernel that refuses this node (a dtype or attribute it does not run) leaves it unfolded:
/// the backend's own kernel decides later.
void evaluate(Node& n, const Environment& env, const ImportOptions& opts, int64_t opset) {
  const KernelDef* kd = env.kernels.find(opts.host_backend, n.domain(), n.op_type());
  if (!kd) return;  // cannot fold; shapes that depend on it stay unknown and fail loudly later
  KernelBuildContext ctx{n, opset, 1};
  std::unique_ptr<Kernel> k;
  try {
    k = kd->factory(ctx);
  } catch (const UnsupportedError& e) {
    log(LogLevel::Debug, n.describe() + ": not folded at import: " + e.what());
    return;
  }
  std::vector<Tensor> ins, outs;
  for (Value* v : n.inputs()) ins.push_back(v ? *v->data : Tensor());
  for (Value* v : n.outputs()) outs.push_back(v ? Tensor::allocate(v->dtype, v->shape) : Tensor());
  KernelIO io{ins, outs};
  k->run(io);
  for (size_t i = 0; i < n.num_outputs(); ++i)
    if (Value* v = n.output(i)) v->data = std::make_shared<const Tensor>(std::move(outs[i]));
}

/// Evaluates `n`, whose inputs are all known but whose output shapes need its results, with a host
/// kernel that allocates its outputs; records the outputs' dtypes and shapes, and their data when
/// within the fold limit. False when no such kernel takes the node.
bool evaluate_sizing(Node& n, const Environment& env, const ImportOptions& opts, int64_t opset) {
  const KernelDef* kd = env.kernels.find(opts.host_backend, n.domain(), n.op_type());
  if (!kd || !kd->allocates_outputs) return false;
  KernelBuildContext ctx{n, opset, 1};
  ctx.dynamic_outputs = true;
  std::unique_ptr<Kernel> k;
  try {
    k = kd->factory(ctx);
  } catch (const UnsupportedError& e) {
    log(LogLevel::Debug, n.describe() + ": not evaluated at import: " + e.what());
    return false;
  }
  std::vector<Tensor> ins, outs(n.num_outputs());
  for (Value* v : n.inputs()) ins.push_back(v ? *v->data : Tensor());
  KernelIO io{ins, outs};
  k->run(io);
  int64_t elems = 0;
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    if (!n.output(i)) continue;
    if (!outs[i].data() && outs[i].dtype() == DataType::Undefined)
      throw Error(n.describe() + ": the " + opts.host_backend + " kernel left output '" + n.output(i)->name() + "' unallocated");
    elems += outs[i].numel();
  }
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    Value* v = n.output(i);
    if (!v) continue;
    v->dtype = outs[i].dtype();
    v->shape = outs[i].shape();
    if (elems <= opts.fold_limit_elements) v->data = std::make_shared<const Tensor>(std::move(outs[i]));
  }
  return true;
}

std::string op_label(const Node& n, const OpDef& def) {
  return (n.domain().empty() ? "" : n.domain() + ".") + n.op_type() + "-" + std::to_string(def.since_version);
}

class Propagation {
 public:
  Propagation(Graph& g, const Environment& env, const ImportOptions& opts, const NodeHook* hook = nullptr)
      : g_(g), env_(env), opts_(opts), hook_(hook) {}

  void node(Node* n) {
    const int64_t opset = g_.opset(n->domain());
    const OpDef* def = env_.ops.find(n->domain(), n->op_type(), opset);
    if (!def) {
      std::string dom = n->domain().empty() ? "ai.onnx" : n->domain();
      if (env_.ops.find_any(n->domain(), n->op_type()))
        throw UnsupportedError(n->describe() + ": no definition of " + n->op_type() + " for " + dom + " opset " +
                               std::to_string(opset) + " (the registry starts at a later version)");
      throw UnsupportedError(n->describe() + ": op type " + n->op_type() + " (" + dom + ") is not in any loaded registry");
    }
    for (Value* v : n->inputs())
      if (v && v->dtype == DataType::Undefined)
        throw InvalidGraphError(n->describe() + ": input '" + v->name() + "' is never produced");
    check_io(*n, *def, env_);
    if (!opts_.backend.empty() && !env_.kernels.find(opts_.backend, n->domain(), n->op_type())) {
      // No kernel: the op's function body, when it has one (ONNX Runtime inlines the same way).
      // An op without a body stays: a pass may still remove it (conv_bn folds BatchNormalization);
      // the runtime refuses what is left without a kernel.
      const FunctionExpander* fx = env_.ops.expander(n->domain(), n->op_type());
      if (fx && fx->has_body(opset)) {
        const std::string label = op_label(*n, *def), desc = n->describe();
        std::vector<Node*> body;
        try {
          body = fx->expand(*n, opset);
        } catch (const UnsupportedError& e) {
          throw UnsupportedError(desc + ": " + label + " is defined, but no kernel runs it (backends searched: " +
                                 kernel_backends_searched(env_.kernels, opts_.backend) + "); its ONNX function body could not be expanded: " + e.what());
        }
        result.expanded_functions.push_back(label);
        log(LogLevel::Debug, desc + ": no " + opts_.backend + " kernel; expanded into its function body (" +
                                 std::to_string(body.size()) + " nodes)");
        for (Node* b : body) node(b);
        return;
      }
    }
    // Every refusal names the node (a Shape's own bound, an allocation, say, do not).
    const std::string desc = n->describe();
    auto named = [&](const std::exception& e) { return std::string(e.what()).find(desc) != std::string::npos; };
    try {
      if (!hook_ || !(*hook_)(n, *def, opset)) infer(n, *def, opset);
    } catch (const UnknownValueError&) {
      throw;
    } catch (const InvalidGraphError& e) {
      if (named(e)) throw;
      throw InvalidGraphError(desc + ": " + e.what());
    } catch (const UnsupportedError& e) {
      if (named(e)) throw;
      throw UnsupportedError(desc + ": " + e.what());
    } catch (const Error& e) {
      if (named(e)) throw;
      throw Error(desc + ": " + e.what());
    }
  }

  ImportResult result;
  int64_t stale_declared = 0;

 private:
  void infer(Node* n, const OpDef& def, int64_t opset) {
    if (!def.infer) throw Error(n->describe() + ": the registry has no shape inference for " + n->op_type());
    std::vector<std::pair<DataType, Shape>> seeded;
    for (Value* o : n->outputs()) seeded.emplace_back(o ? o->dtype : DataType::Undefined, o ? o->shape : Shape{});
    for (Value* o : n->outputs())
      if (o) o->data.reset();
    InferContext ctx(*n, def, opset);
    try {
      def.infer(ctx);
    } catch (const UnknownValueError& e) {
      // The shape depends on values: with every input known, a kernel that sizes its outputs
      // computes them (NonZero of a constant).
      bool inputs_known = def.foldable;
      for (Value* v : n->inputs()) inputs_known &= (v == nullptr || v->data != nullptr);
      if (inputs_known && evaluate_sizing(*n, env_, opts_, opset)) return;
      // An input the shape depends on is only known at run time (e.g. a Reshape target fed as a
      // graph input). The model's declared output types still make every shape static; without
      // them, the graph runs in stages cut at this node (DataDependentShapeError).
      bool declared = true;
      for (size_t i = 0; i < n->num_outputs(); ++i)
        declared &= n->output(i) == nullptr || seeded[i].first != DataType::Undefined;
      if (!declared) {
        std::vector<std::string> outs;
        for (Value* o : n->outputs()) outs.push_back(o ? o->name() : "");
        throw DataDependentShapeError(e.what(), n->name(), std::move(outs));
      }
      for (size_t i = 0; i < n->num_outputs(); ++i)
        if (Value* o = n->output(i)) {
          o->dtype = seeded[i].first;
          o->shape = seeded[i].second;
        }
      log(LogLevel::Debug, n->describe() + ": shapes taken from the model's declared types");
    }
    const bool overridden = !opts_.frontend.input_shapes.empty();
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      Value* o = n->output(i);
      if (!o) continue;
      if (o->dtype == DataType::Undefined)
        throw Error(n->describe() + ": shape inference left output '" + o->name() + "' without a type");
      if (seeded[i].first != DataType::Undefined && (seeded[i].first != o->dtype || seeded[i].second != o->shape)) {
        // With overridden input shapes (--input-shape) the model's declared value shapes are
        // stale by design: one summary line below instead of a warning per value.
        ++stale_declared;
        log(overridden ? LogLevel::Debug : LogLevel::Warn,
            n->describe() + ": ONNX shape inference gives '" + o->name() + "' " + std::string(dtype_name(seeded[i].first)) +
                seeded[i].second.str() + ", GE infers " + std::string(dtype_name(o->dtype)) + o->shape.str() +
                "; using GE's");
      }
    }
    bool all_known = def.foldable;
    for (Value* v : n->inputs()) all_known &= (v == nullptr || v->data != nullptr);
    bool already = true;
    int64_t out_elems = 0;
    for (Value* o : n->outputs()) {
      if (!o) continue;
      already &= o->data != nullptr;
      out_elems += o->numel();
    }
    if (all_known && !already && out_elems <= opts_.fold_limit_elements && n->num_inputs() > 0)
      evaluate(*n, env_, opts_, opset);
  }

  Graph& g_;
  const Environment& env_;
  const ImportOptions& opts_;
  const NodeHook* hook_;
};

}  // namespace

ImportResult propagate_shapes(Graph& g, const Environment& env, const ImportOptions& opts) {
  return propagate_shapes_hooked(g, env, opts, nullptr);
}

ImportResult propagate_shapes_hooked(Graph& g, const Environment& env, const ImportOptions& opts, const NodeHook* hook) {
  g.ops = &env.ops;
  Propagation p(g, env, opts, hook);
  for (Node* n : g.topological_order()) p.node(n);
  if (!opts.frontend.input_shapes.empty() && p.stale_declared)
    log(LogLevel::Info, "--input-shape: " + std::to_string(p.stale_declared) +
                            " value shapes declared in the model differ from GE's inference with the new input shapes; GE's are used");
  // Expanded bodies were appended to the node list: restore a topological order.
  if (!p.result.expanded_functions.empty()) g.sort_topologically();
  return p.result;
}

std::unique_ptr<Graph> import_model(const Environment& env, const std::string& path, const ImportOptions& opts) {
  const Frontend& fe = env.frontend_for(path);
  std::unique_ptr<Graph> g = fe.load(path, opts.frontend);
  propagate_shapes(*g, env, opts);
  verify_graph_or_throw(*g, nullptr);
  return g;
}

}  // namespace ge::core
