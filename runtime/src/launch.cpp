// One launch: pick the instance the arguments select, validate and bind every argument to the
// task ABI (qdrt/task_abi.h), check aliasing, then run the tasks in order with per-launch
// temporaries and result buffer.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "store.hpp"

namespace qdrt {

namespace {

constexpr size_t k_inline_args = 16;
constexpr size_t k_inline_temps = 256;

// The per-launch argument block: small kernels live on the launching thread's stack.
struct Frame {
  const void* ptrs_inline[k_inline_args];
  qdrt_array arrays_inline[k_inline_args];
  uint64_t scalars_inline[k_inline_args];
  std::vector<const void*> ptrs_heap;
  std::vector<qdrt_array> arrays_heap;
  std::vector<uint64_t> scalars_heap;
  const void** ptrs = ptrs_inline;
  qdrt_array* arrays = arrays_inline;
  uint64_t* scalars = scalars_inline;

  void reserve(size_t n) {
    if (n > k_inline_args) {
      ptrs_heap.resize(n);
      arrays_heap.resize(n);
      scalars_heap.resize(n);
      ptrs = ptrs_heap.data();
      arrays = arrays_heap.data();
      scalars = scalars_heap.data();
    }
  }
};

// qdrt_launch_context.print (task_abi.h "Printing"): one call per print statement, to C stdout
// (vfprintf takes the stream's lock, so lines from concurrent chunks stay whole).
void host_print(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vfprintf(stdout, format, args);
  va_end(args);
}

struct TempsCache {
  void* data = nullptr;
  size_t capacity = 0;
  ~TempsCache() { std::free(data); }
  void* get(size_t n) {
    if (n > capacity) {
      std::free(data);
      capacity = (n + 4095) & ~size_t{4095};
      data = std::aligned_alloc(64, capacity);
      if (data == nullptr) {
        capacity = 0;
      }
    }
    return data;
  }
};

uint16_t float_to_half(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) {
    return static_cast<uint16_t>(sign | 0x7c00u | (mant != 0 ? 0x200u : 0));
  }
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1f) {
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (e <= 0) {
    if (e < -10) {
      return static_cast<uint16_t>(sign);
    }
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u) != 0)) {
      ++half;
    }
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u) != 0)) {
    ++half;  // may carry into the exponent, which rounds up correctly (to inf at the top)
  }
  return static_cast<uint16_t>(sign | half);
}

std::string type_text(const qdrt_index_argument& a) {
  if (a.kind == QDRT_ARG_TEMPLATE) {
    return "template";
  }
  std::string t = dtype_name(a.dtype);
  if (a.element_rank > 0) {
    t += "[";
    for (uint32_t i = 0; i < a.element_rank; ++i) {
      t += (i > 0 ? "," : "") + std::to_string(a.element_shape[i]);
    }
    t += "]";
  }
  if (a.kind == QDRT_ARG_NDARRAY) {
    return "ndarray(" + t + ", " + std::to_string(a.ndim) + ")";
  }
  if (a.kind == QDRT_ARG_FIELD) {
    return "field(" + t + ", " + std::to_string(a.ndim) + ")";
  }
  return t;
}

std::string value_text(const qdrt_value& v) {
  switch (v.kind) {
    case QDRT_VALUE_ARRAY: {
      std::string s = std::string(dtype_name(v.dtype)) + " array of shape (";
      for (int32_t i = 0; v.shape != nullptr && i < v.ndim && i < 16; ++i) {
        s += std::to_string(v.shape[i]) + (v.ndim == 1 ? "," : i + 1 < v.ndim ? ", " : "");
      }
      return s + ")";
    }
    case QDRT_VALUE_INT: return "int " + std::to_string(v.i);
    case QDRT_VALUE_FLOAT: return "float " + template_repr(v);
    case QDRT_VALUE_BOOL: return v.i != 0 ? "bool True" : "bool False";
    case QDRT_VALUE_TEXT: return "text '" + template_repr(v) + "'";
    case QDRT_VALUE_NONE: return "None";
    default: return "a value of unknown kind " + std::to_string(v.kind);
  }
}

