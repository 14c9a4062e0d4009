// Cutting an ONNX model into prefix / eager node / suffix at a node whose output shape depends on
// run-time values (ge/core/staging.h).
#include "ge/core/staging.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>
#include <set>

#include "ge/core/onnx_frontend.h"
#include "ge/sdk/error.h"

namespace ge::core {

namespace {

std::string node_desc(const onnx::NodeProto& n, int i) {
  return "node '" + (n.name().empty() ? "#" + std::to_string(i) : n.name()) + "' (" + n.op_type() + ")";
}

/// A model with `m`'s header (IR version, opsets, producer) and an empty graph.
onnx::ModelProto empty_like(const onnx::ModelProto& m, const std::string& graph_name) {
  onnx::ModelProto out;
  out.set_ir_version(m.ir_version());
  *out.mutable_opset_import() = m.opset_import();
  out.set_producer_name(m.producer_name());
  out.set_producer_version(m.producer_version());
  out.mutable_graph()->set_name(graph_name);
  return out;
}

void add_typed(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name, int32_t elem,
               const std::vector<int64_t>* dims) {
  onnx::ValueInfoProto* vi = list->Add();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  if (dims) {
    auto* shp = tt->mutable_shape();
    for (int64_t d : *dims) shp->add_dim()->set_dim_value(d);
  }
}

std::string serialize(const onnx::ModelProto& m, const std::string& what) {
  std::string out;
  if (!m.SerializeToString(&out)) throw Error(what + ": a stage model could not be serialized");
  return out;
}

}  // namespace

StageCut cut_model(const std::string& bytes, const std::string& what, const std::vector<std::string>& cut_outputs,
                   const std::function<const Tensor*(const std::string&)>& known,
                   const std::function<bool(const std::string&, DataType*, std::vector<int64_t>*)>& type_of) {
  onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) throw Error(what + ": not an ONNX model");
  // Every stage model must call a node as the whole model does: unnamed nodes get the name GE's
  // import gives them (op type and 1-based position) unless another node already has it.
  {
    std::set<std::string> names;
    for (const onnx::NodeProto& n : m.graph().node()) names.insert(n.name());
    for (int i = 0; i < m.graph().node_size(); ++i) {
      onnx::NodeProto* n = m.mutable_graph()->mutable_node(i);
      if (!n->name().empty()) continue;
      std::string name = n->op_type() + "_" + std::to_string(i + 1);
      for (int k = 2; names.count(name); ++k) name = n->op_type() + "_" + std::to_string(i + 1) + "_" + std::to_string(k);
      names.insert(name);
      n->set_name(name);
    }
  }
  const onnx::GraphProto& g = m.graph();
  const int nn = g.node_size();

  std::map<std::string, int> producer;
  for (int i = 0; i < nn; ++i)
    for (const std::string& o : g.node(i).output())
      if (!o.empty()) producer[o] = i;
  int d = -1;
  std::string first;
  for (const std::string& o : cut_outputs) {
    if (o.empty()) continue;
    if (first.empty()) first = o;
    if (auto it = producer.find(o); it != producer.end()) d = it->second;
  }
  if (d < 0)
    throw Error(what + ": the node computing '" + first +
                "' has an output shape that depends on run-time values, and it is no node of the model's graph (a node "
                "of an expanded function body) at which the model could be cut into stages");
  StageCut cut;
  cut.node = node_desc(g.node(d), d);

  std::map<std::string, const onnx::TensorProto*> inits;
  for (const onnx::TensorProto& t : g.initializer()) inits[t.name()] = &t;
  std::map<std::string, size_t> input_index;  // graph inputs without the initializers listed as inputs
  std::map<std::string, const onnx::ValueInfoProto*> input_vi;
  for (const onnx::ValueInfoProto& vi : g.input()) {
    if (inits.count(vi.name())) continue;
    const size_t k = input_index.size();
    input_index[vi.name()] = k;
    input_vi[vi.name()] = &vi;
  }

