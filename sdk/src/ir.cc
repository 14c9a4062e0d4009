#include "ge/sdk/ir.h"

#include <algorithm>

#include "ge/sdk/error.h"

namespace ge {

std::string Node::describe() const { return "node '" + name_ + "' (" + op_type_ + ")"; }

struct Graph::State {
  uint64_t name_counter = 0;
  uint32_t next_node_id = 0, next_value_id = 0;
  /// nodes() in list order, kept while nodes are only appended; rebuilt after a removal. Walking
  /// the list touches one scattered allocation per node, and passes ask for the order often.
  std::vector<Node*> node_list;
  bool node_list_valid = true;
  std::vector<Node*> node_by_id;    // null once removed
  std::vector<Value*> value_by_id;
  /// Entries of node_index_ / value_index_ whose node / value was removed (see ir.h).
  size_t stale_nodes = 0, stale_values = 0;
};

namespace {
uint32_t next_id(uint32_t& counter, const std::string& graph, const char* what) {
  if (counter == UINT32_MAX)
    throw InvalidGraphError("graph '" + graph + "': more than 2^32-1 " + what + " added since it was made or cloned");
  return counter++;
}
/// Drops the entries of a name index whose id is no longer live, once they outnumber the live
/// ones (amortized O(1) per removal).
template <typename T>
void sweep_index(std::unordered_map<std::string, uint32_t>& index, size_t& stale, size_t live,
                 const std::vector<T*>& by_id) {
  if (stale < 1024 || stale < live) return;
  std::erase_if(index, [&](const auto& e) { return by_id[e.second] == nullptr; });
  stale = 0;
}
}  // namespace

Graph::Graph(std::string n) : name(std::move(n)), state_(std::make_unique<State>()) {}
Graph::~Graph() = default;

uint32_t Graph::node_id_bound() const { return state_->next_node_id; }
uint32_t Graph::value_id_bound() const { return state_->next_value_id; }
Node* Graph::node_by_id(uint32_t id) const { return id < state_->node_by_id.size() ? state_->node_by_id[id] : nullptr; }
Value* Graph::value_by_id(uint32_t id) const { return id < state_->value_by_id.size() ? state_->value_by_id[id] : nullptr; }

int64_t Graph::opset(const std::string& domain) const {
  auto it = opsets.find(domain);
  return it == opsets.end() ? 0 : it->second;
}

void Value::set_symbolic_dims(std::vector<DimExpr> dims) {
  std::vector<int64_t> d(dims.size());
  bool symbolic = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    symbolic |= !dims[i].is_constant();
    d[i] = dims[i].is_constant() ? dims[i].constant() : -1;
  }
  shape = Shape(std::move(d));
  if (symbolic) sym_dims_ = std::make_shared<const std::vector<DimExpr>>(std::move(dims));
  else sym_dims_.reset();
}

std::vector<DimExpr> Value::dim_exprs() const {
  if (sym_dims_) return *sym_dims_;
  return std::vector<DimExpr>(shape.dims().begin(), shape.dims().end());
}

Value* Graph::add_value(const std::string& vname, DataType dtype, Shape shape) {
  if (find_value(vname)) throw InvalidGraphError("graph '" + name + "': value '" + vname + "' defined twice");
  auto v = std::make_unique<Value>();
  v->id_ = next_id(state_->next_value_id, name, "values");
  state_->value_by_id.push_back(nullptr);
  v->name_ = vname;
  v->dtype = dtype;
  v->shape = std::move(shape);
  Value* raw = v.get();
  values_.push_back(std::move(v));
  raw->self_ = std::prev(values_.end());
  value_index_[vname] = raw->id_;
  state_->value_by_id[raw->id_] = raw;
  return raw;
}

Value* Graph::add_constant(const std::string& vname, Tensor data) {
  Value* v = add_value(vname, data.dtype(), data.shape());
  v->format = data.format();
  v->data = std::make_shared<const Tensor>(std::move(data));
  return v;
}

std::string Graph::unique_value_name(const std::string& hint) const {
  if (!find_value(hint)) return hint;
  for (uint64_t i = 1;; ++i) {
    std::string n = hint + "_" + std::to_string(i);
    if (!find_value(n)) return n;
  }
}

Value* Graph::find_value(const std::string& vname) const {
  auto it = value_index_.find(vname);
  return it == value_index_.end() ? nullptr : state_->value_by_id[it->second];
}

void Graph::remove_value(Value* v) {
  if (v->producer_ || !v->uses_.empty() || v->is_input_ || v->is_output_)
    throw InvalidGraphError("graph '" + name + "': value '" + v->name() + "' is still in use and cannot be removed");
  state_->value_by_id[v->id_] = nullptr;
  values_.erase(v->self_);
  ++state_->stale_values;
  sweep_index(value_index_, state_->stale_values, values_.size(), state_->value_by_id);
}

