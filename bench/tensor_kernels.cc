// bench/tensor_kernels.cc — memory-bound CPU kernels against memcpy of the same bytes: the
// attention Transpose (…,S,H,D)↔(…,H,S,D), Pad of NCHW images and Gather of embedding rows.
// Each reports bytes moved (read + write) per second; memcpy of the output's size is the
// bandwidth reference on the same machine and thread count.
//
//   build/bin/bench_tensor_kernels [--benchmark_filter=Transpose] (threads: the /N suffix)
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "broadcast.h"
#include "ge/sdk/error.h"
#include "kernel_harness.h"
#include "kernels.h"

using namespace ge;

namespace {

/// One node built once, run in the timing loop.
struct Prepared {
  test::CollectingRegistrar reg;
  std::unique_ptr<Graph> g;
  std::unique_ptr<Kernel> k;
  std::vector<Tensor> in, out;

  Prepared(const std::string& op, std::vector<Tensor> inputs, std::set<size_t> consts, const Shape& out_shape,
           DataType out_type, const Attributes& attrs, int threads) {
    cpu::register_tensor_kernels(reg);
    g = std::make_unique<Graph>("bench");
    g->opsets[""] = 13;
    std::vector<Value*> iv;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string n = "in" + std::to_string(i);
      iv.push_back(consts.count(i) ? g->add_constant(n, inputs[i]) : g->add_input(n, inputs[i].dtype(), inputs[i].shape()));
    }
    Value* o = g->add_value("out", out_type, out_shape);
    Node* node = g->add_node(op, "node", iv, {o}, attrs);
    KernelBuildContext ctx{*node, 13, threads};
    k = reg.kernels.find("cpu", "", op)->factory(ctx);
    in = std::move(inputs);
    out.push_back(Tensor::allocate(out_type, out_shape));
  }
  void run() {
    KernelIO io{in, out};
    k->run(io);
  }
};

void report(benchmark::State& st, int64_t bytes) {
  st.SetBytesProcessed(st.iterations() * bytes);
}

/// [B, S, H, D] -> [B, H, S, D] (perm 0,2,1,3), float32.
void BM_TransposeSHD(benchmark::State& st) {
  const int threads = static_cast<int>(st.range(0));
  const Shape in{8, 512, 12, 64};
  Attributes a;
  a.set("perm", std::vector<int64_t>{0, 2, 1, 3});
  Prepared p("Transpose", {Tensor::allocate(DataType::Float32, in)}, {}, Shape{8, 12, 512, 64}, DataType::Float32, a,
             threads);
  for (auto _ : st) p.run();
  report(st, 2 * in.numel() * 4);
}

/// [1, 64, 224, 224] padded by 1 on H and W (constant), float32.
void BM_PadNCHW(benchmark::State& st) {
  const int threads = static_cast<int>(st.range(0));
  Tensor pads = Tensor::allocate(DataType::Int64, Shape{8});
  const int64_t pv[8] = {0, 0, 1, 1, 0, 0, 1, 1};
  std::memcpy(pads.data(), pv, sizeof pv);
  const Shape in{1, 64, 224, 224}, out{1, 64, 226, 226};
  Prepared p("Pad", {Tensor::allocate(DataType::Float32, in), pads}, {1}, out, DataType::Float32, {}, threads);
  for (auto _ : st) p.run();
  report(st, (in.numel() + out.numel()) * 4);
}

/// 4096 rows of a [32000, 768] float32 embedding table.
void BM_GatherRows(benchmark::State& st) {
  const int threads = static_cast<int>(st.range(0));
  Tensor ids = Tensor::allocate(DataType::Int64, Shape{4096});
  for (int64_t i = 0; i < 4096; ++i) ids.data_as<int64_t>()[i] = (i * 7919) % 32000;
  Prepared p("Gather", {Tensor::allocate(DataType::Float32, Shape{32000, 768}), ids}, {}, Shape{4096, 768},
             DataType::Float32, {}, threads);
  for (auto _ : st) p.run();
  report(st, 2 * 4096 * 768 * 4);
}

/// memcpy of the Transpose's bytes: the bandwidth reference.
void BM_Memcpy(benchmark::State& st) {
  const int threads = static_cast<int>(st.range(0));
  const size_t bytes = size_t{8} * 512 * 12 * 64 * 4;
  std::vector<char> a(bytes, 1), b(bytes);
  for (auto _ : st) {
    cpu::loops::parallel_memcpy(b.data(), a.data(), bytes, threads);
    benchmark::DoNotOptimize(b.data());
  }
  report(st, static_cast<int64_t>(2 * bytes));
}

BENCHMARK(BM_Memcpy)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_TransposeSHD)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_PadNCHW)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_GatherRows)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
