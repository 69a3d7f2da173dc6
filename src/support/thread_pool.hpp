// A fixed pool of worker threads, and parallel_for over an index range.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace qd::support {

// Number of workers to use for `requested` (0 means std::thread::hardware_concurrency(), at least
// 1).
unsigned resolve_thread_count(unsigned requested);

class ThreadPool {
public:
  // Starts resolve_thread_count(threads) workers.
  explicit ThreadPool(unsigned threads = 0);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  // Waits for queued tasks, then joins the workers. Exceptions not collected by wait() are dropped.
  ~ThreadPool();

  unsigned size() const { return static_cast<unsigned>(m_workers.size()); }

  // Queues a task. Tasks run in FIFO order of start (completion order is unspecified).
  void submit(std::function<void()> task);
  // Blocks until every submitted task has finished; rethrows the first exception a task threw.
  void wait();

private:
  void worker_loop();

  std::vector<std::thread> m_workers;
  std::deque<std::function<void()>> m_queue;
  std::mutex m_mutex;
  std::condition_variable m_work_ready;
  std::condition_variable m_all_done;
  size_t m_pending = 0;  // queued + running
  bool m_stopping = false;
  std::exception_ptr m_first_error;
};

// Calls fn(i) for every i in [0, n), spread over resolve_thread_count(threads) threads (the
// calling thread is one of them). Indices are handed out one at a time, so uneven work balances.
// Rethrows the first exception thrown by fn after all threads have stopped; once a call has
// thrown, the remaining indices are skipped.
void parallel_for(size_t n, const std::function<void(size_t)>& fn, unsigned threads = 0);

}  // namespace qd::support
