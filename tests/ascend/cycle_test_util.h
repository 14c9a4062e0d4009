// tests/ascend/cycle_test_util.h — what the cycle-model and tiling-depth tests share: the
// Ascend910A platform file and the TaskWork of a plain fp16 MatMul for a hand-built tiling.
#pragma once
#include "cycle_model.h"
#include "platform.h"
#include "tiling.h"

namespace ge::ascend::test {

inline Platform p910() { return load_platform(GE_ASCEND_PLATFORM_DIR, "Ascend910A"); }

/// A MatMul of fp16 operands with tiling `t`: A batch·M·K, B batch·K·N, output batch·M·N (2 B
/// each), no epilogue operand.
inline TaskWork matmul_work(const CubeTiling& t) {
  TaskWork w;
  w.op_type = "MatMul";
  w.engine = "cube";
  w.tiling = encode(t);
  w.block_dim = t.block_dim;
  w.input0_bytes = 2.0 * t.batch * t.M * t.K;
  w.input_bytes = w.input0_bytes + 2.0 * t.batch * t.K * t.N;
  w.output_bytes = 2.0 * t.batch * t.M * t.N;
  w.who = "test MatMul";
  return w;
}

}  // namespace ge::ascend::test
