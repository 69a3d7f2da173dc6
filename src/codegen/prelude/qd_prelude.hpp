// qd_prelude.hpp: the builtins every generated task translation unit includes. Freestanding: no
// system header, no compiler resource header; only <stdint.h> from this directory and the runtime's
// ABI header. Embedded into qd_backend at build time and served to the in-process compiler from
// memory, so a TU says `#include "qd_prelude.hpp"` and needs no -I at run time (docs/backend.md
// "The prelude").
//
// Everything here has internal linkage (an unnamed namespace): a task object exports only its
// QD_TASK functions, so two tasks in one module never clash and a task's object bytes depend on
// its own TU alone.
#pragma once

#include "qdrt/task_abi.h"
#include <stdint.h>

// A task entry point or extent function: C linkage, exported from the module.
#if defined(__NVPTX__)
// CUDA (task_abi.h "CUDA modules"): a kernel entry point taking qdrt_cuda_context by value.
#define QD_TASK extern "C" __attribute__((nvptx_kernel))
#else
#define QD_TASK extern "C" __attribute__((visibility("default")))
#endif

// Defines the module's ABI version symbol (task_abi.h). Exactly one TU of a module uses it; the
// backend provides that TU (qd::backend::module_abi_unit()).
#if defined(__NVPTX__)
#define QD_MODULE_ABI_VERSION()                                                                    \
  extern "C" __attribute__((visibility("default"))) qdrt_rand_state* qdrt_cuda_rand_states =       \
      nullptr;                                                                                     \
  extern "C" __attribute__((visibility("default"))) const uint32_t qdrt_module_abi_version =       \
      QDRT_TASK_ABI_VERSION
#else
#define QD_MODULE_ABI_VERSION()                                                                    \
  extern "C" __attribute__((visibility("default"))) const uint32_t qdrt_module_abi_version =       \
      QDRT_TASK_ABI_VERSION
#endif

#if defined(__NVPTX__)
// The generator states of qd.random on CUDA (task_abi.h "Random numbers"): a device global the
// module ABI unit defines and the runtime points at its states after loading the module.
extern "C" qdrt_rand_state* qdrt_cuda_rand_states;
#endif

// The CUDA kernel parameter (task_abi.h "CUDA modules", ABI 3): the first bytes of a
// qdrt_cuda_context, N = max(1, passed) argument slots; tasks read it as a qdrt_cuda_context.
// (Outside the unnamed namespace: the type of an extern "C" entry point's parameter.)
template <int N> struct qd_cuda_context {
  void* temps;
  void* result;
  qdrt_cuda_arg args[N];
};
static_assert(sizeof(qd_cuda_context<QDRT_CUDA_MAX_ARGS>) == sizeof(qdrt_cuda_context), "layout");
static_assert(sizeof(qd_cuda_context<QDRT_CUDA_MAX_ARGS>) <= 32764,
              "CUDA's kernel parameter limit");

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

// The same accessors over the CUDA context (task_abi.h "CUDA modules"), and the grid-stride loop.
template <class T> inline T arg_scalar(const qdrt_cuda_context* ctx, int index) {
  T v;
  __builtin_memcpy(&v, &ctx->args[index].scalar, sizeof(T));
  return v;
}
inline const qdrt_cuda_arg* arg_array(const qdrt_cuda_context* ctx, int index) {
  return &ctx->args[index];
}
template <class T> inline T* array_data(const qdrt_cuda_arg* a) { return static_cast<T*>(a->data); }
template <class T> inline T* temp(const qdrt_cuda_context* ctx, uint64_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(ctx->temps) + offset);
}
template <class T> inline T* result(const qdrt_cuda_context* ctx) {
  return static_cast<T*>(ctx->result);
}
#if defined(__NVPTX__)
inline i64 thread_index() {
  return static_cast<i64>(__nvvm_read_ptx_sreg_ctaid_x()) * __nvvm_read_ptx_sreg_ntid_x() +
         __nvvm_read_ptx_sreg_tid_x();
}
inline i64 thread_stride() {
  return static_cast<i64>(__nvvm_read_ptx_sreg_ntid_x()) * __nvvm_read_ptx_sreg_nctaid_x();
}
#endif

