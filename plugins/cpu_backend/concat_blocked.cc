// plugins/cpu_backend/concat_blocked.cc — channel Concat on NC1HWC0 operands.
//
// When every input's channel count is a multiple of C0, the output's channel blocks are the
// inputs' blocks one after another: per image n, input i contributes C1_i·H·W·C0 contiguous
// elements. Other channel counts would split a block between inputs; such Concats stay NCHW
// (concat_supports_blocked).
#include <cstring>
#include <string>

#include "blocked.h"
#include "cpu_backend.h"

namespace ge::cpu {
namespace {

class BlockedConcatKernel : public CpuKernel {
 public:
  explicit BlockedConcatKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const Shape& ys = ctx.output_shape(0);
    N_ = ys[0];
    for (size_t i = 0; i < ctx.node.num_inputs(); ++i) {
      const Shape& s = ctx.input_shape(i);
      chunk_.push_back(s[1] / kFormatC0 * s[2] * s[3] * kFormatC0 * static_cast<int64_t>(sizeof(float)));
    }
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    auto* y = static_cast<unsigned char*>(io.outputs[0].data());
    int64_t per_image = 0;
    for (int64_t c : chunk_) per_image += c;
    parallel_for(N_ * static_cast<int64_t>(chunk_.size()), [&](int64_t job) {
      const int64_t n = job / static_cast<int64_t>(chunk_.size());
      const size_t i = static_cast<size_t>(job % static_cast<int64_t>(chunk_.size()));
      int64_t off = n * per_image;
      for (size_t j = 0; j < i; ++j) off += chunk_[j];
      const unsigned char* from = static_cast<const unsigned char*>(io.inputs[i].data()) + n * chunk_[i];
      // An input the memory plan wrote straight into its slice (N = 1) is already in place.
      if (from != y + off) std::memcpy(y + off, from, chunk_[i]);
    });
  }
  std::string impl_name() const override { return "cpu:concat:nc1hwc0"; }

 private:
  int64_t N_ = 0;
  std::vector<int64_t> chunk_;  ///< bytes per image of each input
};

}  // namespace

bool concat_supports_blocked(const Node& n) {
  const Value* y = n.output(0);
  if (n.op_type() != "Concat" || !n.domain().empty() || !y || y->shape.rank() != 4 || y->dtype != DataType::Float32)
    return false;
  int64_t axis = n.attrs.get_int("axis", 0);
  if (axis < 0) axis += 4;
  if (axis != 1 || n.num_inputs() == 0) return false;
  for (const Value* v : n.inputs())
    if (!v || v->shape.rank() != 4 || v->shape[1] % kFormatC0 != 0 || v->dtype != DataType::Float32) return false;
  return true;
}

std::unique_ptr<Kernel> make_blocked_concat(const KernelBuildContext& ctx) {
  if (!concat_supports_blocked(ctx.node))
    throw UnsupportedError("Concat: NC1HWC0 needs a channel concat of float32 rank-4 inputs with channels a multiple of " +
                           std::to_string(kFormatC0) + " in " + who(ctx));
  for (const Value* v : ctx.node.inputs())
    if (v->format != Format::NC1HWC0 || ctx.node.output(0)->format != Format::NC1HWC0)
      throw UnsupportedError("Concat: inputs and output must all be NC1HWC0 or all plain in " + who(ctx));
  return std::make_unique<BlockedConcatKernel>(ctx);
}

}  // namespace ge::cpu
