// The C API (qdrt/qdrt.h) over the runtime's C++ core: handles, status codes and the per-thread
// last-error message. Nothing throws (the runtime is built without exceptions).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "hot_reload.hpp"
#include "instance_text.hpp"
#include "store.hpp"

struct qdrt_store {
  qdrt::Store impl;
  std::unique_ptr<qdrt::Watch> watch;  // QDRT_OPEN_WATCH (hot_reload.hpp); destroyed first
};

namespace {

thread_local std::string t_error;
thread_local std::string t_instance_text;  // qdrt_instance_text's result

qdrt_status fail(const qdrt::Status& s) {
  t_error = s.message;
  return s.code;
}

qdrt_status fail(qdrt_status code, const char* message) {
  t_error = message;
  return code;
}

// A watched handle whose kernel left the index (hot_reload.hpp).
qdrt_status gone(const qdrt::Pin& pin) {
  t_error = "kernel '" + pin.watched()->id + "' is no longer in the store (a rebuild removed it)";
  return QDRT_ERROR_NOT_FOUND;
}

}  // namespace

extern "C" {

QDRT_API uint32_t qdrt_version(void) { return QDRT_VERSION; }

QDRT_API const char* qdrt_version_string(void) { return "0.1.0"; }

QDRT_API const char* qdrt_status_name(qdrt_status status) {
  switch (status) {
    case QDRT_OK: return "QDRT_OK";
    case QDRT_ERROR_INVALID_ARGUMENT: return "QDRT_ERROR_INVALID_ARGUMENT";
    case QDRT_ERROR_NOT_FOUND: return "QDRT_ERROR_NOT_FOUND";
    case QDRT_ERROR_IO: return "QDRT_ERROR_IO";
    case QDRT_ERROR_CORRUPT: return "QDRT_ERROR_CORRUPT";
    case QDRT_ERROR_VERSION: return "QDRT_ERROR_VERSION";
    case QDRT_ERROR_LOAD: return "QDRT_ERROR_LOAD";
    case QDRT_ERROR_NO_INSTANCE: return "QDRT_ERROR_NO_INSTANCE";
    case QDRT_ERROR_ARGUMENT: return "QDRT_ERROR_ARGUMENT";
    case QDRT_ERROR_OUT_OF_MEMORY: return "QDRT_ERROR_OUT_OF_MEMORY";
    case QDRT_ERROR_INTERNAL: return "QDRT_ERROR_INTERNAL";
    case QDRT_ERROR_CUDA: return "QDRT_ERROR_CUDA";
  }
  return "QDRT_ERROR_UNKNOWN";
}

QDRT_API const char* qdrt_last_error(void) { return t_error.c_str(); }

QDRT_API qdrt_status qdrt_open(const char* path, const qdrt_open_options* options,
                               qdrt_store** out) {
  if (path == nullptr || out == nullptr) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT, "qdrt_open: path and out must not be NULL");
  }
  *out = nullptr;
  qdrt::OpenOptions o;
  if (options != nullptr) {
    if (options->struct_size < sizeof(qdrt_open_options)) {
      return fail(QDRT_ERROR_INVALID_ARGUMENT,
                  "qdrt_open: options->struct_size must be sizeof(qdrt_open_options)");
    }
    if ((options->flags & ~(QDRT_OPEN_LAZY | QDRT_OPEN_WATCH)) != 0) {
      return fail(QDRT_ERROR_INVALID_ARGUMENT, "qdrt_open: unknown flags");
    }
    o.lazy = (options->flags & QDRT_OPEN_LAZY) != 0;
    o.threads = options->num_threads;
  }
  o.random = std::make_shared<qdrt::RandomStates>();
  auto* store = new (std::nothrow) qdrt_store;
  if (store == nullptr) {
    return fail(QDRT_ERROR_OUT_OF_MEMORY, "qdrt_open: out of memory");
  }
  if (options != nullptr && (options->flags & QDRT_OPEN_WATCH) != 0) {
    store->watch = std::make_unique<qdrt::Watch>();
    if (qdrt::Status s = store->watch->prepare(path); !s.ok()) {
      delete store;
      return fail(s);
    }
  }
  if (qdrt::Status s = store->impl.open(path, o); !s.ok()) {
    delete store;
    return fail(s);
  }
  if (store->watch) {
    store->watch->start(store->impl, o);
  }
  *out = store;
  return QDRT_OK;
}