bool int_fits(int64_t i, uint32_t dtype) {
  switch (dtype) {
    case QDRT_DTYPE_I8: return i >= INT8_MIN && i <= INT8_MAX;
    case QDRT_DTYPE_I16: return i >= INT16_MIN && i <= INT16_MAX;
    case QDRT_DTYPE_I32: return i >= INT32_MIN && i <= INT32_MAX;
    case QDRT_DTYPE_I64: return true;
    case QDRT_DTYPE_U8: return i >= 0 && i <= UINT8_MAX;
    case QDRT_DTYPE_U16: return i >= 0 && i <= UINT16_MAX;
    case QDRT_DTYPE_U32: return i >= 0 && i <= UINT32_MAX;
    case QDRT_DTYPE_U64: return i >= 0;
    case QDRT_DTYPE_U1: return i == 0 || i == 1;
    default: return false;
  }
}

// Stores a scalar argument as its dtype into `slot`; "" or why it does not fit.
std::string bind_scalar(const qdrt_index_argument& a, const qdrt_value& v, uint64_t& slot) {
  slot = 0;
  if (v.kind != QDRT_VALUE_INT && v.kind != QDRT_VALUE_FLOAT && v.kind != QDRT_VALUE_BOOL) {
    return "expected a " + std::string(dtype_name(a.dtype)) + " scalar, got " + value_text(v);
  }
  bool big_unsigned = v.kind == QDRT_VALUE_INT && (v.flags & QDRT_VALUE_UNSIGNED) != 0 && v.i < 0;
  if (dtype_is_float(a.dtype)) {
    double d = v.kind == QDRT_VALUE_FLOAT ? v.f
               : big_unsigned             ? static_cast<double>(static_cast<uint64_t>(v.i))
                                          : static_cast<double>(v.i);
    if (a.dtype == QDRT_DTYPE_F64) {
      std::memcpy(&slot, &d, 8);
    } else if (a.dtype == QDRT_DTYPE_F32) {
      float f = static_cast<float>(d);
      std::memcpy(&slot, &f, 4);
    } else {
      uint16_t h = float_to_half(static_cast<float>(d));
      std::memcpy(&slot, &h, 2);
    }
    return {};
  }
  if (v.kind == QDRT_VALUE_FLOAT) {
    return "expected " + std::string(dtype_name(a.dtype)) + ", got " + value_text(v) +
           " (an integer parameter takes no float)";
  }
  if (big_unsigned) {
    if (a.dtype != QDRT_DTYPE_U64) {
      return std::to_string(static_cast<uint64_t>(v.i)) + " is out of range for " +
             dtype_name(a.dtype);
    }
  } else if (!int_fits(v.i, a.dtype)) {
    return std::to_string(v.i) + " is out of range for " + dtype_name(a.dtype);
  }
  std::memcpy(&slot, &v.i, dtype_size(a.dtype));  // little-endian: the low bytes
  return {};
}

std::string dims_text(const int64_t* v, int32_t n) {
  std::string s = "(";
  for (int32_t i = 0; i < n; ++i) {
    s += (i > 0 ? ", " : "") + std::to_string(v[i]);
  }
  return s + (n == 1 ? ",)" : ")");
}

