// qd_compile_bench: compile throughput of the in-process backend (qd::backend::compile_cpu_task on
// J threads) against spawning `clang++-19 -c` per unit with the same driver flags
// (qd::backend::driver_arguments) and the same parallelism (J children at a time), on the task
// units of a corpus as codegen writes them. scripts/bench/compile_bench.py makes the units with
// `qd_codegen_dump PATH --no-ir` and adds the end-to-end `qdbuild build` cold number.
//
//   qd_compile_bench DUMP... [--jobs J] [--reps R]
//
// DUMP: qd_codegen_dump output; every `--- unit N` section is one TU; identical TUs are compiled
// once (as qdbuild's task keys do). Reported: the first in-process pass of this process (cold: it
// includes LLVM's target set-up and the driver invocation), the median of R warm in-process passes,
// the median of R spawned passes (after one untimed spawn that warms the page cache), tasks/s for
// each and the ratios; whether each in-process object equals the spawned one byte for byte. The
// last line is one JSON object. Prints numbers, asserts nothing (exit 3 on a failure).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "backend/backend.hpp"
#include "backend/prelude_files.hpp"
#include "spawned_clang.hpp"

namespace fs = std::filesystem;
using namespace qd::backend;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time (user + system) in seconds of this process (RUSAGE_SELF) or of its waited-for children.
double cpu_seconds(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "qd_compile_bench: error: %s\n", message.c_str());
  std::exit(3);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    die("cannot read " + path.string());
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The `--- unit N` sections of a qd_codegen_dump output; a section ends at the next `--- unit`,
// `=== ` (next instance) or `task ` line (a unit's text starts with "// Generated").
void parse_dump(const std::string& text, std::vector<std::string>& units) {
  std::istringstream in(text);
  std::string line;
  std::string current;
  bool inside = false;
  auto flush = [&] {
    if (inside && !current.empty()) {
      units.push_back(current);
    }
    current.clear();
    inside = false;
  };
  while (std::getline(in, line)) {
    if (line.rfind("--- unit ", 0) == 0) {
      flush();
      inside = true;
      continue;
    }
    if (line.rfind("=== ", 0) == 0 || (line.rfind("task qd_", 0) == 0)) {
      flush();
      continue;
    }
    if (inside) {
      current += line;
      current += '\n';
    }
  }
  flush();
}

