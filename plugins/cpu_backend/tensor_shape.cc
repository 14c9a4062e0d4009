// plugins/cpu_backend/tensor_shape.cc — ops that keep the elements and change only the shape:
// Reshape, Flatten, Squeeze, Unsqueeze, Identity, and Dropout in inference mode.
//
// Shapes are static, so the output buffer already has its final shape; the kernel copies the
// bytes. (A later memory planner will alias input and output instead of copying.) When the
// shape operand is constant, the build step re-derives the output shape per the ONNX spec
// and rejects a graph whose static output shape disagrees.
#include <cstring>
#include <vector>

#include "dynamic_shape.h"
#include "elementwise_common.h"
#include "kernels.h"
#include "tensor_common.h"

namespace ge::cpu {
namespace {

/// memcpy of input 0 into output 0, split among threads for large tensors; optionally fills
/// output 1 (Dropout's mask) with ones.
class CopyKernel final : public Kernel {
 public:
  CopyKernel(int threads, std::string name, bool check_training = false)
      : threads_(threads), name_(std::move(name)), check_training_(check_training) {}

  void run(KernelIO& io) override {
    if (check_training_ && has_io_input(io, 2)) {
      const std::vector<int64_t> v = io.inputs[2].to_int64_vector();
      if (!v.empty() && v[0] != 0) throw UnsupportedError("Dropout: training_mode=true not supported");
    }
    const Tensor& in = io.inputs[0];
    Tensor& out = io.outputs[0];
    if (in.nbytes() != out.nbytes()) {
      throw Error(name_ + ": input has " + std::to_string(in.nbytes()) + " bytes, output " +
                  std::to_string(out.nbytes()));
    }
    const auto* src = static_cast<const char*>(in.data());
    auto* dst = static_cast<char*>(out.data());
    if (src != dst) loops::parallel_memcpy(dst, src, out.nbytes(), threads_);
    if (io.outputs.size() > 1 && io.outputs[1].data() != nullptr) fill_ones(io.outputs[1]);
  }
  std::string impl_name() const override { return "cpu:" + name_ + ":copy"; }

 private:
  /// Dropout's mask in inference is all ones: bool (opset >= 10) or T (opset 7-9).
  static void fill_ones(Tensor& t) {
    if (t.dtype() == DataType::Bool) {
      std::memset(t.data(), 1, t.nbytes());
      return;
    }
    if (!visit_type(NumericTypes{}, t.dtype(), [&](auto tag) {
          using T = typename decltype(tag)::type;
          std::fill_n(t.data_as<T>(), t.numel(), T(1));
        })) {
      unsupported_dtype("Dropout", t.dtype(), "mask");
    }
  }
  int threads_;
  std::string name_;
  bool check_training_;
};

/// Checks dtype and element count shared by all copy ops.
void check_copy(const KernelBuildContext& ctx, const std::string& op) {
  const DataType t = ctx.input_type(0);
  if (dtype_size(t) == 0) unsupported_dtype(ctx.node.describe(), t);
  if (ctx.output_type(0) != t) {
    throw InvalidGraphError(ctx.node.describe() + ": output dtype " + std::string(dtype_name(ctx.output_type(0))) +
                            " differs from input dtype " + std::string(dtype_name(t)));
  }
  if (ctx.input_shape(0).numel() != ctx.output_shape(0).numel()) {
    throw InvalidGraphError(ctx.node.describe() + ": cannot reshape " + ctx.input_shape(0).str() + " to " +
                            ctx.output_shape(0).str());
  }
}

/// Reshape-14: a 0 copies the input dim (unless allowzero=1, then it is a real 0), one -1 is
/// inferred from the remaining elements.
Shape reshape_target(const Shape& in, const std::vector<int64_t>& spec, bool allowzero, const std::string& who) {
  std::vector<int64_t> d(spec.size());
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i] == -1) {
      if (infer >= 0) throw InvalidGraphError(who + ": more than one -1 in the Reshape shape");
      infer = static_cast<int64_t>(i);
      continue;
    }
    if (spec[i] < -1) throw InvalidGraphError(who + ": invalid Reshape dim " + std::to_string(spec[i]));
    if (spec[i] == 0 && !allowzero) {
      if (i >= in.rank()) throw InvalidGraphError(who + ": Reshape dim 0 copies a missing input axis");
      d[i] = in[i];
    } else {
      d[i] = spec[i];
    }
    known *= d[i];
  }
  if (infer >= 0) {
    if (known == 0 || in.numel() % known != 0) {
      throw InvalidGraphError(who + ": cannot infer the -1 of the Reshape shape for input " + in.str());
    }
    d[static_cast<size_t>(infer)] = in.numel() / known;
  }
  return Shape(std::move(d));
}

