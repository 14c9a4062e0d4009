// ge/sdk/ir.h — GE's graph IR: Graph, Node, Value.
//
// A Graph is a DAG of Nodes (one operator each) connected by Values (one tensor edge each).
// A Value has at most one producer (a node output), any number of uses (node inputs), a dtype,
// a static shape and a format. A Value with constant data and no producer is an initializer
// (weight). A produced Value may also carry `data` when its contents were computed at compile
// time (shape subgraphs); passes may then fold its producer away.
//
// Pointers to Nodes and Values stay valid until they are removed from their graph.
//
// Every node and every value also has a dense id (ABI 1.9): a small integer, unique among the
// graph's live nodes (values), below Graph::node_id_bound() (value_id_bound()), kept for the
// node's (value's) life. Passes index plain vectors by it where a map keyed by pointer would
// cost a hash and an allocation per entry. Ids of removed nodes are not reused; Graph::clone
// numbers the copy's nodes and values anew, in list order, from 0.
#pragma once
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/sdk/attribute.h"
#include "ge/sdk/dim_expr.h"
#include "ge/sdk/tensor.h"
#include "ge/sdk/types.h"

namespace ge {

class OpRegistry;

class Graph;
class Node;

/// One input slot of a node that reads a value.
struct Use {
  Node* node;
  int index;  ///< input slot of `node`
  bool operator==(const Use&) const = default;
};

class Value {
 public:
  const std::string& name() const { return name_; }
  DataType dtype = DataType::Undefined;
  /// Logical shape (NCHW order for activations whatever `format` is; see types.h).
  Shape shape;
  /// Physical layout of the elements. Changed only by the layout stage, with TransData nodes.
  Format format = Format::ND;
  /// Constant contents: for an initializer, its weights; for a produced value, the result of
  /// compile-time evaluation. Null when unknown.
  std::shared_ptr<const Tensor> data;

  /// Byte offset in the plan's arena, set by the memory stage; -1 = not planned (the runtime then
  /// gives the value its own buffer). Graph inputs, outputs and constants stay outside the arena.
  int64_t arena_offset = -1;

  Node* producer() const { return producer_; }
  int producer_output() const { return producer_output_; }
  /// Every input slot reading this value. The order is not meaningful: removing an edge moves
  /// the last use into its place (ABI 1.9; before, uses stayed in insertion order).
  const std::vector<Use>& uses() const { return uses_; }
  bool is_graph_input() const { return is_input_; }
  bool is_graph_output() const { return is_output_; }
  /// An initializer: constant data and no producer.
  bool is_constant() const { return producer_ == nullptr && data != nullptr; }
  /// Logical element count (of `shape`).
  int64_t numel() const { return shape.numel(); }
  /// Bytes the value occupies in memory: for a blocked `format` (NC1HWC0, FRACTAL_Z) the padded
  /// physical size, so the memory planner and the runtime allocate enough (types.h).
  size_t nbytes() const { return static_cast<size_t>(format_storage_numel(shape.dims(), format)) * dtype_size(dtype); }
  /// (ABI 1.9) Dense id in [0, Graph::value_id_bound()) of the graph that owns the value; see the
  /// top of this header.
  uint32_t id() const { return id_; }

  /// (ABI 1.10) The symbolic shape (dim_expr.h) of a value of a graph kept with symbolic dims
  /// (ge/core/symbolic.h): one expression per axis, a constant where the extent is fixed; null
  /// for a static value. Where it is set, `shape` holds -1 on each symbolic axis, so such a graph
  /// is inferred, verified and printed, not compiled: binding the symbols gives the static graph.
  const std::vector<DimExpr>* symbolic_dims() const { return sym_dims_.get(); }
  /// Sets the symbolic shape and `shape` with it; an all-constant one makes the value static.
  void set_symbolic_dims(std::vector<DimExpr> dims);
  /// The extents of `shape` as expressions (the symbolic ones where set).
  std::vector<DimExpr> dim_exprs() const;