// Runs `count` jobs on `jobs` threads; job(i) for each i.
template <class F> void parallel(size_t count, unsigned jobs, F&& job) {
  std::atomic<size_t> next{0};
  auto loop = [&] {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      job(i);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) {
    threads.emplace_back(loop);
  }
  loop();
  for (std::thread& t : threads) {
    t.join();
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  unsigned jobs = 2;
  int reps = 3;
  std::vector<std::string> dumps;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--jobs" || arg == "-j") && i + 1 < argc) {
      jobs = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (!arg.empty() && arg[0] != '-') {
      dumps.push_back(arg);
    } else {
      std::fprintf(stderr, "usage: qd_compile_bench DUMP... [--jobs J] [--reps R]\n");
      return 2;
    }
  }
  if (dumps.empty()) {
    std::fprintf(stderr, "usage: qd_compile_bench DUMP... [--jobs J] [--reps R]\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  std::vector<std::string> all;
  for (const std::string& d : dumps) {
    parse_dump(read_file(d), all);
  }
  std::vector<TaskUnit> units;
  std::set<std::string> seen;
  size_t bytes = 0;
  for (const std::string& s : all) {
    if (seen.insert(s).second) {
      units.push_back({"unit" + std::to_string(units.size()), s});
      bytes += s.size();
    }
  }
  if (units.empty()) {
    die("no `--- unit` sections in the dump(s)");
  }
  const CpuTarget target;
  std::printf("qd_compile_bench: %zu distinct units (%zu in the dumps, %.1f KB of C++), %u jobs, "
              "%d reps, target %s O%u\n",
              units.size(), all.size(), bytes / 1024.0, jobs, reps, target.cpu.c_str(),
              target.opt_level);

  // In-process: the first pass of this process is the cold one.
  std::vector<std::string> objects(units.size());
  std::atomic<int> failures{0};
  auto in_process_pass = [&] {
    double c0 = cpu_seconds(RUSAGE_SELF);
    auto t0 = Clock::now();
    parallel(units.size(), jobs, [&](size_t i) {
      TaskObject o = compile_cpu_task(units[i], target);
      if (!o.ok) {
        std::string text;
        for (const Diagnostic& d : o.diagnostics) {
          text += "\n  " + format_diagnostic(d);
        }
        std::fprintf(stderr, "qd_compile_bench: unit %zu failed:%s\n", i, text.c_str());
        ++failures;
      }
      objects[i] = std::move(o.object);
    });
    double wall = seconds_since(t0);
    return std::pair{wall, cpu_seconds(RUSAGE_SELF) - c0};
  };
  auto [cold_s, cold_cpu] = in_process_pass();
  if (failures > 0) {
    die("in-process compiles failed");
  }
  std::vector<double> warm;
  std::vector<double> warm_cpu;
  for (int r = 0; r < reps; ++r) {
    auto [wall, cpu] = in_process_pass();
    warm.push_back(wall);
    warm_cpu.push_back(cpu);
  }

  // Spawned: clang++-19 with the same flags, one directory per unit.
  qdbench::SpawnedClang spawned_clang("qd-compile-bench", target, units);
  spawned_clang.run(0);  // untimed: page cache
  auto spawned_pass = [&] {
    double c0 = cpu_seconds(RUSAGE_CHILDREN);
    auto t0 = Clock::now();
    size_t next = 0;
    size_t running = 0;
    while (next < units.size() || running > 0) {
      while (running < jobs && next < units.size()) {
        spawned_clang.start(next);
        ++next;
        ++running;
      }
      int status = 0;
      pid_t pid = wait(&status);
      if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        die("a spawned clang++-19 failed");
      }
      --running;
    }
    double wall = seconds_since(t0);
    return std::pair{wall, cpu_seconds(RUSAGE_CHILDREN) - c0};
  };
  std::vector<double> spawned;
  std::vector<double> spawned_cpu;
  for (int r = 0; r < reps; ++r) {
    auto [wall, cpu] = spawned_pass();
    spawned.push_back(wall);
    spawned_cpu.push_back(cpu);
  }
  size_t same = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    same += spawned_clang.object(i) == objects[i];
  }

  const double n = static_cast<double>(units.size());
  const double warm_s = median(warm);
  const double spawn_s = median(spawned);
  const double warm_c = median(warm_cpu);
  const double spawn_c = median(spawned_cpu);
  std::printf("%-46s %8s %8s %8s %11s\n", "", "wall s", "ms/task", "tasks/s", "CPU ms/task");
  auto row = [&](const char* what, double s, double cpu) {
    std::printf("%-46s %8.3f %8.2f %8.1f %11.2f\n", what, s, 1000.0 * s / n, n / s,
                1000.0 * cpu / n);
  };
  row("in-process, cold (first pass of the process)", cold_s, cold_cpu);
  row("in-process, warm (median)", warm_s, warm_c);
  row("spawned clang++-19 -c (median)", spawn_s, spawn_c);
  std::printf("in-process vs spawned, tasks/s: cold %.2fx, warm %.2fx faster (CPU per task: "
              "%.2fx less); objects byte-identical: %zu/%zu\n",
              spawn_s / cold_s, spawn_s / warm_s, spawn_c / warm_c, same, units.size());
  std::printf("{\"units\": %zu, \"jobs\": %u, \"cold_s\": %.4f, \"warm_s\": %.4f, \"spawned_s\": "
              "%.4f, \"cold_cpu_s\": %.4f, \"warm_cpu_s\": %.4f, \"spawned_cpu_s\": %.4f, "
              "\"identical\": %zu}\n",
              units.size(), jobs, cold_s, warm_s, spawn_s, cold_cpu, warm_c, spawn_c, same);
  return 0;
}
