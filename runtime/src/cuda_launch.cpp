#include "cuda_launch.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "cuda_bundle.hpp"
#include "cuda_driver.hpp"
#include "cuda_graph.hpp"
#include "cuda_random.hpp"
#include "store.hpp"

namespace qdrt {

using namespace qdrt::cuda;

namespace {

constexpr uint32_t k_default_block = 128;
constexpr uint32_t k_max_block = 1024;
constexpr size_t k_jit_log = 8192;

struct Bundle {
  Status status;  // a damaged bundle fails every launch with the same message
  std::string bytes;
  std::vector<BundleImage> images;
};

// The return value in `res` (result_size bytes of dtype `d`) as a qdrt_value.
void decode_result(uint32_t d, const unsigned char* res, qdrt_value* out) {
  *out = qdrt_value{};
  out->dtype = d;
  if (d == QDRT_DTYPE_NONE) {
    out->kind = QDRT_VALUE_NONE;
    return;
  }
  uint64_t bits = 0;
  std::memcpy(&bits, res, dtype_size(d));
  if (d == QDRT_DTYPE_F64) {
    out->kind = QDRT_VALUE_FLOAT;
    std::memcpy(&out->f, &bits, 8);
  } else if (d == QDRT_DTYPE_F32) {
    float x;
    std::memcpy(&x, &bits, 4);
    out->kind = QDRT_VALUE_FLOAT;
    out->f = x;
  } else if (d == QDRT_DTYPE_F16) {
    out->kind = QDRT_VALUE_FLOAT;
    out->f = half_to_double(static_cast<uint16_t>(bits));
  } else {
    out->kind = d == QDRT_DTYPE_U1 ? QDRT_VALUE_BOOL : QDRT_VALUE_INT;
    unsigned shift = 64 - 8 * dtype_size(d);
    out->i = dtype_is_signed(d) && shift > 0
                 ? static_cast<int64_t>(bits << shift) >> shift  // sign-extend
                 : static_cast<int64_t>(bits);
  }
}

}  // namespace

std::string kernel_what(const Kernel& k, const Instance& inst) {
  return "kernel '" + k.id + "' instance '" + std::string(inst.instance) + "' (" +
         std::string(inst.target) + ")";
}

struct CudaState {
  std::mutex mutex;
  std::map<uint32_t, std::unique_ptr<Bundle>> bundles;         // by object
  std::map<std::pair<CUcontext, uint32_t>, CUmodule> modules;  // by ctx, object
  std::map<std::pair<CUcontext, const Instance*>, std::vector<LoadedTask>> tasks;
  std::unique_ptr<GraphCache> graphs = std::make_unique<GraphCache>();

