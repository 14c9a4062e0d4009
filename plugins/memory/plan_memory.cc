// plugins/memory/plan_memory.cc — the memory-stage pass: liveness over the graph's node order,
// alias groups (views, contiguous Split/Slice parts; at "aggressive" also in-place elementwise,
// Concat and Pad in place), one
// planner call, offsets into the IR (Value::arena_offset, Graph::arena_bytes) and the report's
// figures (memory.arena_bytes, memory.lower_bound_bytes, memory.no_reuse_bytes).
//
// It runs from O0 up: the runtime's arena exists only when this pass ran, and planning changes
// no numerics. The node order is the execution order (the runtime runs g.nodes() in that order
// once an arena is planned); a graph whose order is not topological is sorted first.
//
// Several streams (Graph::schedule.streams > 1): lifetimes follow the schedule. A tensor lives
// from its producer's start until its last consumer on any stream has finished, ordered by
// stream order and events (ge::StreamOrder); the problem carries the resulting conflict
// relation (MemoryProblem::conflicts) and in-place / Concat-in-place merges require every other
// access to happen-before the node. Pipelined execution gives each in-flight request its own
// arena, so pipeline stages need nothing here.
#include <algorithm>
#include <memory>

#include "buffer_groups.h"
#include "ge/sdk/error.h"
#include "planners.h"
#include "registration.h"

namespace ge::memory {
namespace {

/// A string option of [memory] (typed: PassContext::string_option); `known` lists the values
/// allowed. A bad value is a ConfigError: the pass manager stops instead of undoing the pass
/// (which would leave the plan without an arena, against what the manifest asked). The planner
/// names are known only once every plugin registered its planners, so they are checked here.
std::string string_option(const PassContext& ctx, const std::string& key, const std::string& dflt,
                          const std::vector<std::string>& known, const std::string& what) {
  const std::string name = ctx.string_option("memory", key, dflt);
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  if (std::find(known.begin(), known.end(), name) == known.end())
    throw ConfigError("memory." + key + " = \"" + name + "\": " + what + " (known: " + list + ")");
  return name;
}

uint64_t sum_aligned(const std::vector<BufferGroup>& groups, uint64_t alignment) {
  uint64_t s = 0;
  for (const BufferGroup& g : groups)
    for (const GroupMember& m : g.members) s += align_up(m.value->nbytes(), alignment);
  return s;
}

ArenaPlan plan_groups(const MemoryPlanner& planner, const std::vector<BufferGroup>& groups,
                      const std::vector<Node*>& order, const std::string& level, const StreamOrder* streams) {
  MemoryProblem problem;
  if (streams) problem.conflicts = group_conflicts(groups, *streams);
  problem.num_steps = static_cast<int>(order.size());
  problem.level = level;
  for (const BufferGroup& grp : groups)
    problem.buffers.push_back({grp.members[0].value->name(), grp.bytes, grp.first_step, grp.last_step});
  ArenaPlan plan = planner.plan(problem);
  if (plan.offsets.size() != groups.size())
    throw Error("memory planner \"" + planner.name() + "\" returned " + std::to_string(plan.offsets.size()) +
                " offsets for " + std::to_string(groups.size()) + " buffers");
  // MemoryProblem::conflicts is newer than the interface: a planner built before it would plan
  // by intervals alone, which is unsafe under several streams. Refuse such a plan.
  if (streams)
    for (size_t a = 0; a < groups.size(); ++a)
      for (int b : problem.conflicts[a]) {
        const uint64_t a0 = plan.offsets[a], a1 = a0 + groups[a].bytes, b0 = plan.offsets[b], b1 = b0 + groups[b].bytes;
        if (static_cast<size_t>(b) > a && a0 < b1 && b0 < a1)
          throw Error("memory planner \"" + planner.name() + "\" put '" + problem.buffers[a].name + "' and '" +
                      problem.buffers[b].name + "' on shared bytes although streams may run them concurrently " +
                      "(MemoryProblem::conflicts)");
      }
  return plan;
}

class PlanMemory final : public Pass {
 public:
  PassInfo info() const override {
    return {"plan_memory", Stage::Memory, OptLevel::O0, NumericsEffect::Exact, false,
            "liveness-based arena planning: every intermediate tensor gets an offset in one arena",
            {"memory.planner", "memory.level"}, {}, {}};
  }

