// qd_codegen_bench: generated CPU code against the same algorithms hand-written in C++, in the same
// process, on the same number of threads with the same chunking (issue 5, Acceptance
// "Benchmarks"). The five kernels of tools/bench/codegen_bench_kernels/cgbench.py (saxpy, a 5-point
// 2-D stencil, a kernel-scope `total += x[i]` reduction, per-element 3x3 matrix work, an atomic
// histogram) are built by `qdbuild build` into STORE (scripts/bench/codegen_bench.sh does that) and
// launched through the C API (qdrt_open, qdrt_get_kernel, qdrt_launch); the hand-written versions
// below are compiled by CMake at -O3 -march=x86-64-v3 -fno-math-errno -ffp-contract=off (the
// backend's target and math flags).
//
//   qd_codegen_bench STORE [--quick] [--reps N] [--threads N]    (default 11 reps; --quick: 3)
//
// Threading: the hand-written side runs on libqdrt's ThreadPool itself (runtime/src/thread_pool.cpp
// compiled in; the policy of launch.cpp): `threads - 1` persistent workers plus the calling
// thread; a range of n iterations is cut into chunks of max(grain, ceil(n / (4 * threads)))
// iterations (grain 1: codegen sets none) that threads claim from one atomic counter; every chunk
// is an indirect call fn(ctx, begin, end); n <= grain or a single chunk runs inline. Both sides use
// the same thread count (--threads, else $QDRT_NUM_THREADS, else every core).
//
// Timing: one untimed warm-up run per side, then --reps runs alternating generated / hand-written;
// the medians are reported. Outputs are compared after one run from identical inputs: exact for
// integers, a small relative tolerance for floats (a parallel float sum depends on its order).
// Prints numbers and never asserts on time; exit 1 if results differ, 3 on a set-up failure.
//
// Variants (printed after the table, not in the summary; docs/backend.md "Benchmarks"): the
// hand-written loop with the scheme codegen used before commit c74b044 (a div/mod per stencil
// point, an atomic add per reduced element) against the hand-written loop, i.e. what those two
// codegen changes are worth.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "qdrt/qdrt.h"
#include "thread_pool.hpp"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "qd_codegen_bench: error: %s\n", message.c_str());
  std::exit(3);
}

// --- the hand-written side's thread pool: libqdrt's own ------------------------------------
// runtime/src/thread_pool.cpp is compiled into this benchmark (libqdrt.so hides its copy), so the
// hand-written kernels get exactly the scheduling of a launch: grain 1 (launch.cpp, when codegen
// sets none), one indirect call per chunk. Their arguments travel as the context pointer.

using ChunkFn = void (*)(const void* args, int64_t begin, int64_t end);

template <ChunkFn F> void as_task(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  F(ctx, begin, end);
}

template <ChunkFn F, class Args>
void run_hand(qdrt::ThreadPool& pool, const Args* args, int64_t n) {
  pool.run(as_task<F>, reinterpret_cast<const qdrt_launch_context*>(args), n, 1);
}

// --- the hand-written kernels: what a C++ programmer writes for the same algorithm -----------
// Plain pointers (no __restrict, as in the generated code), 64-bit indices, the same arithmetic
// expressions in the same order (so float results agree), one function per chunk. Arguments are
// copied into locals first, as the generated code does: read through the struct, an atomic or a
// store to int32_t/float would force reloads of the fields in every iteration.

struct SaxpyArgs {
  float a;
  const float* x;
  float* y;
};
void saxpy_chunk(const void* p, int64_t begin, int64_t end) {
  const auto& c = *static_cast<const SaxpyArgs*>(p);
  const float a = c.a;
  const float* x = c.x;
  float* y = c.y;
  for (int64_t i = begin; i < end; ++i) {
    y[i] = a * x[i] + y[i];
  }
}

