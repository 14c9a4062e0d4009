// plugins/cpu_backend/tensor_concat_slice.cc — Concat and Slice for any fixed-size dtype.
#include <algorithm>
#include <cstring>
#include <vector>

#include "elementwise_common.h"

namespace ge::cpu {
namespace {

// ---------------------------------------------------------------- Concat

/// Concat-13: the output seen as [outer, sum_i(a_i) * inner] with outer = prod(dims before
/// axis); input i fills columns [off_i, off_i + a_i*inner) of every outer row, so the copy is
/// one memcpy per (outer row, input).
class ConcatKernel final : public Kernel {
 public:
  ConcatKernel(int64_t outer, int64_t out_row, std::vector<int64_t> blocks, std::vector<int64_t> offsets,
               size_t esize, int threads)
      : outer_(outer), out_row_(out_row), blocks_(std::move(blocks)), offsets_(std::move(offsets)),
        esize_(esize), threads_(threads) {}

  void run(KernelIO& io) override {
    auto* out = static_cast<char*>(io.outputs[0].data());
    const size_t n = blocks_.size();
    std::vector<const char*> src(n);
    for (size_t i = 0; i < n; ++i) src[i] = static_cast<const char*>(io.inputs[i].data());
    loops::parallel_chunks(
        outer_, threads_,
        [&](int64_t b, int64_t e) {
          for (int64_t o = b; o < e; ++o) {
            for (size_t i = 0; i < n; ++i) {
              char* dst = out + (o * out_row_ + offsets_[i]) * esize_;
              const char* from = src[i] + o * blocks_[i] * esize_;
              // An input the memory plan wrote straight into its slice is already in place.
              if (blocks_[i] == 0 || from == dst) continue;
              std::memcpy(dst, from, static_cast<size_t>(blocks_[i]) * esize_);
            }
          }
        },
        out_row_);
  }
  std::string impl_name() const override { return "cpu:Concat"; }

 private:
  int64_t outer_, out_row_;
  std::vector<int64_t> blocks_, offsets_;  // per input, in elements
  size_t esize_;
  int threads_;
};

std::unique_ptr<Kernel> make_concat(const KernelBuildContext& ctx) {
  const DataType t = ctx.input_type(0);
  if (dtype_size(t) == 0) unsupported_dtype(ctx.node.describe(), t);
  const Shape& out = ctx.output_shape(0);
  const int64_t r = static_cast<int64_t>(out.rank());
  // Operators.md Concat: inputs of rank >= 1 (normalize_axis takes axis 0 of a scalar).
  if (r == 0) throw InvalidGraphError(ctx.node.describe() + ": Concat of scalars (its output " + out.str() + " has rank 0)");
  const size_t axis = static_cast<size_t>(normalize_axis(ctx.node.attrs.get_int("axis", 0), r, ctx.node.describe() + " axis"));
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= out[i];
  for (size_t i = axis + 1; i < out.rank(); ++i) inner *= out[i];
  std::vector<int64_t> blocks, offsets;
  int64_t off = 0;
  for (size_t i = 0; i < ctx.node.num_inputs(); ++i) {
    const Shape& s = ctx.input_shape(i);
    bool ok = ctx.has_input(i) && ctx.input_type(i) == t && s.rank() == out.rank();
    for (size_t d = 0; ok && d < s.rank(); ++d) ok = d == axis || s[d] == out[d];
    if (!ok) {
      throw InvalidGraphError(ctx.node.describe() + ": input " + std::to_string(i) + " " + s.str() +
                              " does not fit output " + out.str() + " along axis " + std::to_string(axis));
    }
    blocks.push_back(s[axis] * inner);
    offsets.push_back(off);
    off += s[axis] * inner;
  }
  if (off != out[axis] * inner) {
    throw InvalidGraphError(ctx.node.describe() + ": inputs do not add up to output " + out.str());
  }
  return std::make_unique<ConcatKernel>(outer, off, std::move(blocks), std::move(offsets), dtype_size(t), ctx.threads);
}

// ---------------------------------------------------------------- Slice

struct SliceParams {
  std::vector<int64_t> starts, ends, axes, steps;
};

/// Slice-13 semantics per axis: negative start/end add the extent, then clamp — start to
/// [0, dim] for step > 0 and [0, dim-1] for step < 0; end to [0, dim] resp. [-1, dim-1];
/// count = max(0, ceil((end - start) / step)). Returns a plan (out, in) whose input base is the
/// first selected element and whose strides are step * input stride.
loops::LoopPlan slice_plan(const Shape& in, const Shape& out, const SliceParams& p, const std::string& who) {
  const size_t r = in.rank();
  if (p.starts.size() != p.ends.size() || (!p.axes.empty() && p.axes.size() != p.starts.size()) ||
      (!p.steps.empty() && p.steps.size() != p.starts.size())) {
    throw InvalidGraphError(who + ": starts, ends, axes and steps differ in length");
  }
  std::vector<int64_t> start(r, 0), step(r, 1), count(in.dims());
  std::vector<bool> seen(r, false);
  for (size_t i = 0; i < p.starts.size(); ++i) {
    const int64_t a = p.axes.empty() ? static_cast<int64_t>(i) : p.axes[i];
    const size_t ax = static_cast<size_t>(normalize_axis(a, static_cast<int64_t>(r), who + " axes"));
    if (seen[ax]) throw InvalidGraphError(who + ": axis " + std::to_string(a) + " repeats");
    seen[ax] = true;
    const int64_t dim = in[ax];
    const int64_t st = p.steps.empty() ? 1 : p.steps[i];
    if (st == 0) throw InvalidGraphError(who + ": step 0");
    int64_t s = p.starts[i], e = p.ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count[ax] = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, std::max<int64_t>(dim - 1, 0));
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count[ax] = s > e ? (s - e + (-st) - 1) / (-st) : 0;
    }
    if (dim == 0) count[ax] = 0;
    start[ax] = s;
    step[ax] = st;
  }
  if (Shape(count) != out) {
    throw InvalidGraphError(who + ": Slice gives " + Shape(count).str() + " but the output is " + out.str());
  }
  loops::LoopPlan plan;
  plan.nops = 2;
  plan.dims = count;
  plan.strides[0] = contiguous_strides(out);
  const std::vector<int64_t> is = contiguous_strides(in);
  for (size_t d = 0; d < r; ++d) {
    plan.strides[1].push_back(step[d] * is[d]);
    plan.base[1] += start[d] * is[d];
  }
  loops::collapse(plan);
  return plan;
}

