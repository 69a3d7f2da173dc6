// Hand-written CPU task module for the runtime tests, standing in for codegen output until the
// compiler (issue 5) exists: it follows qdrt/task_abi.h exactly (task T(ctx, begin, end),
// T__extent for range tasks, qdrt_module_abi_version) and is compiled by
// runtime/tests/make_test_store.py with `clang++-19 -shared -fPIC -O2`. Each kernel's Python
// source is in the comment above its tasks; make_test_store.py writes the matching index entries.
#include <atomic>
#include <cstdint>

#include "qdrt/task_abi.h"

#define QD_EXPORT extern "C" __attribute__((visibility("default")))

#ifndef TEST_ABI_VERSION
#define TEST_ABI_VERSION QDRT_TASK_ABI_VERSION
#endif

QD_EXPORT const uint32_t qdrt_module_abi_version = TEST_ABI_VERSION;

namespace {

const qdrt_array& array(const qdrt_launch_context* ctx, int i) {
  return *static_cast<const qdrt_array*>(ctx->args[i]);
}
template <class T> T* data(const qdrt_launch_context* ctx, int i) {
  return static_cast<T*>(array(ctx, i).data);
}
template <class T> T scalar(const qdrt_launch_context* ctx, int i) {
  return *static_cast<const T*>(ctx->args[i]);
}
template <class T> void store_result(const qdrt_launch_context* ctx, T value) {
  *static_cast<T*>(ctx->result) = value;
}

}  // namespace

// @qd.kernel
// def saxpy(a: qd.f32, x: qd.types.NDArray[qd.f32, 1], y: qd.types.NDArray[qd.f32, 1]):
//     for i in range(y.shape[0]):
//         y[i] = a * x[i] + y[i]
QD_EXPORT int64_t saxpy_t0__extent(const qdrt_launch_context* ctx) {
  return array(ctx, 2).shape[0];
}
QD_EXPORT void saxpy_t0(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  float a = scalar<float>(ctx, 0);
  const float* x = data<float>(ctx, 1);
  float* y = data<float>(ctx, 2);
  for (int64_t i = begin; i < end; ++i) {
    y[i] = a * x[i] + y[i];
  }
}

// @qd.kernel
// def sum_i64(x: qd.types.NDArray[qd.i64, 1]) -> qd.i64:
//     total = 0
//     qd.loop_config(serialize=True)
//     for i in range(x.shape[0]):
//         total += x[i]
//     return total
QD_EXPORT void sum_i64_t0(const qdrt_launch_context* ctx, int64_t, int64_t) {
  const int64_t* x = data<int64_t>(ctx, 0);
  int64_t total = 0;
  for (int64_t i = 0; i < array(ctx, 0).shape[0]; ++i) {
    total += x[i];
  }
  store_result(ctx, total);
}

// @qd.kernel
// def total_fill(x: qd.types.NDArray[qd.i32, 1], out: qd.types.NDArray[qd.i32, 1]) -> qd.i64:
//     total = 0                      # kernel-scope: lives in the temporaries (8 bytes)
//     for i in range(x.shape[0]):    # task 0: parallel reduction into the temporaries
//         total += x[i]
//     for i in range(out.shape[0]):  # task 1: reads the value task 0 left there
//         out[i] = total
//     return total                   # task 2 (serial)
QD_EXPORT int64_t total_fill_t0__extent(const qdrt_launch_context* ctx) {
  return array(ctx, 0).shape[0];
}
QD_EXPORT void total_fill_t0(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  const int32_t* x = data<int32_t>(ctx, 0);
  int64_t local = 0;
  for (int64_t i = begin; i < end; ++i) {
    local += x[i];
  }
  std::atomic_ref<int64_t>(*static_cast<int64_t*>(ctx->temps)).fetch_add(local);
}
QD_EXPORT int64_t total_fill_t1__extent(const qdrt_launch_context* ctx) {
  return array(ctx, 1).shape[0];
}
QD_EXPORT void total_fill_t1(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  int32_t* out = data<int32_t>(ctx, 1);
  int64_t total = *static_cast<const int64_t*>(ctx->temps);
  for (int64_t i = begin; i < end; ++i) {
    out[i] = static_cast<int32_t>(total);
  }
}
QD_EXPORT void total_fill_t2(const qdrt_launch_context* ctx, int64_t, int64_t) {
  store_result(ctx, *static_cast<const int64_t*>(ctx->temps));
}

// @qd.kernel
// def advance(pos: qd.types.NDArray[qd.types.vector(3, qd.f32), 1],
//             vel: qd.types.NDArray[qd.types.vector(3, qd.f32), 1], dt: qd.f32):
//     for i in range(pos.shape[0]):
//         pos[i] += vel[i] * dt
QD_EXPORT int64_t advance_t0__extent(const qdrt_launch_context* ctx) {
  return array(ctx, 0).shape[0];
}
QD_EXPORT void advance_t0(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  float* pos = data<float>(ctx, 0);
  const float* vel = data<float>(ctx, 1);
  float dt = scalar<float>(ctx, 2);
  for (int64_t i = begin; i < end; ++i) {
    for (int c = 0; c < 3; ++c) {
      pos[i * 3 + c] += vel[i * 3 + c] * dt;
    }
  }
}

