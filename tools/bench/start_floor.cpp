// Start-time benchmark helper (driven by scripts/bench/start_bench.py); one run per fresh process.
//
//   qd_start_floor floor STORE_DIR
//     The floor of loading a store's CPU code: read index.qdi (only to learn which module objects
//     the cpu entries use), then for every distinct module object read its file, decompress the
//     zstd payload, write it into a memfd and dlopen it from /proc/self/fd/N. No checks beyond
//     what the work needs (no checksums, no argument tables, no task symbols): what no loader
//     can avoid. Links zstd and libdl only.
//
//   qd_start_floor qdrt LIBQDRT STORE_DIR
//     What an app does at process start: dlopen(LIBQDRT), qdrt_open(STORE_DIR) eager (loads every
//     module), then qdrt_get_kernel for every kernel id. libqdrt is dlopened (not linked) so that
//     both modes run the same executable; its own load time is printed apart (lib_ms).
//
// Prints one line of key=value pairs: ms (the timed work), modules, kernels, raw_bytes, ...
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <dlfcn.h>

#include "bench_store.hpp"
#include "qdrt/qdrt.h"

namespace {

using Clock = std::chrono::steady_clock;
using qdbench::die;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int floor_mode(const std::string& dir) {
  auto t0 = Clock::now();
  qdbench::Index index;
  index.read(dir);
  // Distinct module objects of the cpu entries, in first-use order.
  std::vector<char> seen(index.h.object_count, 0);
  std::vector<uint32_t> modules;
  for (uint32_t i = 0; i < index.h.entry_count; ++i) {
    qdrt_index_entry e = index.entry(i);
    if (!index.blob(e.target).starts_with("cpu") || e.module_object >= index.h.object_count ||
        seen[e.module_object]) {
      continue;
    }
    seen[e.module_object] = 1;
    modules.push_back(e.module_object);
  }
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  std::string file;
  std::string raw;
  uint64_t raw_bytes = 0;
  uint64_t file_bytes = 0;
  for (uint32_t m : modules) {
    qdbench::load_module(index.object_path(dir, m), dctx, file, raw, &file_bytes, &raw_bytes);
  }
  double ms = ms_since(t0);
  ZSTD_freeDCtx(dctx);
  std::printf("mode=floor ms=%.3f modules=%zu entries=%u file_bytes=%llu raw_bytes=%llu\n", ms,
              modules.size(), index.h.entry_count, static_cast<unsigned long long>(file_bytes),
              static_cast<unsigned long long>(raw_bytes));
  return 0;
}

int qdrt_mode(const std::string& lib, const std::string& dir) {
  auto t0 = Clock::now();
  void* so = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (so == nullptr) {
    die(std::string("cannot load libqdrt: ") + ::dlerror());
  }
  auto sym = [&](const char* name) {
    void* p = ::dlsym(so, name);
    if (p == nullptr) {
      die(std::string("libqdrt lacks ") + name);
    }
    return p;
  };
  auto open = reinterpret_cast<decltype(&qdrt_open)>(sym("qdrt_open"));
  auto count = reinterpret_cast<decltype(&qdrt_kernel_count)>(sym("qdrt_kernel_count"));
  auto id = reinterpret_cast<decltype(&qdrt_kernel_id)>(sym("qdrt_kernel_id"));
  auto get = reinterpret_cast<decltype(&qdrt_get_kernel)>(sym("qdrt_get_kernel"));
  auto last_error = reinterpret_cast<decltype(&qdrt_last_error)>(sym("qdrt_last_error"));
  double lib_ms = ms_since(t0);

  auto t1 = Clock::now();
  qdrt_store* store = nullptr;
  if (open(dir.c_str(), nullptr, &store) != QDRT_OK) {  // NULL options: eager, all cores
    die(last_error());
  }
  double open_ms = ms_since(t1);
  size_t n = count(store);
  for (size_t i = 0; i < n; ++i) {
    qdrt_kernel* k = nullptr;
    if (get(store, id(store, i), &k) != QDRT_OK) {
      die(last_error());
    }
  }
  double ms = ms_since(t1);
  // Not closed: a process that exits leaves the unloading to the kernel (so does the floor).
  std::printf("mode=qdrt ms=%.3f open_ms=%.3f lib_ms=%.3f kernels=%zu\n", ms, open_ms, lib_ms, n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "floor") == 0) {
    return floor_mode(argv[2]);
  }
  if (argc == 4 && std::strcmp(argv[1], "qdrt") == 0) {
    return qdrt_mode(argv[2], argv[3]);
  }
  std::fprintf(stderr,
               "usage: qd_start_floor floor STORE_DIR | qd_start_floor qdrt LIBQDRT STORE_DIR\n");
  return 2;
}