  ~CudaState() {
    graphs.reset();  // its graphs launch the modules' functions
    const Driver* d = nullptr;
    if (modules.empty() || !load_driver(d).ok()) {
      return;
    }
    for (auto& [key, module] : modules) {
      // The context may be gone (destroyed by the app): then its modules went with it.
      if (d->cuCtxPushCurrent(key.first) == CUDA_SUCCESS) {
        d->cuModuleUnload(module);
        CUcontext popped = nullptr;
        d->cuCtxPopCurrent(&popped);
      }
    }
  }
};

void CudaStateDeleter::operator()(CudaState* state) const { delete state; }

CudaState& Store::cuda_state() {
  std::call_once(m_cuda_once, [this] { m_cuda.reset(new CudaState); });
  return *m_cuda;
}

namespace {

// The parsed bundle of an object (read and checked once; the driver is not needed).
const Bundle& bundle_of(Store& store, CudaState& state, const Instance& inst) {
  std::lock_guard<std::mutex> lock(state.mutex);
  auto& slot = state.bundles[inst.module_object];
  if (!slot) {
    slot = std::make_unique<Bundle>();
    slot->status = store.file().read_object(inst.module_object, slot->bytes);
    if (slot->status.ok()) {
      slot->status = parse_bundle(slot->bytes, store.object_hex(inst.module_object), slot->images);
    }
  }
  return *slot;
}

// Loads the module of `bundle` into the current context (trying the images select_images
// returns, best first).
Status load_module(const Driver& d, const Device& dev, const Bundle& bundle,
                   const std::string& what, const std::string& object_hex, CUmodule& out) {
  std::vector<const BundleImage*> picks = select_images(bundle.images, dev.arch);
  if (picks.empty()) {
    return Status::error(QDRT_ERROR_LOAD,
                         what + ": CUDA bundle " + object_hex +
                             " has no code for this device (sm_" + std::to_string(dev.arch) +
                             "): it holds " + describe_images(bundle.images) +
                             " (rebuild with --target cuda:sm_" + std::to_string(dev.arch) + ")");
  }
  std::string failures;
  for (const BundleImage* im : picks) {
    // An aligned copy: the driver reads the ELF in place.
    std::vector<uint64_t> image((im->bytes.size() + 7) / 8);
    std::memcpy(image.data(), im->bytes.data(), im->bytes.size());
    std::vector<char> log(k_jit_log, '\0');
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log.data(), reinterpret_cast<void*>(uintptr_t{k_jit_log - 1})};
    bool ptx = im->kind == QDRT_CUDA_ITEM_PTX;
    CUresult r = d.cuModuleLoadDataEx(&out, image.data(), 2, opts, vals);
    std::string which = std::string(ptx ? "PTX sm_" : "cubin sm_") + std::to_string(im->arch);
    if (r == CUDA_SUCCESS) {
      log_debug("CUDA bundle %s: loaded %s on sm_%u%s", object_hex.c_str(), which.c_str(), dev.arch,
                ptx ? " (JIT)" : "");
      return {};
    }
    Status s = call_error(d, which, "cuModuleLoadDataEx", r);
    failures += "\n  " + s.message;
    if (log[0] != '\0') {
      failures += "\n    " + std::string(log.data()).substr(0, 2000);
    }
  }
  return Status::error(QDRT_ERROR_CUDA, what + ": cannot load CUDA bundle " + object_hex +
                                            " on sm_" + std::to_string(dev.arch) + ":" + failures);
}

// The instance's functions in the current context (module loaded and tasks resolved once; an
// instance that draws qd.random also points its module at `rand_states`, the context's device
// states, which stay where they are for the context's life).
Status tasks_of(const Driver& d, const ContextScope& scope, CudaState& state, const Bundle& bundle,
                Kernel& k, Instance& inst, CUdeviceptr rand_states,
                const std::vector<LoadedTask>*& out) {
  std::lock_guard<std::mutex> lock(state.mutex);
  auto key = std::make_pair(scope.context(), static_cast<const Instance*>(&inst));
  if (auto it = state.tasks.find(key); it != state.tasks.end()) {
    out = &it->second;
    return {};
  }
  std::string what = kernel_what(k, inst);
  CUmodule& module = state.modules[{scope.context(), inst.module_object}];
  if (module == nullptr) {
    if (Status s = load_module(d, scope.device(), bundle, what,
                               k.store->object_hex(inst.module_object), module);
        !s.ok()) {
      state.modules.erase({scope.context(), inst.module_object});
      return s;
    }
  }
  if (inst.random) {
    if (Status s = point_module(d, module, rand_states, what); !s.ok()) {
      return s;
    }
  }
  const Device& dev = scope.device();
  std::vector<LoadedTask> tasks;
  for (const TaskInfo& t : inst.tasks) {
    LoadedTask lt;
    std::string name(t.name);  // NUL-terminated (the index's is not)
    if (CUresult r = d.cuModuleGetFunction(&lt.fn, module, name.c_str()); r != CUDA_SUCCESS) {
      return Status::error(QDRT_ERROR_LOAD,
                           what + ": CUDA bundle " + k.store->object_hex(inst.module_object) +
                               " has no task '" + name +
                               "' (cuModuleGetFunction: " + result_name(&d, r) + ")");
    }
    if (t.kind == QDRT_TASK_RANGE) {
      uint32_t block = t.launch.block_dim == 0 ? k_default_block : t.launch.block_dim;
      if (block > k_max_block) {
        return Status::error(QDRT_ERROR_CORRUPT, what + ": task '" + name + "' has block_dim " +
                                                     std::to_string(block) + " (at most " +
                                                     std::to_string(k_max_block) + ")");
      }
      // A saturating grid: as many blocks as the SMs hold at once (range tasks grid-stride).
      int per_sm = 0;
      if (d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lt.fn, static_cast<int>(block),
                                                        0) != CUDA_SUCCESS ||
          per_sm <= 0) {
        per_sm = std::max(1, dev.max_threads_per_sm / static_cast<int>(block));
      }
      lt.block = block;
      lt.grid = static_cast<unsigned>(std::max(1, dev.sms) * per_sm);
      if ((t.launch.flags & QDRT_LAUNCH_RANDOM) != 0) {
        // A task that draws: Quadrants' grid, so iteration i runs on (and draws from the state
        // of) the thread it runs on in Quadrants (cuda_random.hpp).
        lt.grid = random_geometry(dev).grid;
      }
    }
    log_debug("%s: task %s grid %u x block %u", what.c_str(), name.c_str(), lt.grid, lt.block);
    tasks.push_back(lt);
  }
  inst.ready.store(true, std::memory_order_release);
  out = &state.tasks.emplace(key, std::move(tasks)).first->second;
  return {};
}

}  // namespace

