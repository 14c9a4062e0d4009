// plugins/cpu_backend/broadcast.h — strided loop plans shared by the elementwise and
// data-movement kernels of the CPU backend.
//
// A LoopPlan walks an output in row-major order together with up to two inputs, each seen
// through its own element strides (0 on a broadcast axis, negative for a reversed Slice,
// permuted for Transpose). Plans are built once at kernel build time; size-1 axes are dropped
// and adjacent axes that are contiguous for every operand are merged, so equal shapes become
// one flat row and per-channel broadcasting ([N,C,H,W] + [C,1,1]) becomes rows of H*W with a
// scalar second operand. run() then only calls for_each_row, whose callback sees one
// contiguous output row at a time (no per-element index division).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ge/sdk/error.h"
#include "ge/sdk/types.h"

namespace ge::cpu::loops {

/// Below this many elements a loop runs on the calling thread: forking an OpenMP team costs
/// a few microseconds, more than a memory-bound pass over 64K elements.
inline constexpr int64_t kParallelMin = 64 * 1024;

/// Most operands of a plan: the output and up to three inputs (Where's condition, X, Y).
inline constexpr int kMaxPlanOperands = 4;

/// Operand 0 is the output; operands 1.. are inputs.
struct LoopPlan {
  std::vector<int64_t> dims;                       ///< collapsed extents, outer to inner
  std::array<std::vector<int64_t>, kMaxPlanOperands> strides;  ///< per operand, in elements, per dim
  std::array<int64_t, kMaxPlanOperands> base{};    ///< starting element offset per operand
  int nops = 1;
  int64_t numel = 0;
  /// Stride of operand `op` along the innermost (row) axis.
  int64_t inner_stride(int op) const { return strides[op].back(); }
  int64_t row_len() const { return dims.back(); }
};

/// Drops size-1 axes and merges axis i into i+1 when every operand has
/// stride[i] == stride[i+1] * dims[i+1] (the pair is one contiguous run for all of them).
inline void collapse(LoopPlan& p) {
  LoopPlan q;
  q.nops = p.nops;
  q.base = p.base;
  q.numel = 1;
  for (int64_t d : p.dims) q.numel *= d;
  for (size_t i = 0; i < p.dims.size(); ++i) {
    if (p.dims[i] == 1) continue;
    bool merge = !q.dims.empty();
    for (int op = 0; op < p.nops && merge; ++op) {
      merge = q.strides[op].back() == p.strides[op][i] * p.dims[i];
    }
    if (merge) {
      q.dims.back() *= p.dims[i];
      for (int op = 0; op < p.nops; ++op) q.strides[op].back() = p.strides[op][i];
    } else {
      q.dims.push_back(p.dims[i]);
      for (int op = 0; op < p.nops; ++op) q.strides[op].push_back(p.strides[op][i]);
    }
  }
  if (q.dims.empty()) {  // scalar or all-ones shape: one row of one element
    q.dims.push_back(1);
    for (int op = 0; op < p.nops; ++op) q.strides[op].push_back(0);
  }
  p = std::move(q);
}

/// Plan for out = f(in...) with numpy multidirectional broadcasting (ONNX
/// docs/Broadcasting.md): inputs are right-aligned against `out`; an input axis of extent 1
/// (or a missing leading axis) gets stride 0. Throws InvalidGraphError on a mismatch.
inline LoopPlan broadcast_plan(const Shape& out, const std::vector<Shape>& inputs, const std::string& what) {
  LoopPlan p;
  p.nops = 1 + static_cast<int>(inputs.size());
  if (p.nops > kMaxPlanOperands) throw Error(what + ": broadcast plan takes at most three inputs");
  const size_t r = out.rank();
  p.dims = out.dims();
  p.strides[0] = contiguous_strides(out);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Shape& s = inputs[k];
    if (s.rank() > r) throw InvalidGraphError(what + ": input shape " + s.str() + " does not broadcast to " + out.str());
    std::vector<int64_t> st(r, 0);
    const std::vector<int64_t> cs = contiguous_strides(s);
    const size_t off = r - s.rank();
    for (size_t i = 0; i < s.rank(); ++i) {
      if (s[i] == out[off + i]) {
        st[off + i] = cs[i];
      } else if (s[i] != 1) {
        throw InvalidGraphError(what + ": input shape " + s.str() + " does not broadcast to " + out.str());
      }
    }
    p.strides[k + 1] = std::move(st);
  }
  if (r == 0) {
    p.dims = {1};
    for (int op = 0; op < p.nops; ++op) p.strides[op] = {0};
  }
  collapse(p);
  return p;
}

