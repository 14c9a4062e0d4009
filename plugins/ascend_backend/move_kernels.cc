// plugins/ascend_backend/move_kernels.cc — the data-movement kernels Transpose, Slice (constant
// starts / ends / axes / steps) and Gather (move_ops.h). On the AI Core (MTE2 global memory → UB,
// MTE3 UB → global memory; CANN's TransposeD, StridedSlice, GatherV2) they copy one output row per
// unit, UB tile by UB tile from the stored tiling (vector_walk.h); on the AI CPU (a blocked layout,
// or placed there by cost) the same code runs in one pass. They only copy: exact in fp16 and fp32
// (operands are read through tensor_io.h, which widens fp16 exactly and rounds back exactly).
#include <memory>

#include "ge/sdk/error.h"
#include "kernels.h"
#include "move_ops.h"
#include "tensor_io.h"
#include "vector_walk.h"

namespace ge::ascend {
namespace {

MoveGeometry geometry_of(const KernelBuildContext& ctx) {
  std::string why;
  const auto g = move_geometry(ctx.node, &why);
  if (!g) throw InvalidGraphError(ctx.node.op_type() + ": " + why + " in " + who(ctx.node));
  return *g;
}

/// Transpose and Slice: output element k of row u is input element g.affine_src(u, k).
class AffineMoveKernel : public Kernel {
 public:
  AffineMoveKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir), g_(geometry_of(ctx)) {
    require_float(ctx, 0);
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]);
    std::vector<float> y(static_cast<size_t>(io.outputs[0].shape().numel()));
    const int64_t len = g_.row;
    walk_.units(g_.units, [&](int64_t u) {
      const int64_t src0 = g_.affine_src(u, 0), step = g_.stride.empty() ? 0 : g_.stride.back();
      for (int64_t k = 0; k < len; ++k) y[static_cast<size_t>(u * len + k)] = x[static_cast<size_t>(src0 + k * step)];
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl(node_.op_type()); }

 private:
  const Node& node_;
  VectorWalk walk_;
  MoveGeometry g_;
};

class GatherKernel : public Kernel {
 public:
  GatherKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir), g_(geometry_of(ctx)) {
    require_float(ctx, 0);
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]);
    const std::vector<int64_t> ind = io.inputs[1].to_int64_vector();
    std::vector<float> y(static_cast<size_t>(io.outputs[0].shape().numel()));
    const int64_t len = g_.row, dim = g_.dim, inner = g_.inner, nidx = g_.nidx;
    walk_.units(g_.units, [&](int64_t u) {
      for (int64_t k = 0; k < len; ++k) {
        const int64_t i = u * len + k, e = i % inner, j = (i / inner) % nidx, a = i / (inner * nidx);
        const int64_t raw = ind[static_cast<size_t>(j)], row = raw < 0 ? raw + dim : raw;
        if (row < 0 || row >= dim)
          throw Error("Gather: index " + std::to_string(raw) + " out of range [" + std::to_string(-dim) + ", " + std::to_string(dim) +
                      ") in " + who(node_));
        y[static_cast<size_t>(i)] = x[static_cast<size_t>((a * dim + row) * inner + e)];
      }
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl("Gather"); }

 private:
  const Node& node_;
  VectorWalk walk_;
  MoveGeometry g_;
};

template <class K>
KernelFactory factory(const std::string& dir) {
  return [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<K>(c, dir); };
}

}  // namespace

void register_move_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  r.add_kernel({"ascend", "", "Transpose", factory<AffineMoveKernel>(dir), ""});
  r.add_kernel({"ascend", "", "Slice", factory<AffineMoveKernel>(dir), ""});
  r.add_kernel({"ascend", "", "Gather", factory<GatherKernel>(dir), ""});
}

}  // namespace ge::ascend
