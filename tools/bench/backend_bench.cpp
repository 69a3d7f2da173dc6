// qd_backend_bench: the in-process backend (Clang + LLVM + lld, src/backend) against spawning
// `clang++-19 -O3 -c` on the same TUs with the same flags, in the same run.
//
//   qd_backend_bench [--reps N] [--quick]
//
// Reported per TU: the first in-process compile (the very first also pays LLVM's target set-up
// and the driver invocation), the warm mean, the spawned clang++-19 mean, their ratio, and whether
// the two objects are byte-identical; then the module link (first, warm), and the throughput of
// compile_cpu_module on 1 and 2 threads. Prints numbers, asserts nothing (exit 3 on a failure to
// compile or spawn).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/prelude_files.hpp"
#include "spawned_clang.hpp"

namespace fs = std::filesystem;
using namespace qd::backend;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// User + system CPU time of this process so far, in ms.
double cpu_ms() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
}

// Current resident set size of this process, in MB (/proc/self/statm).
double rss_mb() {
  long pages = 0;
  long resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) {
      resident = 0;
    }
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

// Voluntary (blocked: locks, I/O) and involuntary (preempted) context switches so far.
std::pair<long, long> context_switches() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return {usage.ru_nvcsw, usage.ru_nivcsw};
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "qd_backend_bench: error: %s\n", message.c_str());
  std::exit(3);
}

