// qd_prelude.hpp: the builtins every generated task translation unit includes (STYLE.md "Make
// generated C++ readable, deterministic and self-contained"). Freestanding: no system header, no
// compiler resource header; only <stdint.h> from this directory and the runtime's ABI header.
// Embedded into qd_backend at build time and served to the in-process compiler from memory, so a
// TU says `#include "qd_prelude.hpp"` and needs no -I at run time (docs/backend.md "The prelude").
//
// Everything here has internal linkage (an unnamed namespace): a task object exports only its
// QD_TASK functions, so two tasks in one module never clash and a task's object bytes depend on
// its own TU alone.
#pragma once

#include "qdrt/task_abi.h"
#include <stdint.h>

// A task entry point or extent function: C linkage, exported from the module.
#define QD_TASK extern "C" __attribute__((visibility("default")))

// Defines the module's ABI version symbol (task_abi.h). Exactly one TU of a module uses it; the
// backend provides that TU (qd::backend::module_abi_unit()).
#define QD_MODULE_ABI_VERSION()                                                                    \
  extern "C" __attribute__((visibility("default"))) const uint32_t qdrt_module_abi_version =       \
      QDRT_TASK_ABI_VERSION

namespace qd {
namespace {

using i8 = int8_t;
using i16 = int16_t;
using i32 = int32_t;
using i64 = int64_t;
using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;
using f32 = float;
using f64 = double;

static_assert(sizeof(i64) == 8 && sizeof(f64) == 8 && sizeof(void*) == 8, "LP64 target");

// --- arguments (task_abi.h "Arguments") ---------------------------------------------------------

// The scalar argument `index` of the launch, stored as T.
template <class T> inline T arg_scalar(const qdrt_launch_context* ctx, int index) {
  return *static_cast<const T*>(ctx->args[index]);
}
// The ndarray argument `index` of the launch.
inline const qdrt_array* arg_array(const qdrt_launch_context* ctx, int index) {
  return static_cast<const qdrt_array*>(ctx->args[index]);
}
template <class T> inline T* array_data(const qdrt_array* a) { return static_cast<T*>(a->data); }
// The per-launch temporaries at byte offset `offset`, as T.
template <class T> inline T* temp(const qdrt_launch_context* ctx, uint64_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(ctx->temps) + offset);
}
template <class T> inline T* result(const qdrt_launch_context* ctx) {
  return static_cast<T*>(ctx->result);
}

// --- math (compiler builtins; on x86-64 transcendental ones become libm calls) -----------------

inline f32 sqrt(f32 x) { return __builtin_sqrtf(x); }
inline f64 sqrt(f64 x) { return __builtin_sqrt(x); }
inline f32 sin(f32 x) { return __builtin_sinf(x); }
inline f64 sin(f64 x) { return __builtin_sin(x); }
inline f32 cos(f32 x) { return __builtin_cosf(x); }
inline f64 cos(f64 x) { return __builtin_cos(x); }
inline f32 tan(f32 x) { return __builtin_tanf(x); }
inline f64 tan(f64 x) { return __builtin_tan(x); }
inline f32 exp(f32 x) { return __builtin_expf(x); }
inline f64 exp(f64 x) { return __builtin_exp(x); }
inline f32 log(f32 x) { return __builtin_logf(x); }
inline f64 log(f64 x) { return __builtin_log(x); }
inline f32 pow(f32 x, f32 y) { return __builtin_powf(x, y); }
inline f64 pow(f64 x, f64 y) { return __builtin_pow(x, y); }
inline f32 floor(f32 x) { return __builtin_floorf(x); }
inline f64 floor(f64 x) { return __builtin_floor(x); }
inline f32 ceil(f32 x) { return __builtin_ceilf(x); }
inline f64 ceil(f64 x) { return __builtin_ceil(x); }
inline f32 fabs(f32 x) { return __builtin_fabsf(x); }
inline f64 fabs(f64 x) { return __builtin_fabs(x); }
inline f32 fmin(f32 x, f32 y) { return __builtin_fminf(x, y); }
inline f64 fmin(f64 x, f64 y) { return __builtin_fmin(x, y); }
inline f32 fmax(f32 x, f32 y) { return __builtin_fmaxf(x, y); }
inline f64 fmax(f64 x, f64 y) { return __builtin_fmax(x, y); }

// --- atomics (relaxed: a launch's tasks are ordered by the runtime's joins, not by these) --------
// Each returns the value stored before the update, as qd.atomic_* do.

template <class T> inline T atomic_add(T* p, T v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
template <class T> inline T atomic_sub(T* p, T v) {
  return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
}
template <class T> inline T atomic_min(T* p, T v) {
  return __atomic_fetch_min(p, v, __ATOMIC_RELAXED);
}
template <class T> inline T atomic_max(T* p, T v) {
  return __atomic_fetch_max(p, v, __ATOMIC_RELAXED);
}

// Floating-point min/max: a compare-exchange loop (there is no fetch_min on floats). NaN operands
// follow fmin/fmax: the other operand wins.
template <class T, class F> inline T atomic_update_float(T* p, F f) {
  T old;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  while (true) {
    T desired = f(old);
    if (__atomic_compare_exchange(p, &old, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      return old;
    }
  }
}
template <> inline f32 atomic_min<f32>(f32* p, f32 v) {
  return atomic_update_float(p, [v](f32 old) { return fmin(old, v); });
}
template <> inline f64 atomic_min<f64>(f64* p, f64 v) {
  return atomic_update_float(p, [v](f64 old) { return fmin(old, v); });
}
template <> inline f32 atomic_max<f32>(f32* p, f32 v) {
  return atomic_update_float(p, [v](f32 old) { return fmax(old, v); });
}
template <> inline f64 atomic_max<f64>(f64* p, f64 v) {
  return atomic_update_float(p, [v](f64 old) { return fmax(old, v); });
}

}  // namespace
}  // namespace qd
