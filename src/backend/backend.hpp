// qd::backend: task translation units (C++ text) → x86-64 objects → one shared object per module,
// all in-process (Clang/LLVM 19 and lld; docs/backend.md). This header is the layer's whole
// public interface and includes no LLVM header, so its users do not compile against LLVM.
//
//   TaskUnit{name, source} ──compile_cpu_task──▶ object bytes   (cacheable under task_key)
//   objects ──link_cpu_module──▶ .so bytes                      (cheap; redone on every change)
//   compile_cpu_module = both, the compiles on a small thread pool.
//
// Same input, same options → byte-identical objects and shared object, on any thread, in any
// process. Nothing is printed: compiler and linker messages come back as Diagnostic values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace qd::backend {

// The code generation configuration of the CPU target. Part of every task key (toolchain_id).
struct CpuTarget {
  // LLVM CPU name: fixed by default so objects do not depend on the build machine's CPU.
  std::string cpu = "x86-64-v3";
  // Extra LLVM subtarget features, comma-separated ("+avx512f,-fma"); empty for the CPU's own.
  std::string features;
  // 0..3 (the new pass manager's O0..O3 pipelines; 3 is the product default).
  unsigned opt_level = 3;
};

struct Options {
  CpuTarget target;
  // Compile threads for compile_cpu_module (0: the machine's cores).
  unsigned threads = 0;
};

// One offload task: `name` identifies it in diagnostics only (object bytes never depend on it).
struct TaskUnit {
  std::string name;
  std::string source;
};

struct Diagnostic {
  enum class Severity { note, warning, error };
  Severity severity = Severity::error;
  std::string task;     // TaskUnit::name, or "" for setup and link messages
  std::string file;     // "qd_task.cpp" for the TU itself, "qd_prelude.hpp", ...; "" if none
  unsigned line = 0;    // 1-based; 0 when there is no source position
  unsigned column = 0;  // 1-based; 0 when there is no source position
  std::string message;
};

// "file:line:col: error: message" (parts without a position are left out).
std::string format_diagnostic(const Diagnostic& d);

// A stable description of everything besides the TU text that decides a task's object bytes:
// LLVM version, triple, CPU, features, opt level, the compiler flags and the embedded prelude.
std::string toolchain_id(const CpuTarget& target);

// The task key: 64 lowercase hex digits of SHA-256(toolchain_id(target), TU text), tagged.
std::string task_key(std::string_view source, const CpuTarget& target);

// The driver command line the in-process compiler is configured from (no input file), e.g. for
// comparing with a spawned clang++-19 or reproducing a compile by hand. `include_dir` is where the
// prelude headers are found (in-process: a virtual directory).
std::vector<std::string> driver_arguments(const CpuTarget& target, std::string_view include_dir);

struct TaskObject {
  bool ok = false;
  std::string name;
  std::string key;     // task_key(source, target)
  std::string object;  // ELF relocatable object bytes (empty on failure)
  std::vector<Diagnostic> diagnostics;
};

// Compiles one TU (front end, O-level pipeline, x86-64 code generation). Thread-safe.
TaskObject compile_cpu_task(const TaskUnit& task, const CpuTarget& target);

struct LinkedModule {
  bool ok = false;
  std::string so_bytes;  // ELF shared object bytes (empty on failure)
  std::vector<Diagnostic> diagnostics;
};

// Links objects (in this order) into a shared object with lld, together with compiler-rt's
// builtins and against libc/libm. Undefined symbols are link errors. Thread-safe (serialised:
// lld has global state).
LinkedModule link_cpu_module(const std::vector<std::string>& objects);

struct Result {
  bool ok = false;
  std::string so_bytes;
  std::vector<TaskObject> objects;      // one per task, in task order
  std::vector<Diagnostic> diagnostics;  // every task's diagnostics, then the link's
};

// compile_cpu_task for every task (on options.threads threads), then link_cpu_module if all
// compiled. Results do not depend on the thread count.
Result compile_cpu_module(const std::vector<TaskUnit>& tasks, const Options& options);

// The TU that defines `qdrt_module_abi_version` (task_abi.h); every module links it once.
TaskUnit module_abi_unit();

}  // namespace qd::backend
