// bench/xcore_probe.cc — how the machine's cores hand data to each other right now (bench/run's
// guard on multi-thread rows; bench/README.md "Disturbed rounds").
//
// On the shared VMs the bench runs on, a 2-thread run can slow down severalfold for minutes while
// 1-thread runs do not (for GE and ONNX Runtime alike): an OpenMP fork/join and a cache line
// written on one core and read on the other then cost 3x their usual time. Two numbers, at
// --threads N (default 2), each the median over its repetitions:
//   region_us   an empty `#pragma omp parallel` (fork + join)
//   handoff_us  each thread writes its half of a 256 KiB buffer, then (after the join) each copies
//               the half the *other* thread wrote: a producer kernel's output read by a consumer
//               partitioned differently, the pattern of consecutive kernels of a model
// Output: one JSON object on stdout. Exit 0, or 2 on a bad argument.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: xcore_probe [--threads N]   (N >= 2)\n");
      return 2;
    }
  }
  if (threads < 2) {
    std::fprintf(stderr, "xcore_probe: --threads must be at least 2\n");
    return 2;
  }
  omp_set_num_threads(threads);
  volatile int sink = 0;
  std::vector<double> region;
  for (int rep = 0; rep < 200; ++rep) {
    const auto t0 = Clock::now();
    for (int i = 0; i < 50; ++i) {
#pragma omp parallel
      { sink = sink + 1; }
    }
    region.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / 50);
  }
  const size_t n = 256 * 1024 / sizeof(float);
  std::vector<float> a(n, 1.f), b(n, 0.f);
  std::vector<double> handoff;
  for (int rep = 0; rep < 400; ++rep) {
    const auto t0 = Clock::now();
#pragma omp parallel
    {
      const size_t t = static_cast<size_t>(omp_get_thread_num()), nt = static_cast<size_t>(omp_get_num_threads());
      const size_t lo = n * t / nt, hi = n * (t + 1) / nt;
      for (size_t i = lo; i < hi; ++i) a[i] = static_cast<float>(rep + i);
    }
#pragma omp parallel
    {
      const size_t nt = static_cast<size_t>(omp_get_num_threads());
      const size_t t = (static_cast<size_t>(omp_get_thread_num()) + 1) % nt;  // the next thread's part
      const size_t lo = n * t / nt, hi = n * (t + 1) / nt;
      std::memcpy(b.data() + lo, a.data() + lo, (hi - lo) * sizeof(float));
    }
    handoff.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::printf("{\"threads\": %d, \"region_us\": %.3f, \"handoff_us\": %.3f, \"check\": %.1f}\n", threads,
              median(region), median(handoff), static_cast<double>(b[n - 1]) + sink * 0.0);
  return 0;
}