// Representative task TUs, written the way codegen will write them (prelude, one task each).
std::vector<TaskUnit> bench_units() {
  return {
      {"saxpy", R"(#include "qd_prelude.hpp"
// y[i] = a * x[i] + y[i]
QD_TASK void saxpy(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  const qd::f32 a = qd::arg_scalar<qd::f32>(ctx, 0);
  const qd::f32* x = qd::array_data<qd::f32>(qd::arg_array(ctx, 1));
  qd::f32* y = qd::array_data<qd::f32>(qd::arg_array(ctx, 2));
  for (int64_t i = begin; i < end; ++i) {
    y[i] = a * x[i] + y[i];
  }
}
QD_TASK int64_t saxpy__extent(const qdrt_launch_context* ctx) {
  return qd::arg_array(ctx, 1)->shape[0];
}
)"},
      {"stencil2d", R"(#include "qd_prelude.hpp"
// for i, j in ndrange((1, n - 1), (1, m - 1)): out[i, j] = 0.25 * (4 neighbours) - u[i, j]
QD_TASK void stencil2d(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  const qdrt_array* ua = qd::arg_array(ctx, 0);
  const qd::f32* u = qd::array_data<qd::f32>(ua);
  qd::f32* out = qd::array_data<qd::f32>(qd::arg_array(ctx, 1));
  const int64_t m = ua->shape[1];
  for (int64_t k = begin; k < end; ++k) {
    const int64_t i = 1 + k / (m - 2);
    const int64_t j = 1 + k % (m - 2);
    const qd::f32 v0 = u[(i - 1) * m + j];
    const qd::f32 v1 = u[(i + 1) * m + j];
    const qd::f32 v2 = u[i * m + j - 1];
    const qd::f32 v3 = u[i * m + j + 1];
    out[i * m + j] = qd::f32(0.25) * (v0 + v1 + v2 + v3) - u[i * m + j];
  }
}
QD_TASK int64_t stencil2d__extent(const qdrt_launch_context* ctx) {
  const qdrt_array* ua = qd::arg_array(ctx, 0);
  return (ua->shape[0] - 2) * (ua->shape[1] - 2);
}
)"},
      {"reduce", R"(#include "qd_prelude.hpp"
// for i in x: total += x[i] * x[i]   (kernel-scope reduction into the temporaries)
QD_TASK void reduce(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  const qd::f32* x = qd::array_data<qd::f32>(qd::arg_array(ctx, 0));
  qd::f32 partial = 0;
  for (int64_t i = begin; i < end; ++i) {
    partial += x[i] * x[i];
  }
  qd::atomic_add(qd::temp<qd::f32>(ctx, 0), partial);
}
QD_TASK int64_t reduce__extent(const qdrt_launch_context* ctx) {
  return qd::arg_array(ctx, 0)->shape[0];
}
)"},
      {"mat3", R"(#include "qd_prelude.hpp"
// per element: M = A[i] @ A[i]^T + I; out[i] = det(M) * sqrt(trace(M))
namespace {
struct Mat3 {
  qd::f32 m[3][3];
};
Mat3 mul_transpose(const Mat3& a) {
  Mat3 r{};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      qd::f32 s = 0;
      for (int k = 0; k < 3; ++k) {
        s += a.m[i][k] * a.m[j][k];
      }
      r.m[i][j] = s + (i == j ? qd::f32(1) : qd::f32(0));
    }
  }
  return r;
}
qd::f32 det(const Mat3& a) {
  return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
         a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
         a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
}  // namespace
QD_TASK void mat3(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  const Mat3* a = qd::array_data<Mat3>(qd::arg_array(ctx, 0));
  qd::f32* out = qd::array_data<qd::f32>(qd::arg_array(ctx, 1));
  for (int64_t i = begin; i < end; ++i) {
    Mat3 m = mul_transpose(a[i]);
    out[i] = det(m) * qd::sqrt(m.m[0][0] + m.m[1][1] + m.m[2][2]);
  }
}
QD_TASK int64_t mat3__extent(const qdrt_launch_context* ctx) {
  return qd::arg_array(ctx, 0)->shape[0];
}
)"},
      {"histogram", R"(#include "qd_prelude.hpp"
// for i in x: hist[clamp(int(x[i] * bins), 0, bins - 1)] += 1   (atomic)
QD_TASK void histogram(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  const qd::f32* x = qd::array_data<qd::f32>(qd::arg_array(ctx, 0));
  const qdrt_array* ha = qd::arg_array(ctx, 1);
  qd::i32* hist = qd::array_data<qd::i32>(ha);
  const int64_t bins = ha->shape[0];
  for (int64_t i = begin; i < end; ++i) {
    int64_t b = int64_t(qd::floor(x[i] * qd::f32(bins)));
    b = b < 0 ? 0 : (b >= bins ? bins - 1 : b);
    qd::atomic_add(&hist[b], qd::i32(1));
  }
}
QD_TASK int64_t histogram__extent(const qdrt_launch_context* ctx) {
  return qd::arg_array(ctx, 0)->shape[0];
}
)"},
  };
}