Status pack_cuda_context(const Instance& inst, const void* const* args, uint64_t temps,
                         uint64_t result, qdrt_cuda_context& out) {
  if (inst.passed > QDRT_CUDA_MAX_ARGS) {
    return Status::error(QDRT_ERROR_CORRUPT, "instance '" + std::string(inst.instance) +
                                                 "' passes " + std::to_string(inst.passed) +
                                                 " arguments; CUDA tasks take at most " +
                                                 std::to_string(QDRT_CUDA_MAX_ARGS));
  }
  // The slots a kernel reads: ABI 3 kernels declare max(1, passed), ABI 1-2 kernels 32; the
  // rest of the context is never read (task_abi.h "CUDA modules").
  size_t slots = std::max<size_t>(QDRT_CUDA_LEGACY_ARGS, inst.passed);
  std::memset(&out, 0, offsetof(qdrt_cuda_context, args) + slots * sizeof(qdrt_cuda_arg));
  out.temps = reinterpret_cast<void*>(static_cast<uintptr_t>(temps));
  out.result = reinterpret_cast<void*>(static_cast<uintptr_t>(result));
  size_t p = 0;
  for (const ArgInfo& a : inst.args) {
    if (a.index.kind == QDRT_ARG_TEMPLATE) {
      continue;
    }
    qdrt_cuda_arg& slot = out.args[p];
    if (a.index.kind == QDRT_ARG_SCALAR) {
      std::memcpy(&slot.scalar, args[p], sizeof slot.scalar);  // the dtype's low bytes
    } else {
      const auto* arr = static_cast<const qdrt_array*>(args[p]);
      slot.data = arr->data;
      std::memcpy(slot.shape, arr->shape, sizeof slot.shape);
    }
    ++p;
  }
  return {};
}

Status cuda_init() {
  const Driver* d = nullptr;
  return load_driver(d);
}

