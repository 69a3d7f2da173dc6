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

#include <cstdint>
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

// --- CUDA (docs/cuda.md) ------------------------------------------------------------------------
//
//   TaskUnit ──compile_cuda_task──▶ PTX text          (in-process Clang/LLVM NVPTX; cacheable)
//   PTX units ──link_cuda_module──▶ CUDA bundle        (nvJitLink in-process, or ptxas + nvlink)
//
// The units are the codegen's CUDA flavour (codegen::Options::cuda): plain C++ compiled for
// nvptx64-nvidia-cuda, entry points `extern "C" __attribute__((nvptx_kernel))`, math through
// libdevice (`__nv_*`), which is linked lazily (only what a unit calls) and internalised.

// The code generation configuration of a CUDA target. Part of every CUDA task key.
struct CudaTarget {
  unsigned arch = 90;          // sm_<arch>: 75, 80, 86, 87, 89 or 90 (LLVM 19 and CUDA 13 both)
  std::string ptx = "+ptx85";  // the PTX ISA, pinned in the front end and the target machine
  // On (Quadrants' default): approximate sqrt, division and libdevice functions, FMA contraction
  // across expressions, reassociation. Off: IEEE sqrt (sqrt.rn) and division (div.rn), contraction
  // within an expression only. Denormals are kept either way (no FTZ), as on the CPU.
  bool fast_math = true;
  unsigned opt_level = 3;  // 0..3
};

// "sm_90"; "ptx85" → "8.5" (the `.version` the PTX gets).
std::string cuda_arch_name(unsigned arch);
std::string cuda_ptx_version(const CudaTarget& target);
// Parses "cuda", "cuda:sm_90" or "sm_90" (arch 90); false if it is none of them.
bool parse_cuda_target(std::string_view text, CudaTarget& target);
// Empty if the target is supported, else why not.
std::string check_cuda_target(const CudaTarget& target);

// Everything besides the TU text that decides a CUDA task's PTX: LLVM version, triple, arch, PTX
// ISA, fast_math, opt level, the compiler flags, the embedded prelude and the libdevice digest.
std::string toolchain_id(const CudaTarget& target);
std::string task_key(std::string_view source, const CudaTarget& target);
std::vector<std::string> driver_arguments(const CudaTarget& target, std::string_view include_dir);

// The CUDA toolkit the backend uses: $QDBUILD_CUDA_PATH, else /usr/local/cuda.
std::string cuda_toolkit_path();
// <toolkit>/nvvm/libdevice/libdevice.10.bc, and the SHA-256 of its bytes ("none" if missing).
std::string libdevice_path();
const std::string& libdevice_digest();

struct TaskPtx {
  bool ok = false;
  std::string name;
  std::string key;  // task_key(source, target)
  std::string ptx;  // PTX text (no NUL), `.version` and `.target` as pinned (empty on failure)
  std::vector<Diagnostic> diagnostics;
};

// Compiles one TU to PTX (front end, libdevice link, NVVM reflection, O-level pipeline, NVPTX
// code generation). Thread-safe; same input → same bytes.
TaskPtx compile_cuda_task(const TaskUnit& task, const CudaTarget& target);

struct CudaModule {
  bool ok = false;
  std::string bundle;  // qdrt_cuda_bundle (task_abi.h): the cubin, then the merged PTX
  std::string linker;  // "nvJitLink 13.0" or "ptxas+nvlink": what made the cubin
  std::vector<Diagnostic> diagnostics;
};

// Merges the PTX units (in this order) into one PTX text (merge_ptx_units), assembles it into an
// sm_<arch> cubin and returns the bundle holding both: item 0 the cubin, item 1 the PTX, both for
// `arch`. nvJitLink in-process when libnvJitLink.so.13 can be loaded, else ptxas spawned
// ($QDBUILD_CUDA_LINKER=ptxas forces that). Thread-safe; same input → same bytes.
CudaModule link_cuda_module(const std::vector<std::string>& ptx_units, unsigned arch);

// One PTX text from several units of compile_cuda_task: one `.version`/`.target`/`.address_size`
// header (the units must agree), then every unit's body. Units never clash: their internal
// symbols carry a per-unit prefix and the entry points are distinct. "" with `error` on mismatch.
std::string merge_ptx_units(const std::vector<std::string>& units, std::string& error);

// The bundle format (task_abi.h), no LLVM needed.
struct CudaBundleItem {
  uint32_t kind = 0;  // QDRT_CUDA_ITEM_*
  uint32_t arch = 0;
  std::string bytes;  // PTX items: the text followed by one NUL (the NUL is part of the item)
};
std::string make_cuda_bundle(const std::vector<CudaBundleItem>& items);
// False with `error` set if `bundle` is not a well-formed bundle.
bool parse_cuda_bundle(std::string_view bundle, std::vector<CudaBundleItem>& items,
                       std::string& error);

// The TU that defines `qdrt_module_abi_version` (task_abi.h); every module links it once.
TaskUnit module_abi_unit();

}  // namespace qd::backend
