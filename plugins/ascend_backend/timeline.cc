// plugins/ascend_backend/timeline.cc — the discrete-event timeline (timeline.h).
#include "timeline.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include <nlohmann/json.hpp>

#include "ge/sdk/cost_model.h"
#include "ge/sdk/error.h"

namespace ge::ascend {
namespace {

double sum_over(const std::vector<PipeCycles>& v, double (*f)(const PipeCycles&)) {
  double s = 0;
  for (const PipeCycles& c : v) s += f(c);
  return s;
}

}  // namespace

double Timeline::cube_utilization() const {
  if (latency_cycles <= 0 || ai_cores <= 0) return 0;
  return sum_over(core_busy, [](const PipeCycles& c) { return c.cube; }) / (ai_cores * latency_cycles);
}

double Timeline::vector_utilization() const {
  if (latency_cycles <= 0 || ai_cores <= 0) return 0;
  return sum_over(core_busy, [](const PipeCycles& c) { return c.vector; }) / (ai_cores * latency_cycles);
}

double Timeline::movement_utilization() const {
  if (latency_cycles <= 0 || ai_cores <= 0) return 0;
  return sum_over(core_busy, [](const PipeCycles& c) { return c.busiest_movement(); }) / (ai_cores * latency_cycles);
}

Timeline simulate(const Graph& g, const std::vector<Task>& tasks, const Platform& p) {
  Timeline tl;
  tl.soc = p.name;
  tl.clock_ghz = p.get("clock_ghz");
  tl.ai_cores = static_cast<int>(p.get_int("ai_cores"));
  tl.aicpus = static_cast<int>(p.get_int("aicpu.cores"));
  const double event_cycles = us_to_cycles(p.get("launch.event_us"), p);

  // Price every kernel task once.
  std::vector<TaskCycles> priced(tasks.size());
  std::vector<double> bounds(tasks.size(), 0);
  int streams = 1;
  int events = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    if (t.stream < 0) throw Error("ascend timeline: task " + std::to_string(i) + " has stream " + std::to_string(t.stream));
    streams = std::max(streams, t.stream + 1);
    if (t.kind != Task::Kind::Kernel) {
      events = std::max(events, t.event + 1);
      continue;
    }
    const Node* n = g.find_node(t.node);
    if (!n) throw Error("ascend timeline: task " + std::to_string(i) + " names node '" + t.node + "', not in graph '" + g.name + "'");
    if (is_view_node(*n)) {  // no kernel runs for a view (build_tasks emits none; a hand-made list may)
      priced[i].engine = "view";
      continue;
    }
    const TaskWork w = task_work(t, *n);
    priced[i] = task_cycles(w, p);
    bounds[i] = task_lower_bound(w, p);
    if (priced[i].engine != "aicpu" && priced[i].block_dim > tl.ai_cores)
      throw Error("ascend timeline: node '" + t.node + "' needs " + std::to_string(priced[i].block_dim) + " AI Cores; " + p.name +
                  " has " + std::to_string(tl.ai_cores));
  }
  tl.streams = streams;
  std::vector<std::vector<size_t>> queue(static_cast<size_t>(streams));
  for (size_t i = 0; i < tasks.size(); ++i) queue[static_cast<size_t>(tasks[i].stream)].push_back(i);
  std::vector<size_t> pos(static_cast<size_t>(streams), 0);
  std::vector<double> ready(static_cast<size_t>(streams), 0);
  std::vector<double> recorded(static_cast<size_t>(events), -1);
  std::vector<double> core_free(static_cast<size_t>(tl.ai_cores), 0), cpu_free(static_cast<size_t>(tl.aicpus), 0);
  tl.core_busy.assign(static_cast<size_t>(tl.ai_cores), {});
  tl.aicpu_busy.assign(static_cast<size_t>(tl.aicpus), 0);

