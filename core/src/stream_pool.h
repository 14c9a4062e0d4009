// Internal: the persistent worker threads of a multi-stream Executable and the per-run events
// between them.
//
// One thread per stream, started once with the Executable and parked on an atomic generation
// counter between runs (std::atomic::wait: a futex on Linux). run() publishes a job, wakes the
// workers, and blocks until every stream has finished. Events are one std::atomic<uint32_t> each
// holding the number of the run that last recorded it, so nothing is reset between runs: a wait
// in run g returns once the flag reads g. On an error a stream records the first exception,
// raises the abort flag and records every event, so no other stream waits forever; they see the
// flag and stop. run() then rethrows the first error.
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ge::core::detail {

class StreamPool {
 public:
  /// `streams` workers; each calls `init(stream)` once on its own thread before any run (the
  /// runtime sets the thread's OpenMP thread count there). `num_events` events.
  StreamPool(int streams, size_t num_events, std::function<void(int stream)> init);
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  /// Runs body(stream) on every worker at once and waits for all; rethrows the first exception
  /// a body threw (the others are stopped through aborted()). Not reentrant: one run at a time.
  void run(const std::function<void(int stream)>& body);

  /// Inside a body: event e is recorded (the node it follows has finished).
  void record(size_t e);
  /// Inside a body: blocks until event e is recorded in this run. Returns false when the run
  /// was aborted by another stream's error (the body should return at once).
  bool wait(size_t e);
  bool aborted() const { return abort_.load(std::memory_order_acquire); }

 private:
  void worker(int stream);
  void fail(std::exception_ptr e);

  std::function<void(int)> init_;
  const std::function<void(int)>* body_ = nullptr;
  std::unique_ptr<std::atomic<uint32_t>[]> events_;
  size_t num_events_;
  std::atomic<uint32_t> start_{0};   // generation of the current run; workers wake on change
  std::atomic<int> remaining_{0};    // streams still running this run
  std::atomic<bool> abort_{false}, stop_{false};
  uint32_t gen_ = 0;
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace ge::core::detail