// @qd.kernel
// def fill_k(out: qd.types.NDArray[qd.i32, 1], k: qd.template()):
//     for i in range(out.shape[0]):
//         out[i] = k * i
// instances k=2 and k=3 (pyproject.toml [tool.qdbuild]); the template value is folded in.
QD_EXPORT int64_t fill_k2_t0__extent(const qdrt_launch_context* ctx) {
  return array(ctx, 0).shape[0];
}
QD_EXPORT void fill_k2_t0(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  int32_t* out = data<int32_t>(ctx, 0);
  for (int64_t i = begin; i < end; ++i) {
    out[i] = static_cast<int32_t>(2 * i);
  }
}
QD_EXPORT int64_t fill_k3_t0__extent(const qdrt_launch_context* ctx) {
  return array(ctx, 0).shape[0];
}
QD_EXPORT void fill_k3_t0(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  int32_t* out = data<int32_t>(ctx, 0);
  for (int64_t i = begin; i < end; ++i) {
    out[i] = static_cast<int32_t>(3 * i);
  }
}

// @qd.kernel
// def scale(x: qd.types.ndarray(ndim=1), s: qd.f64):   # instances: dtype f32 and f64
//     for i in range(x.shape[0]):
//         x[i] = x[i] * s
template <class T> void scale_body(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  T* x = data<T>(ctx, 0);
  double s = scalar<double>(ctx, 1);
  for (int64_t i = begin; i < end; ++i) {
    x[i] = static_cast<T>(x[i] * s);
  }
}
QD_EXPORT int64_t scale_f32_t0__extent(const qdrt_launch_context* ctx) {
  return array(ctx, 0).shape[0];
}
QD_EXPORT void scale_f32_t0(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  scale_body<float>(ctx, begin, end);
}
QD_EXPORT int64_t scale_f64_t0__extent(const qdrt_launch_context* ctx) {
  return array(ctx, 0).shape[0];
}
QD_EXPORT void scale_f64_t0(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  scale_body<double>(ctx, begin, end);
}

// @qd.kernel
// def noop(x: qd.types.NDArray[qd.f32, 1], n: qd.i32):
//     pass                           # one empty serial task (the launch-overhead benchmark)
QD_EXPORT void noop_t0(const qdrt_launch_context*, int64_t, int64_t) {}

// @qd.kernel
// def dot(x: qd.types.NDArray[qd.f32, 1], y: qd.types.NDArray[qd.f32, 1]) -> qd.f64:
//     s = 0.0
//     qd.loop_config(serialize=True)
//     for i in range(x.shape[0]):
//         s += x[i] * y[i]
//     return s
QD_EXPORT void dot_t0(const qdrt_launch_context* ctx, int64_t, int64_t) {
  const float* x = data<float>(ctx, 0);
  const float* y = data<float>(ctx, 1);
  double s = 0;
  for (int64_t i = 0; i < array(ctx, 0).shape[0]; ++i) {
    s += static_cast<double>(x[i]) * y[i];
  }
  store_result(ctx, s);
}

// @qd.kernel
// def count_true(m: qd.types.NDArray[qd.u1, 1], flag: qd.u1) -> qd.i32:   (serial)
//     returns how many m[i] == flag
QD_EXPORT void count_true_t0(const qdrt_launch_context* ctx, int64_t, int64_t) {
  const uint8_t* m = data<uint8_t>(ctx, 0);
  uint8_t flag = scalar<uint8_t>(ctx, 1);
  int32_t n = 0;
  for (int64_t i = 0; i < array(ctx, 0).shape[0]; ++i) {
    n += m[i] == flag ? 1 : 0;
  }
  store_result(ctx, n);
}

// @qd.kernel
// def shift(a: qd.types.NDArray[qd.f32, 1], b: qd.types.NDArray[qd.f32, 1]) -> qd.i32:
//     for i in range(b.shape[0]):    # task 0
//         b[i] = a[i] + 1.0
//     return 0                       # task 1 (the split entry); the "+whole" variant (one
//                                    # serial task, shift_whole) returns 1 so tests see which ran
QD_EXPORT int64_t shift_t0__extent(const qdrt_launch_context* ctx) {
  return array(ctx, 1).shape[0];
}
QD_EXPORT void shift_t0(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  const float* a = data<float>(ctx, 0);
  float* b = data<float>(ctx, 1);
  for (int64_t i = begin; i < end; ++i) {
    b[i] = a[i] + 1.0f;
  }
}
QD_EXPORT void shift_t1(const qdrt_launch_context* ctx, int64_t, int64_t) {
  store_result(ctx, int32_t{0});
}
QD_EXPORT void shift_whole(const qdrt_launch_context* ctx, int64_t, int64_t) {
  const float* a = data<float>(ctx, 0);
  float* b = data<float>(ctx, 1);
  for (int64_t i = 0; i < array(ctx, 1).shape[0]; ++i) {
    b[i] = a[i] + 1.0f;
  }
  store_result(ctx, int32_t{1});
}

// What a task that draws qd.random sees (task_abi.h "Random numbers", QDRT_LAUNCH_RANDOM): per
// iteration its thread's `worker`, num_rand_states, and the x word of its state, which it then
// advances one step (a draw).
// @qd.kernel
// def rand_probe(out: qd.types.NDArray[qd.i64, 2]): ...
QD_EXPORT int64_t rand_probe_t0__extent(const qdrt_launch_context* ctx) {
  return array(ctx, 0).shape[0];
}
QD_EXPORT void rand_probe_t0(const qdrt_launch_context* ctx, int64_t begin, int64_t end) {
  int64_t* out = data<int64_t>(ctx, 0);
  for (int64_t i = begin; i < end; ++i) {
    qdrt_rand_state* s = &ctx->rand_states[ctx->worker];
    out[i * 3 + 0] = ctx->worker;
    out[i * 3 + 1] = ctx->num_rand_states;
    out[i * 3 + 2] = s->x;
    uint32_t t = s->x ^ (s->x << 11);
    s->x = s->y;
    s->y = s->z;
    s->z = s->w;
    s->w = (s->w ^ (s->w >> 19)) ^ (t ^ (t >> 8));
  }
}