// A field argument (QDRT_ARG_FIELD): the array's shape and byte strides must be the ones the
// instance was compiled for (NULL strides: C-contiguous); "" or why not.
std::string check_field_layout(const ArgInfo& arg, const qdrt_value& v) {
  const qdrt_index_argument& a = arg.index;
  int32_t ndim = static_cast<int32_t>(a.ndim + a.element_rank);
  for (int32_t d = 0; d < ndim; ++d) {
    if (v.shape[d] != arg.field_shape[d]) {
      return "a field of shape " + dims_text(arg.field_shape, ndim) + " in this instance, got " +
             dims_text(v.shape, ndim);
    }
  }
  int64_t have[QDRT_MAX_NDIM];
  int64_t expect = static_cast<int64_t>(dtype_size(a.dtype));
  for (int32_t d = ndim - 1; d >= 0; --d) {
    have[d] = v.strides != nullptr ? v.strides[d] : expect;
    expect *= v.shape[d];
  }
  for (int32_t d = 0; d < ndim; ++d) {
    if (have[d] != arg.field_strides[d] && v.shape[d] > 1) {
      return "a field laid out with byte strides " + dims_text(arg.field_strides, ndim) +
             " in this instance, got " + dims_text(have, ndim);
    }
  }
  return {};
}

std::string bind_array(const ArgInfo& arg, const qdrt_value& v, qdrt_array& out, const char*& begin,
                       size_t& bytes) {
  const qdrt_index_argument& a = arg.index;
  std::string want = type_text(a);
  if (v.kind != QDRT_VALUE_ARRAY) {
    return "expected an array (" + want + "), got " + value_text(v);
  }
  if (v.dtype != a.dtype) {
    return "expected dtype " + std::string(dtype_name(a.dtype)) + ", got " + dtype_name(v.dtype) +
           " (" + want + ")";
  }
  int32_t ndim = static_cast<int32_t>(a.ndim + a.element_rank);
  if (v.ndim != ndim) {
    std::string m = "expected " + std::to_string(ndim) + " dimensions (" + want;
    if (a.element_rank > 0) {
      m += ": " + std::to_string(a.ndim) + " array dims + " + std::to_string(a.element_rank) +
           " element dims";
    }
    return m + "), got " + std::to_string(v.ndim) + " (" + value_text(v) + ")";
  }
  if (ndim > 0 && v.shape == nullptr) {
    return "the array has no shape";
  }
  uint64_t count = 1;
  bool overflow = false;
  for (int32_t d = 0; d < ndim; ++d) {
    if (v.shape[d] < 0) {
      return "negative extent " + std::to_string(v.shape[d]) + " in dimension " + std::to_string(d);
    }
    if (static_cast<uint32_t>(d) >= a.ndim) {
      uint32_t want_dim = a.element_shape[d - a.ndim];
      if (static_cast<uint64_t>(v.shape[d]) != want_dim) {
        return "element shape mismatch in dimension " + std::to_string(d) + ": expected " +
               std::to_string(want_dim) + ", got " + std::to_string(v.shape[d]) + " (" + want +
               ", got " + value_text(v) + ")";
      }
    }
    overflow = overflow || __builtin_mul_overflow(count, static_cast<uint64_t>(v.shape[d]), &count);
  }
  uint64_t itemsize = dtype_size(a.dtype);
  uint64_t total = 0;
  if (overflow || __builtin_mul_overflow(count, itemsize, &total) ||
      total > static_cast<uint64_t>(INT64_MAX)) {
    return "the array's size overflows";
  }
  if (a.kind == QDRT_ARG_FIELD) {
    if (std::string why = check_field_layout(arg, v); !why.empty()) {
      return why;
    }
  } else if (v.strides != nullptr) {
    int64_t expect = static_cast<int64_t>(itemsize);
    for (int32_t d = ndim - 1; d >= 0; --d) {
      if (v.shape[d] != 1 && v.strides[d] != expect && count > 0) {
        return "the array is not C-contiguous (stride " + std::to_string(v.strides[d]) +
               " bytes in dimension " + std::to_string(d) + ", expected " + std::to_string(expect) +
               "); pass a contiguous copy";
      }
      expect *= v.shape[d];
    }
  }
  if (count > 0) {
    if (v.data == nullptr) {
      return "the array's data pointer is NULL";
    }
    if (reinterpret_cast<uintptr_t>(v.data) % itemsize != 0) {
      return "the array's data is not aligned for " + std::string(dtype_name(a.dtype)) +
             " (address % " + std::to_string(itemsize) + " != 0)";
    }
  }
  out.data = v.data;
  for (uint32_t d = 0; d < QDRT_MAX_NDIM; ++d) {
    out.shape[d] = d < a.ndim ? v.shape[d] : 0;
  }
  begin = static_cast<const char*>(v.data);
  bytes = count > 0 ? static_cast<size_t>(total) : 0;
  return {};
}

