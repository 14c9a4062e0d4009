// plugins/cpu_backend/det.cc — ONNX Det (opsets 11+), float32/float64: the determinant of each
// trailing [M, M] matrix of X [*, M, M], by LU decomposition with partial pivoting in double
// (det = sign of the row permutation × product of U's diagonal; Golub & Van Loan, Matrix
// Computations, 3.4). A singular matrix gives 0.
#include <cmath>
#include <string>
#include <utility>

#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

class DetKernel : public CpuKernel {
 public:
  explicit DetKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    const std::string where = " in " + who(ctx);
    dt_ = ctx.input_type(0);
    if ((dt_ != DataType::Float32 && dt_ != DataType::Float64) || ctx.output_type(0) != dt_)
      throw UnsupportedError("Det: dtype " + std::string(dtype_name(dt_)) + " not supported (float32, float64 only)" + where);
    const Shape& xs = ctx.input_shape(0);
    if (xs.rank() < 2 || xs[xs.rank() - 1] != xs[xs.rank() - 2])
      throw InvalidGraphError("Det: input " + xs.str() + " is not [*, M, M]" + where);
    M_ = xs[xs.rank() - 1];
    count_ = M_ ? xs.numel() / (M_ * M_) : ctx.output_shape(0).numel();
    if (ctx.output_shape(0).numel() != count_) throw InvalidGraphError("Det: output shape " + ctx.output_shape(0).str() + where);
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const int64_t M = M_;
    parallel_for(count_, [&](int64_t b) {
      std::vector<double> a(M * M);
      for (int64_t i = 0; i < M * M; ++i)
        a[i] = dt_ == DataType::Float32 ? io.inputs[0].data_as<float>()[b * M * M + i]
                                        : io.inputs[0].data_as<double>()[b * M * M + i];
      double det = 1;
      for (int64_t k = 0; k < M && det != 0; ++k) {
        int64_t p = k;
        for (int64_t i = k + 1; i < M; ++i)
          if (std::fabs(a[i * M + k]) > std::fabs(a[p * M + k])) p = i;
        if (a[p * M + k] == 0) {
          det = 0;
          break;
        }
        if (p != k) {
          for (int64_t j = 0; j < M; ++j) std::swap(a[k * M + j], a[p * M + j]);
          det = -det;
        }
        det *= a[k * M + k];
        for (int64_t i = k + 1; i < M; ++i) {
          const double f = a[i * M + k] / a[k * M + k];
          for (int64_t j = k + 1; j < M; ++j) a[i * M + j] -= f * a[k * M + j];
        }
      }
      if (dt_ == DataType::Float32) io.outputs[0].data_as<float>()[b] = static_cast<float>(det);
      else io.outputs[0].data_as<double>()[b] = det;
    });
  }
  std::string impl_name() const override { return "cpu:det"; }

 private:
  DataType dt_;
  int64_t M_ = 0, count_ = 0;
};

}  // namespace

void register_det_kernels(Registrar& r) {
  r.add_kernel(KernelDef{"cpu", "", "Det",
                         [](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> { return std::make_unique<DetKernel>(ctx); },
                         ""});
}

}  // namespace ge::cpu