  // Downstream of the cut node (fixpoint: ONNX lists nodes topologically, but GE sorts any order).
  std::vector<bool> down(static_cast<size_t>(nn), false);
  std::set<std::string> down_values;
  down[static_cast<size_t>(d)] = true;
  for (const std::string& o : g.node(d).output()) down_values.insert(o);
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < nn; ++i) {
      if (down[static_cast<size_t>(i)]) continue;
      bool hit = false;
      for (const std::string& in : g.node(i).input()) hit |= !in.empty() && down_values.count(in) > 0;
      if (!hit) continue;
      down[static_cast<size_t>(i)] = true;
      for (const std::string& o : g.node(i).output()) down_values.insert(o);
      changed = true;
    }
  }

  // The prefix's outputs: values the eager node or the suffix take from it, and model outputs.
  std::vector<std::string> prefix_outputs;
  std::map<std::string, size_t> prefix_index;
  auto from_prefix = [&](const std::string& name) {
    auto [it, fresh] = prefix_index.emplace(name, prefix_outputs.size());
    if (fresh) prefix_outputs.push_back(name);
    return StageSource{StageSource::Prefix, it->second};
  };
  // Where a value taken by a later stage comes from; initializers and values the import knows
  // are copied into that stage's model instead (nullopt).
  enum class Take { Embed, Input, Prefix };
  auto take = [&](const std::string& name) {
    if (inits.count(name) || known(name)) return Take::Embed;
    if (input_index.count(name)) return Take::Input;
    return Take::Prefix;
  };
  auto embed = [&](onnx::GraphProto* into, const std::string& name, std::set<std::string>& done) {
    if (!done.insert(name).second) return;
    if (auto it = inits.find(name); it != inits.end()) {
      *into->add_initializer() = *it->second;
      return;
    }
    onnx::TensorProto t;
    if (!t.ParseFromString(tensor_file_bytes(*known(name), name)))
      throw Error(what + ": value '" + name + "' could not be copied into a stage model");
    *into->add_initializer() = std::move(t);
  };
  auto elem_of = [&](const std::string& name) -> int32_t {
    if (auto it = input_vi.find(name); it != input_vi.end()) return it->second->type().tensor_type().elem_type();
    // A value computed after the cut node in the import's order (another data-dependent node the
    // prefix stages itself) has no type yet: 0, set from the tensor at run (eager, suffix) or by the
    // prefix's own inference.
    DataType dt = DataType::Undefined;
    std::vector<int64_t> dims;
    return type_of(name, &dt, &dims) ? static_cast<int32_t>(dt) : 0;
  };

  // ---- the eager model: the cut node alone
  {
    const onnx::NodeProto& dn = g.node(d);
    onnx::ModelProto em = empty_like(m, g.name() + ".eager");
    onnx::GraphProto* eg = em.mutable_graph();
    *eg->add_node() = dn;
    std::set<std::string> done;
    for (const std::string& in : dn.input()) {
      if (in.empty() || done.count(in)) continue;
      switch (take(in)) {
        case Take::Embed: embed(eg, in, done); break;
        case Take::Input:
          done.insert(in);
          cut.eager_input_names.push_back(in);
          cut.eager_inputs.push_back({StageSource::Input, input_index[in]});
          add_typed(eg->mutable_input(), in, elem_of(in), nullptr);
          break;
        case Take::Prefix:
          done.insert(in);
          cut.eager_input_names.push_back(in);
          cut.eager_inputs.push_back(from_prefix(in));
          add_typed(eg->mutable_input(), in, elem_of(in), nullptr);
          break;
      }
    }
    for (const std::string& o : dn.output())
      if (!o.empty()) add_typed(eg->mutable_output(), o, 0, nullptr);
    cut.eager_bytes = serialize(em, what);
  }
  std::map<std::string, size_t> eager_index;
  {
    size_t k = 0;
    for (const std::string& o : g.node(d).output())
      if (!o.empty()) eager_index[o] = k++;
  }

  // ---- the suffix template: every other downstream node
  std::set<std::string> suffix_values;  // produced by suffix nodes
  bool any_suffix = false;
  for (int i = 0; i < nn; ++i)
    if (down[static_cast<size_t>(i)] && i != d) {
      any_suffix = true;
      for (const std::string& o : g.node(i).output()) suffix_values.insert(o);
    }
  std::map<std::string, size_t> suffix_output_index;
  if (any_suffix) {
    onnx::ModelProto sm = empty_like(m, g.name() + ".suffix");
    onnx::GraphProto* sg = sm.mutable_graph();
    std::set<std::string> done;
    for (int i = 0; i < nn; ++i) {
      if (!down[static_cast<size_t>(i)] || i == d) continue;
      *sg->add_node() = g.node(i);
      for (const std::string& in : g.node(i).input()) {
        if (in.empty() || suffix_values.count(in) || done.count(in)) continue;
        if (auto it = eager_index.find(in); it != eager_index.end()) {
          done.insert(in);
          cut.suffix_inputs.push_back({StageSource::Eager, it->second});
          add_typed(sg->mutable_input(), in, 0, nullptr);
          continue;
        }
        switch (take(in)) {
          case Take::Embed: embed(sg, in, done); break;
          case Take::Input:
            done.insert(in);
            cut.suffix_inputs.push_back({StageSource::Input, input_index[in]});
            add_typed(sg->mutable_input(), in, 0, nullptr);
            break;
          case Take::Prefix:
            done.insert(in);
            cut.suffix_inputs.push_back(from_prefix(in));
            add_typed(sg->mutable_input(), in, 0, nullptr);
            break;
        }
      }
    }
    for (const onnx::ValueInfoProto& o : g.output())
      if (suffix_values.count(o.name())) {
        suffix_output_index.emplace(o.name(), suffix_output_index.size());
        add_typed(sg->mutable_output(), o.name(), o.type().tensor_type().elem_type(), nullptr);
      }
    cut.suffix_template = serialize(sm, what);
  }

  // ---- the model's outputs
  for (const onnx::ValueInfoProto& o : g.output()) {
    const std::string& name = o.name();
    if (auto it = suffix_output_index.find(name); it != suffix_output_index.end())
      cut.outputs.push_back({StageSource::Suffix, it->second});
    else if (auto e = eager_index.find(name); e != eager_index.end())
      cut.outputs.push_back({StageSource::Eager, e->second});
    else if (input_index.count(name))
      cut.outputs.push_back({StageSource::Input, input_index[name]});
    else
      cut.outputs.push_back(from_prefix(name));
  }

  // ---- the prefix: the nodes (not downstream) its outputs need
  if (!prefix_outputs.empty()) {
    std::vector<bool> need(static_cast<size_t>(nn), false);
    std::vector<std::string> work = prefix_outputs;
    std::set<std::string> seen(work.begin(), work.end());
    while (!work.empty()) {
      const std::string v = work.back();
      work.pop_back();
      auto it = producer.find(v);
      if (it == producer.end() || down[static_cast<size_t>(it->second)] || need[static_cast<size_t>(it->second)]) continue;
      need[static_cast<size_t>(it->second)] = true;
      for (const std::string& in : g.node(it->second).input())
        if (!in.empty() && seen.insert(in).second) work.push_back(in);
    }
    onnx::ModelProto pm = empty_like(m, g.name() + ".prefix");
    onnx::GraphProto* pg = pm.mutable_graph();
    std::set<std::string> used_inputs, done;
    for (int i = 0; i < nn; ++i) {
      if (!need[static_cast<size_t>(i)]) continue;
      *pg->add_node() = g.node(i);
      for (const std::string& in : g.node(i).input()) {
        if (in.empty()) continue;
        if (inits.count(in)) embed(pg, in, done);
        else if (input_index.count(in)) used_inputs.insert(in);
      }
    }
    for (const std::string& name : prefix_outputs) {
      if (inits.count(name)) embed(pg, name, done);
      else if (input_index.count(name)) used_inputs.insert(name);
    }
    for (const onnx::ValueInfoProto& vi : g.input())
      if (used_inputs.count(vi.name())) {
        *pg->add_input() = vi;
        cut.prefix_inputs.push_back(input_index[vi.name()]);
      }
    for (const std::string& name : prefix_outputs) add_typed(pg->mutable_output(), name, elem_of(name), nullptr);
    cut.prefix_bytes = serialize(pm, what);
  }
  return cut;
}