QDRT_API void qdrt_close(qdrt_store* store) { delete store; }

QDRT_API size_t qdrt_kernel_count(const qdrt_store* store) {
  if (store != nullptr && store->watch) {
    return store->watch->kernel_count();
  }
  return store == nullptr ? 0 : store->impl.kernel_ids().size();
}

QDRT_API const char* qdrt_kernel_id(const qdrt_store* store, size_t i) {
  if (store != nullptr && store->watch) {
    return store->watch->kernel_id(i);
  }
  if (store == nullptr || i >= store->impl.kernel_ids().size()) {
    return nullptr;
  }
  return store->impl.kernel_ids()[i].c_str();
}

QDRT_API qdrt_status qdrt_get_kernel(qdrt_store* store, const char* kernel_id, qdrt_kernel** out) {
  if (store == nullptr || kernel_id == nullptr || out == nullptr) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT, "qdrt_get_kernel: NULL store, id or out");
  }
  *out = nullptr;
  if (store->watch) {
    qdrt::WatchedKernel* w = nullptr;
    if (qdrt::Status s = store->watch->kernel(kernel_id, w); !s.ok()) {
      return fail(s);
    }
    *out = qdrt::watched_handle(w);
    return QDRT_OK;
  }
  qdrt::Kernel* k = nullptr;
  if (qdrt::Status s = store->impl.kernel(kernel_id, k); !s.ok()) {
    return fail(s);
  }
  *out = reinterpret_cast<qdrt_kernel*>(k);
  return QDRT_OK;
}

QDRT_API size_t qdrt_kernel_instance_count(const qdrt_kernel* kernel) {
  qdrt::Pin pin(kernel);
  return pin.kernel() == nullptr ? 0 : pin.kernel()->instances.size();
}

QDRT_API const char* qdrt_kernel_instance(const qdrt_kernel* kernel, size_t i) {
  qdrt::Pin pin(kernel);
  if (pin.kernel() == nullptr || i >= pin.kernel()->instances.size()) {
    return nullptr;
  }
  std::string_view s = pin.kernel()->instances[i]->instance;
  return pin.watched() != nullptr ? pin.watched()->watch->intern(s)
                                  : pin.kernel()->store->intern(s);
}

QDRT_API uint32_t qdrt_kernel_instance_flags(const qdrt_kernel* kernel, size_t instance) {
  qdrt::Pin pin(kernel);
  if (pin.kernel() == nullptr || instance >= pin.kernel()->instances.size()) {
    return 0;
  }
  uint32_t flags = 0;
  for (const qdrt::TaskInfo& t : pin.kernel()->instances[instance]->tasks) {
    flags |= t.launch.flags;
  }
  return flags;
}

QDRT_API size_t qdrt_kernel_argument_count(const qdrt_kernel* kernel, size_t instance) {
  qdrt::Pin pin(kernel);
  if (pin.kernel() == nullptr || instance >= pin.kernel()->instances.size()) {
    return 0;
  }
  return pin.kernel()->instances[instance]->args.size();
}

QDRT_API const char* qdrt_kernel_argument_name(const qdrt_kernel* kernel, size_t instance,
                                               size_t i) {
  qdrt::Pin pin(kernel);
  if (pin.kernel() == nullptr || instance >= pin.kernel()->instances.size() ||
      i >= pin.kernel()->instances[instance]->args.size()) {
    return nullptr;
  }
  std::string_view s = pin.kernel()->instances[instance]->args[i].name;
  return pin.watched() != nullptr ? pin.watched()->watch->intern(s)
                                  : pin.kernel()->store->intern(s);
}

QDRT_API const char* qdrt_kernel_name(const qdrt_kernel* kernel) {
  qdrt::Pin pin(kernel);
  if (pin.watched() != nullptr) {
    return pin.watched()->id.c_str();
  }
  return pin.kernel() == nullptr ? nullptr : pin.kernel()->id.c_str();
}