 private:
  friend class Graph;
  std::string name_;
  Node* producer_ = nullptr;
  int producer_output_ = -1;
  std::vector<Use> uses_;
  bool is_input_ = false;
  bool is_output_ = false;
  std::list<std::unique_ptr<Value>>::iterator self_;
  uint32_t id_ = 0;  // appended in ABI 1.9, as Node::id_
  std::shared_ptr<const std::vector<DimExpr>> sym_dims_;  // appended in ABI 1.10
};

class Node {
 public:
  const std::string& name() const { return name_; }
  const std::string& op_type() const { return op_type_; }
  const std::string& domain() const { return domain_; }
  /// Inputs in slot order; a null entry is an omitted optional input.
  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  Value* output(size_t i) const { return i < outputs_.size() ? outputs_[i] : nullptr; }
  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return outputs_.size(); }
  Graph* graph() const { return graph_; }
  Attributes attrs;
  /// Stream the scheduler put this node on (0..Graph::schedule.streams-1; 0 when unscheduled).
  /// Each stream runs its nodes in graph order; other streams are ordered only by events.
  int stream = 0;
  /// Pipeline stage (0..Graph::schedule.pipeline_stages-1); 0 when the graph is not pipelined.
  int pipeline_stage = 0;
  /// "node 'conv1' (Conv)" — for messages.
  std::string describe() const;
  /// (ABI 1.9) Dense id in [0, graph()->node_id_bound()); see the top of this header.
  uint32_t id() const { return id_; }

 private:
  friend class Graph;
  std::string name_, op_type_, domain_;
  std::vector<Value*> inputs_, outputs_;
  Graph* graph_ = nullptr;
  std::list<std::unique_ptr<Node>>::iterator self_;
  // Appended in ABI 1.9 (nodes are allocated by the SDK library only, so earlier members keep
  // their offsets for plugins built against 1.8).
  uint32_t id_ = 0;
  /// Per input slot, where its Use sits in the input value's uses(): an edge is removed in O(1)
  /// however many readers the value has (a constant merged by CSE may have thousands).
  std::vector<uint32_t> use_pos_;
};

/// A cross-stream dependency: the node `wait_before` (on its stream) may not start before the
/// node `record_after` (on another stream) has finished — an event recorded after one node and
/// waited for before the other, as in CUDA / AscendCL streams. Nodes are named (names are unique
/// in a graph), so the schedule survives Graph::clone and plan files.
struct StreamEvent {
  std::string record_after;
  std::string wait_before;
  bool operator==(const StreamEvent&) const = default;
};

/// What the schedule stage decided. Graph::nodes() order is the issue order: every stream runs
/// its nodes in that order; `events` order nodes of different streams. Every edge between nodes
/// on different streams must be implied by the events (directly or transitively).
struct ScheduleInfo {
  std::string scheduler;          ///< "" = not scheduled (one stream, graph order)
  int streams = 1;
  int pipeline_stages = 1;        ///< > 1: Node::pipeline_stage cuts the graph into stages
  std::vector<StreamEvent> events;
  double estimated_latency_ms = 0;  ///< the cost model's estimate for one inference (0 = none)
  std::string reason;             ///< why this schedule (the `auto` scheduler's choice)
};

/// A computation graph. Owns its nodes and values.
class Graph {
 public:
  explicit Graph(std::string name = "graph");
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  std::string name;
  /// Operator set versions by domain ("" = ai.onnx).
  std::map<std::string, int64_t> opsets;
  /// (ABI 1.6) The registry that defines the graph's ops and their contracts (views, in-place
  /// inputs, cost classes: OpDef), for code that is handed a node alone (the cost model, a
  /// backend's task builder). Set by the importer, the plan loader and the pass manager; null for
  /// a graph built by hand until one of them sees it. Not owned: the Environment outlives it.
  const OpRegistry* ops = nullptr;
  /// Size of the arena the memory stage planned (0 = no plan). Nodes then run in graph order.
  uint64_t arena_bytes = 0;
  /// Streams, events and pipeline stages (set by the schedule stage).
  ScheduleInfo schedule;
  int64_t opset(const std::string& domain = "") const;

  // ---- values
  /// A new value; `name` must be unique in the graph (throws ge::InvalidGraphError otherwise).
  Value* add_value(const std::string& name, DataType dtype = DataType::Undefined, Shape shape = {});
  /// An initializer holding `data` (dtype and shape taken from it).
  Value* add_constant(const std::string& name, Tensor data);
  /// A fresh value name that starts with `hint` and is not used yet.
  std::string unique_value_name(const std::string& hint) const;
  Value* find_value(const std::string& name) const;
  /// Removes a value that has no producer, no uses and is not a graph input or output.
  void remove_value(Value* v);