Value* Graph::add_input(const std::string& vname, DataType dtype, Shape shape) {
  Value* v = add_value(vname, dtype, std::move(shape));
  mark_input(v);
  return v;
}

void Graph::mark_input(Value* v) {
  if (v->is_input_) return;
  v->is_input_ = true;
  inputs_.push_back(v);
}

void Graph::mark_output(Value* v) {
  v->is_output_ = true;
  outputs_.push_back(v);
}

void Graph::unmark_output(Value* v) {
  outputs_.erase(std::remove(outputs_.begin(), outputs_.end(), v), outputs_.end());
  v->is_output_ = false;
}

void Graph::set_output(size_t i, Value* v) {
  Value* old = outputs_.at(i);
  outputs_[i] = v;
  v->is_output_ = true;
  old->is_output_ = std::find(outputs_.begin(), outputs_.end(), old) != outputs_.end();
}

Node* Graph::add_node(const std::string& op_type, const std::string& nname, std::vector<Value*> inputs,
                      std::vector<Value*> outputs, Attributes attrs, const std::string& domain) {
  auto n = std::make_unique<Node>();
  std::string final_name = nname;
  if (final_name.empty() || find_node(final_name)) {
    std::string base = nname.empty() ? op_type : nname;
    do {
      final_name = base + "_" + std::to_string(++state_->name_counter);
    } while (find_node(final_name));
  }
  n->id_ = next_id(state_->next_node_id, name, "nodes");
  state_->node_by_id.push_back(nullptr);  // set once the node is in the graph (below)
  n->name_ = final_name;
  n->op_type_ = op_type;
  n->domain_ = domain;
  n->graph_ = this;
  n->attrs = std::move(attrs);
  n->attrs.owner = n->describe();
  Node* raw = n.get();
  // Every output is checked before any is bound: an error leaves no value pointing at the node.
  for (Value* o : outputs) {
    if (o && o->producer_)
      throw InvalidGraphError(raw->describe() + ": output '" + o->name() + "' already produced by " +
                              o->producer_->describe());
    // A value has one definition (ONNX IR: graphs are in SSA form): a graph input is defined
    // already. (A value that holds data may get a producer: clone() and passes keep a produced
    // value's known contents in `data`; frontends refuse a node writing an initializer.)
    if (o && o->is_graph_input())
      throw InvalidGraphError(raw->describe() + ": output '" + o->name() + "' is already defined as a graph input");
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    Value* o = outputs[i];
    if (o) {
      o->producer_ = raw;
      o->producer_output_ = static_cast<int>(i);
    }
  }
  n->outputs_ = std::move(outputs);
  n->use_pos_.assign(inputs.size(), 0);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i]) {
      n->use_pos_[i] = static_cast<uint32_t>(inputs[i]->uses_.size());
      inputs[i]->uses_.push_back({raw, static_cast<int>(i)});
    }
  n->inputs_ = std::move(inputs);
  nodes_.push_back(std::move(n));
  raw->self_ = std::prev(nodes_.end());
  node_index_[final_name] = raw->id_;
  if (state_->node_list_valid) state_->node_list.push_back(raw);
  state_->node_by_id[raw->id_] = raw;
  return raw;
}

void Graph::unlink_use(Node* n, size_t slot) {
  std::vector<Use>& u = n->inputs_[slot]->uses_;
  const uint32_t p = n->use_pos_[slot];
  const Use last = u.back();
  u[p] = last;
  last.node->use_pos_[static_cast<size_t>(last.index)] = p;
  u.pop_back();
}

void Graph::remove_node(Node* n) {
  for (size_t i = 0; i < n->inputs_.size(); ++i)
    if (n->inputs_[i]) unlink_use(n, i);
  for (Value* o : n->outputs_) {
    if (o && o->producer_ == n) {
      o->producer_ = nullptr;
      o->producer_output_ = -1;
    }
  }
  state_->node_by_id[n->id_] = nullptr;
  nodes_.erase(n->self_);
  ++state_->stale_nodes;
  sweep_index(node_index_, state_->stale_nodes, nodes_.size(), state_->node_by_id);
  state_->node_list_valid = false;
  state_->node_list.clear();
}

void Graph::set_input(Node* n, size_t slot, Value* v) {
  if (slot >= n->inputs_.size()) {
    n->inputs_.resize(slot + 1, nullptr);
    n->use_pos_.resize(slot + 1, 0);
  }
  if (n->inputs_[slot]) unlink_use(n, slot);
  n->inputs_[slot] = v;
  if (v) {
    n->use_pos_[slot] = static_cast<uint32_t>(v->uses_.size());
    v->uses_.push_back({n, static_cast<int>(slot)});
  }
}

void Graph::append_input(Node* n, Value* v) { set_input(n, n->inputs_.size(), v); }

