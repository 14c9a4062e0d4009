// plugins/ascend_backend/task.cc — the offline model's task list from a compiled graph (task.h).
#include "task.h"

#include <map>

#include "ge/sdk/cost_model.h"
#include "ge/sdk/error.h"
#include "tiling.h"

namespace ge::ascend {

std::string task_kind_name(Task::Kind k) {
  switch (k) {
    case Task::Kind::Kernel: return "kernel";
    case Task::Kind::EventRecord: return "event_record";
    case Task::Kind::EventWait: return "event_wait";
  }
  return "?";
}

bool is_view_node(const Node& n) {
  if (op_class(n) != "view" || n.num_outputs() != 1 || n.num_inputs() == 0) return false;
  const Value* in = n.input(0);
  const Value* out = n.output(0);
  if (!in || !out || in->is_graph_input() || out->is_graph_output() || in->is_constant() || in->nbytes() != out->nbytes()) return false;
  const Graph* g = n.graph();
  if (!g || g->arena_bytes == 0) return true;  // not planned yet: the memory plan aliases it
  return in->arena_offset >= 0 && out->arena_offset == in->arena_offset;
}

std::vector<Task> build_tasks(const Graph& g) {
  std::map<std::string, std::vector<int>> waits, records;
  const auto& events = g.schedule.events;
  for (size_t e = 0; e < events.size(); ++e) {
    if (!g.find_node(events[e].record_after) || !g.find_node(events[e].wait_before))
      throw Error("ascend: schedule event " + std::to_string(e) + " (" + events[e].record_after + " -> " +
                  events[e].wait_before + ") names no node of graph '" + g.name + "'");
    records[events[e].record_after].push_back(static_cast<int>(e));
    waits[events[e].wait_before].push_back(static_cast<int>(e));
  }
  auto operand = [](const Value* v) {
    return TaskOperand{v->name(), v->is_constant() ? -1 : v->arena_offset, static_cast<int64_t>(v->nbytes()),
                       static_cast<int>(v->format)};
  };
  std::vector<Task> tasks;
  for (const Node* n : g.nodes()) {
    for (int e : waits[n->name()]) tasks.push_back(Task{Task::Kind::EventWait, n->stream, {}, {}, {}, 1, {}, {}, {}, e});
    if (is_view_node(*n)) {  // no kernel: its output is its input's bytes
      for (int e : records[n->name()]) tasks.push_back(Task{Task::Kind::EventRecord, n->stream, {}, {}, {}, 1, {}, {}, {}, e});
      continue;
    }
    Task t;
    t.stream = n->stream;
    t.node = n->name();
    t.op_type = n->domain().empty() ? n->op_type() : n->domain() + "." + n->op_type();
    t.engine = n->attrs.get_string(kAttrEngine, "aicpu");
    t.block_dim = n->attrs.get_int(kAttrBlockDim, 1);
    t.tiling = n->attrs.get_ints(kAttrTiling, {});
    for (const Value* v : n->inputs())
      if (v) t.inputs.push_back(operand(v));
    for (const Value* v : n->outputs())
      if (v) t.outputs.push_back(operand(v));
    tasks.push_back(std::move(t));
    for (int e : records[n->name()]) tasks.push_back(Task{Task::Kind::EventRecord, n->stream, {}, {}, {}, 1, {}, {}, {}, e});
  }
  return tasks;
}

}  // namespace ge::ascend
