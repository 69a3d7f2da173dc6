// Launch overhead of libqdrt: an empty serial kernel (rt.basic:noop(x: ndarray(f32, 1), n: i32)
// from the runtime tests' store) launched through the C API, against calling its task function
// directly through a pointer with a prepared context (the floor: what a launch cannot avoid).
// Prints both per-call times and the ratio, measured in the same run.
// Usage: qd_launch_bench STORE_DIR [CALLS]   (STORE_DIR: make_test_store.py --out; it holds
//        good/ and modules/basic.so)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <dlfcn.h>

#include "qdrt/qdrt.h"

namespace {

double seconds_per_call(long calls, auto&& fn) {
  for (long i = 0; i < calls / 10; ++i) {
    fn();  // warm up
  }
  double best = 1e9;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < calls; ++i) {
      fn();
    }
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
    best = std::min(best, d.count() / static_cast<double>(calls));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: qd_launch_bench STORE_DIR [CALLS]\n");
    return 2;
  }
  std::string dir = argv[1];
  long calls = argc > 2 ? std::atol(argv[2]) : 2000000;
  qdrt_store* store = nullptr;
  qdrt_kernel* noop = nullptr;
  if (qdrt_open((dir + "/good").c_str(), nullptr, &store) != QDRT_OK ||
      qdrt_get_kernel(store, "rt.basic:noop", &noop) != QDRT_OK) {
    std::fprintf(stderr, "qd_launch_bench: %s\n", qdrt_last_error());
    return 1;
  }
  void* so = dlopen((dir + "/modules/basic.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  auto* task = so ? reinterpret_cast<qdrt_task_fn>(dlsym(so, "noop_t0")) : nullptr;
  if (task == nullptr) {
    std::fprintf(stderr, "qd_launch_bench: cannot load %s/modules/basic.so\n", dir.c_str());
    return 1;
  }
  std::vector<float> x(16);
  int64_t n = 16;
  qdrt_value args[2] = {qdrt_array_value(QDRT_DTYPE_F32, x.data(), 1, &n), qdrt_int_value(3)};
  double via_api = seconds_per_call(calls, [&] {
    if (qdrt_launch(noop, args, 2, nullptr) != QDRT_OK) {
      std::abort();
    }
  });
  qdrt_array arr{x.data(), {16}};
  int32_t nv = 3;
  const void* ptrs[2] = {&arr, &nv};
  alignas(16) unsigned char result[16];
  qdrt_launch_context ctx{ptrs, nullptr, result};
  qdrt_task_fn volatile fn = task;  // an opaque call, as through the module
  double direct = seconds_per_call(calls, [&] { fn(&ctx, 0, 1); });
  std::printf("launch of an empty serial kernel (2 arguments), best of 5 x %ld calls:\n", calls);
  std::printf("  direct task call (baseline)  %8.1f ns\n", direct * 1e9);
  std::printf("  qdrt_launch (C API)          %8.1f ns\n", via_api * 1e9);
  std::printf("  added by qdrt_launch         %8.1f ns\n", (via_api - direct) * 1e9);
  std::printf("  ratio qdrt_launch / direct   %8.1f\n", via_api / direct);
  qdrt_close(store);
  dlclose(so);
  return 0;
}