struct Mismatch {
  std::string why;
  bool selects = false;  // a template value: the instance does not exist rather than misuse
};

// Binds args to the instance; false with `m` when they do not fit.
bool bind(const Instance& inst, const qdrt_value* args, Frame& f, Mismatch& m) {
  size_t p = 0;
  for (size_t i = 0; i < inst.args.size(); ++i) {
    const ArgInfo& arg = inst.args[i];
    const qdrt_index_argument& a = arg.index;
    const qdrt_value& v = args[i];
    std::string why;
    if (a.kind == QDRT_ARG_TEMPLATE) {
      std::string have = template_repr(v);
      auto it = inst.params.find(arg.name);
      if (v.kind == QDRT_VALUE_ARRAY || v.kind == QDRT_VALUE_NONE) {
        why = "template parameter takes a value (int, float, bool or text), got " + value_text(v);
      } else if (it == inst.params.end() || it->second != have) {
        m.selects = true;
        why = "template value " + have + " (the instance has " +
              (it == inst.params.end() ? std::string("none") : it->second) + ")";
      }
    } else if (a.kind == QDRT_ARG_SCALAR) {
      why = bind_scalar(a, v, f.scalars[p]);
      f.ptrs[p] = &f.scalars[p];
      ++p;
    } else {
      const char* begin = nullptr;
      size_t bytes = 0;
      why = bind_array(arg, v, f.arrays[p], begin, bytes);
      f.ptrs[p] = &f.arrays[p];
      ++p;
    }
    if (!why.empty()) {
      m.why = "argument '" + std::string(arg.name) + "': " + why;
      return false;
    }
  }
  return true;
}

// The first pair of ndarray arguments whose bytes overlap, as "'a' and 'b'", or "". Fields
// (QDRT_ARG_FIELD) interleave in Quadrants' memory (the members of an AOS struct field) without
// sharing an element: one aliases another only when both start at the same address.
std::string aliased(const Instance& inst, const qdrt_value* args) {
  for (size_t i = 0; i < inst.args.size(); ++i) {
    if (inst.args[i].index.kind == QDRT_ARG_FIELD) {
      for (size_t j = i + 1; j < inst.args.size(); ++j) {
        if (inst.args[j].index.kind == QDRT_ARG_FIELD && args[j].data == args[i].data &&
            args[i].data != nullptr) {
          return "'" + std::string(inst.args[i].name) + "' and '" + std::string(inst.args[j].name) +
                 "'";
        }
      }
      continue;
    }
    if (inst.args[i].index.kind != QDRT_ARG_NDARRAY) {
      continue;
    }
    const qdrt_value& a = args[i];
    size_t abytes = dtype_size(a.dtype);
    for (int32_t d = 0; d < a.ndim; ++d) {
      abytes *= static_cast<size_t>(a.shape[d]);
    }
    for (size_t j = i + 1; j < inst.args.size(); ++j) {
      if (inst.args[j].index.kind != QDRT_ARG_NDARRAY) {
        continue;
      }
      const qdrt_value& b = args[j];
      size_t bbytes = dtype_size(b.dtype);
      for (int32_t d = 0; d < b.ndim; ++d) {
        bbytes *= static_cast<size_t>(b.shape[d]);
      }
      auto pa = reinterpret_cast<uintptr_t>(a.data);
      auto pb = reinterpret_cast<uintptr_t>(b.data);
      if (abytes > 0 && bbytes > 0 && pa < pb + bbytes && pb < pa + abytes) {
        return "'" + std::string(inst.args[i].name) + "' and '" + std::string(inst.args[j].name) +
               "'";
      }
    }
  }
  return {};
}

