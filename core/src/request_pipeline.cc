// Requests back to back or through pipeline stages; see ge/core/request_pipeline.h.
#include "ge/core/request_pipeline.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "ge/sdk/error.h"

namespace ge::core {

namespace {
using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }
}  // namespace

RequestPipeline::RequestPipeline(std::shared_ptr<const Graph> graph, const Environment& env, ExecOptions opts,
                                 bool sequential)
    : graph_(std::move(graph)), env_(env), opts_(std::move(opts)) {
  const int K = std::max(1, graph_->schedule.pipeline_stages);
  const int threads = std::max(1, opts_.threads);
  pipelined_ = K > 1 && !sequential;
  if (!pipelined_) {
    slots_.push_back(std::make_unique<Executable>(graph_, env_, opts_));
    intra_ = slots_[0]->intra_op_threads();
    return;
  }
  workers_ = std::min(K, threads);
  intra_ = std::max(1, threads / workers_);
  ExecOptions slot_opts = opts_;
  slot_opts.threads = intra_;
  slot_opts.serialize_streams = true;  // a stage runs serially on its worker
  for (int s = 0; s < workers_ + 1; ++s) slots_.push_back(std::make_unique<Executable>(graph_, env_, slot_opts));
}

RequestPipeline::~RequestPipeline() = default;

std::vector<std::vector<Tensor>> RequestPipeline::run(const std::vector<std::vector<Tensor>>& requests) {
  const int M = static_cast<int>(requests.size());
  std::vector<std::vector<Tensor>> outputs(static_cast<size_t>(M));
  std::vector<Clock::time_point> begin(static_cast<size_t>(M)), end(static_cast<size_t>(M));
  stats_ = RequestStats{};
  stats_.requests = M;
  stats_.stages = std::max(1, graph_->schedule.pipeline_stages);
  stats_.workers = workers_;
  stats_.slots = static_cast<int>(slots_.size());
  stats_.threads_per_worker = intra_;
  const Clock::time_point t0 = Clock::now();

  if (!pipelined_) {
    stats_.mode = "sequential";
    for (int r = 0; r < M; ++r) {
      begin[r] = Clock::now();
      try {
        outputs[r] = slots_[0]->run(requests[r]);
      } catch (const Error& e) {
        throw Error("request " + std::to_string(r) + ": " + e.what());
      }
      end[r] = Clock::now();
    }
  } else {
    stats_.mode = "pipeline";
    const int W = workers_, K = stats_.stages, S = static_cast<int>(slots_.size());
    // progress[r]: workers that have finished request r (W = done; its slot is free again).
    std::vector<int> progress(static_cast<size_t>(M), 0);
    std::mutex m;
    std::condition_variable cv;
    bool failed = false;
    std::exception_ptr error;
    auto worker = [&](int w) {
      Backend& backend = env_.backend(opts_.backend);
      backend.set_threads(intra_);  // this thread's OpenMP count: its share of the budget
      const int first = w * K / W, last = (w + 1) * K / W;
      for (int r = 0; r < M; ++r) {
        {
          std::unique_lock<std::mutex> lock(m);
          cv.wait(lock, [&] {
            if (failed) return true;
            if (w > 0) return progress[r] == w;
            return r < S || progress[r - S] == W;  // slot r mod S free again
          });
          if (failed) return;
        }
        Executable& exe = *slots_[static_cast<size_t>(r % S)];
        try {
          if (w == 0) {
            begin[r] = Clock::now();
            exe.bind_inputs(requests[r]);
          }
          for (int k = first; k < last; ++k) exe.run_stage(k);
          if (w == W - 1) {
            outputs[r] = exe.collect_outputs(requests[r]);
            end[r] = Clock::now();
          }
        } catch (...) {
          std::lock_guard<std::mutex> lock(m);
          if (!failed) {
            failed = true;
            try {
              throw;
            } catch (const Error& e) {
              error = std::make_exception_ptr(Error("request " + std::to_string(r) + ": " + e.what()));
            } catch (...) {
              error = std::current_exception();
            }
          }
          cv.notify_all();
          return;
        }
        {
          std::lock_guard<std::mutex> lock(m);
          progress[r] = w + 1;
        }
        cv.notify_all();
      }
    };
    std::vector<std::thread> threads;
    for (int w = 0; w < W; ++w) threads.emplace_back(worker, w);
    for (std::thread& t : threads) t.join();
    if (error) std::rethrow_exception(error);
  }

  const Clock::time_point t1 = Clock::now();
  stats_.total_ms = ms_between(t0, t1);
  stats_.throughput_rps = stats_.total_ms > 0 ? M / (stats_.total_ms / 1e3) : 0;
  for (int r = 0; r < M; ++r) stats_.latency_ms.push_back(ms_between(begin[r], end[r]));
  if (M > 0) {
    std::vector<double> s = stats_.latency_ms;
    std::sort(s.begin(), s.end());
    stats_.latency_min_ms = s.front();
    stats_.latency_max_ms = s.back();
    stats_.latency_median_ms = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
    stats_.latency_mean_ms = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  }
  return outputs;
}

}  // namespace ge::core