Status cuda_run(Kernel& k, Instance& inst, const void* const* args, qdrt_value* result,
                const CudaLaunch& options) {
  CudaState& state = k.store->cuda_state();
  const Bundle& bundle = bundle_of(*k.store, state, inst);
  if (!bundle.status.ok()) {
    return Status::error(bundle.status.code, kernel_what(k, inst) + ": " + bundle.status.message);
  }
  const Driver* d = nullptr;
  if (Status s = load_driver(d); !s.ok()) {
    return Status::error(s.code, kernel_what(k, inst) + ": " + s.message);
  }
  ContextScope scope;
  if (Status s = scope.enter(*d, kernel_what(k, inst)); !s.ok()) {
    return s;
  }
  // A kernel that draws qd.random holds the states for the whole of its launch (task_abi.h): the
  // launches that draw are enqueued one at a time.
  std::unique_lock<std::mutex> random_lock;
  CUdeviceptr rand_states = 0;
  if (inst.random) {
    random_lock = std::unique_lock<std::mutex>(k.store->random().launch_mutex());
    if (Status s = device_states(*d, scope, k.store->random(), kernel_what(k, inst), rand_states);
        !s.ok()) {
      return s;
    }
  }
  const std::vector<LoadedTask>* tasks = nullptr;
  if (Status s = tasks_of(*d, scope, state, bundle, k, inst, rand_states, tasks); !s.ok()) {
    return s;
  }
  auto stream = static_cast<CUstream>(options.stream);
  const Device& dev = scope.device();
  // A graph kernel on sm_90+: one CUDA graph, which owns its temporaries (cuda_graph.hpp).
  GraphCache::Entry* graph = nullptr;
  std::unique_lock<std::mutex> graph_lock;
  if (inst.graph_loops) {
    graph = state.graphs->entry(*d, scope, k, inst, stream);
    if (graph != nullptr) {
      graph_lock = std::unique_lock<std::mutex>(GraphCache::mutex_of(*graph));
    }
  }
  // Temporaries and result in one zero-filled, stream-ordered allocation.
  uint64_t result_offset = (inst.temps_size + 15) & ~uint64_t{15};
  uint64_t bytes = result_offset + inst.result_size;
  CUdeviceptr buffer = 0;
  auto release = [&] {
    if (buffer == 0 || graph != nullptr) {
      buffer = 0;
      return;
    }
    if (dev.memory_pools) {
      d->cuMemFreeAsync(buffer, stream);
    } else {
      d->cuStreamSynchronize(stream);
      d->cuMemFree(buffer);
    }
    buffer = 0;
  };
  auto fail = [&](const char* call, CUresult r) {
    Status s = call_error(*d, kernel_what(k, inst), call, r);
    release();
    return s;
  };
  if (bytes > 0) {
    if (graph != nullptr) {
      if (Status s = GraphCache::buffer(*d, *graph, bytes, k, inst, buffer); !s.ok()) {
        return s;
      }
    } else {
      CUresult r = dev.memory_pools ? d->cuMemAllocAsync(&buffer, bytes, stream)
                                    : d->cuMemAlloc(&buffer, bytes);
      if (r != CUDA_SUCCESS) {
        buffer = 0;
        return fail(dev.memory_pools ? "cuMemAllocAsync" : "cuMemAlloc", r);
      }
    }
    if (CUresult r = d->cuMemsetD8Async(buffer, 0, bytes, stream); r != CUDA_SUCCESS) {
      return fail("cuMemsetD8Async", r);
    }
  }
  qdrt_cuda_context ctx;
  if (Status s = pack_cuda_context(inst, args, buffer,
                                   bytes > result_offset ? buffer + result_offset : 0, ctx);
      !s.ok()) {
    release();
    return s;
  }
  bool graph_ran = false;
  if (graph != nullptr) {
    size_t ctx_bytes = offsetof(qdrt_cuda_context, args) +
                       std::max<size_t>(QDRT_CUDA_LEGACY_ARGS, inst.passed) * sizeof(qdrt_cuda_arg);
    if (Status s = state.graphs->launch(*d, *graph, *tasks, ctx, ctx_bytes, k, inst, graph_ran);
        !s.ok()) {
      return s;
    }
  }
  void* params[] = {&ctx};
  for (size_t i = 0; !graph_ran && i < tasks->size();) {
    const LoadedTask& t = (*tasks)[i];
    CUresult r = d->cuLaunchKernel(t.fn, t.grid, 1, 1, t.block, 1, 1, 0, stream, params, nullptr);
    if (r != CUDA_SUCCESS) {
      Status s =
          call_error(*d, kernel_what(k, inst) + " task '" + std::string(inst.tasks[i].name) + "'",
                     "cuLaunchKernel", r);
      release();
      return s;
    }
    // Graph loops that end here (task_abi.h, version 5): a host loop, as Quadrants runs
    // qd.graph.do_while below sm_90: the flag is read back after the task, then the launch goes
    // on from the loop's first task while it is non-zero.
    size_t next = i + 1;
    for (const qdrt_task_loop_end& e : inst.tasks[i].loop_ends) {
      int32_t flag = 0;
      auto flag_ptr =
          static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ctx.args[e.condition].data));
      if (r = d->cuMemcpyDtoHAsync(&flag, flag_ptr, sizeof flag, stream); r != CUDA_SUCCESS) {
        return fail("cuMemcpyDtoHAsync", r);
      }
      if (r = d->cuStreamSynchronize(stream); r != CUDA_SUCCESS) {
        return fail("cuStreamSynchronize", r);
      }
      if (flag != 0) {
        next = e.first_task;
        break;
      }
    }
    i = next;
  }
  alignas(16) unsigned char res[16] = {};
  bool want_result = result != nullptr && inst.result_size > 0;
  if (want_result) {
    CUresult r = d->cuMemcpyDtoHAsync(res, buffer + result_offset, inst.result_size, stream);
    if (r != CUDA_SUCCESS) {
      return fail("cuMemcpyDtoHAsync", r);
    }
  }
  release();
  // A kernel that prints: the device printf buffer reaches stdout at a synchronization, so the
  // launch waits for it (as a printing Quadrants kernel does) and flushes stdout.
  if (want_result || inst.prints) {
    if (CUresult r = d->cuStreamSynchronize(stream); r != CUDA_SUCCESS) {
      return fail("cuStreamSynchronize", r);
    }
  }
  if (inst.prints) {
    std::fflush(stdout);
  }
  if (result != nullptr) {
    decode_result(inst.result_dtype, res, result);
  }
  return {};
}