  // ---- graph inputs and outputs
  Value* add_input(const std::string& name, DataType dtype, Shape shape);
  void mark_input(Value* v);
  void mark_output(Value* v);
  void unmark_output(Value* v);
  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  /// Replaces output slot i (keeps the output order).
  void set_output(size_t i, Value* v);

  // ---- nodes
  /// A new node reading `inputs` (null = omitted optional) and writing `outputs` (each must have
  /// no producer yet). `name` may be empty; a unique one is made.
  Node* add_node(const std::string& op_type, const std::string& name, std::vector<Value*> inputs,
                 std::vector<Value*> outputs, Attributes attrs = {}, const std::string& domain = "");
  /// Removes a node; its outputs lose their producer (and stay in the graph).
  void remove_node(Node* n);
  void set_input(Node* n, size_t slot, Value* v);
  /// Appends an input slot.
  void append_input(Node* n, Value* v);
  /// Every use of `from` reads `to` instead; graph output slots holding `from` are redirected too.
  void replace_all_uses(Value* from, Value* to);
  Node* find_node(const std::string& name) const;

  /// Nodes in insertion order.
  std::vector<Node*> nodes() const;
  size_t num_nodes() const { return nodes_.size(); }
  std::vector<Value*> values() const;
  size_t num_values() const { return values_.size(); }
  /// (ABI 1.9) One past the largest Node::id() (Value::id()) of this graph: the size of a vector
  /// indexed by node (value) id. At most the number of nodes (values) ever added since the graph
  /// was made or cloned.
  uint32_t node_id_bound() const;
  uint32_t value_id_bound() const;
  /// (ABI 1.9) The live node (value) with that id, or null (removed, or never given out): a
  /// pass that keeps ids across rewrites finds out which nodes are gone without a name lookup.
  Node* node_by_id(uint32_t id) const;
  Value* value_by_id(uint32_t id) const;

  /// Nodes in a topological order (Boost.Graph topological_sort; ties keep insertion order as
  /// far as the algorithm allows). Throws ge::InvalidGraphError naming a node on a cycle.
  std::vector<Node*> topological_order() const;
  /// (ABI 1.10) True when every node of `order` comes after the producers of its inputs that
  /// belong to this graph (a producer missing from `order`, or of another graph, makes it false).
  /// Linear in the edges. is_topological(nodes()): is the node list itself an order to run in.
  bool is_topological(const std::vector<Node*>& order) const;
  /// Reorders the node list topologically.
  void sort_topologically();
  /// Sets the node list's order to `order`, which must hold every node of this graph exactly once
  /// (throws ge::InvalidGraphError otherwise). Schedulers set the issue order with it.
  void set_node_order(const std::vector<Node*>& order);

  /// A deep copy (the pass manager restores from it when a pass throws). Constant data is shared.
  std::unique_ptr<Graph> clone() const;
  /// Exchanges the whole contents of two graphs (nodes keep pointing at their new owner).
  void swap(Graph& other) noexcept;

 private:
  std::list<std::unique_ptr<Node>> nodes_;
  std::list<std::unique_ptr<Value>> values_;
  // Name → Value::id / Node::id. A removal leaves its entry behind (a lookup checks that the id
  // is still live; ids are never reused): erasing from a large hash table costs a cache miss per
  // bucket walked, and passes remove thousands of nodes. Stale entries are swept when they
  // outnumber the live ones. Same size as the Value* / Node* maps of ABI <= 1.10.
  std::unordered_map<std::string, uint32_t> value_index_;
  std::unordered_map<std::string, uint32_t> node_index_;
  std::vector<Value*> inputs_, outputs_;
  void unlink_use(Node* n, size_t slot);  // removes input `slot` of `n` from its value's uses
  // State added after ABI 1.8 (counters, the node-list cache) lives behind this pointer, which
  // took the place of an 8-byte counter: sizeof(Graph) and every earlier member's offset are
  // those plugins built against 1.8 compiled in.
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ge