std::unique_ptr<Kernel> make_reshape(const KernelBuildContext& ctx) {
  check_copy(ctx, "Reshape");
  if (const Tensor* s = ctx.input_data(1)) {
    const bool allowzero = ctx.opset >= 14 && ctx.node.attrs.get_int("allowzero", 0) != 0;
    const Shape want = reshape_target(ctx.input_shape(0), s->to_int64_vector(), allowzero, ctx.node.describe());
    if (want != ctx.output_shape(0)) {
      throw InvalidGraphError(ctx.node.describe() + ": Reshape gives " + want.str() + " but the output is " +
                              ctx.output_shape(0).str());
    }
  }
  return std::make_unique<CopyKernel>(ctx.threads, "Reshape");
}

/// Flatten-13: [d0..d(axis-1)] x [d(axis)..] into 2-D; axis in [-r, r].
std::unique_ptr<Kernel> make_flatten(const KernelBuildContext& ctx) {
  check_copy(ctx, "Flatten");
  const Shape& in = ctx.input_shape(0);
  const int64_t r = static_cast<int64_t>(in.rank());
  int64_t axis = ctx.node.attrs.get_int("axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) throw InvalidGraphError(ctx.node.describe() + ": Flatten axis out of range");
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= in[static_cast<size_t>(i)];
  const Shape want{outer, outer == 0 ? 0 : in.numel() / outer};
  if (outer != 0 && want != ctx.output_shape(0)) {
    throw InvalidGraphError(ctx.node.describe() + ": Flatten gives " + want.str() + " but the output is " +
                            ctx.output_shape(0).str());
  }
  return std::make_unique<CopyKernel>(ctx.threads, "Flatten");
}

/// Squeeze/Unsqueeze: axes from the attribute (opset < 13) or input 1 (opset >= 13). The
/// element order never changes, so only the static output shape matters; a Squeeze axis that
/// is not 1 is an error per the spec.
template <bool kSqueeze>
std::unique_ptr<Kernel> make_squeeze(const KernelBuildContext& ctx) {
  const std::string op = kSqueeze ? "Squeeze" : "Unsqueeze";
  check_copy(ctx, op);
  if constexpr (kSqueeze) {
    std::vector<int64_t> axes;
    bool known = true;
    if (ctx.opset < 13) {
      axes = ctx.node.attrs.get_ints("axes");
    } else if (ctx.has_input(1)) {
      const Tensor* a = ctx.input_data(1);
      known = a != nullptr;
      if (a) axes = a->to_int64_vector();
    }
    const Shape& in = ctx.input_shape(0);
    for (int64_t a : axes) {
      const int64_t ax = normalize_axis(a, static_cast<int64_t>(in.rank()), ctx.node.describe() + " axes");
      if (known && in[static_cast<size_t>(ax)] != 1) {
        throw InvalidGraphError(ctx.node.describe() + ": cannot squeeze axis " + std::to_string(a) + " of extent " +
                                std::to_string(in[static_cast<size_t>(ax)]));
      }
    }
  }
  return std::make_unique<CopyKernel>(ctx.threads, op);
}

std::unique_ptr<Kernel> make_identity(const KernelBuildContext& ctx) {
  check_copy(ctx, "Identity");
  return std::make_unique<CopyKernel>(ctx.threads, "Identity");
}

/// Dropout in inference: y = x, mask = ones (ONNX Dropout-12/13: "If training_mode is false,
/// the output is the input" ; ratio is ignored). Opsets 1-11 have no training input; their
/// is_test (opset < 7) is ignored since GE only runs inference.
std::unique_ptr<Kernel> make_dropout(const KernelBuildContext& ctx) {
  check_copy(ctx, "Dropout");
  bool check_at_run = false;
  if (ctx.opset >= 12 && ctx.has_input(2)) {
    if (const Tensor* tm = ctx.input_data(2)) {
      const std::vector<int64_t> v = tm->to_int64_vector();
      if (!v.empty() && v[0] != 0) throw UnsupportedError("Dropout: training_mode=true not supported");
    } else {
      check_at_run = true;  // not constant: refuse at run time if it turns out true
    }
  }
  return std::make_unique<CopyKernel>(ctx.threads, "Dropout", check_at_run);
}

}  // namespace

void register_shape_kernels(Registrar& r) {
  add_cpu_kernel(r, "Reshape", make_reshape);
  add_cpu_kernel(r, "Flatten", make_flatten);
  add_cpu_kernel(r, "Squeeze", make_squeeze<true>);
  add_cpu_kernel(r, "Unsqueeze", make_squeeze<false>);
  add_cpu_kernel(r, "Identity", make_identity);
  add_cpu_kernel(r, "Dropout", make_dropout);
}

void register_tensor_kernels(Registrar& r) {
  register_shape_kernels(r);
  register_transpose_kernels(r);
  register_concat_slice_kernels(r);
  register_gather_kernels(r);
  register_misc_tensor_kernels(r);
  register_creation_kernels(r);
  register_pad_kernels(r);
  register_index_kernels(r);
  register_scatter_kernels(r);
  register_reorder_kernels(r);
  register_ordering_kernels(r);
  register_einsum_kernels(r);
  register_select_kernels(r);
  register_nms_kernels(r);
  register_tfidf_kernels(r);
}

}  // namespace ge::cpu
