#include "support/thread_pool.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace qd::support {
namespace {

TEST_CASE("resolve_thread_count") {
  CHECK(resolve_thread_count(3) == 3);
  CHECK(resolve_thread_count(0) >= 1);
}

TEST_CASE("parallel_for visits every index exactly once") {
  for (unsigned threads : {1u, 2u, 4u, 0u}) {
    std::vector<std::atomic<int>> hits(1000);
    parallel_for(hits.size(), [&](size_t i) { hits[i].fetch_add(1); }, threads);
    for (auto& h : hits) {
      CHECK(h.load() == 1);
    }
  }
}

TEST_CASE("parallel_for with no work and with more threads than items") {
  int calls = 0;
  parallel_for(0, [&](size_t) { ++calls; });
  CHECK(calls == 0);
  std::atomic<int> n{0};
  parallel_for(2, [&](size_t) { n.fetch_add(1); }, 16);
  CHECK(n.load() == 2);
}

TEST_CASE("parallel_for rethrows the first exception") {
  std::atomic<int> ran{0};
  CHECK_THROWS_WITH_AS(parallel_for(
                           100,
                           [&](size_t i) {
                             ran.fetch_add(1);
                             if (i == 5) {
                               throw std::runtime_error("boom");
                             }
                           },
                           2),
                       "boom", std::runtime_error);
  CHECK(ran.load() >= 1);
}

TEST_CASE("ThreadPool runs submitted tasks and wait() blocks until done") {
  ThreadPool pool(3);
  CHECK(pool.size() == 3);
  std::atomic<int> sum{0};
  for (int i = 1; i <= 100; ++i) {
    pool.submit([&sum, i] { sum.fetch_add(i); });
  }
  pool.wait();
  CHECK(sum.load() == 5050);
  // The pool is reusable after wait().
  pool.submit([&sum] { sum.fetch_add(1); });
  pool.wait();
  CHECK(sum.load() == 5051);
}

TEST_CASE("ThreadPool::wait rethrows a task's exception once") {
  ThreadPool pool(2);
  pool.submit([] { throw std::runtime_error("task failed"); });
  pool.submit([] {});
  CHECK_THROWS_WITH_AS(pool.wait(), "task failed", std::runtime_error);
  CHECK_NOTHROW(pool.wait());
}

TEST_CASE("ThreadPool destructor drains the queue") {
  std::atomic<int> n{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 50; ++i) {
      pool.submit([&n] { n.fetch_add(1); });
    }
  }
  CHECK(n.load() == 50);
}

}  // namespace
}  // namespace qd::support
