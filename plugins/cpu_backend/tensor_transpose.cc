// plugins/cpu_backend/tensor_transpose.cc — Transpose-13 for any rank and any fixed-size
// dtype (elements are moved as 1/2/4/8-byte words).
//
// The output is walked in row-major order and the input through permuted strides. Axes that
// stay adjacent and in order under the permutation are merged first (broadcast.h collapse),
// so a channel shuffle [N,g,C/g,H,W] perm [0,2,1,3,4] becomes [N,C/g,g,H*W] whose rows are
// contiguous H*W runs copied with memcpy-like loops; only a permutation that moves the
// innermost axis reads with a stride.
#include <algorithm>
#include <vector>

#include "elementwise_common.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {

/// Side of the square tiles of a 2-D transpose: a tile's kTile input rows of kTile elements are
/// read whole cache lines at a time, and its output rows are written the same way.
constexpr int64_t kTile = 16;
/// How many tiles ahead along the contiguous input axis the tiled walk prefetches.
constexpr int64_t kPrefetchTiles = 4;

/// The output axis that reads the input contiguously (input stride 1) when the innermost output
/// axis does not, so the copy is a batch of 2-D transposes; -1 otherwise.
int tile_axis(const loops::LoopPlan& p) {
  const int nd = static_cast<int>(p.dims.size());
  if (nd < 2 || p.inner_stride(1) == 1) return -1;
  for (int d = 0; d < nd - 1; ++d)
    if (p.strides[1][d] == 1) return d;
  return -1;
}

template <class U>
class TransposeKernel final : public Kernel {
 public:
  TransposeKernel(loops::LoopPlan plan, int threads) : plan_(std::move(plan)), threads_(threads), tile_(tile_axis(plan_)) {
    if (tile_ >= 0) {
      // A tile touches kTile lines of the strided side at once. Lines a power-of-two multiple of
      // 4 KiB apart fall in one L1 set (a 32 KiB 8-way L1 has 64 sets of 64-byte lines), so 16 of
      // them evict each other before the tile is done: walk the tile along the side whose
      // kTile lines spread over more sets (YOLO's head reads input rows 4 KiB apart).
      const int64_t is_b = plan_.strides[1].back() * static_cast<int64_t>(sizeof(U));
      const int64_t os_a = plan_.strides[0][static_cast<size_t>(tile_)] * static_cast<int64_t>(sizeof(U));
      read_rows_ = l1_sets(is_b) < l1_sets(os_a);
    }
  }
  void run(KernelIO& io) override {
    const U* in = io.inputs[0].data_as<U>();
    U* out = io.outputs[0].data_as<U>();
    if (tile_ >= 0) return run_tiled(in, out);
    loops::copy_rows(plan_, in, out, threads_);
  }
  std::string impl_name() const override {
    return tile_ >= 0 ? "cpu:Transpose:tiled" : plan_.inner_stride(1) == 1 ? "cpu:Transpose:rows" : "cpu:Transpose:strided";
  }