// The task to run after task `i` (task_abi.h, launch metadata version 5): the first task of the
// innermost graph loop it ends whose flag (a 0-dim i32 array argument) is non-zero, else i + 1.
size_t next_task(const TaskInfo& t, size_t i, const void* const* args) {
  for (const qdrt_task_loop_end& e : t.loop_ends) {
    int32_t flag;
    std::memcpy(&flag, static_cast<const qdrt_array*>(args[e.condition])->data, sizeof flag);
    if (flag != 0) {
      return e.first_task;
    }
  }
  return i + 1;
}

Status run(Kernel& k, Instance& inst, const Frame& f, qdrt_value* result) {
  if (Status s = k.store->ensure_loaded(inst); !s.ok()) {
    return s;
  }
  alignas(64) unsigned char small[k_inline_temps];
  void* temps = small;
  if (inst.temps_size > k_inline_temps) {
    thread_local TempsCache cache;
    temps = cache.get(inst.temps_size);
    if (temps == nullptr) {
      return Status::error(QDRT_ERROR_OUT_OF_MEMORY, "kernel '" + k.id + "': cannot allocate " +
                                                         std::to_string(inst.temps_size) +
                                                         " bytes of temporaries");
    }
  }
  std::memset(temps, 0, inst.temps_size);
  alignas(16) unsigned char res[16] = {};
  qdrt_launch_context ctx{f.ptrs, temps, res, &host_print, nullptr, 0, 0};
  // A kernel that draws qd.random holds the states for its whole launch (task_abi.h).
  std::unique_lock<std::mutex> random_lock;
  if (inst.random) {
    RandomStates& r = k.store->random();
    random_lock = std::unique_lock<std::mutex>(r.launch_mutex());
    ctx.rand_states =
        r.states(static_cast<uint32_t>(k.store->pool().threads()), ctx.num_rand_states);
  }
  for (size_t i = 0; i < inst.tasks.size(); i = next_task(inst.tasks[i], i, f.ptrs)) {
    const TaskInfo& t = inst.tasks[i];
    if (t.kind == QDRT_TASK_SERIAL) {
      t.fn(&ctx, 0, 1);
      continue;
    }
    int64_t n = t.extent(&ctx);
    if (debug_enabled()) {
      log_debug("kernel '%s': range task %.*s over %" PRId64 " iterations (grain %u)", k.id.c_str(),
                static_cast<int>(t.name.size()), t.name.data(), n, t.launch.grain);
    }
    if (n > 0) {
      int64_t grain = t.launch.grain > 0 ? t.launch.grain : 1;
      if (n <= grain) {
        t.fn(&ctx, 0, n);
      } else {
        k.store->pool().run(t.fn, &ctx, n, grain, inst.random ? ctx.num_rand_states : 0);
      }
    }
  }
  if (inst.prints) {
    std::fflush(stdout);  // as Quadrants flushes at its synchronization after a launch
  }
  if (result != nullptr) {
    *result = qdrt_value{};
    result->dtype = inst.result_dtype;
    uint32_t d = inst.result_dtype;
    if (d == QDRT_DTYPE_NONE) {
      result->kind = QDRT_VALUE_NONE;
    } else if (d == QDRT_DTYPE_F64) {
      result->kind = QDRT_VALUE_FLOAT;
      std::memcpy(&result->f, res, 8);
    } else if (d == QDRT_DTYPE_F32) {
      float x;
      std::memcpy(&x, res, 4);
      result->kind = QDRT_VALUE_FLOAT;
      result->f = x;
    } else if (d == QDRT_DTYPE_F16) {
      uint16_t h;
      std::memcpy(&h, res, 2);
      result->kind = QDRT_VALUE_FLOAT;
      result->f = half_to_double(h);
    } else {
      result->kind = d == QDRT_DTYPE_U1 ? QDRT_VALUE_BOOL : QDRT_VALUE_INT;
      switch (dtype_size(d)) {
        // Each branch widens to int64_t itself: a `signed ? int32_t : uint32_t` conditional
        // would convert the signed value back to unsigned.
        case 1:
          result->i =
              dtype_is_signed(d) ? int64_t{*reinterpret_cast<int8_t*>(res)} : int64_t{res[0]};
          break;
        case 2: {
          uint16_t u;
          std::memcpy(&u, res, 2);
          result->i = dtype_is_signed(d) ? int64_t{static_cast<int16_t>(u)} : int64_t{u};
          break;
        }
        case 4: {
          uint32_t u;
          std::memcpy(&u, res, 4);
          result->i = dtype_is_signed(d) ? int64_t{static_cast<int32_t>(u)} : int64_t{u};
          break;
        }
        default: std::memcpy(&result->i, res, 8); break;
      }
    }
  }
  return {};
}