// Interior points (1..n-2) x (1..m-2), flattened row-major as the ndrange is; a chunk [begin, end)
// is split back into rows once, and each row segment is a contiguous inner loop.
struct StencilArgs {
  const float* u;
  float* out;
  int64_t n;
  int64_t m;
};
void stencil_chunk(const void* p, int64_t begin, int64_t end) {
  const auto& c = *static_cast<const StencilArgs*>(p);
  const float* uu = c.u;
  float* out = c.out;
  const int64_t m = c.m;
  const int64_t w = m - 2;
  int64_t k = begin;
  while (k < end) {
    const int64_t i = 1 + k / w;
    const int64_t j0 = 1 + k % w;
    const int64_t j1 = std::min<int64_t>(m - 1, j0 + (end - k));
    const float* u = uu + i * m;
    float* o = out + i * m;
    for (int64_t j = j0; j < j1; ++j) {
      o[j] = 0.25f * (u[j - m] + u[j + m] + u[j - 1] + u[j + 1]) - u[j];
    }
    k += j1 - j0;
  }
}

// Variant (not in the summary): codegen's index scheme before c74b044, the flat index split into
// (i, j) by a division and a remainder on every iteration.
void stencil_divmod_chunk(const void* p, int64_t begin, int64_t end) {
  const auto& c = *static_cast<const StencilArgs*>(p);
  const float* uu = c.u;
  float* out = c.out;
  const int64_t m = c.m;
  const int64_t w = m - 2;
  for (int64_t k = begin; k < end; ++k) {
    const int64_t i = 1 + k / w;
    const int64_t j = 1 + k % w;
    const float* u = uu + i * m;
    out[i * m + j] = 0.25f * (u[j - m] + u[j + m] + u[j - 1] + u[j + 1]) - u[j];
  }
}

// The reduction as written by hand: a private partial sum per chunk, one atomic add per chunk.
struct ReduceArgs {
  const float* x;
  float* total;
};
void reduce_chunk(const void* p, int64_t begin, int64_t end) {
  const auto& c = *static_cast<const ReduceArgs*>(p);
  const float* x = c.x;
  float partial = 0.0f;
  for (int64_t i = begin; i < end; ++i) {
    partial += x[i];
  }
  std::atomic_ref<float>(*c.total).fetch_add(partial, std::memory_order_relaxed);
}
// Variant (not in the summary): codegen's reduction before c74b044, one atomic add per element.
void reduce_atomic_chunk(const void* p, int64_t begin, int64_t end) {
  const auto& c = *static_cast<const ReduceArgs*>(p);
  const float* x = c.x;
  std::atomic_ref<float> total(*c.total);
  for (int64_t i = begin; i < end; ++i) {
    total.fetch_add(x[i], std::memory_order_relaxed);
  }
}

// Flat float arrays (9 and 3 floats per element), loaded into locals: with struct copies instead
// (Mat3 a = m[i]; mv[i] = y) clang -O3 does not vectorize this loop ("cannot identify array
// bounds") and runs about 1.25x slower.
struct Mat3Args {
  const float* m;
  const float* v;
  float* mv;
  float* det;
};
void mat3_chunk(const void* p, int64_t begin, int64_t end) {
  const auto& c = *static_cast<const Mat3Args*>(p);
  const float* m = c.m;
  const float* v = c.v;
  float* mv = c.mv;
  float* det = c.det;
  for (int64_t i = begin; i < end; ++i) {
    const float* a = m + 9 * i;
    const float* x = v + 3 * i;
    float w[3];
    for (int r = 0; r < 3; ++r) {  // w = a @ x
      w[r] = a[3 * r] * x[0] + a[3 * r + 1] * x[1] + a[3 * r + 2] * x[2];
    }
    float* y = mv + 3 * i;
    for (int r = 0; r < 3; ++r) {  // y = a^T @ w
      y[r] = a[r] * w[0] + a[3 + r] * w[1] + a[6 + r] * w[2];
    }
    // determinant() as Quadrants' matrix_ops.py expands it (down the first column), so that
    // with every operation rounded (-ffp-contract=off) both sides compute the same bits.
    det[i] = a[0] * (a[4] * a[8] - a[7] * a[5]) - a[3] * (a[1] * a[8] - a[7] * a[2]) +
             a[6] * (a[1] * a[5] - a[4] * a[2]);
  }
}

