// registry/src/value_shapes.cc — GE's shape inference for ops whose output shape onnx 1.12's
// inference functions leave unknown although it follows from the input shapes or from input
// values once those are known (onnx/docs/Operators.md for each op; ONNX Runtime computes the
// same shapes in its kernels): OneHot (depth), MaxUnpool (output_shape), STFT (frame_length,
// onesided) and Einsum (the equation). Without a declared output shape, a model whose value
// inputs are known only at run time is then cut into stages at such a node (docs/plan.md).
#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "ge/sdk/error.h"
#include "infer_util.h"

namespace ge::registry::detail {
namespace {

// OneHot-9/11: indices [d0..dr-1], depth (one value, any numeric type), values [off, on]; the
// output inserts the depth at `axis` of rank r+1 and has the values' type.
void infer_onehot(InferContext& ctx) {
  require_input(ctx, 0, "indices");
  require_input(ctx, 1, "depth");
  require_input(ctx, 2, "values");
  const Shape& ind = ctx.input_shape(0);
  const Tensor& dt = ctx.require_input_data(1);
  if (dt.numel() != 1) ctx.fail("depth must hold one value, got shape " + dt.shape().str());
  const double dv = dt.to_double_vector()[0];
  if (!(dv >= 1) || dv > static_cast<double>(int64_t{1} << 40)) {
    std::ostringstream os;
    os << "depth " << dv << " is not a positive extent";
    ctx.fail(os.str());
  }
  const auto depth = static_cast<int64_t>(dv);  // ONNX Runtime truncates a float depth the same way
  if (ctx.input_shape(2).numel() != 2) ctx.fail("values must hold two values [off, on], got " + ctx.input_shape(2).str());
  const auto r = static_cast<int64_t>(ind.rank());
  const int64_t axis = axis_in(ctx, int_attr(ctx, "axis", -1), r + 1, "axis");
  std::vector<int64_t> dims = ind.dims();
  dims.insert(dims.begin() + axis, depth);
  ctx.set_output(0, ctx.input_type(2), Shape(dims));
}

// MaxUnpool-9/11: with output_shape the output has exactly those dims; else ONNX's inference
// (from kernel_shape, strides, pads).
void infer_max_unpool(InferContext& ctx) {
  if (!(ctx.num_inputs() > 2 && ctx.has_input(2))) {
    infer_with_onnx_schema(ctx);
    return;
  }
  require_input(ctx, 0, "X");
  const std::vector<int64_t> dims = const_ints(ctx, 2, "output_shape");
  const Shape& x = ctx.input_shape(0);
  if (dims.size() != x.rank())
    ctx.fail("output_shape [" + join(dims) + "] must have X's rank " + std::to_string(x.rank()));
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < 0 || (i < 2 && dims[i] != x[i]))
      ctx.fail("output_shape [" + join(dims) + "] must keep X's batch and channels " + x.str());
  ctx.set_output(0, ctx.input_type(0), Shape(dims));
}

// STFT-17: signal [batch, length, 1 or 2], frame_step (scalar), window [frame_length] (optional),
// frame_length (optional scalar); output [batch, frames, bins, 2] with
// frames = (length - frame_length) / frame_step + 1 and bins = frame_length / 2 + 1 when
// onesided (default 1) else frame_length.
void infer_stft(InferContext& ctx) {
  require_input(ctx, 0, "signal");
  require_input(ctx, 1, "frame_step");
  const Shape& sig = ctx.input_shape(0);
  if (sig.rank() != 3) ctx.fail("signal " + sig.str() + " must have rank 3 ([batch_size, signal_length, 1 or 2])");
  if (sig[2] != 1 && sig[2] != 2) ctx.fail("signal " + sig.str() + " must be [batch_size, signal_length, 1 or 2]");
  const std::vector<int64_t> step = const_ints(ctx, 1, "frame_step");
  if (step.size() != 1 || step[0] < 1) ctx.fail("frame_step must be one positive value");
  int64_t frame_length = -1;
  if (ctx.num_inputs() > 3 && ctx.has_input(3)) {
    const std::vector<int64_t> fl = const_ints(ctx, 3, "frame_length");
    if (fl.size() != 1 || fl[0] < 1) ctx.fail("frame_length must be one positive value");
    frame_length = fl[0];
  }
  if (ctx.num_inputs() > 2 && ctx.has_input(2)) {
    const Shape& w = ctx.input_shape(2);
    if (w.rank() != 1) ctx.fail("window " + w.str() + " must have rank 1");
    if (frame_length >= 0 && w[0] != frame_length)
      ctx.fail("window " + w.str() + " does not have frame_length " + std::to_string(frame_length));
    frame_length = w[0];
  }
  if (frame_length < 1) ctx.fail("needs a window or a frame_length");
  if (frame_length > sig[1])
    ctx.fail("frame_length " + std::to_string(frame_length) + " exceeds the signal length " + std::to_string(sig[1]));
  const bool onesided = int_attr(ctx, "onesided", 1) != 0;
  const int64_t frames = (sig[1] - frame_length) / step[0] + 1;
  const int64_t bins = onesided ? frame_length / 2 + 1 : frame_length;
  ctx.set_output(0, ctx.input_type(0), Shape{sig[0], frames, bins, 2});
}

// Einsum-12: "term,term,...->out" or implicit "term,term,..." (the output: the broadcast
// ellipsis dims, then the letters that occur once, in alphabetical order), as numpy.einsum.
void infer_einsum(InferContext& ctx) {
  std::string eq;
  for (char c : ctx.attr_string("equation"))
    if (!std::isspace(static_cast<unsigned char>(c))) eq += c;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',') terms.emplace_back();
    else terms.back() += c;
  }
  if (terms.size() != ctx.num_inputs())
    ctx.fail("equation '" + eq + "' has " + std::to_string(terms.size()) + " operands; the node has " +
             std::to_string(ctx.num_inputs()) + " inputs");
  std::map<char, int64_t> dim;
  std::map<char, int> count;
  std::vector<int64_t> ell;  // broadcast ellipsis dims
  bool any_ell = false;
  for (size_t k = 0; k < terms.size(); ++k) {
    require_input(ctx, k, "Inputs");
    const Shape& s = ctx.input_shape(k);
    std::string t = terms[k];
    const size_t e = t.find("...");
    const bool has_ell = e != std::string::npos;
    if (has_ell) t.erase(e, 3);
    for (char c : t)
      if (!std::isalpha(static_cast<unsigned char>(c))) ctx.fail("equation '" + eq + "': '" + std::string(1, c) + "' is not a letter");
    if (has_ell ? t.size() > s.rank() : t.size() != s.rank())
      ctx.fail("term '" + terms[k] + "' of '" + eq + "' does not fit input " + std::to_string(k) + " " + s.str());
    const size_t n_ell = s.rank() - t.size();
    const size_t at = has_ell ? e : t.size();
    std::vector<int64_t> mine(s.dims().begin() + static_cast<std::ptrdiff_t>(at),
                              s.dims().begin() + static_cast<std::ptrdiff_t>(at + n_ell));
    if (has_ell) {
      any_ell = true;
      // numpy broadcasting, aligned at the right
      if (mine.size() > ell.size()) ell.insert(ell.begin(), mine.size() - ell.size(), 1);
      for (size_t i = 0; i < mine.size(); ++i) {
        int64_t& o = ell[ell.size() - mine.size() + i];
        if (o == 1) o = mine[i];
        else if (mine[i] != 1 && mine[i] != o)
          ctx.fail("the ellipsis dims of input " + std::to_string(k) + " " + s.str() + " do not broadcast in '" + eq + "'");
      }
    }
    for (size_t i = 0; i < t.size(); ++i) {
      const int64_t d = s[i < at ? i : i + n_ell];
      auto [it, fresh] = dim.emplace(t[i], d);
      if (!fresh && it->second != d) {
        if (it->second == 1) it->second = d;
        else if (d != 1)
          ctx.fail("label '" + std::string(1, t[i]) + "' of '" + eq + "' is " + std::to_string(it->second) + " and " +
                   std::to_string(d));
      }
      ++count[t[i]];
    }
  }
  std::vector<int64_t> out;
  if (arrow == std::string::npos) {
    out = ell;
    for (auto& [c, n] : count)
      if (n == 1) out.push_back(dim[c]);
  } else {
    std::string rhs = eq.substr(arrow + 2);
    const size_t e = rhs.find("...");
    if (e != std::string::npos) rhs.replace(e, 3, "*");
    else if (any_ell && std::any_of(ell.begin(), ell.end(), [](int64_t d) { return d != 1; }))
      ctx.fail("equation '" + eq + "' drops the ellipsis dims from its output");
    for (char c : rhs) {
      if (c == '*') {
        out.insert(out.end(), ell.begin(), ell.end());
        continue;
      }
      auto it = dim.find(c);
      if (it == dim.end()) ctx.fail("output label '" + std::string(1, c) + "' of '" + eq + "' is in no input term");
      out.push_back(it->second);
    }
  }
  ctx.set_output(0, ctx.input_type(0), Shape(out));
}

}  // namespace

InferTable value_infer_fns() {
  return {{"OneHot", infer_onehot}, {"MaxUnpool", infer_max_unpool}, {"STFT", infer_stft}, {"Einsum", infer_einsum}};
}

}  // namespace ge::registry::detail