QDRT_API qdrt_status qdrt_launch(qdrt_kernel* kernel, const qdrt_value* args, size_t arg_count,
                                 qdrt_value* result) {
  if (kernel == nullptr) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT, "qdrt_launch: kernel is NULL");
  }
  qdrt::Pin pin(kernel);
  if (pin.kernel() == nullptr) {
    return gone(pin);
  }
  if (qdrt::Status s = qdrt::launch_routed(*pin.kernel(), args, arg_count, result, nullptr);
      !s.ok()) {
    return fail(s);
  }
  return QDRT_OK;
}

QDRT_API qdrt_status qdrt_launch_ex(qdrt_kernel* kernel, const qdrt_value* args, size_t arg_count,
                                    qdrt_value* result, const qdrt_launch_options* options) {
  if (kernel == nullptr) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT, "qdrt_launch_ex: kernel is NULL");
  }
  if (options != nullptr && options->struct_size < sizeof(qdrt_launch_options)) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT,
                "qdrt_launch_ex: options->struct_size must be sizeof(qdrt_launch_options)");
  }
  qdrt::Pin pin(kernel);
  if (pin.kernel() == nullptr) {
    return gone(pin);
  }
  if (qdrt::Status s = qdrt::launch_routed(*pin.kernel(), args, arg_count, result, options);
      !s.ok()) {
    return fail(s);
  }
  return QDRT_OK;
}

// A prepared launch: the bound launch and, for re-binding after a hot reload, the argument values
// with the arrays and text they point at copied.
struct qdrt_prepared {
  qdrt_kernel* handle = nullptr;
  uint64_t bound_to = 0;  // the serial of the Kernel bound (0: none)
  qdrt::BoundLaunchPtr bound;
  std::vector<qdrt_value> values;
  std::vector<std::vector<int64_t>> dims;  // shape and strides, per value
  std::vector<std::string> texts;
  bool has_options = false;
  qdrt_launch_options options{};

  void save(const qdrt_value* args, size_t count) {
    values.assign(args, args + count);
    dims.resize(2 * count);
    texts.resize(count);
    for (size_t i = 0; i < count; ++i) {
      qdrt_value& v = values[i];
      size_t n = v.ndim > 0 ? static_cast<size_t>(v.ndim) : 0;
      if (v.shape != nullptr) {
        dims[2 * i].assign(v.shape, v.shape + n);
        v.shape = dims[2 * i].data();
      }
      if (v.strides != nullptr) {
        dims[2 * i + 1].assign(v.strides, v.strides + n);
        v.strides = dims[2 * i + 1].data();
      }
      if (v.text != nullptr) {
        texts[i] = v.text;
        v.text = texts[i].c_str();
      }
    }
  }
};

QDRT_API qdrt_status qdrt_prepare(qdrt_kernel* kernel, const qdrt_value* args, size_t arg_count,
                                  const qdrt_launch_options* options, qdrt_prepared** out) {
  if (kernel == nullptr || out == nullptr) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT, "qdrt_prepare: kernel or out is NULL");
  }
  *out = nullptr;
  if (options != nullptr && options->struct_size < sizeof(qdrt_launch_options)) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT,
                "qdrt_prepare: options->struct_size must be sizeof(qdrt_launch_options)");
  }
  if (arg_count > 0 && args == nullptr) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT, "qdrt_prepare: args is NULL");
  }
  qdrt::Pin pin(kernel);
  if (pin.kernel() == nullptr) {
    return gone(pin);
  }
  auto p = std::make_unique<qdrt_prepared>();
  p->handle = kernel;
  p->has_options = options != nullptr;
  if (options != nullptr) {
    p->options = *options;
  }
  p->save(args, arg_count);
  if (qdrt::Status s = qdrt::prepare_routed(*pin.kernel(), p->values.data(), arg_count,
                                            p->has_options ? &p->options : nullptr, p->bound);
      !s.ok()) {
    return fail(s);
  }
  p->bound_to = pin.kernel()->serial;
  *out = p.release();
  return QDRT_OK;
}

