// plugins/ascend_backend/tensor_io.h — how the emulator's kernels see memory: every operand is
// read as float32 values in its logical row-major order (unpacking NC1HWC0 / FRACTAL_Z, widening
// fp16 exactly), and every result is written back rounded to the output's dtype (fp16: round to
// nearest even, ge::float_to_half) and packed into the output's format with zero padding.
//
// Why this is exact: fp16 -> fp32 is exact, and for +, -, *, / of fp16 operands computing in
// fp32 and rounding once to fp16 gives the correctly rounded fp16 result (fp32 has 24 >= 2*11+2
// significand bits, so double rounding is innocuous). What a Vector instruction computes on fp16
// is therefore reproduced bit for bit for those ops.
#pragma once
#include <string>
#include <vector>

#include "ge/sdk/kernel.h"
#include "ge/sdk/tensor.h"

namespace ge::ascend {

/// The logical elements of t as float32 (fp16, fp32 only; blocked formats are unpacked).
std::vector<float> read_plain(const Tensor& t);

/// Writes logical values v into out: rounded to out's dtype (fp16 or fp32) and packed into its
/// format. A finite value that overflows fp16 (|v| > 65504 after rounding) throws ge::Error
/// naming `who` and the value: fp16 results never turn into inf silently.
void write_plain(Tensor& out, const std::vector<float>& v, const std::string& who);

/// Rounds a float32 to the nearest fp16 value (as a float32).
float round_fp16(float x);

/// "node 'conv1' (Conv)" for messages.
std::string who(const Node& n);

/// Throws UnsupportedError unless the dtype is float16 or float32.
void require_float(const KernelBuildContext& ctx, size_t input);

}  // namespace ge::ascend