template <class U>
class SliceKernel final : public Kernel {
 public:
  /// `plan` is valid when every parameter was constant; otherwise the parameters are read from
  /// inputs 1..4 at run time.
  SliceKernel(bool constant, loops::LoopPlan plan, Shape in, Shape out, std::string who, int threads)
      : constant_(constant), plan_(std::move(plan)), in_(std::move(in)), out_(std::move(out)),
        who_(std::move(who)), threads_(threads) {}

  void run(KernelIO& io) override {
    if (constant_) {
      loops::copy_rows(plan_, io.inputs[0].data_as<U>(), io.outputs[0].data_as<U>(), threads_);
      return;
    }
    SliceParams p;
    p.starts = io.inputs[1].to_int64_vector();
    p.ends = io.inputs[2].to_int64_vector();
    if (has_io_input(io, 3)) p.axes = io.inputs[3].to_int64_vector();
    if (has_io_input(io, 4)) p.steps = io.inputs[4].to_int64_vector();
    const loops::LoopPlan plan = slice_plan(in_, out_, p, who_);
    loops::copy_rows(plan, io.inputs[0].data_as<U>(), io.outputs[0].data_as<U>(), threads_);
  }
  std::string impl_name() const override { return "cpu:Slice"; }

 private:
  bool constant_;
  loops::LoopPlan plan_;
  Shape in_, out_;
  std::string who_;
  int threads_;
};

std::unique_ptr<Kernel> make_slice(const KernelBuildContext& ctx) {
  const std::string who = ctx.node.describe();
  SliceParams p;
  bool constant = true;
  if (ctx.opset < 10) {  // Slice-1: starts, ends, axes are attributes; no steps
    p.starts = ctx.node.attrs.get_ints("starts");
    p.ends = ctx.node.attrs.get_ints("ends");
    p.axes = ctx.node.attrs.get_ints("axes");
  } else {
    for (size_t i = 1; i <= 4; ++i) {
      if (!ctx.has_input(i)) {
        if (i <= 2) throw InvalidGraphError(who + ": starts and ends are required");
        continue;
      }
      const Tensor* d = ctx.input_data(i);
      if (!d) {
        constant = false;
        break;
      }
      std::vector<int64_t> v = d->to_int64_vector();
      (i == 1 ? p.starts : i == 2 ? p.ends : i == 3 ? p.axes : p.steps) = std::move(v);
    }
  }
  loops::LoopPlan plan;
  if (constant) plan = slice_plan(ctx.input_shape(0), ctx.output_shape(0), p, who);
  std::unique_ptr<Kernel> k;
  loops::dispatch_bits(ctx.input_type(0), ctx.node.describe(), [&](auto tag) {
    k = std::make_unique<SliceKernel<typename decltype(tag)::type>>(constant, std::move(plan), ctx.input_shape(0),
                                                                    ctx.output_shape(0), who, ctx.threads);
  });
  return k;
}

}  // namespace

void register_concat_slice_kernels(Registrar& r) {
  add_cpu_kernel(r, "Concat", make_concat);
  add_cpu_kernel(r, "Slice", make_slice);
}

}  // namespace ge::cpu