QDRT_API qdrt_status qdrt_prepared_launch(qdrt_prepared* p, qdrt_value* result) {
  if (p == nullptr) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT, "qdrt_prepared_launch: prepared is NULL");
  }
  qdrt::Pin pin(p->handle);
  if (pin.kernel() == nullptr) {
    return gone(pin);
  }
  if (pin.kernel()->serial != p->bound_to) {
    // The kernel was rebuilt (a watched store): bind the saved values to the new build.
    p->bound.reset();
    p->bound_to = 0;
    if (qdrt::Status s = qdrt::prepare_routed(*pin.kernel(), p->values.data(), p->values.size(),
                                              p->has_options ? &p->options : nullptr, p->bound);
        !s.ok()) {
      return fail(s);
    }
    p->bound_to = pin.kernel()->serial;
  }
  if (qdrt::Status s = qdrt::run_bound(*p->bound, result); !s.ok()) {
    return fail(s);
  }
  return QDRT_OK;
}

QDRT_API void qdrt_prepared_free(qdrt_prepared* p) { delete p; }

QDRT_API qdrt_status qdrt_cuda_init(void) {
  if (qdrt::Status s = qdrt::cuda_init(); !s.ok()) {
    return fail(s);
  }
  return QDRT_OK;
}

QDRT_API qdrt_status qdrt_bind_random_states(qdrt_store* store, void* states, uint32_t count) {
  if (store == nullptr || (states == nullptr) != (count == 0)) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT,
                "qdrt_bind_random_states: NULL store, or states and count disagree (both set, or "
                "NULL and 0)");
  }
  store->impl.random().bind(static_cast<qdrt_rand_state*>(states), count);
  return QDRT_OK;
}

QDRT_API qdrt_status qdrt_seed_random(qdrt_store* store, uint32_t seed) {
  if (store == nullptr) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT, "qdrt_seed_random: NULL store");
  }
  store->impl.random().seed(seed);
  return QDRT_OK;
}

QDRT_API qdrt_status qdrt_kernel_observations(const qdrt_kernel* kernel, qdrt_observations* out) {
  if (kernel == nullptr || out == nullptr || out->struct_size < sizeof(qdrt_observations)) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT,
                "qdrt_kernel_observations: NULL kernel or out, or out->struct_size too small");
  }
  qdrt::Pin pin(kernel);
  if (pin.kernel() == nullptr) {
    return gone(pin);
  }
  const qdrt::Kernel& k = *pin.kernel();
  const qdrt::Instance* inst = k.last.load(std::memory_order_relaxed);
  if (inst == nullptr && !k.instances.empty()) {
    inst = k.instances.front().get();
  }
  out->launches = k.launches.load(std::memory_order_relaxed);
  out->fallbacks = k.fallbacks.load(std::memory_order_relaxed);
  // Loaded: the instance's module is in memory (eager open loads every module; entry points are
  // looked up on the first launch).
  out->loaded = inst != nullptr && (inst->ready.load(std::memory_order_acquire) ||
                                    k.store->module_loaded(inst->module_object))
                    ? 1
                    : 0;
  out->instance = inst != nullptr ? k.store->intern(inst->instance) : "";
  out->object = inst != nullptr ? k.store->intern(k.store->object_hex(inst->module_object)) : "";
  out->target = inst != nullptr ? k.store->intern(inst->target) : "";
  if (qdrt::WatchedKernel* w = pin.watched()) {
    // Strings that outlive the generation; launches summed over the generations it ran on.
    out->launches += w->launches_before.load(std::memory_order_relaxed);
    out->instance = w->watch->intern(out->instance);
    out->object = w->watch->intern(out->object);
    out->target = w->watch->intern(out->target);
  }
  return QDRT_OK;
}

QDRT_API qdrt_status qdrt_instance_text(const char* description_json, size_t length,
                                        const char** out) {
  if (out == nullptr || description_json == nullptr) {
    return fail(QDRT_ERROR_INVALID_ARGUMENT, "qdrt_instance_text: NULL description or out");
  }
  *out = nullptr;
  std::string why;
  if (!qdrt::instance_text(description_json, length, t_instance_text, why)) {
    t_error = why;
    return QDRT_ERROR_ARGUMENT;
  }
  *out = t_instance_text.c_str();
  return QDRT_OK;
}

}  // extern "C"
