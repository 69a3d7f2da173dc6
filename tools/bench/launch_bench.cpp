// Launch overhead of libqdrt: an empty serial kernel noop(x: ndarray(f32, 1), n: i32) launched
// through the C API, against calling its task function directly through a pointer with a
// prepared context (the floor: what a launch cannot avoid). Prints both per-call times and the
// ratio, measured in the same run.
// Usage: qd_launch_bench STORE_DIR [CALLS]
//          the runtime tests' store (make_test_store.py --out; good/ and modules/basic.so):
//          rt.basic:noop, hand-written
//        qd_launch_bench --compiled STORE KERNEL_ID [CALLS]
//          a store qdbuild built (scripts/bench/launch_bench.py): KERNEL_ID's cpu entry must be
//          one serial task taking (x: ndarray(f32, 1), n: i32); its module is read from the store,
//          decompressed and dlopened from a memfd apart from libqdrt's copy, for the direct call
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <dlfcn.h>

#include "bench_store.hpp"
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

// The direct call of `task` against qdrt_launch(kernel) with the same (x, 3) arguments.
int measure(const char* what, qdrt_kernel* kernel, qdrt_task_fn task, long calls) {
  std::vector<float> x(16);
  int64_t n = 16;
  qdrt_value args[2] = {qdrt_array_value(QDRT_DTYPE_F32, x.data(), 1, &n), qdrt_int_value(3)};
  double via_api = seconds_per_call(calls, [&] {
    if (qdrt_launch(kernel, args, 2, nullptr) != QDRT_OK) {
      std::abort();
    }
  });
  qdrt_array arr{x.data(), {16}};
  int32_t nv = 3;
  const void* ptrs[2] = {&arr, &nv};
  alignas(16) unsigned char temps[256] = {};
  alignas(16) unsigned char result[16];
  qdrt_launch_context ctx{ptrs, temps, result, nullptr, nullptr, 0, 0};  // no print, no draws
  qdrt_task_fn volatile fn = task;  // an opaque call, as through the module
  double direct = seconds_per_call(calls, [&] { fn(&ctx, 0, 1); });
  std::printf("launch of an empty serial kernel (%s, 2 arguments), best of 5 x %ld calls:\n", what,
              calls);
  std::printf("  direct task call (baseline)  %8.1f ns\n", direct * 1e9);
  std::printf("  qdrt_launch (C API)          %8.1f ns\n", via_api * 1e9);
  std::printf("  added by qdrt_launch         %8.1f ns\n", (via_api - direct) * 1e9);
  std::printf("  ratio qdrt_launch / direct   %8.1f\n", via_api / direct);
  return 0;
}

// A store qdbuild built: the kernel's single serial task, loaded apart from libqdrt.
int compiled(const std::string& dir, const std::string& id, long calls) {
  qdrt_store* store = nullptr;
  qdrt_kernel* kernel = nullptr;
  if (qdrt_open(dir.c_str(), nullptr, &store) != QDRT_OK ||
      qdrt_get_kernel(store, id.c_str(), &kernel) != QDRT_OK) {
    std::fprintf(stderr, "qd_launch_bench: %s\n", qdrt_last_error());
    return 1;
  }
  qdbench::Index index;
  index.read(dir);
  for (uint32_t i = 0; i < index.h.entry_count; ++i) {
    qdrt_index_entry e = index.entry(i);
    if (index.blob(e.kernel_id) != id || index.blob(e.target) != "cpu") {
      continue;
    }
    if (e.task_count != 1 || index.task(e.first_task).kind != QDRT_TASK_SERIAL) {
      std::fprintf(stderr, "qd_launch_bench: %s has %u tasks; expected one serial task\n",
                   id.c_str(), e.task_count);
      return 1;
    }
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    std::string file;
    std::string raw;
    void* so = qdbench::load_module(index.object_path(dir, e.module_object), dctx, file, raw);
    ZSTD_freeDCtx(dctx);
    std::string name(index.blob(index.task(e.first_task).name));
    auto* task = reinterpret_cast<qdrt_task_fn>(dlsym(so, name.c_str()));
    if (task == nullptr) {
      std::fprintf(stderr, "qd_launch_bench: no symbol %s in %s's module\n", name.c_str(),
                   id.c_str());
      return 1;
    }
    int rc = measure(("qdbuild-compiled " + id).c_str(), kernel, task, calls);
    qdrt_close(store);
    return rc;
  }
  std::fprintf(stderr, "qd_launch_bench: no cpu entry for %s in %s\n", id.c_str(), dir.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string(argv[1]) == "--compiled") {
    return compiled(argv[2], argv[3], argc > 4 ? std::atol(argv[4]) : 2000000);
  }
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: qd_launch_bench STORE_DIR [CALLS] | qd_launch_bench --compiled STORE "
                 "KERNEL_ID [CALLS]\n");
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
  int rc = measure("hand-written rt.basic:noop", noop, task, calls);
  qdrt_close(store);
  dlclose(so);
  return rc;
}
