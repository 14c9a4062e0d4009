// plugins/ascend_backend/timeline.h — a discrete-event simulation of the offline model's task
// list on one device (docs/ascend.md "Timeline").
//
// Streams are in-order queues (task.h). An EventRecord task marks its event recorded when the
// tasks before it on its stream are done; an EventWait task holds its stream until the event is
// recorded, plus launch.event_us. A kernel task on the AI Core needs block_dim free AI Cores
// at once (it waits for them); core b of the task is busy for its own tiles' cycles
// (cycle_model.h) and is freed when they end; the task (and its stream) ends when the slowest core
// does. AI CPU tasks run on one of aicpu.cores AI CPUs. Among the streams whose next task can
// start, the one that can start earliest goes first (ties: lower stream), which is how a device's
// task scheduler dispatches ready tasks in arrival order. Times are AI Core clock cycles from 0.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cycle_model.h"
#include "ge/sdk/ir.h"
#include "platform.h"
#include "task.h"

namespace ge::ascend {

struct TimelineTask {
  size_t task = 0;            ///< index into the task list
  std::string node, op_type, engine, bound;
  int stream = 0;
  double start = 0, end = 0;  ///< cycles (end − start = launch + slowest core)
  std::vector<int> units;     ///< AI Cores (cube/vector) or the AI CPU (aicpu) it ran on
  std::vector<double> unit_start, unit_end;  ///< per unit: when its share (after the launch) starts and ends
  PipeCycles pipes;           ///< busy cycles summed over its cores
  double lower_bound = 0;     ///< its lower bound (cycles, launch included; task_lower_bound)
};

/// An event record or wait as it happened.
struct TimelineEvent {
  int stream = 0;
  int event = -1;      ///< index into ScheduleInfo::events
  bool record = true;  ///< record, or the end of a wait
  double cycle = 0;
};

struct Timeline {
  std::string soc;
  double clock_ghz = 1;
  int ai_cores = 0, aicpus = 0, streams = 0;
  double latency_cycles = 0;          ///< when the last task ends
  std::vector<TimelineTask> kernels;  ///< kernel tasks in the order they started
  std::vector<TimelineEvent> events;  ///< records and waits in the order they happened
  /// Per AI Core: busy cycles per pipe (utilization = busy / latency_cycles).
  std::vector<PipeCycles> core_busy;
  std::vector<double> aicpu_busy;     ///< per AI CPU: busy cycles
  double latency_us() const { return latency_cycles / (clock_ghz * 1e3); }
  /// Cube utilization of the device: Σ_cores cube busy / (ai_cores · latency).
  double cube_utilization() const;
  double vector_utilization() const;
  double movement_utilization() const;  ///< Σ busiest of L0C→UB, MTE1/2/3 per core / (ai_cores · latency), ≤ 1
};

/// Prices every kernel task with cycle_model.h (node looked up in g for FLOPs and Vector ops)
/// and runs the simulation. Throws ge::Error on a tiling error (naming the node) or when the
/// events deadlock (naming the blocked streams and events).
Timeline simulate(const Graph& g, const std::vector<Task>& tasks, const Platform& p);

/// Chrome trace JSON ("traceEvents"): process 1 has one track per stream (kernel tasks, event
/// waits and records), process 2 one track per AI Core, process 3 one per AI CPU; times in µs.
/// "otherData" holds the latency, the device's Cube utilization and per AI Core its busy cycles
/// and utilization per pipe group (cube, vector, movement).
std::string chrome_trace(const Timeline& t, const std::string& title);

}  // namespace ge::ascend