std::string suffix_model(const StageCut& cut, const std::vector<Tensor>& inputs) {
  onnx::ModelProto m;
  if (!m.ParseFromString(cut.suffix_template)) throw Error("the suffix model after " + cut.node + " is unreadable");
  auto* ins = m.mutable_graph()->mutable_input();
  if (static_cast<size_t>(ins->size()) != inputs.size())
    throw Error("the suffix after " + cut.node + " takes " + std::to_string(ins->size()) + " inputs; " +
                std::to_string(inputs.size()) + " given");
  for (int k = 0; k < ins->size(); ++k) {
    auto* tt = ins->Mutable(k)->mutable_type()->mutable_tensor_type();
    const Tensor& t = inputs[static_cast<size_t>(k)];
    tt->set_elem_type(static_cast<int32_t>(t.dtype()));
    auto* shp = tt->mutable_shape();
    shp->clear_dim();
    for (size_t r = 0; r < t.shape().rank(); ++r)
      shp->add_dim()->set_dim_param(ins->Get(k).name() + "[" + std::to_string(r) + "]");
  }
  std::string out;
  if (!m.SerializeToString(&out)) throw Error("the suffix model after " + cut.node + " could not be serialized");
  return out;
}

std::string eager_model(const StageCut& cut, const std::vector<Tensor>& inputs) {
  onnx::ModelProto m;
  if (!m.ParseFromString(cut.eager_bytes)) throw Error("the model of " + cut.node + " is unreadable");
  auto* ins = m.mutable_graph()->mutable_input();
  for (int k = 0; k < ins->size() && static_cast<size_t>(k) < inputs.size(); ++k)
    ins->Mutable(k)->mutable_type()->mutable_tensor_type()->set_elem_type(static_cast<int32_t>(inputs[static_cast<size_t>(k)].dtype()));
  std::string out;
  if (!m.SerializeToString(&out)) throw Error("the model of " + cut.node + " could not be serialized");
  return out;
}

std::string rank_signature(const std::vector<Tensor>& ts) {
  std::string r;
  for (const Tensor& t : ts) r += (r.empty() ? "" : ",") + std::string(dtype_name(t.dtype())) + "/" + std::to_string(t.shape().rank());
  return r;
}

}  // namespace ge::core