/// Calls f(b, e) over [0, n) split into contiguous chunks, in parallel when the work
/// (n items of `grain` elements each) is large.
template <class F>
void parallel_chunks(int64_t n, int threads, F&& f, int64_t grain = 1) {
  if (n <= 0) return;
  const int64_t work = n * std::max<int64_t>(grain, 1);
  if (threads <= 1 || work < kParallelMin || n == 1) {
    f(int64_t{0}, n);
    return;
  }
  const int64_t chunks = std::min<int64_t>({int64_t{threads}, n, work / (kParallelMin / 4)});
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) f(n * c / chunks, n * (c + 1) / chunks);
}

/// memcpy split among threads for large buffers (one core rarely saturates memory bandwidth).
inline void parallel_memcpy(void* dst, const void* src, size_t bytes, int threads) {
  if (threads <= 1 || bytes < static_cast<size_t>(kParallelMin) * 4) {
    if (bytes) std::memcpy(dst, src, bytes);
    return;
  }
  // Chunk bounds are rounded to cache lines so no two threads write one line.
  auto bound = [&](int c) { return c == threads ? bytes : (bytes * c / threads) & ~size_t{63}; };
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int c = 0; c < threads; ++c) {
    const size_t lo = bound(c), hi = bound(c + 1);
    if (hi > lo) std::memcpy(static_cast<char*>(dst) + lo, static_cast<const char*>(src) + lo, hi - lo);
  }
}

/// Calls f(off, len) once per output row: off[op] is the element offset of the row's first
/// element in operand op, len the number of elements; the row continues with
/// p.inner_stride(op). Rows are split among threads when the plan is large.
template <class F>
void for_each_row(const LoopPlan& p, int threads, F&& f) {
  if (p.numel == 0) return;
  const int nd = static_cast<int>(p.dims.size());
  const int64_t inner = p.dims[nd - 1];
  const int64_t rows = p.numel / inner;
  const bool parallel = threads > 1 && p.numel >= kParallelMin;
  if (rows == 1 || (parallel && rows < threads)) {
    // Few long rows: split inside the rows so all threads get work.
    const int64_t per = std::max<int64_t>(1, parallel ? (inner + threads - 1) / threads : inner);
    const int64_t pieces = (inner + per - 1) / per;
    auto piece = [&](int64_t row, int64_t k) {
      int64_t off[kMaxPlanOperands];
      int64_t r = row;
      for (int op = 0; op < p.nops; ++op) off[op] = p.base[op];
      for (int d = nd - 2; d >= 0; --d) {
        const int64_t i = r % p.dims[d];
        r /= p.dims[d];
        for (int op = 0; op < p.nops; ++op) off[op] += i * p.strides[op][d];
      }
      const int64_t b = k * per, len = std::min(per, inner - b);
      for (int op = 0; op < p.nops; ++op) off[op] += b * p.strides[op][nd - 1];
      f(static_cast<const int64_t*>(off), len);
    };
    if (!parallel) {
      for (int64_t row = 0; row < rows; ++row) piece(row, 0);
      return;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t t = 0; t < rows * pieces; ++t) piece(t / pieces, t % pieces);
    return;
  }
  auto run_rows = [&](int64_t r0, int64_t r1) {
    if (r0 >= r1) return;
    std::vector<int64_t> idx(nd > 1 ? nd - 1 : 1, 0);
    int64_t off[kMaxPlanOperands];
    for (int op = 0; op < p.nops; ++op) off[op] = p.base[op];
    int64_t r = r0;
    for (int d = nd - 2; d >= 0; --d) {
      idx[d] = r % p.dims[d];
      r /= p.dims[d];
      for (int op = 0; op < p.nops; ++op) off[op] += idx[d] * p.strides[op][d];
    }
    for (int64_t row = r0; row < r1; ++row) {
      f(static_cast<const int64_t*>(off), inner);
      // Odometer increment over the outer axes.
      for (int d = nd - 2; d >= 0; --d) {
        for (int op = 0; op < p.nops; ++op) off[op] += p.strides[op][d];
        if (++idx[d] < p.dims[d]) break;
        for (int op = 0; op < p.nops; ++op) off[op] -= p.strides[op][d] * p.dims[d];
        idx[d] = 0;
      }
    }
  };
  if (!parallel) {
    run_rows(0, rows);
    return;
  }
  const int64_t chunks = std::min<int64_t>(rows, int64_t{threads} * 4);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) run_rows(rows * c / chunks, rows * (c + 1) / chunks);
}

