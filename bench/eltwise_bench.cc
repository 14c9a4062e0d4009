// bench/eltwise_bench.cc — GE's CPU elementwise kernels against oneDNN 2.6's eltwise primitive
// on the same 256 K floats in the same run, at 1 and 2 threads (median of many runs each), and
// memory-bound kernels (broadcast Add, Where, Cast) against a plain copy of the same bytes.
//
//   eltwise_bench [elements=262144] [reps=400]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <functional>
#include <random>
#include <vector>

#include "kernel_harness.h"
#include "broadcast.h"
#include "kernels.h"

using namespace ge;

namespace {

double median_us(int reps, const std::function<void()>& f) {
  for (int i = 0; i < 10; ++i) f();  // warm caches and the OpenMP team
  std::vector<double> t(reps);
  for (int i = 0; i < reps; ++i) {
    auto a = std::chrono::steady_clock::now();
    f();
    t[i] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count();
  }
  std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
  return t[reps / 2];
}

/// One GE kernel built once for a one-node graph, run repeatedly on fixed buffers.
struct GeKernel {
  Graph g{"bench"};
  std::unique_ptr<Kernel> k;
  std::vector<Tensor> in, out;
  GeKernel(test::CollectingRegistrar& r, const std::string& op, std::vector<Tensor> inputs, DataType out_t, Shape out_s,
           int threads, Attributes attrs = {}) : in(std::move(inputs)) {
    g.opsets[""] = 17;
    std::vector<Value*> iv;
    for (size_t i = 0; i < in.size(); ++i) iv.push_back(g.add_input("in" + std::to_string(i), in[i].dtype(), in[i].shape()));
    Value* ov = g.add_value("out", out_t, out_s);
    Node* n = g.add_node(op, "node", iv, {ov}, attrs);
    KernelBuildContext ctx{*n, 17, threads};
    k = r.kernels.find("cpu", "", op)->factory(ctx);
    out.push_back(Tensor::allocate(out_t, out_s));
  }
  void run() {
    KernelIO io{in, out};
    k->run(io);
  }
};

Tensor random_floats(Shape s, float lo, float hi, uint32_t seed) {
  Tensor t = Tensor::allocate(DataType::Float32, s);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = d(rng);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 262144;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 400;
  test::CollectingRegistrar reg;
  cpu::register_elementwise_kernels(reg);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const dnnl::memory::desc md({n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  std::printf("%lld floats, median of %d runs\n", static_cast<long long>(n), reps);
  std::printf("%-10s %7s %10s %12s %8s\n", "op", "threads", "GE us", "oneDNN us", "GE/oneDNN");
  struct T {
    const char* op;
    dnnl::algorithm alg;
    float lo, hi;
  };
  const T ts[] = {{"Sigmoid", dnnl::algorithm::eltwise_logistic, -10, 10},
                  {"Tanh", dnnl::algorithm::eltwise_tanh, -5, 5},
                  {"Exp", dnnl::algorithm::eltwise_exp, -20, 20},
                  {"Log", dnnl::algorithm::eltwise_log, 1e-3f, 100},
                  // oneDNN 2.6 has no plain erf; gelu_erf (x/2 (1 + erf(x/sqrt 2))) is its nearest.
                  {"Erf", dnnl::algorithm::eltwise_gelu_erf, -4, 4}};
  for (const T& t : ts) {
    Tensor x = random_floats({n}, t.lo, t.hi, 1);
    for (int threads : {1, 2}) {
      GeKernel ge(reg, t.op, {x}, DataType::Float32, {n}, threads);
      const double ge_us = median_us(reps, [&] { ge.run(); });
      omp_set_num_threads(threads);
      std::vector<float> y(n);
      dnnl::memory src(md, eng, x.data()), dst(md, eng, y.data());
      auto pd = dnnl::eltwise_forward::primitive_desc(
          dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, t.alg, md, 0.f, 0.f), eng);
      dnnl::eltwise_forward prim(pd);
      const double dnnl_us = median_us(reps, [&] {
        prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
        strm.wait();
      });
      std::printf("%-10s %7d %10.1f %12.1f %8.2f\n", t.op, threads, ge_us, dnnl_us, ge_us / dnnl_us);
    }
  }
  // Memory-bound kernels: bytes moved / time against a copy of the same byte count.
  std::printf("\n%-28s %7s %10s %10s %12s\n", "memory-bound", "threads", "GE us", "GB/s", "copy GB/s");
  const int64_t c = 64, hw = n / c;
  Tensor a = random_floats({1, c, hw}, -1, 1, 2), b = random_floats({1, c, 1}, -1, 1, 3);
  Tensor cond = Tensor::allocate(DataType::Bool, {1, c, hw});
  for (int64_t i = 0; i < cond.numel(); ++i) cond.data_as<bool>()[i] = (i * 7919) % 3 == 0;
  for (int threads : {1, 2}) {
    struct M {
      const char* name;
      std::unique_ptr<GeKernel> k;
      double bytes;
    };
    Attributes to_half;
    to_half.set("to", int64_t{10});
    std::vector<M> ms;
    ms.push_back({"Add [1,64,4096]+[1,64,1]", std::make_unique<GeKernel>(reg, "Add", std::vector<Tensor>{a, b}, DataType::Float32, Shape{1, c, hw}, threads), 8.0 * n});
    ms.push_back({"Where bool ? f32 : f32[1,64,1]", std::make_unique<GeKernel>(reg, "Where", std::vector<Tensor>{cond, a, b}, DataType::Float32, Shape{1, c, hw}, threads), 9.0 * n});
    ms.push_back({"Cast f32 -> f16", std::make_unique<GeKernel>(reg, "Cast", std::vector<Tensor>{a}, DataType::Float16, Shape{1, c, hw}, threads, to_half), 6.0 * n});
    std::vector<char> src(static_cast<size_t>(8 * n)), dst(static_cast<size_t>(8 * n));
    for (M& m : ms) {
      const double us = median_us(reps, [&] { m.k->run(); });
      const size_t bytes = static_cast<size_t>(m.bytes) / 2;  // a copy reads and writes: half as many bytes each way
      const double copy_us = median_us(reps, [&] { cpu::loops::parallel_memcpy(dst.data(), src.data(), bytes, threads); });
      std::printf("%-28s %7d %10.1f %10.2f %12.2f\n", m.name, threads, us, m.bytes / us * 1e-3, 2.0 * bytes / copy_us * 1e-3);
    }
  }
  return 0;
}
