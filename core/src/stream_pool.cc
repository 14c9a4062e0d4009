// Worker threads and events of multi-stream execution; see stream_pool.h.
#include "stream_pool.h"

namespace ge::core::detail {

StreamPool::StreamPool(int streams, size_t num_events, std::function<void(int)> init)
    : init_(std::move(init)), events_(new std::atomic<uint32_t>[num_events ? num_events : 1]), num_events_(num_events) {
  for (size_t e = 0; e < num_events_; ++e) events_[e].store(0, std::memory_order_relaxed);
  threads_.reserve(static_cast<size_t>(streams));
  for (int s = 0; s < streams; ++s) threads_.emplace_back([this, s] { worker(s); });
}

StreamPool::~StreamPool() {
  stop_.store(true, std::memory_order_release);
  start_.fetch_add(1, std::memory_order_acq_rel);
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void StreamPool::worker(int stream) {
  if (init_) init_(stream);
  uint32_t seen = 0;
  for (;;) {
    start_.wait(seen, std::memory_order_acquire);
    uint32_t now = start_.load(std::memory_order_acquire);
    if (now == seen) continue;  // spurious wake-up
    seen = now;
    if (stop_.load(std::memory_order_acquire)) return;
    try {
      (*body_)(stream);
    } catch (...) {
      fail(std::current_exception());
    }
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) remaining_.notify_all();
  }
}

void StreamPool::run(const std::function<void(int)>& body) {
  body_ = &body;
  error_ = nullptr;
  abort_.store(false, std::memory_order_relaxed);
  ++gen_;
  if (gen_ == 0) {  // wrapped: flags from 2^32 runs ago could read as recorded
    for (size_t e = 0; e < num_events_; ++e) events_[e].store(0, std::memory_order_relaxed);
    gen_ = 1;
  }
  remaining_.store(static_cast<int>(threads_.size()), std::memory_order_relaxed);
  start_.fetch_add(1, std::memory_order_acq_rel);  // publishes body_, gen_ and the inputs
  start_.notify_all();
  for (int r; (r = remaining_.load(std::memory_order_acquire)) != 0;) remaining_.wait(r, std::memory_order_acquire);
  body_ = nullptr;
  if (error_) std::rethrow_exception(error_);
}

void StreamPool::record(size_t e) {
  events_[e].store(gen_, std::memory_order_release);
  events_[e].notify_all();
}

bool StreamPool::wait(size_t e) {
  for (uint32_t v; (v = events_[e].load(std::memory_order_acquire)) != gen_;) events_[e].wait(v, std::memory_order_acquire);
  return !aborted();
}

void StreamPool::fail(std::exception_ptr e) {
  {
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_) error_ = e;
  }
  abort_.store(true, std::memory_order_release);
  for (size_t k = 0; k < num_events_; ++k) record(k);  // nobody waits forever
}

}  // namespace ge::core::detail
