// plugins/ascend_backend/tiling_pass.cc — `ascend_tiling`: for a graph compiled for backend
// "ascend", per node (after the layout pass, so TransData nodes and formats are final) the engine
// chosen by cost and the tiling of AI Core nodes (placement_cost.h, tiling_choose.h), stored as
// the node attributes of tiling.h:
//   ascend_engine "cube" | "vector" | "aicpu", ascend_block_dim, ascend_tiling (AI Core only),
//   ascend_reason, and ascend_soc_version (the platform the tiling was checked against; the
//   kernels re-check it at load).
// Report counters: ascend.placement.final.{aicore.cube,aicore.vector,aicpu,view} (after layout;
// view: task.h is_view_node, stored as engine aicpu — the copy kernel if not aliased) and
// one ascend.placement.node.<node>:<engine> per node (value: the chosen engine's estimated time
// in ns, launch included; AI CPU-only ops: the launch alone); the reason itself is the node's
// ascend_reason attribute.
#include "tiling_pass.h"

#include <cmath>

#include "ge/sdk/error.h"
#include "placement_cost.h"
#include "platform.h"
#include "task.h"
#include "tiling.h"

namespace ge::ascend {
namespace {

class TilingPass : public Pass {
 public:
  explicit TilingPass(std::string dir) : dir_(std::move(dir)) {}
  PassInfo info() const override {
    PassInfo i;
    i.name = "ascend_tiling";
    i.stage = Stage::Layout;
    i.min_level = OptLevel::O0;
    i.numerics = NumericsEffect::Exact;  // the engine choice changes only the accumulation order of AI CPU vs Cube; see docs
    i.summary = "ascend: placement by cost (AI Core Cube/Vector or AI CPU) and the tiling of every AI Core task";
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    if (ctx.backend() != "ascend") return false;
    const std::string soc = ctx.string_option("ascend", "soc_version", "Ascend910A");
    const Platform p = load_platform(dir_, soc);
    const int64_t global = p.get_int("memory.global_bytes");
    for (Node* n : g.nodes()) {
      // A tensor the device's global memory cannot hold has no task (and the cost model's
      // per-tile walk over it would not end in reasonable time).
      for (const std::vector<Value*>* vs : {&n->inputs(), &n->outputs()})
        for (const Value* v : *vs)
          if (v && v->nbytes() > static_cast<size_t>(global))
            throw UnsupportedError(n->describe() + ": value '" + v->name() + "' " + v->shape.str() + " has " +
                                   std::to_string(v->nbytes()) + " bytes, more than " + soc + "'s global memory of " +
                                   std::to_string(global) + " bytes");
      const PlacementChoice c = place(*n, p);
      std::string engine = "aicpu";
      int64_t block_dim = 1;
      n->attrs.erase(kAttrTiling);
      if (c.cube) {
        engine = "cube", block_dim = c.cube->block_dim;
        n->attrs.set(kAttrTiling, encode(*c.cube));
      } else if (c.vector) {
        engine = "vector", block_dim = c.vector->block_dim;
        n->attrs.set(kAttrTiling, encode(*c.vector));
      }
      n->attrs.set(kAttrEngine, engine);
      n->attrs.set(kAttrBlockDim, block_dim);
      n->attrs.set(kAttrReason, c.reason);
      n->attrs.set(kAttrSoc, soc);
      const bool view = is_view_node(*n);  // no task once the memory plan aliases it (task.h)
      if (view) n->attrs.set(kAttrReason, "aicpu: a view, no task (its output is its input's bytes); an AI CPU copy if the memory plan does not alias it");
      ctx.count(view ? "ascend.placement.final.view"
                : engine == "cube" ? "ascend.placement.final.aicore.cube"
                : engine == "vector" ? "ascend.placement.final.aicore.vector"
                                     : "ascend.placement.final.aicpu");
      const double us = engine == "aicpu" ? c.aicpu_us : c.aicore_us;
      ctx.count("ascend.placement.node." + n->name() + ":" + engine, us > 0 ? static_cast<int64_t>(std::llround(us * 1e3)) : 0);
    }
    return true;
  }

 private:
  std::string dir_;
};

}  // namespace

std::shared_ptr<Pass> make_tiling_pass(std::string platform_dir) { return std::make_shared<TilingPass>(std::move(platform_dir)); }

}  // namespace ge::ascend
