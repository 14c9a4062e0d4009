// plugins/ascend_backend/task.h — the offline model's task list: what a device runtime (the
// emulator here; AscendCL on hardware) is handed, derived from a compiled graph (nodes in issue
// order with Node::stream, ScheduleInfo events, the arena plan and the tiling attributes of
// tiling.h). Stream s executes its tasks in order; an EventRecord task marks event e done after
// the tasks before it on its stream; an EventWait task blocks its stream until e is recorded.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"

namespace ge::ascend {

struct TaskOperand {
  std::string value;      ///< value name
  int64_t arena_offset;   ///< byte offset in the feature-map arena; -1 for constants (weights region)
  int64_t bytes;          ///< Value::nbytes()
  int format;             ///< ge::Format as int
};

struct Task {
  enum class Kind { Kernel, EventRecord, EventWait };
  Kind kind = Kind::Kernel;
  int stream = 0;
  // Kernel tasks:
  std::string node;       ///< node name
  std::string op_type;    ///< domain-qualified when not ai.onnx ("ge.FusedConv")
  std::string engine;     ///< "cube" | "vector" | "aicpu" (attribute ascend_engine; "aicpu" when absent)
  int64_t block_dim = 1;
  std::vector<int64_t> tiling;  ///< attribute ascend_tiling (empty for AI CPU tasks)
  std::vector<TaskOperand> inputs, outputs;
  // Event tasks: index into ScheduleInfo::events.
  int event = -1;
};

/// A node that runs no kernel (CANN emits no task for it): an op that only reinterprets its input
/// (ge::op_class "view": Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) whose output is
/// the input's bytes — same size, neither a graph input nor a graph output, and, once the memory
/// plan ran (Graph::arena_bytes > 0), at the input's arena offset (as the runtime's own view test,
/// core/src/runtime.cc). Before the memory plan (placement, the schedulers) the plan is assumed to
/// alias it. Any other node of those ops copies its bytes on the AI CPU (a kernel task).
bool is_view_node(const Node& n);

/// The task list of `g`: per node in graph order, the EventWait tasks of events whose
/// wait_before is that node, its Kernel task (none for a view, is_view_node), then the
/// EventRecord tasks of events whose record_after is that node. Throws ge::Error when an event
/// names no node.
std::vector<Task> build_tasks(const Graph& g);

std::string task_kind_name(Task::Kind k);  ///< "kernel", "event_record", "event_wait"

}  // namespace ge::ascend