std::string signature_text(const Instance& inst) {
  std::string s;
  for (const ArgInfo& a : inst.args) {
    s += s.empty() ? "" : ", ";
    s += a.name;
  }
  return s;
}

// Picks the instance `args` select among the CPU or (`cuda`) CUDA instances and binds them into
// `frame`; `run_inst` is the instance to run (its "+whole" variant for aliased arrays).
Status select_and_bind(Kernel& k, const qdrt_value* args, size_t count, bool cuda, Frame& frame,
                       Instance*& run_inst) {
  auto& instances = cuda ? k.cuda_instances : k.instances;
  if (instances.empty()) {
    std::string m =
        "kernel '" + k.id + "' has no " + (cuda ? "CUDA" : "CPU") + " instance in the store";
    if (!k.other_targets.empty()) {
      m += " (built for:";
      for (const std::string& t : k.other_targets) {
        m += " " + t;
      }
      m += ")";
    }
    return Status::error(QDRT_ERROR_NOT_FOUND, m);
  }
  // Instances of one kernel may take different arguments (a dataclass parameter passes the
  // members each instance reads): only those taking `count` are candidates.
  const Instance* same_count = nullptr;
  size_t most_passed = 0;
  for (const auto& inst : instances) {
    if (inst->args.size() == count) {
      same_count = same_count != nullptr ? same_count : inst.get();
      most_passed = std::max(most_passed, inst->passed);
    }
  }
  if (same_count == nullptr) {
    const Instance& first = *instances.front();
    return Status::error(QDRT_ERROR_ARGUMENT,
                         "kernel '" + k.id + "' takes " + std::to_string(first.args.size()) +
                             " argument" + (first.args.size() == 1 ? "" : "s") + " (" +
                             signature_text(first) + "), got " + std::to_string(count));
  }
  if (count > 0 && args == nullptr) {
    return Status::error(QDRT_ERROR_INVALID_ARGUMENT, "kernel '" + k.id + "': args is NULL");
  }
  frame.reserve(most_passed);
  Instance* chosen = nullptr;
  std::string reasons;
  bool single_misuse = false;
  Mismatch first_mismatch;
  size_t candidates = 0;
  for (const auto& inst : instances) {
    candidates += inst->args.size() == count ? 1 : 0;
  }
  for (size_t i = 0; i < instances.size(); ++i) {
    Mismatch m;
    if (instances[i]->args.size() != count) {
      reasons += "\n  '" + std::string(instances[i]->instance) + "': takes " +
                 std::to_string(instances[i]->args.size()) + " arguments";
      continue;
    }
    if (bind(*instances[i], args, frame, m)) {
      chosen = instances[i].get();
      break;
    }
    if (first_mismatch.why.empty()) {
      first_mismatch = m;
    }
    reasons += "\n  '" + std::string(instances[i]->instance) + "': " + m.why;
    single_misuse = candidates == 1 && !m.selects;
  }
  if (chosen == nullptr) {
    if (single_misuse) {
      return Status::error(QDRT_ERROR_ARGUMENT, "kernel '" + k.id + "': " + first_mismatch.why);
    }
    return Status::error(QDRT_ERROR_NO_INSTANCE,
                         "kernel '" + k.id + "': no built instance matches the arguments; " +
                             std::to_string(instances.size()) + " built instance" +
                             (instances.size() == 1 ? "" : "s") + ":" + reasons);
  }
  // The compiler never recomputes a value across tasks (values crossing tasks go through the
  // temporaries), so split tasks compute what the whole kernel computes even when arrays alias.
  // A "+whole" variant, when one was published, is still preferred for aliased arguments (the
  // seed's fallback); without one the split tasks run silently.
  run_inst = chosen;
  if (chosen->whole != nullptr) {
    std::string pair = aliased(*chosen, args);
    if (!pair.empty()) {
      k.fallbacks.fetch_add(1, std::memory_order_relaxed);
      run_inst = chosen->whole;
      if (!k.warned.exchange(true)) {
        std::fprintf(stderr,
                     "[PER_OFFLOAD][FALLBACK] %s: arguments %s share memory; running the "
                     "whole-kernel variant (warned once)\n",
                     k.id.c_str(), pair.c_str());
      }
    }
  }
  if (debug_enabled()) {
    log_debug("launch '%s' instance '%.*s' (%.*s, %zu tasks)", k.id.c_str(),
              static_cast<int>(run_inst->instance.size()), run_inst->instance.data(),
              static_cast<int>(run_inst->target.size()), run_inst->target.data(),
              run_inst->tasks.size());
  }
  return {};
}

