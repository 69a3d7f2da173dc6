#include "support/thread_pool.hpp"

#include <atomic>
#include <utility>

namespace qd::support {

unsigned resolve_thread_count(unsigned requested) {
  if (requested != 0) {
    return requested;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

ThreadPool::ThreadPool(unsigned threads) {
  unsigned n = resolve_thread_count(threads);
  m_workers.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    m_workers.emplace_back([this] { worker_loop(); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::unique_lock lock(m_mutex);
    m_all_done.wait(lock, [this] { return m_pending == 0; });
    m_stopping = true;
  }
  m_work_ready.notify_all();
  for (std::thread& t : m_workers) {
    t.join();
  }
}

void ThreadPool::submit(std::function<void()> task) {
  {
    std::lock_guard lock(m_mutex);
    m_queue.push_back(std::move(task));
    ++m_pending;
  }
  m_work_ready.notify_one();
}

void ThreadPool::wait() {
  std::exception_ptr error;
  {
    std::unique_lock lock(m_mutex);
    m_all_done.wait(lock, [this] { return m_pending == 0; });
    error = std::exchange(m_first_error, nullptr);
  }
  if (error) {
    std::rethrow_exception(error);
  }
}

void ThreadPool::worker_loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(m_mutex);
      m_work_ready.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
      if (m_queue.empty()) {
        return;  // stopping and drained
      }
      task = std::move(m_queue.front());
      m_queue.pop_front();
    }
    std::exception_ptr error;
    try {
      task();
    } catch (...) {
      error = std::current_exception();
    }
    bool done = false;
    {
      std::lock_guard lock(m_mutex);
      if (error && !m_first_error) {
        m_first_error = error;
      }
      done = --m_pending == 0;
    }
    if (done) {
      m_all_done.notify_all();
    }
  }
}

void parallel_for(size_t n, const std::function<void(size_t)>& fn, unsigned threads) {
  if (n == 0) {
    return;
  }
  unsigned count = resolve_thread_count(threads);
  if (count > n) {
    count = static_cast<unsigned>(n);
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;

  auto body = [&] {
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) {
        return;
      }
      size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) {
        return;
      }
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!first_error) {
          first_error = std::current_exception();
        }
        failed.store(true, std::memory_order_relaxed);
        return;
      }
    }
  };

  std::vector<std::thread> helpers;
  helpers.reserve(count - 1);
  for (unsigned t = 1; t < count; ++t) {
    helpers.emplace_back(body);
  }
  body();
  for (std::thread& t : helpers) {
    t.join();
  }
  if (first_error) {
    std::rethrow_exception(first_error);
  }
}

}  // namespace qd::support