TaskObject compile_or_die(const TaskUnit& unit, const CpuTarget& target) {
  TaskObject object = compile_cpu_task(unit, target);
  if (!object.ok) {
    std::string text;
    for (const Diagnostic& d : object.diagnostics) {
      text += "\n  " + format_diagnostic(d);
    }
    die("cannot compile " + unit.name + ":" + text);
  }
  return object;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 10;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--quick") {
      reps = 3;
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: qd_backend_bench [--reps N] [--quick]\n");
      return 2;
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const CpuTarget target;
  std::vector<TaskUnit> units = bench_units();

  // The spawned baseline: clang++-19 with the same flags, one directory per TU.
  qdbench::SpawnedClang spawned("qd-backend-bench", target, units);

  std::printf("qd_backend_bench: %zu TUs, %d reps, target %s O%u (%s)\n", units.size(), reps,
              target.cpu.c_str(), target.opt_level, toolchain_id(target).substr(0, 40).c_str());
  std::printf("%-10s %6s %10s %10s %12s %7s %10s\n", "task", "bytes", "first ms", "warm ms",
              "spawned ms", "ratio", "same .o");
  std::vector<std::string> objects;
  compile_or_die(module_abi_unit(), target);  // not timed: the rows below start after set-up
  double rss_start = rss_mb();
  int compiles = 0;
  double warm_total = 0;
  double spawn_total = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    const TaskUnit& unit = units[u];
    auto t0 = Clock::now();
    TaskObject first = compile_or_die(unit, target);
    double first_ms = ms_since(t0);
    t0 = Clock::now();
    for (int r = 0; r < reps; ++r) {
      compile_or_die(unit, target);
    }
    double warm_ms = ms_since(t0) / reps;
    compiles += reps + 1;

    spawned.run(u);  // once untimed: page cache
    t0 = Clock::now();
    for (int r = 0; r < reps; ++r) {
      spawned.run(u);
    }
    double spawn_ms = ms_since(t0) / reps;
    bool same = spawned.object(u) == first.object;

    std::printf("%-10s %6zu %10.2f %10.2f %12.2f %6.1fx %10s\n", unit.name.c_str(),
                first.object.size(), first_ms, warm_ms, spawn_ms, spawn_ms / warm_ms,
                same ? "yes" : "NO");
    objects.push_back(first.object);
    warm_total += warm_ms;
    spawn_total += spawn_ms;
  }
  std::printf("%-10s %6s %10s %10.2f %12.2f %6.1fx\n", "mean", "", "", warm_total / units.size(),
              spawn_total / units.size(), spawn_total / warm_total);

  std::printf("RSS: %.1f MB after set-up, %.1f MB after %d more compiles\n", rss_start, rss_mb(),
              compiles);
  objects.push_back(compile_or_die(module_abi_unit(), target).object);
  auto t0 = Clock::now();
  LinkedModule linked = link_cpu_module(objects);
  double link_first = ms_since(t0);
  if (!linked.ok) {
    die("link failed");
  }
  t0 = Clock::now();
  for (int r = 0; r < reps * 5; ++r) {
    link_cpu_module(objects);
  }
  double link_warm = ms_since(t0) / (reps * 5);
  std::printf("link (lld in-process, %zu objects -> %zu-byte .so): first %.2f ms, warm %.2f ms\n",
              objects.size(), linked.so_bytes.size(), link_first, link_warm);

  // Module throughput: every TU `copies` times, renamed, on 1 and 2 threads.
  const int copies = std::max(2, reps / 2);
  std::vector<TaskUnit> many;
  for (int c = 0; c < copies; ++c) {
    for (const TaskUnit& unit : units) {
      // Distinct sources and symbols (one module cannot define a task twice).
      std::string name = unit.name + "_" + std::to_string(c);
      std::string source = unit.source;
      for (size_t at = source.find(unit.name); at != std::string::npos;
           at = source.find(unit.name, at + name.size())) {
        source.replace(at, unit.name.size(), name);
      }
      many.push_back({name, source});
    }
  }
  for (unsigned threads : {1u, 2u}) {
    Options options;
    options.threads = threads;
    t0 = Clock::now();
    double cpu0 = cpu_ms();
    auto switches0 = context_switches();
    Result r = compile_cpu_module(many, options);
    double total = ms_since(t0);
    double cpu = cpu_ms() - cpu0;
    auto switches = context_switches();
    if (!r.ok) {
      std::string text;
      for (const Diagnostic& d : r.diagnostics) {
        text += "\n  " + format_diagnostic(d);
      }
      die("compile_cpu_module failed:" + text);
    }
    std::printf("compile_cpu_module, %zu TUs + link on %u thread(s): %.1f ms, %.2f ms per TU, "
                "%.0f TUs/s; CPU %.0f%% of wall, context switches %ld blocked / %ld preempted\n",
                many.size(), threads, total, total / many.size(), 1000.0 * many.size() / total,
                100.0 * cpu / total, switches.first - switches0.first,
                switches.second - switches0.second);
  }
  std::printf("spawned clang++-19 -c on 1 thread: %.0f TUs/s\n",
              1000.0 * units.size() / spawn_total);
  return 0;
}