/// Unsigned integer type of an element size (data movement copies bits, not values).
template <size_t N> struct BitsOf;
template <> struct BitsOf<1> { using type = uint8_t; };
template <> struct BitsOf<2> { using type = uint16_t; };
template <> struct BitsOf<4> { using type = uint32_t; };
template <> struct BitsOf<8> { using type = uint64_t; };

/// Calls f(std::type_identity<U>{}) with U the unsigned type of the dtype's element size;
/// String (and Undefined) has no fixed size and is refused naming `op`.
template <class F>
void dispatch_bits(DataType t, const std::string& op, F&& f) {
  switch (dtype_size(t)) {
    case 1: return f(std::type_identity<uint8_t>{});
    case 2: return f(std::type_identity<uint16_t>{});
    case 4: return f(std::type_identity<uint32_t>{});
    case 8: return f(std::type_identity<uint64_t>{});
    default:
      throw UnsupportedError(op + ": dtype " + std::string(dtype_name(t)) + " not supported");
  }
}

/// Copies rows of a two-operand plan (out, in): memcpy when the input row is contiguous, a
/// strided loop otherwise (Transpose's last axis, Slice with steps).
template <class U>
void copy_rows(const LoopPlan& p, const U* in, U* out, int threads) {
  const int64_t si = p.inner_stride(1);
  for_each_row(p, threads, [&](const int64_t* off, int64_t n) {
    U* o = out + off[0];
    const U* s = in + off[1];
    if (si == 1) {
      // A row the memory plan placed in place (a view) is not copied. Short rows (YOLO's head
      // slices 2 of 85 channels per row) are copied by a loop: a memmove call per row of two
      // elements cost more than the copy.
      if (s == o) return;
      if (n <= 8) {
        for (int64_t j = 0; j < n; ++j) o[j] = s[j];
      } else {
        std::copy(s, s + n, o);
      }
    } else {
      for (int64_t j = 0; j < n; ++j) o[j] = s[j * si];
    }
  });
}

/// out = op(a, b) over a three-operand plan (out, a, b). Broadcast plans only have inner
/// strides 0 or 1, so each row is one of four contiguous loops that vectorize; `out` may
/// alias `a` element for element (Sum accumulates in place).
template <class TA, class TB, class TO, class Op>
void binary_rows(const LoopPlan& p, const TA* a, const TB* b, TO* out, int threads, Op op) {
  const int64_t sa = p.inner_stride(1), sb = p.inner_stride(2);
  for_each_row(p, threads, [&](const int64_t* off, int64_t n) {
    TO* y = out + off[0];
    const TA* x0 = a + off[1];
    const TB* x1 = b + off[2];
    if (sa == 1 && sb == 1) {
      for (int64_t j = 0; j < n; ++j) y[j] = op(x0[j], x1[j]);
    } else if (sa == 1) {
      const TB s = x1[0];
      for (int64_t j = 0; j < n; ++j) y[j] = op(x0[j], s);
    } else if (sb == 1) {
      const TA s = x0[0];
      for (int64_t j = 0; j < n; ++j) y[j] = op(s, x1[j]);
    } else {
      const TO v = op(x0[0], x1[0]);
      for (int64_t j = 0; j < n; ++j) y[j] = v;
    }
  });
}

}  // namespace ge::cpu::loops