// --- thread blocks (qd.simt; docs/compiler.md "Block tasks") ----------------------------------
// CUDA: the hardware's barriers and fences. CPU: a block task runs its block's threads in one
// pass each up to their next barrier (a state machine the code generator writes: the thread's
// locals live in its frame, `state_` is where it resumes, `wait_` what it waits for), and
// block_release lets them go on once every live thread of the block (block_sync) or of its warp
// (warp_sync) waits at the same barrier; threads that reach different barriers are the
// undefined behaviour CUDA deadlocks on, and trap here.
// Warp operations (ir::WarpOp): `op` 1 shuffle, 2 shuffle_up, 3 shuffle_down, 4 ballot, 5 all,
// 6 any, 10 match_any, 11 match_all (an i32 value: the lanes holding this lane's value; the live
// lanes when all hold the same, else 0); values travel as their bits (64-bit ones as two 32-bit
// halves on CUDA, as Quadrants' cuda_shuffle_i64 moves them).
template <class T> inline u64 to_bits(T v) {
  if constexpr (sizeof(T) == 4) {
    return __builtin_bit_cast(u32, v);
  } else {
    return __builtin_bit_cast(u64, v);
  }
}
template <class T> inline T from_bits(u64 b) {
  if constexpr (sizeof(T) == 4) {
    return __builtin_bit_cast(T, static_cast<u32>(b));
  } else {
    return __builtin_bit_cast(T, b);
  }
}
#if defined(__NVPTX__)
template <int Op> inline i32 shfl32(i32 v, i32 arg) {
  if constexpr (Op == 1) {
    return __nvvm_shfl_sync_idx_i32(0xffffffffu, v, arg, 0x1f);
  } else if constexpr (Op == 2) {
    return __nvvm_shfl_sync_up_i32(0xffffffffu, v, arg, 0);
  } else {
    return __nvvm_shfl_sync_down_i32(0xffffffffu, v, arg, 0x1f);
  }
}
template <int Op, class T> inline T warp_op(T v, i32 arg) {
  if constexpr (Op == 10) {
    return static_cast<T>(__nvvm_match_any_sync_i32(0xffffffffu, static_cast<i32>(v)));
  } else if constexpr (Op == 11) {
    int all_equal = 0;
    return static_cast<T>(__nvvm_match_all_sync_i32p(0xffffffffu, static_cast<i32>(v), &all_equal));
  } else if constexpr (Op == 7) {
    return static_cast<T>(__nvvm_bar0_and(v != 0));
  } else if constexpr (Op == 8) {
    return static_cast<T>(__nvvm_bar0_or(v != 0));
  } else if constexpr (Op == 9) {
    return static_cast<T>(__nvvm_bar0_popc(v != 0));
  } else if constexpr (Op == 4) {
    return static_cast<T>(__nvvm_vote_ballot_sync(0xffffffffu, v != 0));
  } else if constexpr (Op == 5) {
    return static_cast<T>(__nvvm_vote_all_sync(0xffffffffu, v != 0));
  } else if constexpr (Op == 6) {
    return static_cast<T>(__nvvm_vote_any_sync(0xffffffffu, v != 0));
  } else if constexpr (sizeof(T) == 4) {
    return from_bits<T>(static_cast<u32>(shfl32<Op>(static_cast<i32>(to_bits(v)), arg)));
  } else {
    u64 b = to_bits(v);
    u32 lo = static_cast<u32>(shfl32<Op>(static_cast<i32>(static_cast<u32>(b)), arg));
    u32 hi = static_cast<u32>(shfl32<Op>(static_cast<i32>(static_cast<u32>(b >> 32)), arg));
    return from_bits<T>((static_cast<u64>(hi) << 32) | lo);
  }
}
inline void block_sync() { __nvvm_barrier_sync(0); }
inline void warp_sync() { __nvvm_bar_warp_sync(0xffffffffu); }
inline void block_fence() { __nvvm_membar_cta(); }
inline void grid_fence() { __nvvm_membar_gl(); }
inline i32 block_thread_idx() { return static_cast<i32>(__nvvm_read_ptx_sreg_tid_x()); }
#else
inline void block_fence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void grid_fence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
enum : i32 { k_running = 0, k_at_block_sync = 1, k_at_warp_sync = 2, k_exited = 3 };
// A warp operation of a thread that is the only one (a serial task): lane 0 of a warp of one.
template <int Op, class T> inline T warp_op(T v, i32 arg) {
  if constexpr (Op >= 10) {  // a match: the one lane matches itself
    (void)v;
    (void)arg;
    return static_cast<T>(1);
  } else if constexpr (Op >= 4) {  // a vote or a block reduction of one thread's predicate
    return static_cast<T>(v != 0 ? 1 : 0);
  } else {
    (void)arg;
    return v;  // every source lane but its own is absent: its own value, as CUDA's clamps give
  }
}
// The results of the warp operation the live lanes [w, end) of a warp wait at (frames' xop_,
// xv_: the value's bits, xa_: the lane or offset; xr_: the result's bits).
template <class F> inline void warp_exchange(F* f, i32 w, i32 end) {
  u64 ballot = 0;
  u64 live = 0;
  bool all = true;
  bool any = false;
  bool same = true;
  i32 first = -1;
  for (i32 t = w; t < end; ++t) {
    if (f[t].wait_ != k_exited) {
      ballot |= (f[t].xv_ != 0 ? u64{1} : u64{0}) << (t - w);
      live |= u64{1} << (t - w);
      all = all && f[t].xv_ != 0;
      any = any || f[t].xv_ != 0;
      same = same && (first < 0 || f[t].xv_ == f[first].xv_);
      first = first < 0 ? t : first;
    }
  }
  for (i32 t = w; t < end; ++t) {
    F& x = f[t];
    if (x.wait_ == k_exited || x.xop_ == 0) {
      continue;
    }
    i32 lane = t - w;
    i32 b = x.xa_ & 31;
    i32 src = x.xop_ == 1 ? b : x.xop_ == 2 ? lane - b : lane + b;
    bool inside = src >= 0 && src <= 31 && w + src < end && f[w + src].wait_ != k_exited;
    switch (x.xop_) {
      case 4: x.xr_ = ballot; break;
      case 5: x.xr_ = all ? 1 : 0; break;
      case 6: x.xr_ = any ? 1 : 0; break;
      case 10: {
        u64 m = 0;
        for (i32 u = w; u < end; ++u) {
          m |= (f[u].wait_ != k_exited && f[u].xv_ == x.xv_ ? u64{1} : u64{0}) << (u - w);
        }
        x.xr_ = m;
        break;
      }
      case 11: x.xr_ = same ? live : 0; break;
      default: x.xr_ = inside ? f[w + src].xv_ : x.xv_; break;
    }
  }
}
inline i64 block_count(i64 extent, i64 block_dim) { return (extent + block_dim - 1) / block_dim; }
// After a pass over the block's `n` threads: true when some waited at a barrier they may now
// pass (they are running again), false when every thread has exited.
template <class F> inline bool block_release(F* f, i32 n) {
  bool released = false;
  for (i32 w = 0; w < n; w += 32) {  // warps whose live lanes all wait at one warp barrier
    i32 end = w + 32 < n ? w + 32 : n;
    i32 state = -1;
    bool all = true;
    bool any = false;
    for (i32 t = w; t < end && all; ++t) {
      if (f[t].wait_ == k_exited) {
        continue;
      }
      all = f[t].wait_ == k_at_warp_sync && (state < 0 || f[t].state_ == state);
      state = f[t].state_;
      any = true;
    }
    if (all && any) {
      warp_exchange(f, w, end);
      for (i32 t = w; t < end; ++t) {
        f[t].wait_ = f[t].wait_ == k_exited ? k_exited : k_running;
      }
      released = true;
    }
  }
  if (released) {
    return true;
  }
  i32 state = -1;
  bool any = false;
  for (i32 t = 0; t < n; ++t) {
    if (f[t].wait_ == k_exited) {
      continue;
    }
    if (f[t].wait_ != k_at_block_sync || (state >= 0 && f[t].state_ != state)) {
      __builtin_trap();  // the block's threads wait at different barriers (a CUDA deadlock)
    }
    state = f[t].state_;
    any = true;
  }
  // A block barrier that reduces the predicates (sync_all / any / count_nonzero: xop_ 7, 8, 9).
  i32 count = 0;
  i32 live = 0;
  for (i32 t = 0; t < n; ++t) {
    if (f[t].wait_ != k_exited) {
      count += f[t].xv_ != 0 ? 1 : 0;
      ++live;
    }
  }
  for (i32 t = 0; t < n && any; ++t) {
    if (f[t].wait_ == k_exited) {
      continue;
    }
    f[t].wait_ = k_running;
    i32 op = f[t].xop_;
    f[t].xr_ = op == 7 ? (count == live ? 1 : 0) : op == 8 ? (count > 0 ? 1 : 0) : u64(count);
  }
  return any;
}
#endif