 private:
  /// Output axis a = tile_ (input stride 1) and the innermost axis b (output stride 1): for each
  /// index of the other axes, out[i*os_a + j] = in[i + j*is_b] in kTile x kTile tiles, instead of
  /// rows that read every element from another cache line (YOLO's head, [1,3,85,32,32] perm
  /// [0,1,3,4,2], read 85 lines 4 KiB apart per output row).
  void run_tiled(const U* in, U* out) const {
    const loops::LoopPlan& p = plan_;
    if (p.numel == 0) return;  // an empty output (a zero dim) has no tiles
    const int nd = static_cast<int>(p.dims.size()), a = tile_, b = nd - 1;
    const int64_t na = p.dims[a], nb = p.dims[b], os_a = p.strides[0][a], is_b = p.strides[1][b];
    const int64_t ta = (na + kTile - 1) / kTile, tb = (nb + kTile - 1) / kTile;
    const int64_t outer = p.numel / (na * nb);
    auto item = [&](int64_t t) {
      int64_t r = t / (ta * tb), oo = p.base[0], io = p.base[1];
      for (int d = nd - 1; d >= 0; --d) {
        if (d == a || d == b) continue;
        const int64_t i = r % p.dims[d];
        r /= p.dims[d];
        oo += i * p.strides[0][d];
        io += i * p.strides[1][d];
      }
      const int64_t i0 = (t / tb % ta) * kTile, j0 = (t % tb) * kTile;
      const int64_t i1 = std::min(na, i0 + kTile), j1 = std::min(nb, j0 + kTile);
      // The strided side is kTile lines, each its own stream; more tiles along a than a core's
      // prefetchers track (YOLO's head at batch 8: 85 rows 4 KiB apart, 8 MB), so each row's
      // line kPrefetchTiles tiles ahead along a is prefetched by hand.
      const bool ahead = i0 + kPrefetchTiles * kTile < na;
      if constexpr (sizeof(U) == 4) {
        // 4-byte words: the tile transposed in AVX-512 registers, 64-byte rows read and written.
        if (ahead)
          for (int64_t j = j0; j < j1; ++j) __builtin_prefetch(in + io + i0 + kPrefetchTiles * kTile + j * is_b);
        if (vec::transpose32(reinterpret_cast<const uint32_t*>(in + io + i0 + j0 * is_b), is_b,
                             reinterpret_cast<uint32_t*>(out + oo + i0 * os_a + j0), os_a, static_cast<int>(i1 - i0),
                             static_cast<int>(j1 - j0)))
          return;
      }
      if (read_rows_) {
        for (int64_t j = j0; j < j1; ++j) {
          const U* s = in + io + j * is_b;
          if (ahead) __builtin_prefetch(s + i0 + kPrefetchTiles * kTile);
          U* o = out + oo + j;
          for (int64_t i = i0; i < i1; ++i) o[i * os_a] = s[i];
        }
      } else {
        if (ahead)
          for (int64_t j = j0; j < j1; ++j) __builtin_prefetch(in + io + i0 + kPrefetchTiles * kTile + j * is_b);
        for (int64_t i = i0; i < i1; ++i) {
          U* o = out + oo + i * os_a;
          const U* s = in + io + i;
          for (int64_t j = j0; j < j1; ++j) o[j] = s[j * is_b];
        }
      }
    };
    const int64_t items = outer * ta * tb;
    loops::parallel_chunks(items, threads_, [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t) item(t);
    }, kTile * kTile);
  }

  /// Distinct L1 sets (64 sets of 64-byte lines) that kTile lines `stride` bytes apart map to.
  static int l1_sets(int64_t stride) {
    bool used[64] = {};
    int n = 0;
    for (int64_t k = 0; k < kTile; ++k) {
      const int64_t set = (k * stride / 64) % 64;
      if (!used[set]) used[set] = true, ++n;
    }
    return n;
  }

  loops::LoopPlan plan_;
  int threads_;
  int tile_;
  /// Walk each tile along the input's contiguous rows (writes strided) instead of along the
  /// output's (reads strided).
  bool read_rows_ = false;
};

std::unique_ptr<Kernel> make_transpose(const KernelBuildContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const size_t r = in.rank();
  std::vector<int64_t> perm = ctx.node.attrs.get_ints("perm");
  if (perm.empty()) {  // default: reverse the axes
    for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  }
  if (perm.size() != r) {
    throw InvalidGraphError(ctx.node.describe() + ": perm has " + std::to_string(perm.size()) +
                            " entries for a rank-" + std::to_string(r) + " input");
  }
  std::vector<bool> seen(r, false);
  for (int64_t& p : perm) {
    p = normalize_axis(p, static_cast<int64_t>(r), ctx.node.describe() + " perm");
    if (seen[static_cast<size_t>(p)]) throw InvalidGraphError(ctx.node.describe() + ": perm repeats an axis");
    seen[static_cast<size_t>(p)] = true;
  }
  loops::LoopPlan plan;
  plan.nops = 2;
  const std::vector<int64_t> in_strides = contiguous_strides(in);
  std::vector<int64_t> out_dims(r);
  for (size_t k = 0; k < r; ++k) {
    out_dims[k] = in[static_cast<size_t>(perm[k])];
    plan.strides[1].push_back(in_strides[static_cast<size_t>(perm[k])]);
  }
  if (Shape(out_dims) != ctx.output_shape(0)) {
    throw InvalidGraphError(ctx.node.describe() + ": Transpose gives " + Shape(out_dims).str() +
                            " but the output is " + ctx.output_shape(0).str());
  }
  plan.dims = out_dims;
  plan.strides[0] = contiguous_strides(Shape(out_dims));
  loops::collapse(plan);
  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(ctx.input_type(0), ctx.node.describe(), [&](auto tag) {
    k = std::make_unique<TransposeKernel<typename decltype(tag)::type>>(std::move(plan), ctx.threads);
  });
  return k;
}

}  // namespace

void register_transpose_kernels(Registrar& r) { add_cpu_kernel(r, "Transpose", make_transpose); }

}  // namespace ge::cpu