Status execute(Kernel& k, Instance& inst, const Frame& frame, qdrt_value* result,
               const CudaLaunch* cuda) {
  if (Status s = cuda != nullptr ? cuda_run(k, inst, frame.ptrs, result, *cuda)
                                 : run(k, inst, frame, result);
      !s.ok()) {
    return s;
  }
  k.last.store(&inst, std::memory_order_relaxed);
  k.launches.fetch_add(1, std::memory_order_relaxed);
  return {};
}

}  // namespace

Status launch(Kernel& k, const qdrt_value* args, size_t count, qdrt_value* result,
              const CudaLaunch* cuda) {
  Frame frame;
  Instance* inst = nullptr;
  if (Status s = select_and_bind(k, args, count, cuda != nullptr, frame, inst); !s.ok()) {
    return s;
  }
  return execute(k, *inst, frame, result, cuda);
}

// A bound launch: the frame's pointers point into itself, so it lives where it was made.
struct BoundLaunch {
  Kernel* kernel = nullptr;
  Instance* inst = nullptr;
  bool cuda = false;
  CudaLaunch cuda_options;
  Frame frame;
};

void BoundLaunchDeleter::operator()(BoundLaunch* b) const { delete b; }

Status bind_launch(Kernel& k, const qdrt_value* args, size_t count, const CudaLaunch* cuda,
                   BoundLaunchPtr& out) {
  BoundLaunchPtr b(new BoundLaunch);
  b->kernel = &k;
  b->cuda = cuda != nullptr;
  if (cuda != nullptr) {
    b->cuda_options = *cuda;
  }
  if (Status s = select_and_bind(k, args, count, b->cuda, b->frame, b->inst); !s.ok()) {
    return s;
  }
  out = std::move(b);
  return {};
}

Status run_bound(const BoundLaunch& b, qdrt_value* result) {
  return execute(*b.kernel, *b.inst, b.frame, result, b.cuda ? &b.cuda_options : nullptr);
}

}  // namespace qdrt