// --- math ------------------------------------------------------------------------------------
// x86-64: compiler builtins (transcendental ones become libm calls). NVPTX: CUDA's libdevice
// (__nv_*, linked by the backend), since LLVM has no NVPTX libcalls for them; sqrt, floor, ceil,
// fabs, fmin and fmax are single instructions on both.

#if defined(__NVPTX__)
// clang-format off
extern "C" {
#define QD_LIBDEVICE_1(name) float __nv_##name##f(float); double __nv_##name(double);
#define QD_LIBDEVICE_2(name) float __nv_##name##f(float, float); double __nv_##name(double, double);
QD_LIBDEVICE_1(sin)
QD_LIBDEVICE_1(cos)
QD_LIBDEVICE_1(tan)
QD_LIBDEVICE_1(asin)
QD_LIBDEVICE_1(acos)
QD_LIBDEVICE_1(atan)
QD_LIBDEVICE_1(tanh)
QD_LIBDEVICE_1(exp)
QD_LIBDEVICE_1(log)
QD_LIBDEVICE_1(round)
QD_LIBDEVICE_2(pow)
QD_LIBDEVICE_2(atan2)
QD_LIBDEVICE_2(fmod)
#undef QD_LIBDEVICE_1
#undef QD_LIBDEVICE_2
}
// clang-format on
#define QD_MATH_1(name)                                                                            \
  inline f32 name(f32 x) { return __nv_##name##f(x); }                                             \
  inline f64 name(f64 x) { return __nv_##name(x); }
#define QD_MATH_2(name)                                                                            \
  inline f32 name(f32 x, f32 y) { return __nv_##name##f(x, y); }                                   \
  inline f64 name(f64 x, f64 y) { return __nv_##name(x, y); }
#else
#define QD_MATH_1(name)                                                                            \
  inline f32 name(f32 x) { return __builtin_##name##f(x); }                                        \
  inline f64 name(f64 x) { return __builtin_##name(x); }
#define QD_MATH_2(name)                                                                            \
  inline f32 name(f32 x, f32 y) { return __builtin_##name##f(x, y); }                              \
  inline f64 name(f64 x, f64 y) { return __builtin_##name(x, y); }
#endif

QD_MATH_1(sin)
QD_MATH_1(cos)
QD_MATH_1(tan)
QD_MATH_1(asin)
QD_MATH_1(acos)
QD_MATH_1(atan)
QD_MATH_1(tanh)
QD_MATH_1(exp)
QD_MATH_1(log)
// Half away from zero (LLVM's llvm.round, libdevice's round).
QD_MATH_1(round)
QD_MATH_2(pow)
QD_MATH_2(atan2)
QD_MATH_2(fmod)
#undef QD_MATH_1
#undef QD_MATH_2

inline f32 sqrt(f32 x) { return __builtin_sqrtf(x); }
inline f64 sqrt(f64 x) { return __builtin_sqrt(x); }
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
inline f32 rsqrt(f32 x) { return 1.0f / __builtin_sqrtf(x); }
inline f64 rsqrt(f64 x) { return 1.0 / __builtin_sqrt(x); }
inline bool isnan(f32 x) { return __builtin_isnan(x); }
inline bool isnan(f64 x) { return __builtin_isnan(x); }
inline bool isinf(f32 x) { return __builtin_isinf(x); }
inline bool isinf(f64 x) { return __builtin_isinf(x); }

template <class T> inline T abs(T x) { return x < 0 ? static_cast<T>(-x) : x; }
inline f32 abs(f32 x) { return __builtin_fabsf(x); }
inline f64 abs(f64 x) { return __builtin_fabs(x); }
// min / max: integers compare; floats follow fmin / fmax (a NaN operand loses), like Quadrants.
template <class T> inline T min(T a, T b) { return b < a ? b : a; }
template <class T> inline T max(T a, T b) { return a < b ? b : a; }
inline f32 min(f32 a, f32 b) { return __builtin_fminf(a, b); }
inline f64 min(f64 a, f64 b) { return __builtin_fmin(a, b); }
inline f32 max(f32 a, f32 b) { return __builtin_fmaxf(a, b); }
inline f64 max(f64 a, f64 b) { return __builtin_fmax(a, b); }

template <class T> inline i32 popcnt(T x) {
  return __builtin_popcountll(static_cast<u64>(static_cast<__make_unsigned(T)>(x)));
}
template <class T> inline i32 clz(T x) {
  constexpr int bits = static_cast<int>(sizeof(T) * 8);
  u64 u = static_cast<u64>(static_cast<__make_unsigned(T)>(x));
  return u == 0 ? bits : __builtin_clzll(u) - (64 - bits);
}
// qd.math.ffs: the 1-based position of the lowest set bit of the bit pattern, 0 for 0.
template <class T> inline i32 ffs(T x) {
  u64 u = static_cast<u64>(static_cast<__make_unsigned(T)>(x));
  return u == 0 ? 0 : __builtin_ctzll(u) + 1;
}

// --- integer division with Python's semantics (docs/language.md §3) -------------------------
// Division by zero gives 0 instead of trapping (x86 would raise SIGFPE); INT_MIN / -1 wraps.

template <class T> inline T raw_div(T a, T b) {
  if (b == 0) {
    return 0;
  }
  if constexpr (static_cast<T>(-1) < 0) {
    if (b == static_cast<T>(-1)) {
      return static_cast<T>(static_cast<__make_unsigned(T)>(0) -
                            static_cast<__make_unsigned(T)>(a));
    }
  }
  return static_cast<T>(a / b);
}
template <class T> inline T raw_mod(T a, T b) {
  if (b == 0) {
    return 0;
  }
  if constexpr (static_cast<T>(-1) < 0) {
    if (b == static_cast<T>(-1)) {
      return 0;
    }
  }
  return static_cast<T>(a % b);
}
inline f32 raw_div(f32 a, f32 b) { return a / b; }
inline f64 raw_div(f64 a, f64 b) { return a / b; }
inline f32 raw_mod(f32 a, f32 b) { return fmod(a, b); }
inline f64 raw_mod(f64 a, f64 b) { return fmod(a, b); }

// Python //: floor division. Integers: C division, minus one when the signs differ and the
// remainder is nonzero. Floats: floor(a / b).
template <class T> inline T floordiv(T a, T b) {
  T q = raw_div(a, b);
  if constexpr (static_cast<T>(-1) < 0) {
    T r = raw_mod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) {
      q = static_cast<T>(q - 1);
    }
  }
  return q;
}
inline f32 floordiv(f32 a, f32 b) { return __builtin_floorf(a / b); }
inline f64 floordiv(f64 a, f64 b) { return __builtin_floor(a / b); }

// Python %: a - (a // b) * b (the sign of the divisor).
template <class T> inline T mod(T a, T b) {
  T r = raw_mod(a, b);
  if constexpr (static_cast<T>(-1) < 0) {
    if (r != 0 && ((r < 0) != (b < 0))) {
      r = static_cast<T>(r + b);
    }
  }
  return r;
}
inline f32 mod(f32 a, f32 b) { return a - __builtin_floorf(a / b) * b; }
inline f64 mod(f64 a, f64 b) { return a - __builtin_floor(a / b) * b; }

// ** with an integer exponent: repeated squaring in the base's type; a negative exponent gives
// 1 / result for real bases (integer bases with negative exponents give 0).
template <class T> inline T ipow(T base, i64 e) {
  bool negative = e < 0;
  u64 n = negative ? static_cast<u64>(0) - static_cast<u64>(e) : static_cast<u64>(e);
  T result = 1;
  T x = base;
  while (n != 0) {
    if (n & 1) {
      result = static_cast<T>(result * x);
    }
    x = static_cast<T>(x * x);
    n >>= 1;
  }
  if (negative) {
    if constexpr (static_cast<T>(0.5) != 0) {
      return static_cast<T>(1) / result;
    } else {
      return 0;
    }
  }
  return result;
}

// Shifts: the result has the left operand's type; >> is arithmetic for signed types and logical
// for unsigned ones; bit_shr is always logical. The amount is taken modulo the width (x86).
template <class T> inline T shl(T a, T b) {
  using U = __make_unsigned(T);
  constexpr unsigned bits = sizeof(T) * 8;
  return static_cast<T>(static_cast<U>(a) << (static_cast<unsigned>(b) & (bits - 1)));
}
template <class T> inline T shr(T a, T b) {
  constexpr unsigned bits = sizeof(T) * 8;
  return static_cast<T>(a >> (static_cast<unsigned>(b) & (bits - 1)));
}
template <class T> inline T bit_shr(T a, T b) {
  using U = __make_unsigned(T);
  constexpr unsigned bits = sizeof(T) * 8;
  return static_cast<T>(static_cast<U>(a) >> (static_cast<unsigned>(b) & (bits - 1)));
}

// The largest / smallest value of an integer type (identities of min / max reductions).
template <class T> inline constexpr T max_of() {
  using U = __make_unsigned(T);
  return static_cast<T>(-1) < 0 ? static_cast<T>(static_cast<U>(~U{0}) >> 1)
                                : static_cast<T>(~U{0});
}
template <class T> inline constexpr T min_of() {
  return static_cast<T>(-1) < 0 ? static_cast<T>(-max_of<T>() - 1) : T{0};
}

// The iteration count of a range task with bounds [begin, end) (<= 0: none).
inline i64 extent(i64 begin, i64 end) { return end - begin; }

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

template <class T> inline T atomic_and(T* p, T v) {
  return __atomic_fetch_and(p, v, __ATOMIC_RELAXED);
}
template <class T> inline T atomic_or(T* p, T v) {
  return __atomic_fetch_or(p, v, __ATOMIC_RELAXED);
}
template <class T> inline T atomic_xor(T* p, T v) {
  return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED);
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
template <class T> inline T atomic_mul(T* p, T v) {
  return atomic_update_float(p, [v](T old) { return static_cast<T>(old * v); });
}
// qd.atomic_exchange (any scalar type) and qd.atomic_cas (integers): the old value.
template <class T> inline T atomic_exchange(T* p, T v) {
  T old;
  __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
  return old;
}
template <class T> inline T atomic_cas(T* p, T expected, T desired) {
  __atomic_compare_exchange(p, &expected, &desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;  // the old value whether or not the swap happened
}

// --- random numbers (task_abi.h "Random numbers") ---------------------------------------------
// Quadrants' generator, step for step (its runtime.cpp rand_u32 ... rand_f64): xorshift128 on the
// calling thread's state, the output multiplied by the prime 1000000007. The state: CPU, the
// worker's (ctx->worker); CUDA, the thread's linear index in the grid (blockIdx.x * blockDim.x +
// threadIdx.x, Quadrants' linear_thread_idx) in qdrt_cuda_rand_states.
inline u32 rand_next(qdrt_rand_state* s) {
  u32 t = s->x ^ (s->x << 11);
  s->x = s->y;
  s->y = s->z;
  s->z = s->w;
  s->w = (s->w ^ (s->w >> 19)) ^ (t ^ (t >> 8));
  return s->w * 1000000007u;
}
inline u32 rand_u32(const qdrt_launch_context* ctx) {
  return rand_next(&ctx->rand_states[ctx->worker]);
}
#if defined(__NVPTX__)
inline u32 rand_u32(const qdrt_cuda_context*) {
  return rand_next(&qdrt_cuda_rand_states[thread_index()]);
}
#endif
template <class C> inline u64 rand_u64(const C* ctx) {
  u64 high = rand_u32(ctx);  // drawn first, as Quadrants' ((u64)rand_u32() << 32) + rand_u32()
  u64 low = rand_u32(ctx);
  return (high << 32) + low;
}
template <class C> inline f32 rand_f32(const C* ctx) {
  return static_cast<f32>(rand_u32(ctx) >> 8) * (1.0f / 16777216.0f);
}
template <class C> inline f64 rand_f64(const C* ctx) {
  return static_cast<f64>(rand_u64(ctx) >> 11) * (1.0 / 9007199254740992.0);
}
template <class C> inline i32 rand_i32(const C* ctx) { return static_cast<i32>(rand_u32(ctx)); }
template <class C> inline i64 rand_i64(const C* ctx) { return static_cast<i64>(rand_u64(ctx)); }

// --- print (task_abi.h "Printing") ------------------------------------------------------------
// The arguments arrive promoted as C varargs are (f64, i32 for narrow types, long long ...).
// CPU: the runtime's printf-style callback in the launch context. CUDA: the device vprintf, with
// the arguments packed at their natural alignment as CUDA's printf packs them.
template <class... A>
inline void print(const qdrt_launch_context* ctx, const char* format, A... a) {
  ctx->print(format, a...);
}
#if defined(__NVPTX__)
extern "C" int vprintf(const char* format, void* args);
template <class... A> inline void print(const qdrt_cuda_context*, const char* format, A... a) {
  alignas(8) unsigned char buffer[8 * (sizeof...(A) + 1)];
  unsigned long offset = 0;
  ((offset = (offset + sizeof(A) - 1) & ~(sizeof(A) - 1),
    __builtin_memcpy(buffer + offset, &a, sizeof(A)), offset += sizeof(A)),
   ...);
  vprintf(format, buffer);
}
#endif

}  // namespace
}  // namespace qd
