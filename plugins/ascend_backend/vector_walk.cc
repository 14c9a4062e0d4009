// plugins/ascend_backend/vector_walk.cc — VectorWalk's construction and NC1HWC0 index mapping
// (vector_walk.h).
#include "vector_walk.h"

#include "ge/sdk/error.h"
#include "ge/sdk/layout.h"
#include "tensor_io.h"

namespace ge::ascend {

VectorWalk::VectorWalk(const KernelBuildContext& ctx, const std::string& platform_dir) {
  const StoredTask task = load_task(ctx.node, platform_dir);
  if (task.engine == Engine::Cube) throw Error("ascend: " + who(ctx.node) + ": corrupted tiling: engine cube for a Vector op");
  tiling_ = task.vector;
  const Value* y = ctx.node.output(0);
  numel_ = y->shape.numel();
  storage_numel_ = format_storage_numel(y->shape.dims(), y->format);
  nc1hwc0_ = y->format == Format::NC1HWC0;
  if (nc1hwc0_) {
    if (y->shape.rank() != 4) throw UnsupportedError("ascend: NC1HWC0 output of rank " + std::to_string(y->shape.rank()) + " in " + who(ctx.node));
    n_ = y->shape[0], c_ = y->shape[1], h_ = y->shape[2], w_ = y->shape[3];
  }
}

int64_t VectorWalk::logical_of(int64_t s) const {
  if (!nc1hwc0_) return s < numel_ ? s : -1;
  // storage [N, C1, H, W, C0]
  const int64_t c0 = s % 16;
  int64_t r = s / 16;
  const int64_t w = r % w_;
  r /= w_;
  const int64_t h = r % h_;
  r /= h_;
  const int64_t c1s = (c_ + 15) / 16;
  const int64_t c1 = r % c1s, n = r / c1s;
  const int64_t c = c1 * 16 + c0;
  if (c >= c_ || n >= n_) return -1;
  return ((n * c_ + c) * h_ + h) * w_ + w;
}

}  // namespace ge::ascend
