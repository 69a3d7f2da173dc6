// The runtime's model of an opened store: kernels by id, their instances (one index entry each on
// the CPU target) with parsed launch metadata, the loaded modules (each distinct module object
// once per store) and the thread pool.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "cuda_launch.hpp"
#include "module.hpp"
#include "qdrt/task_abi.h"
#include "random_states.hpp"
#include "store_file.hpp"
#include "thread_pool.hpp"

namespace qdrt {

inline constexpr std::string_view k_cpu_target = "cpu";
inline constexpr std::string_view k_whole_suffix = "+whole";

// Names and strings of the tables point into the store's index (mapped for the store's life;
// not NUL-terminated): a 1,000-kernel eager open builds every table, and each heap string is
// memory the process faults in (docs/runtime.md, start time).
struct TaskInfo {
  std::string_view name;
  uint32_t kind = QDRT_TASK_RANGE;
  qdrt_task_launch launch{};
  qdrt_task_fn fn = nullptr;
  qdrt_extent_fn extent = nullptr;
  // The graph loops that end after this task (launch metadata version 5), innermost first.
  std::vector<qdrt_task_loop_end> loop_ends;
};

struct ArgInfo {
  std::string_view name;
  qdrt_index_argument index{};
  // QDRT_ARG_FIELD: the fixed shape (outer extents, then element dims) and byte strides.
  int64_t field_shape[QDRT_MAX_NDIM] = {};
  int64_t field_strides[QDRT_MAX_NDIM] = {};
};

class Store;

struct Instance {
  uint32_t entry = 0;
  std::string_view instance;  // canonical instance string
  std::string_view target;
  std::map<std::string, std::string, std::less<>> params;  // parsed from `instance`
  std::vector<ArgInfo> args;                               // parameter order
  size_t passed = 0;                                       // arguments passed to the code
  std::vector<TaskInfo> tasks;
  uint64_t temps_size = 0;
  uint32_t result_dtype = QDRT_DTYPE_NONE;
  uint32_t result_size = 0;
  bool prints = false;       // a task carries QDRT_LAUNCH_PRINTS: stdout is flushed after a launch
  bool random = false;       // a task carries QDRT_LAUNCH_RANDOM: it draws from RandomStates
  bool graph_loops = false;  // a task ends qd.graph.do_while loops (launch metadata version 5)
  uint32_t module_object = QDRT_NO_OBJECT;
  Instance* whole = nullptr;  // the "+whole" variant of the same instance, if built

  std::mutex load_mutex;
  std::atomic<bool> ready{false};
};

struct Kernel {
  Kernel(Store* s, const std::string& kernel_id) : store(s), id(kernel_id), serial(next_serial()) {}
  Store* store;
  const std::string& id;                                  // the store's kernel_ids() entry
  std::vector<std::unique_ptr<Instance>> instances;       // target "cpu"
  std::vector<std::unique_ptr<Instance>> wholes;          // target "cpu+whole"
  std::vector<std::unique_ptr<Instance>> cuda_instances;  // targets "cuda:..." (cuda_launch.cpp)
  std::vector<std::string> other_targets;
  std::atomic<uint64_t> launches{0};
  std::atomic<uint64_t> fallbacks{0};
  std::atomic<Instance*> last{nullptr};
  std::atomic<bool> warned{false};
  // Unique in the process: a prepared launch knows its Kernel by it (a hot reload may free a
  // Kernel and a later one take its address).
  const uint64_t serial;

  static uint64_t next_serial() {
    static std::atomic<uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
  }
};

struct OpenOptions {
  bool lazy = false;
  int threads = 0;  // <= 0: QDRT_NUM_THREADS, else all cores
  // qd.random's states, shared by every generation of a watched store (made by open() if null).
  std::shared_ptr<RandomStates> random;
};

class Store {
public:
  Status open(const std::string& path, const OpenOptions& options);

  const std::vector<std::string>& kernel_ids() const { return m_ids; }
  // Resolves (and on first use builds) a kernel.
  Status kernel(std::string_view id, Kernel*& out);
  Status kernel_at(size_t id_index, Kernel*& out);  // by position in kernel_ids()
  // Loads the instance's module and resolves its tasks (once; thread-safe).
  Status ensure_loaded(Instance& instance);
  // Whether a module object is loaded (thread-safe).
  bool module_loaded(uint32_t object);
  ThreadPool& pool();
  RandomStates& random() { return *m_options.random; }
  const StoreFile& file() const { return m_file; }
  // An object's address (64 hex digits), for messages and observations.
  std::string object_hex(uint32_t object) const { return m_file.object_hex(object); }
  // A NUL-terminated copy of `s` that lives as long as the store (strings of the C API).
  const char* intern(std::string_view s);
  CudaState& cuda_state();  // cuda_launch.cpp

private:
  Status build_kernel(size_t id_index, std::unique_ptr<Kernel>& out);
  Status build_instance(uint32_t entry, Instance& out);
  Status load_module(uint32_t object, Module*& out);
  // Eager open: helper threads stage the CPU modules (read, verify, decompress, memfd) while
  // this thread builds the kernel tables, then dlopens them as they are staged.
  Status open_eager();

  StoreFile m_file;
  OpenOptions m_options;
  std::vector<std::string> m_ids;
  std::vector<uint32_t> m_first_entry;  // per id
  std::vector<uint32_t> m_entry_count;  // per id
  std::mutex m_kernels_mutex;
  std::vector<std::unique_ptr<Kernel>> m_kernels;  // per id, built on first use
  std::mutex m_modules_mutex;
  std::map<uint32_t, std::unique_ptr<Module>> m_modules;
  std::mutex m_intern_mutex;
  std::set<std::string, std::less<>> m_interned;
  std::once_flag m_pool_once;
  std::unique_ptr<ThreadPool> m_pool;
  std::once_flag m_cuda_once;
  std::unique_ptr<CudaState, CudaStateDeleter> m_cuda;
};

// Splits a canonical instance string "a=ndarray(f32, 1), k=3" into its top-level name=value
// parts (commas inside brackets and quotes do not split).
std::map<std::string, std::string, std::less<>> parse_instance(std::string_view instance);
// A Python-style repr of a template value passed as an argument ("3", "0.5", "True", text).
std::string template_repr(const qdrt_value& v);
// Thread count from the option, QDRT_NUM_THREADS, or the number of cores.
int resolve_threads(int requested);

// Runs a launch (launch.cpp): on the CPU instances, or with `cuda` on the CUDA instances (array
// values already mapped to QDRT_VALUE_ARRAY; launch_routed in cuda_launch.cpp does that).
Status launch(Kernel& kernel, const qdrt_value* args, size_t count, qdrt_value* result,
              const CudaLaunch* cuda = nullptr);

// A launch whose instance is selected and whose arguments are bound and checked once
// (qdrt_prepare; BoundLaunch in cuda_launch.hpp): run_bound() then runs the tasks with no
// per-argument work. It refers to the kernel and its instance, not to the argument values
// (copied into it); the memory the arrays name must stay where it is.
Status bind_launch(Kernel& kernel, const qdrt_value* args, size_t count, const CudaLaunch* cuda,
                   BoundLaunchPtr& out);
Status run_bound(const BoundLaunch& bound, qdrt_value* result);

}  // namespace qdrt