namespace {

// Routes a launch: the device the options name, else CUDA when an argument is a device array.
// Calls f(values, cuda) with the values to bind (device arrays as QDRT_VALUE_ARRAY, which bind
// like host arrays: same checks, never dereferenced) and the CUDA options, nullptr on the CPU.
template <class F>
Status routed(Kernel& k, const qdrt_value* args, size_t count, const qdrt_launch_options* options,
              F&& f) {
  uint32_t device = options != nullptr ? options->device : QDRT_DEVICE_AUTO;
  if (device > QDRT_DEVICE_CUDA) {
    return Status::error(QDRT_ERROR_INVALID_ARGUMENT,
                         "qdrt_launch_ex: unknown device " + std::to_string(device));
  }
  size_t first_cuda = count;
  for (size_t i = 0; args != nullptr && i < count; ++i) {
    if (args[i].kind == QDRT_VALUE_CUDA_ARRAY) {
      first_cuda = i;
      break;
    }
  }
  if (device == QDRT_DEVICE_AUTO) {
    device = first_cuda < count ? QDRT_DEVICE_CUDA : QDRT_DEVICE_CPU;
  }
  auto arg_name = [&](size_t i) {
    const auto& list = !k.cuda_instances.empty() ? k.cuda_instances : k.instances;
    if (!list.empty() && i < list.front()->args.size()) {
      return "argument '" + std::string(list.front()->args[i].name) + "'";
    }
    return "argument " + std::to_string(i);
  };
  if (device == QDRT_DEVICE_CPU) {
    if (first_cuda < count) {
      return Status::error(QDRT_ERROR_ARGUMENT,
                           "kernel '" + k.id + "': " + arg_name(first_cuda) +
                               " is a CUDA device array, but the launch runs on the CPU");
    }
    return f(args, nullptr);
  }
  constexpr size_t k_inline = 16;
  qdrt_value inline_values[k_inline];
  std::vector<qdrt_value> heap;
  qdrt_value* values = inline_values;
  if (count > k_inline) {
    heap.resize(count);
    values = heap.data();
  }
  for (size_t i = 0; args != nullptr && i < count; ++i) {
    values[i] = args[i];
    if (values[i].kind == QDRT_VALUE_ARRAY) {
      return Status::error(QDRT_ERROR_ARGUMENT,
                           "kernel '" + k.id + "': " + arg_name(i) +
                               " is a host array, but the launch runs on CUDA (pass a device "
                               "pointer: QDRT_VALUE_CUDA_ARRAY)");
    }
    if (values[i].kind == QDRT_VALUE_CUDA_ARRAY) {
      values[i].kind = QDRT_VALUE_ARRAY;
    }
  }
  CudaLaunch cuda;
  cuda.stream = options != nullptr ? options->cuda_stream : nullptr;
  return f(args != nullptr ? values : nullptr, &cuda);
}

}  // namespace

Status launch_routed(Kernel& k, const qdrt_value* args, size_t count, qdrt_value* result,
                     const qdrt_launch_options* options) {
  return routed(k, args, count, options, [&](const qdrt_value* values, const CudaLaunch* cuda) {
    return launch(k, values, count, result, cuda);
  });
}

Status prepare_routed(Kernel& k, const qdrt_value* args, size_t count,
                      const qdrt_launch_options* options, BoundLaunchPtr& out) {
  return routed(k, args, count, options, [&](const qdrt_value* values, const CudaLaunch* cuda) {
    return bind_launch(k, values, count, cuda, out);
  });
}

}  // namespace qdrt