  // The units (cores or AI CPUs) with the earliest free times, the earliest first.
  auto earliest = [](const std::vector<double>& free, int64_t k) {
    std::vector<int> idx(free.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return free[static_cast<size_t>(a)] < free[static_cast<size_t>(b)]; });
    idx.resize(static_cast<size_t>(k));
    return idx;
  };

  constexpr double kBlocked = std::numeric_limits<double>::infinity();
  while (true) {
    int pick = -1;
    double pick_start = kBlocked;
    bool left = false;
    for (int s = 0; s < streams; ++s) {
      const size_t su = static_cast<size_t>(s);
      if (pos[su] >= queue[su].size()) continue;
      left = true;
      const Task& t = tasks[queue[su][pos[su]]];
      const TaskCycles& c = priced[queue[su][pos[su]]];
      double start = ready[su];
      if (t.kind == Task::Kind::EventWait) {
        const double r = recorded[static_cast<size_t>(t.event)];
        start = r < 0 ? kBlocked : std::max(start, r + event_cycles);
      } else if (t.kind == Task::Kind::Kernel && c.engine != "view") {
        const bool cpu = c.engine == "aicpu";
        const auto units = earliest(cpu ? cpu_free : core_free, cpu ? 1 : c.block_dim);
        start = std::max(start, (cpu ? cpu_free : core_free)[static_cast<size_t>(units.back())]);
      }
      if (start < pick_start) pick = s, pick_start = start;
    }
    if (!left) break;
    if (pick < 0) {
      std::string blocked;
      for (int s = 0; s < streams; ++s) {
        const size_t su = static_cast<size_t>(s);
        if (pos[su] < queue[su].size())
          blocked += (blocked.empty() ? "" : ", ") + std::string("stream ") + std::to_string(s) + " waits for event " +
                     std::to_string(tasks[queue[su][pos[su]]].event);
      }
      throw Error("ascend timeline: the events of graph '" + g.name + "' deadlock (" + blocked + ")");
    }
    const size_t su = static_cast<size_t>(pick);
    const size_t ti = queue[su][pos[su]++];
    const Task& t = tasks[ti];
    if (t.kind == Task::Kind::EventRecord) {
      recorded[static_cast<size_t>(t.event)] = pick_start;
      tl.events.push_back({t.stream, t.event, true, pick_start});
      continue;
    }
    if (t.kind == Task::Kind::EventWait) {
      ready[su] = pick_start;
      tl.events.push_back({t.stream, t.event, false, pick_start});
      continue;
    }
    const TaskCycles& c = priced[ti];
    if (c.engine == "view") continue;
    TimelineTask rec;
    rec.task = ti, rec.node = t.node, rec.op_type = t.op_type, rec.engine = c.engine, rec.bound = c.bound, rec.stream = t.stream;
    rec.start = pick_start;
    rec.lower_bound = bounds[ti];
    rec.end = pick_start + c.total;
    if (c.engine == "aicpu") {
      const int u = earliest(cpu_free, 1)[0];
      cpu_free[static_cast<size_t>(u)] = rec.end;
      tl.aicpu_busy[static_cast<size_t>(u)] += c.total - c.launch;
      rec.units = {u};
      rec.unit_start = {pick_start + c.launch};
      rec.unit_end = {rec.end};
    } else {
      rec.units = earliest(core_free, c.block_dim);
      for (size_t b = 0; b < rec.units.size(); ++b) {
        const size_t core = static_cast<size_t>(rec.units[b]);
        core_free[core] = pick_start + c.launch + c.core_cycles[b];
        rec.unit_start.push_back(pick_start + c.launch);
        rec.unit_end.push_back(core_free[core]);
        tl.core_busy[core] += c.core_pipes[b];
        rec.pipes += c.core_pipes[b];
      }
    }
    ready[su] = rec.end;
    tl.latency_cycles = std::max(tl.latency_cycles, rec.end);
    tl.kernels.push_back(std::move(rec));
  }
  for (double r : ready) tl.latency_cycles = std::max(tl.latency_cycles, r);
  return tl;
}

std::string chrome_trace(const Timeline& t, const std::string& title) {
  using nlohmann::json;
  json ev = json::array();
  auto meta = [&](int pid, int tid, const std::string& what, const std::string& name) {
    json m = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", {{"name", name}}}};
    if (tid >= 0) m["tid"] = tid;
    ev.push_back(m);
  };
  meta(1, -1, "process_name", "streams (" + t.soc + ", simulated)");
  meta(2, -1, "process_name", "AI Cores");
  meta(3, -1, "process_name", "AI CPUs");
  for (int s = 0; s < t.streams; ++s) meta(1, s, "thread_name", "stream " + std::to_string(s));
  for (int c = 0; c < t.ai_cores; ++c) meta(2, c, "thread_name", "AI Core " + std::to_string(c));
  for (int c = 0; c < t.aicpus; ++c) meta(3, c, "thread_name", "AI CPU " + std::to_string(c));
  const double us = 1.0 / (t.clock_ghz * 1e3);
  for (const TimelineTask& k : t.kernels) {
    json args = {{"engine", k.engine}, {"bound", k.bound}, {"start_cycle", k.start}, {"end_cycle", k.end},
                 {"cube_cycles", k.pipes.cube}, {"vector_cycles", k.pipes.vector}, {"movement_cycles", k.pipes.movement()},
                 {"units", k.units}};
    ev.push_back({{"ph", "X"}, {"pid", 1}, {"tid", k.stream}, {"name", k.node}, {"cat", k.op_type},
                  {"ts", k.start * us}, {"dur", (k.end - k.start) * us}, {"args", args}});
    for (size_t i = 0; i < k.units.size(); ++i)
      ev.push_back({{"ph", "X"}, {"pid", k.engine == "aicpu" ? 3 : 2}, {"tid", k.units[i]}, {"name", k.node}, {"cat", k.op_type},
                    {"ts", k.unit_start[i] * us}, {"dur", (k.unit_end[i] - k.unit_start[i]) * us},
                    {"args", {{"engine", k.engine}, {"stream", k.stream}}}});
  }
  for (const TimelineEvent& e : t.events)
    ev.push_back({{"ph", "i"}, {"s", "t"}, {"pid", 1}, {"tid", e.stream},
                  {"name", std::string(e.record ? "record" : "wait") + " event " + std::to_string(e.event)},
                  {"ts", e.cycle * us}, {"args", {{"cycle", e.cycle}}}});
  // Per AI Core: busy cycles per pipe and utilization over the latency.
  json cores = json::array();
  for (size_t c = 0; c < t.core_busy.size(); ++c) {
    const PipeCycles& b = t.core_busy[c];
    const double l = t.latency_cycles > 0 ? t.latency_cycles : 1;
    cores.push_back({{"core", c}, {"cube_cycles", b.cube}, {"vector_cycles", b.vector}, {"movement_cycles", b.movement()},
                     {"cube_utilization", b.cube / l}, {"vector_utilization", b.vector / l},
                     {"movement_utilization", b.busiest_movement() / l}});
  }
  json root = {{"traceEvents", ev},
               {"displayTimeUnit", "ns"},
               {"otherData", {{"title", title}, {"soc", t.soc}, {"latency_us", t.latency_us()},
                              {"latency_cycles", t.latency_cycles}, {"cube_utilization", t.cube_utilization()},
                              {"ai_cores", cores}}}};
  return root.dump();
}

}  // namespace ge::ascend
