// The pool that runs range tasks: `threads - 1` workers plus the launching thread, which always
// works on its own job too, so several launches (from several threads) can share one pool and
// each finishes even when every worker is busy elsewhere.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "qdrt/task_abi.h"

namespace qdrt {

class ThreadPool {
public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(m_workers.size()) + 1; }

  // Runs fn(ctx, b, e) over [0, n) in chunks of at least `grain` iterations; returns when all
  // are done. With `worker_limit` > 0 (a task that draws qd.random) each thread passes its own
  // copy of *ctx with `worker` set to its index (the launching thread 0, worker k k + 1), and
  // only threads with an index below `worker_limit` take chunks.
  void run(qdrt_task_fn fn, const qdrt_launch_context* ctx, int64_t n, int64_t grain,
           uint32_t worker_limit = 0);

private:
  struct Job {
    qdrt_task_fn fn;
    const qdrt_launch_context* ctx;
    int64_t n;
    int64_t chunk;
    int64_t chunks;
    uint32_t worker_limit;
    std::atomic<int64_t> next{0};
    int users = 0;  // workers inside work(), under m_mutex
  };
  static void work(Job& job, uint32_t worker);
  void worker_loop(uint32_t worker);

  std::mutex m_mutex;
  std::condition_variable m_work;
  std::condition_variable m_done;
  std::deque<Job*> m_jobs;
  bool m_stop = false;
  std::vector<std::thread> m_workers;
};

}  // namespace qdrt
