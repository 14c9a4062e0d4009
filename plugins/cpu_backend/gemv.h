// plugins/cpu_backend/gemv.h — y = alpha · a · B' + c for one row a (a classifier's Gemm at
// batch 1), split over the output columns between the kernel's threads.
//
// Why not oneDNN: its matmul runs an M = 1 product on one thread (resnet50's 2048 → 1000 fc:
// 237 µs at 1 thread, 222 at 2, `gec profile`), so a 2-thread run reads the 8 MB of weights at one
// core's bandwidth. The product is memory-bound (2 FLOPs per weight read), so each thread
// streams its share of B's rows (transB) or column block.
#pragma once
#include <cstdint>

namespace ge::cpu {

/// True when this CPU runs gemv_f32's AVX-512 code (else the caller keeps oneDNN).
bool gemv_available();

/// y[n] = alpha · Σ_k a[k] · B'(k, n) + (c ? c[c_cols == 1 ? 0 : n] : 0), n in [0, N).
/// B' = B[k, n] (B row-major [K, N]) or, with trans_b, B[n, k] (B row-major [N, K]). c is beta · C
/// already (one row of C: c_cols is 1 or N). Uses the calling thread's OpenMP thread count.
void gemv_f32(const float* a, const float* b, bool trans_b, int64_t K, int64_t N, float alpha, const float* c,
              int64_t c_cols, float* y);

}  // namespace ge::cpu
