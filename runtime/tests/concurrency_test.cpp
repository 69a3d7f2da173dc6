// Concurrent launches (run under TSan by scripts/tsan.sh): several threads launch different
// kernels of one lazily opened store at once (first launches race to load the same module),
// and the same temporaries-using kernel from every thread, each checking its own exact result;
// a launch's temporaries are its own. A kernel that draws qd.random (rand_probe) runs from every
// thread too, on bound generator states (as many as the pool's threads, then fewer): every
// iteration on a worker below the bound count, and no draw lost (the states advanced exactly as
// many steps as there were iterations, so no two threads ever stepped one state at once).
// Usage: qdrt_concurrency_test STORE_DIR [ROUNDS]
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "qdrt/qdrt.h"

namespace {

void step(qdrt_rand_state& s) {  // Quadrants' xorshift128 step (task_abi.h "Random numbers")
  uint32_t t = s.x ^ (s.x << 11);
  s.x = s.y;
  s.y = s.z;
  s.z = s.w;
  s.w = (s.w ^ (s.w >> 19)) ^ (t ^ (t >> 8));
}

bool same(const qdrt_rand_state& a, const qdrt_rand_state& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: qdrt_concurrency_test STORE_DIR [ROUNDS]\n");
    return 2;
  }
  int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
  std::atomic<int> failures{0};
  const int64_t draws_per_launch = 4096;
  for (const char* where : {"/good", "/good.qdpack"}) {
    std::string path = std::string(argv[1]) + where;
    // 3 states for the 3-thread pool, then 2: the third thread must stay out of the draws.
    const uint32_t count = std::string(where) == "/good" ? 3 : 2;
    std::vector<qdrt_rand_state> states(count), initial(count);
    for (uint32_t i = 0; i < count; ++i) {
      initial[i] = qdrt_rand_state{123456789u * (i + 1), 362436069u, 521288629u, 88675123u, 0};
    }
    states = initial;
    qdrt_open_options o{sizeof o, QDRT_OPEN_LAZY, 3, 0};
    qdrt_store* s = nullptr;
    if (qdrt_open(path.c_str(), &o, &s) != QDRT_OK) {
      std::fprintf(stderr, "open: %s\n", qdrt_last_error());
      return 1;
    }
    if (qdrt_bind_random_states(s, states.data(), count) != QDRT_OK) {
      std::fprintf(stderr, "bind: %s\n", qdrt_last_error());
      return 1;
    }
    auto worker = [&](int t) {
      qdrt_kernel *fill = nullptr, *saxpy = nullptr, *sum = nullptr, *probe = nullptr;
      if (qdrt_get_kernel(s, "rt.basic:total_fill", &fill) != QDRT_OK ||
          qdrt_get_kernel(s, "rt.basic:saxpy", &saxpy) != QDRT_OK ||
          qdrt_get_kernel(s, "rt.basic:sum_i64", &sum) != QDRT_OK ||
          qdrt_get_kernel(s, "rt.basic:rand_probe", &probe) != QDRT_OK) {
        ++failures;
        return;
      }
      std::vector<int64_t> rows(draws_per_launch * 3);
      const int64_t rows_shape[2] = {draws_per_launch, 3};
      const int64_t n = 4096 + t * 101;
      std::vector<int32_t> x(n), out(n);
      std::vector<float> fx(n), fy(n);
      std::vector<int64_t> ix(n);
      int64_t total = 0;
      for (int64_t i = 0; i < n; ++i) {
        x[i] = static_cast<int32_t>((i + t) % 11);
        total += x[i];
        ix[i] = i * (t + 1);
      }
      for (int r = 0; r < rounds; ++r) {
        qdrt_value args[2] = {qdrt_array_value(QDRT_DTYPE_I32, x.data(), 1, &n),
                              qdrt_array_value(QDRT_DTYPE_I32, out.data(), 1, &n)};
        qdrt_value res;
        if (qdrt_launch(fill, args, 2, &res) != QDRT_OK || res.i != total || out[n - 1] != total) {
          std::fprintf(stderr, "thread %d: total_fill: %s got %lld want %lld\n", t,
                       qdrt_last_error(), static_cast<long long>(res.i),
                       static_cast<long long>(total));
          ++failures;
          return;
        }
        for (int64_t i = 0; i < n; ++i) {
          fx[i] = static_cast<float>(i);
          fy[i] = static_cast<float>(t);
        }
        qdrt_value sa[3] = {qdrt_float_value(3.0),
                            qdrt_array_value(QDRT_DTYPE_F32, fx.data(), 1, &n),
                            qdrt_array_value(QDRT_DTYPE_F32, fy.data(), 1, &n)};
        if (qdrt_launch(saxpy, sa, 3, nullptr) != QDRT_OK ||
            fy[n - 1] != 3.0f * static_cast<float>(n - 1) + static_cast<float>(t)) {
          ++failures;
          return;
        }
        qdrt_value si = qdrt_array_value(QDRT_DTYPE_I64, ix.data(), 1, &n);
        if (qdrt_launch(sum, &si, 1, &res) != QDRT_OK || res.i != (t + 1) * (n * (n - 1) / 2)) {
          ++failures;
          return;
        }
        qdrt_value pr = qdrt_array_value(QDRT_DTYPE_I64, rows.data(), 2, rows_shape);
        if (qdrt_launch(probe, &pr, 1, nullptr) != QDRT_OK) {
          ++failures;
          return;
        }
        for (int64_t i = 0; i < draws_per_launch; ++i) {
          if (rows[i * 3] < 0 || rows[i * 3] >= count || rows[i * 3 + 1] != count) {
            std::fprintf(stderr, "thread %d: rand_probe row %lld: worker %lld of %lld states\n", t,
                         static_cast<long long>(i), static_cast<long long>(rows[i * 3]),
                         static_cast<long long>(rows[i * 3 + 1]));
            ++failures;
            return;
          }
        }
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back(worker, t);
    }
    for (std::thread& t : threads) {
      t.join();
    }
    qdrt_close(s);
    // Every iteration stepped its worker's state once: the steps add up to the iterations.
    const int64_t expected = 4 * static_cast<int64_t>(rounds) * draws_per_launch;
    int64_t steps = 0;
    for (uint32_t i = 0; i < count; ++i) {
      qdrt_rand_state c = initial[i];
      int64_t k = 0;
      while (!same(c, states[i]) && k <= expected) {
        step(c);
        ++k;
      }
      steps += k;
    }
    if (steps != expected) {
      std::fprintf(stderr, "%s: the generator states advanced %lld steps for %lld draws\n", where,
                   static_cast<long long>(steps), static_cast<long long>(expected));
      ++failures;
    }
  }
  if (failures != 0) {
    std::fprintf(stderr, "qdrt_concurrency_test: %d threads failed\n", failures.load());
    return 1;
  }
  std::printf("qdrt_concurrency_test: 4 threads x %d rounds x 4 kernels, all exact\n", rounds);
  return 0;
}