struct HistArgs {
  const float* x;
  int32_t* bins;
  int32_t nb;
};
void hist_chunk(const void* p, int64_t begin, int64_t end) {
  const auto& c = *static_cast<const HistArgs*>(p);
  const float* x = c.x;
  int32_t* bins = c.bins;
  const int32_t nb = c.nb;
  for (int64_t i = begin; i < end; ++i) {
    int32_t b = static_cast<int32_t>(x[i] * static_cast<float>(nb));
    b = std::max(0, std::min(nb - 1, b));
    std::atomic_ref<int32_t>(bins[b]).fetch_add(1, std::memory_order_relaxed);
  }
}

// --- harness --------------------------------------------------------------------------------

// Deterministic floats in [0, 1).
void fill(std::vector<float>& v, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (float& f : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    f = static_cast<float>(s >> 40) * (1.0f / 16777216.0f);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

qdrt_kernel* kernel(qdrt_store* store, const std::string& name) {
  for (size_t i = 0; i < qdrt_kernel_count(store); ++i) {
    std::string id = qdrt_kernel_id(store, i);
    if (id.size() > name.size() &&
        id.compare(id.size() - name.size() - 1, std::string::npos, ":" + name) == 0) {
      qdrt_kernel* k = nullptr;
      if (qdrt_get_kernel(store, id.c_str(), &k) != QDRT_OK) {
        die(qdrt_last_error());
      }
      return k;
    }
  }
  die("the store has no kernel named '" + name + "' (build tools/bench/codegen_bench_kernels)");
}

void launch(qdrt_kernel* k, const std::vector<qdrt_value>& args, qdrt_value* result = nullptr) {
  if (qdrt_launch(k, args.data(), args.size(), result) != QDRT_OK) {
    die(std::string("qdrt_launch: ") + qdrt_last_error());
  }
}

double time_ms(const std::function<void()>& fn) {
  auto t0 = Clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Row {
  std::string name;
  std::string size;
  double gen_ms;
  double hand_ms;
  bool ok;
  std::string check;
};

// Runs `reset` (untimed) before every run; alternates the two sides.
Row measure(const std::string& name, const std::string& size, int reps,
            const std::function<void()>& reset, const std::function<void()>& gen,
            const std::function<void()>& hand) {
  reset();
  gen();
  reset();
  hand();
  std::vector<double> g;
  std::vector<double> h;
  for (int r = 0; r < reps; ++r) {
    reset();
    g.push_back(time_ms(gen));
    reset();
    h.push_back(time_ms(hand));
  }
  return Row{name, size, median(g), median(h), true, ""};
}

// max |a - b| / max(1, |b|) over two float arrays.
double max_rel_diff(const float* a, const float* b, size_t n) {
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = std::fabs(static_cast<double>(a[i]) - b[i]) / std::max(1.0, std::fabs(double(b[i])));
    if (!(d <= worst)) {
      worst = std::isnan(d) ? INFINITY : d;
    }
  }
  return worst;
}

std::string describe_float_check(double rel, size_t n, bool bitwise) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%zu floats, %s, max rel diff %.2g", n,
                bitwise ? "bitwise equal" : "not bitwise equal", rel);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  const char* store_path = nullptr;
  bool quick = false;
  int reps = 11;
  int threads = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--threads" && i + 1 < argc) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else if (!arg.empty() && arg[0] != '-' && store_path == nullptr) {
      store_path = argv[i];
    } else {
      std::fprintf(stderr, "usage: qd_codegen_bench STORE [--quick] [--reps N] [--threads N]\n");
      return 2;
    }
  }
  if (store_path == nullptr) {
    std::fprintf(stderr, "usage: qd_codegen_bench STORE [--quick] [--reps N] [--threads N]\n");
    return 2;
  }
  if (quick && reps == 11) {
    reps = 3;
  }
  if (threads == 0) {
    const char* env = std::getenv("QDRT_NUM_THREADS");
    threads = env != nullptr && std::atoi(env) > 0
                  ? std::atoi(env)
                  : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  qdrt_open_options options{};
  options.struct_size = sizeof options;
  options.num_threads = threads;
  qdrt_store* store = nullptr;
  if (qdrt_open(store_path, &options, &store) != QDRT_OK) {
    die(std::string("qdrt_open ") + store_path + ": " + qdrt_last_error());
  }
  qdrt::ThreadPool pool(threads);

  const int64_t n1 = quick ? (1 << 20) : (1 << 24);    // saxpy, reduction, histogram
  const int64_t side = quick ? 1024 : 4096;            // stencil side
  const int64_t nmat = quick ? (1 << 17) : (1 << 21);  // 3x3 matrices
  const int32_t nbins = 1024;
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::printf("qd_codegen_bench: %d thread(s) on both sides, %d reps (median), %s sizes; load "
              "average %.2f %.2f %.2f\n",
              threads, reps, quick ? "quick" : "full", load[0], load[1], load[2]);

  std::vector<Row> rows;
  std::vector<Row> variants;
  std::vector<float> x(n1);
  fill(x, 1);

  // saxpy: y = a * x + y
  {
    qdrt_kernel* k = kernel(store, "saxpy");
    std::vector<float> y0(n1);
    fill(y0, 2);
    std::vector<float> yg(n1);
    std::vector<float> yh(n1);
    const float a = 1.5f;
    int64_t shape[1] = {n1};
    std::vector<qdrt_value> args = {qdrt_float_value(a),
                                    qdrt_array_value(QDRT_DTYPE_F32, x.data(), 1, shape),
                                    qdrt_array_value(QDRT_DTYPE_F32, yg.data(), 1, shape)};
    SaxpyArgs hargs{a, x.data(), yh.data()};
    yg = y0;
    yh = y0;
    launch(k, args);
    run_hand<saxpy_chunk>(pool, &hargs, n1);
    double rel = max_rel_diff(yg.data(), yh.data(), n1);
    bool bitwise = std::memcmp(yg.data(), yh.data(), n1 * sizeof(float)) == 0;
    // y grows by a * x per run: harmless for the timing, so no reset between runs.
    Row r = measure(
        "saxpy", std::to_string(n1) + " f32", reps, [] {}, [&] { launch(k, args); },
        [&] { run_hand<saxpy_chunk>(pool, &hargs, n1); });
    r.ok = rel <= 1e-6;
    r.check = describe_float_check(rel, n1, bitwise);
    rows.push_back(r);
  }

  // 5-point stencil over the interior of a side x side grid
  {
    qdrt_kernel* k = kernel(store, "stencil");
    const size_t cells = static_cast<size_t>(side * side);
    std::vector<float> u(cells);
    fill(u, 3);
    std::vector<float> og(cells, 0.0f);
    std::vector<float> oh(cells, 0.0f);
    int64_t shape[2] = {side, side};
    std::vector<qdrt_value> args = {qdrt_array_value(QDRT_DTYPE_F32, u.data(), 2, shape),
                                    qdrt_array_value(QDRT_DTYPE_F32, og.data(), 2, shape)};
    StencilArgs hargs{u.data(), oh.data(), side, side};
    const int64_t interior = (side - 2) * (side - 2);
    launch(k, args);
    run_hand<stencil_chunk>(pool, &hargs, interior);
    double rel = max_rel_diff(og.data(), oh.data(), cells);
    bool bitwise = std::memcmp(og.data(), oh.data(), cells * sizeof(float)) == 0;
    Row r = measure(
        "stencil", std::to_string(side) + "x" + std::to_string(side) + " f32", reps, [] {},
        [&] { launch(k, args); }, [&] { run_hand<stencil_chunk>(pool, &hargs, interior); });
    r.ok = rel <= 1e-6;
    r.check = describe_float_check(rel, cells, bitwise);
    rows.push_back(r);
    // Variant: codegen's scheme before c74b044 (by hand) against the hand-written loop.
    std::vector<float> od(cells, 0.0f);
    StencilArgs dargs{u.data(), od.data(), side, side};
    Row v = measure(
        "", "", std::max(1, reps / 3), [] {},
        [&] { run_hand<stencil_divmod_chunk>(pool, &dargs, interior); },
        [&] { run_hand<stencil_chunk>(pool, &hargs, interior); });
    v.name = "stencil, a div/mod per point (codegen before c74b044) vs row-wise, both by hand";
    v.ok = std::memcmp(od.data(), oh.data(), cells * sizeof(float)) == 0;
    v.check = v.ok ? "bitwise equal" : "DIFFERS";
    variants.push_back(v);
  }

  // reduction: total += x[i], returned as f32
  {
    qdrt_kernel* k = kernel(store, "reduce_sum");
    int64_t shape[1] = {n1};
    std::vector<qdrt_value> args = {qdrt_array_value(QDRT_DTYPE_F32, x.data(), 1, shape)};
    qdrt_value result{};
    float total = 0.0f;
    ReduceArgs hargs{x.data(), &total};
    double exact = 0;
    for (float v : x) {
      exact += v;
    }
    launch(k, args, &result);
    double gen_total = result.f;
    total = 0.0f;
    run_hand<reduce_chunk>(pool, &hargs, n1);
    double hand_total = total;
    // Both sum in f32 in an order the schedule decides; against the exact (f64) sum.
    double eg = std::fabs(gen_total - exact) / exact;
    double eh = std::fabs(hand_total - exact) / exact;
    Row r = measure(
        "reduction", std::to_string(n1) + " f32", reps, [] {}, [&] { launch(k, args, &result); },
        [&] {
          total = 0.0f;
          run_hand<reduce_chunk>(pool, &hargs, n1);
        });
    r.ok = result.kind == QDRT_VALUE_FLOAT && eg <= 1e-3 && eh <= 1e-3;
    char buf[160];
    std::snprintf(buf, sizeof buf, "sum %.6g vs %.6g (f64 %.6g; rel err %.1g vs %.1g)", gen_total,
                  hand_total, exact, eg, eh);
    r.check = buf;
    rows.push_back(r);
    // Evidence: the hand-written loop with the generated code's per-element atomic add.
    // Variant: codegen's scheme before c74b044 (by hand) against the hand-written loop.
    Row v = measure(
        "", "", std::max(1, reps / 3), [] {},
        [&] {
          total = 0.0f;
          run_hand<reduce_atomic_chunk>(pool, &hargs, n1);
        },
        [&] {
          total = 0.0f;
          run_hand<reduce_chunk>(pool, &hargs, n1);
        });
    v.name = "reduction, an atomic add per element (codegen before c74b044) vs one per chunk, "
             "both by hand";
    variants.push_back(v);
  }

  // per-element 3x3 matrix work: w = A v; mv = A^T w; det = det(A)
  {
    qdrt_kernel* k = kernel(store, "mat3_work");
    std::vector<float> m(nmat * 9);
    std::vector<float> v(nmat * 3);
    fill(m, 4);
    fill(v, 5);
    std::vector<float> mvg(nmat * 3, 0.0f);
    std::vector<float> mvh(nmat * 3, 0.0f);
    std::vector<float> dg(nmat, 0.0f);
    std::vector<float> dh(nmat, 0.0f);
    int64_t mshape[3] = {nmat, 3, 3};
    int64_t vshape[2] = {nmat, 3};
    int64_t dshape[1] = {nmat};
    std::vector<qdrt_value> args = {qdrt_array_value(QDRT_DTYPE_F32, m.data(), 3, mshape),
                                    qdrt_array_value(QDRT_DTYPE_F32, v.data(), 2, vshape),
                                    qdrt_array_value(QDRT_DTYPE_F32, mvg.data(), 2, vshape),
                                    qdrt_array_value(QDRT_DTYPE_F32, dg.data(), 1, dshape)};
    Mat3Args hargs{m.data(), v.data(), mvh.data(), dh.data()};
    launch(k, args);
    run_hand<mat3_chunk>(pool, &hargs, nmat);
    double rel = std::max(max_rel_diff(mvg.data(), mvh.data(), mvg.size()),
                          max_rel_diff(dg.data(), dh.data(), dg.size()));
    bool bitwise = std::memcmp(mvg.data(), mvh.data(), mvg.size() * 4) == 0 &&
                   std::memcmp(dg.data(), dh.data(), dg.size() * 4) == 0;
    Row r = measure(
        "mat3", std::to_string(nmat) + " mat3+vec3", reps, [] {}, [&] { launch(k, args); },
        [&] { run_hand<mat3_chunk>(pool, &hargs, nmat); });
    r.ok = rel <= 1e-5;
    r.check = describe_float_check(rel, mvg.size() + dg.size(), bitwise);
    rows.push_back(r);
  }

  // atomic histogram: bins[clamp(int(x * nb))] += 1
  {
    qdrt_kernel* k = kernel(store, "histogram");
    std::vector<int32_t> bg(nbins);
    std::vector<int32_t> bh(nbins);
    int64_t xshape[1] = {n1};
    int64_t bshape[1] = {nbins};
    std::vector<qdrt_value> args = {qdrt_array_value(QDRT_DTYPE_F32, x.data(), 1, xshape),
                                    qdrt_array_value(QDRT_DTYPE_I32, bg.data(), 1, bshape)};
    HistArgs hargs{x.data(), bh.data(), nbins};
    auto reset = [&] {
      std::fill(bg.begin(), bg.end(), 0);
      std::fill(bh.begin(), bh.end(), 0);
    };
    reset();
    launch(k, args);
    run_hand<hist_chunk>(pool, &hargs, n1);
    bool same = bg == bh;
    int64_t count = 0;
    for (int32_t c : bg) {
      count += c;
    }
    Row r = measure(
        "histogram", std::to_string(n1) + " f32, " + std::to_string(nbins) + " bins", reps, reset,
        [&] { launch(k, args); }, [&] { run_hand<hist_chunk>(pool, &hargs, n1); });
    r.ok = same && count == n1;
    r.check = std::string(same ? "bins equal" : "BINS DIFFER") + ", total " + std::to_string(count);
    rows.push_back(r);
  }

  qdrt_close(store);

  std::printf("\n%-10s %-26s %12s %12s %8s  %s\n", "kernel", "size", "generated ms", "hand ms",
              "ratio", "results");
  bool all_ok = true;
  double log_sum = 0;
  double worst = 0;
  std::string worst_name;
  for (const Row& r : rows) {
    double ratio = r.gen_ms / r.hand_ms;
    std::printf("%-10s %-26s %12.3f %12.3f %7.2fx  %s%s\n", r.name.c_str(), r.size.c_str(),
                r.gen_ms, r.hand_ms, ratio, r.ok ? "" : "MISMATCH: ", r.check.c_str());
    all_ok = all_ok && r.ok;
    log_sum += std::log(ratio);
    if (ratio > worst) {
      worst = ratio;
      worst_name = r.name;
    }
  }
  for (const Row& v : variants) {
    std::printf("  variant: %s: %.3f ms vs %.3f ms, ratio %.2fx%s%s\n", v.name.c_str(), v.gen_ms,
                v.hand_ms, v.gen_ms / v.hand_ms, v.check.empty() ? "" : "; ", v.check.c_str());
    all_ok = all_ok && v.ok;
  }
  int within_goal = 0;
  int within_limit = 0;
  for (const Row& r : rows) {
    within_goal += r.gen_ms / r.hand_ms <= 1.1;
    within_limit += r.gen_ms / r.hand_ms <= 1.5;
  }
  std::printf("summary: geometric mean ratio %.2fx, worst %.2fx (%s); %d/%zu within 1.1x (goal), "
              "%d/%zu within 1.5x (limit); results %s\n",
              std::exp(log_sum / rows.size()), worst, worst_name.c_str(), within_goal, rows.size(),
              within_limit, rows.size(), all_ok ? "match" : "DIFFER");
  return all_ok ? 0 : 1;
}