void Graph::replace_all_uses(Value* from, Value* to) {
  if (from == to) return;
  std::vector<Use> uses = from->uses_;
  for (const Use& u : uses) set_input(u.node, static_cast<size_t>(u.index), to);
  for (size_t i = 0; i < outputs_.size(); ++i)
    if (outputs_[i] == from) set_output(i, to);
}

Node* Graph::find_node(const std::string& nname) const {
  auto it = node_index_.find(nname);
  return it == node_index_.end() ? nullptr : state_->node_by_id[it->second];
}

std::vector<Node*> Graph::nodes() const {
  if (!state_->node_list_valid) {
    state_->node_list.clear();
    state_->node_list.reserve(nodes_.size());
    for (auto& n : nodes_) state_->node_list.push_back(n.get());
    state_->node_list_valid = true;
  }
  return state_->node_list;
}

std::vector<Value*> Graph::values() const {
  std::vector<Value*> out;
  out.reserve(values_.size());
  for (auto& v : values_) out.push_back(v.get());
  return out;
}

void Graph::sort_topologically() {
  std::vector<Node*> order = topological_order();
  // Moves each node's list element to the end in order: linear, and no iterator is invalidated.
  for (Node* n : order) nodes_.splice(nodes_.end(), nodes_, n->self_);
  state_->node_list = std::move(order);
  state_->node_list_valid = true;
}

void Graph::set_node_order(const std::vector<Node*>& order) {
  for (Node* n : order)
    if (!n || n->graph_ != this)
      throw InvalidGraphError("set_node_order on graph '" + name + "': a node of another graph");
  std::vector<const Node*> sorted(order.begin(), order.end());
  std::sort(sorted.begin(), sorted.end());
  const bool repeated = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  if (repeated || order.size() != nodes_.size())
    throw InvalidGraphError("set_node_order on graph '" + name + "': " + std::to_string(order.size()) +
                            " entries for " + std::to_string(nodes_.size()) + " nodes (each node exactly once)");
  for (Node* n : order) nodes_.splice(nodes_.end(), nodes_, n->self_);
  state_->node_list = order;
  state_->node_list_valid = true;
}

std::unique_ptr<Graph> Graph::clone() const {
  // On the compile path (the pass manager keeps the graph it received, to undo a failed pass;
  // schedulers try candidates on copies): values are mapped by pointer, not looked up by name,
  // and the name indexes are sized once.
  auto g = std::make_unique<Graph>(name);
  g->opsets = opsets;
  g->ops = ops;
  g->arena_bytes = arena_bytes;
  g->schedule = schedule;
  g->state_->name_counter = state_->name_counter;
  g->state_->node_list.reserve(nodes_.size());
  g->value_index_.reserve(values_.size());
  g->node_index_.reserve(nodes_.size());
  std::vector<std::pair<const Value*, Value*>> map(state_->next_value_id, {nullptr, nullptr});  // by Value::id
  for (auto& v : values_) {
    Value* c = g->add_value(v->name(), v->dtype, v->shape);
    c->format = v->format;
    c->data = v->data;
    c->arena_offset = v->arena_offset;
    c->sym_dims_ = v->sym_dims_;
    map[v->id_] = {v.get(), c};
  }
  auto to = [&](const Value* v) -> Value* {
    if (!v) return nullptr;
    if (v->id_ >= map.size() || map[v->id_].first != v)
      throw InvalidGraphError("graph '" + name + "': a node reads or writes value '" + v->name_ + "' of another graph");
    return map[v->id_].second;
  };
  for (Value* v : inputs_) g->mark_input(to(v));
  for (auto& n : nodes_) {
    std::vector<Value*> ins, outs;
    ins.reserve(n->inputs_.size());
    outs.reserve(n->outputs_.size());
    for (Value* v : n->inputs_) ins.push_back(to(v));
    for (Value* v : n->outputs_) outs.push_back(to(v));
    Node* c = g->add_node(n->op_type_, n->name_, std::move(ins), std::move(outs), n->attrs, n->domain_);
    c->stream = n->stream;
    c->pipeline_stage = n->pipeline_stage;
  }
  for (Value* v : outputs_) g->mark_output(to(v));
  return g;
}

void Graph::swap(Graph& o) noexcept {
  std::swap(name, o.name);
  std::swap(opsets, o.opsets);
  std::swap(arena_bytes, o.arena_bytes);
  std::swap(schedule, o.schedule);
  nodes_.swap(o.nodes_);
  values_.swap(o.values_);
  value_index_.swap(o.value_index_);
  node_index_.swap(o.node_index_);
  inputs_.swap(o.inputs_);
  outputs_.swap(o.outputs_);
  state_.swap(o.state_);
  for (auto& n : nodes_) n->graph_ = this;
  for (auto& n : o.nodes_) n->graph_ = &o;
}

}  // namespace ge
