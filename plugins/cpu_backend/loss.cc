// plugins/cpu_backend/loss.cc — ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
// (opsets 12, 13), float32 input, int32/int64 target: every reduction, ignore_index, weights.
//
// onnx/docs/Operators.md#NegativeLogLikelihoodLoss: input [N, C, d...], target [N, d...];
// loss[n, d] = -input[n, target[n, d], d] * w[target[n, d]] (w = 1 without weights), and 0 with
// weight 0 where target == ignore_index. reduction "none" keeps [N, d...]; "sum" adds; "mean"
// divides the sum by the sum of the weights used (the count of non-ignored elements without
// weights) — 0/0 gives NaN, as the spec's numpy reference.
// SoftmaxCrossEntropyLoss: log_prob = LogSoftmax(scores, axis = 1) (optional second output),
// then the NLL above on log_prob.
#include <cmath>
#include <limits>
#include <string>

#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

class LossKernel : public CpuKernel {
 public:
  LossKernel(const KernelBuildContext& ctx, bool softmax) : CpuKernel(ctx), softmax_(softmax) {
    const std::string op = ctx.node.op_type(), where = " in " + who(ctx);
    auto bad = [&](const std::string& m) { throw InvalidGraphError(op + ": " + m + where); };
    if (ctx.input_type(0) != DataType::Float32 || (ctx.has_input(2) && ctx.input_type(2) != DataType::Float32) ||
        ctx.output_type(0) != DataType::Float32)
      throw UnsupportedError(op + ": dtype " + std::string(dtype_name(ctx.input_type(0))) + " not supported (float32 only)" + where);
    tdt_ = ctx.input_type(1);
    if (tdt_ != DataType::Int64 && tdt_ != DataType::Int32)
      throw UnsupportedError(op + ": target dtype " + std::string(dtype_name(tdt_)) + " (int32/int64 only)" + where);
    const Shape& xs = ctx.input_shape(0);
    const Shape& ts = ctx.input_shape(1);
    if (xs.rank() < 2) bad("input rank < 2");
    N_ = xs[0];
    C_ = xs[1];
    D_ = N_ > 0 && C_ > 0 ? xs.numel() / (N_ * C_) : 0;
    Shape want{N_};
    for (size_t i = 2; i < xs.rank(); ++i) want.dims().push_back(xs[i]);
    if (ts != want) bad("target shape " + ts.str() + " is not " + want.str());
    if (ctx.has_input(2) && ctx.input_shape(2) != Shape{C_}) bad("weight shape " + ctx.input_shape(2).str());
    const std::string red = ctx.node.attrs.get_string("reduction", "mean");
    if (red == "none") reduction_ = 0;
    else if (red == "sum") reduction_ = 1;
    else if (red == "mean") reduction_ = 2;
    else bad("reduction '" + red + "' is not none, sum or mean");
    has_ignore_ = ctx.node.attrs.has("ignore_index");
    ignore_ = ctx.node.attrs.get_int("ignore_index", 0);
    if ((reduction_ == 0 ? want : Shape{}) != ctx.output_shape(0)) bad("output shape " + ctx.output_shape(0).str());
    if (softmax_ && ctx.node.num_outputs() > 1 && ctx.node.output(1) && ctx.output_shape(1) != xs)
      bad("log_prob shape " + ctx.output_shape(1).str());
  }

  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* x = io.inputs[0].data_as<float>();
    const float* w = io.inputs.size() > 2 && present(io.inputs[2]) ? io.inputs[2].data_as<float>() : nullptr;
    float* y = io.outputs[0].data_as<float>();
    const int64_t N = N_, C = C_, D = D_;
    std::vector<float> scratch;
    const float* lp = x;  // log-probabilities [N, C, D]
    if (softmax_) {
      float* out = io.outputs.size() > 1 && io.outputs[1].data() ? io.outputs[1].data_as<float>() : nullptr;
      if (!out) {
        scratch.resize(N * C * D);
        out = scratch.data();
      }
      parallel_for(N * D, [&](int64_t nd) {
        const int64_t n = nd / D, d = nd % D;
        const float* xp = x + n * C * D + d;
        float* op = out + n * C * D + d;
        float m = -std::numeric_limits<float>::infinity();
        for (int64_t c = 0; c < C; ++c) m = std::max(m, xp[c * D]);
        double s = 0;
        for (int64_t c = 0; c < C; ++c) s += std::exp(static_cast<double>(xp[c * D] - m));
        const float lse = m + static_cast<float>(std::log(s));
        for (int64_t c = 0; c < C; ++c) op[c * D] = xp[c * D] - lse;
      });
      lp = out;
    }
    auto target = [&](int64_t i) -> int64_t {
      return tdt_ == DataType::Int64 ? io.inputs[1].data_as<int64_t>()[i] : io.inputs[1].data_as<int32_t>()[i];
    };
    double sum = 0, wsum = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t d = 0; d < D; ++d) {
        const int64_t t = target(n * D + d);
        float l = 0.f, wt = 0.f;
        if (!(has_ignore_ && t == ignore_)) {
          if (t < 0 || t >= C)
            throw Error(std::string(softmax_ ? "SoftmaxCrossEntropyLoss" : "NegativeLogLikelihoodLoss") + ": target " +
                        std::to_string(t) + " outside [0, " + std::to_string(C) + ")");
          wt = w ? w[t] : 1.f;
          l = -lp[(n * C + t) * D + d] * wt;
        }
        if (reduction_ == 0) y[n * D + d] = l;
        sum += l;
        wsum += wt;
      }
    if (reduction_ == 1) y[0] = static_cast<float>(sum);
    else if (reduction_ == 2) y[0] = static_cast<float>(sum / wsum);
  }
  std::string impl_name() const override { return softmax_ ? "cpu:softmax_cross_entropy" : "cpu:nll_loss"; }

 private:
  bool softmax_, has_ignore_ = false;
  DataType tdt_ = DataType::Int64;
  int reduction_ = 2;
  int64_t ignore_ = 0, N_ = 0, C_ = 0, D_ = 0;
};

}  // namespace

void register_loss_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "NegativeLogLikelihoodLoss",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<LossKernel>(ctx, false);
                         },
                         ""});
  r.add_kernel(KernelDef{"cpu", "", "SoftmaxCrossEntropyLoss",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> {
                           return std::make_unique<LossKernel>(ctx, true);
                         },
                         ""});
}

}  // namespace ge::cpu
