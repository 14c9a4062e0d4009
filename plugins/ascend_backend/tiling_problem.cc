// plugins/ascend_backend/tiling_problem.cc — a node's Cube or Vector problem from its shapes,
// formats and dtypes (tiling_choose.h). The tiling pass and the kernels' load-time check share it.
#include <algorithm>

#include "cube.h"
#include "cube_conv_transpose.h"
#include "ge/sdk/error.h"
#include "ge/sdk/layout.h"
#include "move_ops.h"
#include "ops_info.h"
#include "tiling_choose.h"
#include "util.h"

namespace ge::ascend {
std::optional<CubeTiling> cube_problem(const Node& n, std::string* why) {
  if (n.num_inputs() < 2 || !n.input(0) || !n.input(1) || !n.output(0)) return no(why, "missing operands");
  const Shape& a = n.input(0)->shape;
  const Shape& b = n.input(1)->shape;
  const Shape& y = n.output(0)->shape;
  CubeTiling t;
  const OpInfo* info = find_op_info(n);
  const Problem form = info && info->cube ? info->problem : Problem::Elementwise;
  if (form == Problem::Conv) {
    const bool one_d = a.rank() == 3 && b.rank() == 3 && y.rank() == 3;  // as 2-D with H = Kh = 1
    if (!one_d && (a.rank() != 4 || b.rank() != 4 || y.rank() != 4)) return no(why, "not a 1-D or 2-D convolution");
    const int64_t group = n.attrs.get_int("group", 1);
    if (group <= 0 || a[1] % group || b[0] % group || b[1] * group != a[1]) return no(why, "channels do not match group");
    const int64_t cg = a[1] / group;
    t.batch = group;
    t.M = one_d ? y[0] * y[2] : y[0] * y[2] * y[3];
    t.N = b[0] / group;
    t.K = one_d ? ConvKOrder(cg, group, 1, b[2]).K : ConvKOrder(cg, group, b[2], b[3]).K;  // FRACTAL_Z's (c1, kh, kw, c0) or FRACTAL_Z_C04's (kh, kw, c0) padded
  } else if (form == Problem::ConvTranspose) {  // GEMM + col2im (conv_transpose_kernel.cc)
    ConvGeometry g{};
    try {
      g = conv_transpose_geometry(n);
    } catch (const Error& e) {
      return no(why, e.what());
    }
    t.batch = g.group;
    t.M = g.N * g.H * g.W;
    t.K = g.C / g.group;
    t.N = g.O / g.group * g.Kh * g.Kw;
  } else if (form == Problem::FusedMatMul) {  // A [.., M, K] with its batch dims folded into M; B [K, N] or (transB) [N, K]
    if (a.rank() < 2 || b.rank() != 2) return no(why, "FusedMatMul needs A of rank >= 2 and a 2-D B");
    const bool tb = n.attrs.get_int("transB", 0) != 0;
    t.K = a[a.rank() - 1], t.N = tb ? b[0] : b[1];
    if ((tb ? b[1] : b[0]) != t.K) return no(why, "FusedMatMul inner dims differ");
    t.M = t.K ? a.numel() / t.K : 0;
  } else if (form == Problem::Gemm) {
    if (a.rank() != 2 || b.rank() != 2) return no(why, "Gemm operands are not 2-D");
    const bool ta = n.attrs.get_int("transA", 0) != 0, tb = n.attrs.get_int("transB", 0) != 0;
    t.M = ta ? a[1] : a[0], t.K = ta ? a[0] : a[1], t.N = tb ? b[0] : b[1];
  } else if (form == Problem::MatMul) {
    if (a.rank() < 2 || b.rank() < 2) return no(why, "MatMul operand of rank < 2");
    t.K = a[a.rank() - 1], t.N = b[b.rank() - 1];
    if (b.rank() == 2) {
      t.M = t.K ? a.numel() / t.K : 0;  // leading dims of A flattened into M
    } else if (a.rank() == b.rank()) {
      t.M = a[a.rank() - 2];
      t.batch = (t.M > 0 && t.K > 0) ? a.numel() / (t.M * t.K) : 0;
      // The Cube's batches pair A's batch i with B's batch i: equal batch dims only (a broadcast
      // batch runs on the AI CPU, whose kernel broadcasts).
      if (!std::equal(a.dims().begin(), a.dims().end() - 2, b.dims().begin()))
        return no(why, "MatMul broadcast batch dims");
    } else {
      return no(why, "MatMul B of rank > 2 with another rank than A");
    }
  } else {
    return no(why, n.op_type() + " is not a Cube op");
  }
  if (t.batch <= 0 || t.M <= 0 || t.N <= 0 || t.K <= 0) return no(why, "empty matrix product");
  return t;
}

std::optional<VectorTiling> vector_problem(const Node& n, int64_t ub_align, std::string* why) {
  const OpInfo* info = find_op_info(n);
  if (!info || info->cube) return no(why, n.op_type() + " has no Vector kernel");
  if (info->problem == Problem::Move) return move_problem(n, ub_align, why);
  if (info->problem == Problem::Rows) {
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      const Value* v = n.input(i);
      const bool index = std::find(info->index_inputs.begin(), info->index_inputs.end(), static_cast<int>(i)) != info->index_inputs.end();
      if (v && !dtype_is_float(v->dtype) && !index) return no(why, "non-float input " + v->name());
    }
    return row_vector_problem(n, ub_align, why);
  }
  const std::string op = n.op_type();
  const bool pool = info->problem == Problem::Pool || info->problem == Problem::GlobalPool;
  if (op == "BatchNormalization") {  // inference only, one parameter per channel (vector_kernels.cc)
    for (size_t k = 1; k < n.num_outputs(); ++k)
      if (n.output(k)) return no(why, "BatchNormalization training-mode outputs");
    if (n.num_inputs() < 5 || !n.input(0) || n.input(0)->shape.rank() < 2) return no(why, "BatchNormalization operands");
    for (size_t i = 1; i < 5; ++i)
      if (!n.input(i) || n.input(i)->shape.numel() != n.input(0)->shape[1]) return no(why, "BatchNormalization parameters are not per channel");
  }
  const Value* y = n.output(0);
  if (!y || !n.input(0)) return no(why, "missing operands");
  for (const Value* v : n.inputs())
    if (v && !dtype_is_float(v->dtype)) return no(why, "non-float input " + v->name());
  const int64_t out_size = static_cast<int64_t>(dtype_size(y->dtype));
  const int64_t in_size = static_cast<int64_t>(dtype_size(n.input(0)->dtype));
  VectorTiling t;
  if (pool) {
    const Shape& x = n.input(0)->shape;
    if (x.rank() != 4 || y->shape.rank() != 4) return no(why, "not a 2-D pool");
    const bool blocked = n.input(0)->format == Format::NC1HWC0;
    const int64_t c0 = blocked ? 16 : 1, c1 = ceil_div(x[1], c0);
    const int64_t oh = y->shape[2], ow = y->shape[3];
    int64_t rows = x[2];
    if (info->problem == Problem::Pool) {
      const auto k = n.attrs.get_ints("kernel_shape");
      const auto d = n.attrs.get_ints("dilations", {1, 1});
      if (k.size() != 2 || d.size() != 2) return no(why, "kernel_shape/dilations need 2 values");
      rows = std::min(x[2], (k[0] - 1) * d[0] + 1);
    }
    t.units = x[0] * c1 * oh;
    t.unit_elements = ow * c0;
    t.ub_bytes_per_unit = round_up(rows * x[3] * c0 * in_size, ub_align) + round_up(ow * c0 * out_size, ub_align) +
                          round_up(ow * c0 * 4, ub_align);  // input window rows, output row, fp32 accumulator
  } else {
    const int64_t numel = format_storage_numel(y->shape.dims(), y->format);
    // Inputs resident per unit (ops_info.toml streamed_inputs): binary ops hold both operands;
    // Concat, Cast, TransData and unary ops stream one.
    const int64_t streamed = std::min<int64_t>(info->streamed_inputs, std::max<int64_t>(1, static_cast<int64_t>(n.num_inputs())));
    t.units = ceil_div(numel, 16);
    t.unit_elements = 16;
    t.ub_bytes_per_unit = streamed * round_up(16 * in_size, ub_align) + round_up(16 * out_size, ub_align);
  }
  if (t.units <= 0) return no(why, "empty output");
  return t;
}

}  // namespace ge::ascend
