// plugins/ascend_backend/data_kernels.cc — data movement on the AI Core: ge.TransData (format
// conversion, ge::convert_format), ge.Cast (fp32 <-> fp16, round to nearest even, overflow
// refused) and Concat (any axis, any formats: operands unpacked, result packed).
#include <algorithm>
#include <cstring>
#include <memory>

#include "ge/sdk/error.h"
#include "ge/sdk/layout.h"
#include "kernels.h"
#include "tensor_io.h"
#include "vector_walk.h"

namespace ge::ascend {
namespace {

class TransDataKernel : public Kernel {
 public:
  TransDataKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir) {
    const Value* x = ctx.node.input(0);
    const Value* y = ctx.node.output(0);
    if (!can_convert_format(x->format, y->format, x->shape.rank()))
      throw UnsupportedError("TransData: no conversion " + std::string(format_name(x->format)) + " -> " +
                             std::string(format_name(y->format)) + " in " + who(node_));
  }
  // A pure data move: the stored tiling is verified at build, the conversion is done whole (every
  // element lands at a position independent of the tile that moves it).
  void run(KernelIO& io) override { convert_format_into(io.inputs[0], io.outputs[0]); }
  std::string impl_name() const override { return walk_.impl("TransData"); }

 private:
  const Node& node_;
  VectorWalk walk_;
};

class CastKernel : public Kernel {
 public:
  CastKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir) {
    require_float(ctx, 0);
    const DataType t = ctx.output_type(0);
    if (t != DataType::Float16 && t != DataType::Float32)
      throw UnsupportedError("Cast: to " + std::string(dtype_name(t)) + " not supported (float16, float32) in " + who(node_));
    // A Cast the precision pass inserted (domain ge) cannot be named in ascend.keep_dtype: an fp16
    // overflow here is the fp32 value its consumers were to read, so those are what to keep.
    if (t == DataType::Float16 && node_.domain() == "ge" && node_.output(0)) {
      std::string names;
      for (const auto& u : node_.output(0)->uses())
        if (u.node) names += std::string(names.empty() ? "" : ", ") + "\"" + u.node->name() + "\"";
      const Node* from = node_.input(0) ? node_.input(0)->producer() : nullptr;
      hint_ = " — a Cast the precision mode inserted to give its consumers fp16 input" +
              (from ? " from the output of " + who(*from) : std::string()) + ": keep " +
              (names.empty() ? std::string("its consumers") : "them in fp32 with ascend.keep_dtype = [" + names + "]") +
              ", or set ascend.overflow_check = \"keep\" (every overflowing node kept in fp32 at compile time)";
    }
  }
  void run(KernelIO& io) override {
    const std::vector<float> x = read_plain(io.inputs[0]);
    std::vector<float> y(x.size());
    walk_.elements([&](int64_t i) { y[i] = x[i]; });  // rounded to the output dtype at write-out
    try {
      write_plain(io.outputs[0], y, who(node_));
    } catch (const Error& e) {
      if (hint_.empty()) throw;
      std::string m = e.what();  // the generic advice ("keep the node in fp32") cannot apply to this node
      if (const size_t k = m.find(" (keep the node in fp32"); k != std::string::npos) m.resize(k);
      throw Error(m + hint_);
    }
  }
  std::string impl_name() const override { return walk_.impl("Cast"); }

 private:
  const Node& node_;
  VectorWalk walk_;
  std::string hint_;  // added to an fp16 overflow's message (see the constructor)
};

class ConcatKernel : public Kernel {
 public:
  ConcatKernel(const KernelBuildContext& ctx, const std::string& dir) : node_(ctx.node), walk_(ctx, dir) {
    for (size_t i = 0; i < ctx.node.num_inputs(); ++i) require_float(ctx, i);
    const Shape& y = ctx.output_shape(0);
    int64_t axis = ctx.node.attrs.get_int("axis", 1);
    if (axis < 0) axis += static_cast<int64_t>(y.rank());
    if (axis < 0 || axis >= static_cast<int64_t>(y.rank())) throw InvalidGraphError("Concat: axis out of range in " + who(node_));
    int64_t along = 0;
    for (size_t i = 0; i < ctx.node.num_inputs(); ++i) {
      const Shape& x = ctx.input_shape(i);
      bool ok = ctx.has_input(i) && x.rank() == y.rank();
      for (size_t d = 0; ok && d < x.rank(); ++d) ok = static_cast<int64_t>(d) == axis || x[d] == y[d];
      if (!ok)
        throw InvalidGraphError("Concat: input " + std::to_string(i) + " " + x.str() + " does not fit output " + y.str() +
                                " along axis " + std::to_string(axis) + " in " + who(node_));
      along += x[static_cast<size_t>(axis)];
    }
    if (along != y[static_cast<size_t>(axis)])
      throw InvalidGraphError("Concat: inputs do not add up to output " + y.str() + " in " + who(node_));
    outer_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= y[d];
    inner_ = 1;
    for (size_t d = static_cast<size_t>(axis) + 1; d < y.rank(); ++d) inner_ *= y[d];
    axis_ = axis;
  }
  void run(KernelIO& io) override {
    const Shape& ys = io.outputs[0].shape();
    std::vector<float> y(static_cast<size_t>(ys.numel()));
    const int64_t ytotal = ys[axis_] * inner_;
    std::vector<std::vector<float>> xs;
    std::vector<int64_t> offs, chunks;
    int64_t off = 0;
    for (const Tensor& t : io.inputs) {
      xs.push_back(read_plain(t));
      chunks.push_back(t.shape()[axis_] * inner_);
      offs.push_back(off);
      off += chunks.back();
    }
    walk_.elements([&](int64_t i) {
      const int64_t o = i / ytotal, r = i % ytotal;
      const size_t j = static_cast<size_t>(std::upper_bound(offs.begin(), offs.end(), r) - offs.begin()) - 1;
      y[i] = xs[j][o * chunks[j] + r - offs[j]];
    });
    write_plain(io.outputs[0], y, who(node_));
  }
  std::string impl_name() const override { return walk_.impl("Concat"); }

 private:
  const Node& node_;
  VectorWalk walk_;
  int64_t outer_ = 1, inner_ = 1, axis_ = 1;
};

}  // namespace

void register_data_kernels(Registrar& r) {
  const std::string dir = platform_dir_of(r.plugin_dir());
  r.add_kernel({"ascend", "ge", "TransData",
                [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<TransDataKernel>(c, dir); }, ""});
  r.add_kernel({"ascend", "ge", "Cast",
                [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<CastKernel>(c, dir); }, ""});
  r.add_kernel({"ascend", "", "Concat",
                [dir](const KernelBuildContext& c) -> std::unique_ptr<Kernel> { return std::make_unique<ConcatKernel>(c, dir); }, ""});
}

}  // namespace ge::ascend
