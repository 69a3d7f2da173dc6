// Hand-written CUDA tasks following qdrt/task_abi.h "CUDA modules (ABI version 1)", as the
// compile side will emit them; make_cuda_store.py --nvcc compiles them into the bundle that
// scripts/gpu-check.sh runs (the runtime's own GPU self-test and benchmarks).
#include <cstring>

#include "qdrt/task_abi.h"

#define GRID_STRIDE(i, n)                                                                          \
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);                       \
       i += (int64_t)blockDim.x * gridDim.x)

// @qd.kernel def saxpy(a: f32, x: ndarray(f32, 1), y: ndarray(f32, 1)):
//     for i in x: y[i] = a * x[i] + y[i]
extern "C" __global__ void saxpy_t0(qdrt_cuda_context ctx) {
  float a;
  memcpy(&a, &ctx.args[0].scalar, sizeof a);
  const float* __restrict__ x = static_cast<const float*>(ctx.args[1].data);
  float* __restrict__ y = static_cast<float*>(ctx.args[2].data);
  int64_t n = ctx.args[1].shape[0];
  GRID_STRIDE(i, n) { y[i] = a * x[i] + y[i]; }
}

// @qd.kernel def sum(x: ndarray(i32, 1)) -> i64:
//     total = 0
//     for i in x: total += x[i]
//     return total
extern "C" __global__ void sum_t0(qdrt_cuda_context ctx) {
  const int* x = static_cast<const int*>(ctx.args[0].data);
  int64_t n = ctx.args[0].shape[0];
  long long local = 0;
  GRID_STRIDE(i, n) { local += x[i]; }
  if (local != 0) {
    atomicAdd(static_cast<unsigned long long*>(ctx.temps), static_cast<unsigned long long>(local));
  }
}
extern "C" __global__ void sum_t1(qdrt_cuda_context ctx) {
  *static_cast<long long*>(ctx.result) = *static_cast<const long long*>(ctx.temps);
}

// @qd.kernel def empty(): pass
extern "C" __global__ void empty_t0(qdrt_cuda_context ctx) {}

// The baseline of the launch-overhead benchmark: no parameters at all.
extern "C" __global__ void bare_empty() {}