  bool run(Graph& g, PassContext& ctx) override {
    const std::string planner_name = string_option(ctx, "planner", "auto", ctx.memory_planners(),
                                                   "no loaded plugin registers a memory planner of that name");
    const std::string level = string_option(ctx, "level", "aggressive", {"none", "basic", "aggressive"}, "no such level");
    // Level "none" means no reuse at all: the naive planner, whatever planner is named.
    const MemoryPlanner* planner = ctx.memory_planner(level == "none" ? "naive" : planner_name);
    if (!planner) throw Error("memory planner \"" + std::string(level == "none" ? "naive" : planner_name) + "\" is not registered");
    // A multi-stream schedule fixes the order (the schedule stage issued it); one stream may be
    // re-sorted.
    std::unique_ptr<StreamOrder> streams;
    if (!is_multi_stream(g) && !g.is_topological(g.nodes())) g.sort_topologically();
    // Pipelined graphs run stage by stage, each in-flight request in its own arena: StreamOrder
    // checks that stages are contiguous in graph order, the order planned here.
    if (is_multi_stream(g) || g.schedule.pipeline_stages > 1) {
      auto order = std::make_unique<StreamOrder>(g);  // validates the schedule
      if (is_multi_stream(g)) streams = std::move(order);
    }
    const std::vector<Node*> order = g.nodes();

    AliasOptions opts{level != "none", level == "aggressive", level == "aggressive", {}, streams.get()};
    std::vector<const Value*> in_place;
    std::vector<BufferGroup> groups = build_groups(g, order, ctx.ops(), opts, &in_place);
    ArenaPlan plan = plan_groups(*planner, groups, order, level, streams.get());
    // A Concat (or Pad) input written in place reserves the whole output from the input's definition
    // on; where an early input (a short branch) makes that cost more than its copy saves, copy
    // it instead: drop inputs one at a time and keep each drop that shrinks the arena.
    if (planner->name() != "naive")
      for (const Value* v : in_place) {
        AliasOptions trial = opts;
        trial.concat_excluded.insert(v);
        std::vector<BufferGroup> tg = build_groups(g, order, ctx.ops(), trial);
        ArenaPlan tp = plan_groups(*planner, tg, order, level, streams.get());
        if (tp.arena_bytes < plan.arena_bytes) opts = trial, groups = std::move(tg), plan = std::move(tp);
      }
    const uint64_t alignment = MemoryProblem{}.alignment;

    for (Value* v : g.values()) v->arena_offset = -1;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (plan.offsets[i] % alignment)
        throw Error("memory planner \"" + planner->name() + "\" gave an unaligned offset");
      for (const GroupMember& m : groups[i].members) m.value->arena_offset = static_cast<int64_t>(plan.offsets[i] + m.offset);
    }
    g.arena_bytes = plan.arena_bytes;
    // Split/Slice parts placed inside their input, Pad inputs inside their output and Concat
    // inputs at their slice: copies the kernels skip (the report's memory.part_views,
    // memory.pad_in_place, memory.concat_in_place).
    int64_t part_views = 0, pads_in_place = 0, concats_in_place = 0;
    auto inside = [](const Value* a, const Value* b) {  // a's bytes within b's
      return a && b && a->arena_offset >= 0 && b->arena_offset >= 0 && a->arena_offset >= b->arena_offset &&
             a->arena_offset + static_cast<int64_t>(a->nbytes()) <= b->arena_offset + static_cast<int64_t>(b->nbytes());
    };
    for (const Node* n : order) {
      if (!n->domain().empty() || n->num_inputs() == 0) continue;
      if (n->op_type() == "Split" || n->op_type() == "Slice")
        for (const Value* out : n->outputs()) part_views += inside(out, n->input(0)) ? 1 : 0;
      else if (n->op_type() == "Pad" && n->num_outputs() == 1)
        pads_in_place += inside(n->input(0), n->output(0)) ? 1 : 0;
      else if (n->op_type() == "Concat" && n->num_outputs() == 1 && n->output(0) && n->output(0)->arena_offset >= 0) {
        int64_t at = n->output(0)->arena_offset;
        for (const Value* in : n->inputs()) {
          if (!in) break;
          concats_in_place += in->arena_offset == at ? 1 : 0;
          at += static_cast<int64_t>(in->nbytes());
        }
      }
    }

    // The bound uses every legal alias whatever the level, so declining to alias cannot raise it.
    const std::vector<BufferGroup> all = build_groups(g, order, ctx.ops(), AliasOptions{});
    ctx.count("memory.arena_bytes", static_cast<int64_t>(plan.arena_bytes));
    ctx.count("memory.lower_bound_bytes", static_cast<int64_t>(live_bytes_lower_bound(g, all, order, alignment)));
    ctx.count("memory.no_reuse_bytes", static_cast<int64_t>(sum_aligned(groups, alignment)));
    if (part_views) ctx.count("memory.part_views", part_views);
    if (pads_in_place) ctx.count("memory.pad_in_place", pads_in_place);
    if (concats_in_place) ctx.count("memory.concat_in_place", concats_in_place);
    // The report's names travel as counters too (the report has only integer counters).
    ctx.count("memory.planner." + (level == "none" ? std::string("naive") : planner_name), 1);
    ctx.count("memory.level." + level, 1);
    return !groups.empty();
  }
};

}  // namespace

GE_MEMORY_PASS(PlanMemory);

std::vector<OptionDecl> memory_options() {
  return {{"memory.planner", OptionType::String, std::string("auto"), {}, {}, {},
           "arena planner: auto, naive, greedy_by_size, greedy_by_breadth, or a plugin's (docs/manifest.md)", OptionPhase::Compile, ""},
          {"memory.level", OptionType::String, std::string("aggressive"), {}, {}, {"none", "basic", "aggressive"},
           "none: no reuse; basic: reuse and views (Reshape-like, contiguous Split/Slice parts); aggressive: also in-place outputs, Concat and Pad in place", OptionPhase::Compile, ""}};
}

}  // namespace ge::memory
