#include "thread_pool.hpp"

#include <algorithm>

namespace qdrt {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) {
    m_workers.emplace_back([this, i] { worker_loop(static_cast<uint32_t>(i)); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_work.notify_all();
  for (std::thread& t : m_workers) {
    t.join();
  }
}

void ThreadPool::work(Job& job, uint32_t worker) {
  qdrt_launch_context own;
  const qdrt_launch_context* ctx = job.ctx;
  if (job.worker_limit > 0) {
    if (worker >= job.worker_limit) {
      return;
    }
    own = *job.ctx;
    own.worker = worker;
    ctx = &own;
  }
  for (;;) {
    int64_t c = job.next.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.chunks) {
      return;
    }
    int64_t begin = c * job.chunk;
    int64_t end = std::min(job.n, begin + job.chunk);
    job.fn(ctx, begin, end);
  }
}

void ThreadPool::run(qdrt_task_fn fn, const qdrt_launch_context* ctx, int64_t n, int64_t grain,
                     uint32_t worker_limit) {
  if (n <= 0) {
    return;
  }
  int64_t threads = static_cast<int64_t>(m_workers.size()) + 1;
  if (worker_limit > 0) {
    threads = std::min<int64_t>(threads, worker_limit);
  }
  grain = std::max<int64_t>(grain, 1);
  // About four chunks per thread balances uneven iterations; never below the grain.
  int64_t chunk = std::max(grain, (n + threads * 4 - 1) / (threads * 4));
  int64_t chunks = (n + chunk - 1) / chunk;
  if (threads == 1 || chunks == 1) {
    fn(ctx, 0, n);
    return;
  }
  Job job{fn, ctx, n, chunk, chunks, worker_limit};
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_jobs.push_back(&job);
  }
  if (chunks - 1 >= static_cast<int64_t>(m_workers.size()) || worker_limit > 0) {
    m_work.notify_all();  // (a limited job: a woken worker may not be one that can take it)
  } else {
    for (int64_t i = 0; i < chunks - 1; ++i) {
      m_work.notify_one();
    }
  }
  work(job, 0);
  std::unique_lock<std::mutex> lock(m_mutex);
  // No worker may pick the job up any more; wait for those inside it (each finishes the chunk
  // it claimed before it leaves).
  auto it = std::find(m_jobs.begin(), m_jobs.end(), &job);
  if (it != m_jobs.end()) {
    m_jobs.erase(it);
  }
  m_done.wait(lock, [&] { return job.users == 0; });
}

void ThreadPool::worker_loop(uint32_t worker) {
  std::unique_lock<std::mutex> lock(m_mutex);
  for (;;) {
    // The first job with chunks left that this worker may take (a job that draws qd.random
    // runs on the first worker_limit threads only); exhausted jobs are dropped on the way (their
    // launchers then remove nothing). Waits while there is none, so an excluded worker never
    // spins on a job it cannot take.
    Job* job = nullptr;
    m_work.wait(lock, [&] {
      for (auto it = m_jobs.begin(); !m_stop && it != m_jobs.end();) {
        if ((*it)->next.load(std::memory_order_relaxed) >= (*it)->chunks) {
          it = m_jobs.erase(it);
        } else if ((*it)->worker_limit == 0 || worker < (*it)->worker_limit) {
          job = *it;
          return true;
        } else {
          ++it;
        }
      }
      return m_stop;
    });
    if (m_stop) {
      return;
    }
    ++job->users;
    lock.unlock();
    work(*job, worker);
    lock.lock();
    if (--job->users == 0) {
      m_done.notify_all();
    }
  }
}

}  // namespace qdrt
