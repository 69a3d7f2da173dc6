// Concurrent launches (run under TSan by scripts/tsan.sh): several threads launch different
// kernels of one lazily opened store at once (first launches race to load the same module),
// and the same temporaries-using kernel from every thread, each checking its own exact result;
// a launch's temporaries are its own.
// Usage: qdrt_concurrency_test STORE_DIR [ROUNDS]
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "qdrt/qdrt.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: qdrt_concurrency_test STORE_DIR [ROUNDS]\n");
    return 2;
  }
  int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
  std::atomic<int> failures{0};
  for (const char* where : {"/good", "/good.qdpack"}) {
    std::string path = std::string(argv[1]) + where;
    qdrt_open_options o{sizeof o, QDRT_OPEN_LAZY, 3, 0};
    qdrt_store* s = nullptr;
    if (qdrt_open(path.c_str(), &o, &s) != QDRT_OK) {
      std::fprintf(stderr, "open: %s\n", qdrt_last_error());
      return 1;
    }
    auto worker = [&](int t) {
      qdrt_kernel *fill = nullptr, *saxpy = nullptr, *sum = nullptr;
      if (qdrt_get_kernel(s, "rt.basic:total_fill", &fill) != QDRT_OK ||
          qdrt_get_kernel(s, "rt.basic:saxpy", &saxpy) != QDRT_OK ||
          qdrt_get_kernel(s, "rt.basic:sum_i64", &sum) != QDRT_OK) {
        ++failures;
        return;
      }
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
  }
  if (failures != 0) {
    std::fprintf(stderr, "qdrt_concurrency_test: %d threads failed\n", failures.load());
    return 1;
  }
  std::printf("qdrt_concurrency_test: 4 threads x %d rounds x 3 kernels, all exact\n", rounds);
  return 0;
}
