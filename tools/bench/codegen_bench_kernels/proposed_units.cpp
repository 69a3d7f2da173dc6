// Evidence for docs/backend.md "Benchmarks" (not generated; not built by qdbuild): two task units
// of cgbench.py as codegen emits them today, hand-edited the way the codegen findings propose, so
// qd_codegen_bench can time the proposal next to the generated and the hand-written code.
// Compiled by CMake with the backend's driver flags (freestanding, the prelude, x86-64-v3, -O3).
// Each function is the generated one (qd_codegen_dump tools/bench/codegen_bench_kernels) with only
// the marked lines changed; the symbols are renamed.
#include "qd_prelude.hpp"

using namespace qd;

// cgbench:stencil task 1. Proposed: split the flat index [first_, last_) into (row, column) once
// per chunk and run the innermost ndrange dimension as a plain inner loop, instead of one
// raw_div + raw_mod (an integer division) per iteration; the inner loop then vectorizes.
QD_TASK void qd_proposed_stencil(const qdrt_launch_context* ctx, i64 first_, i64 last_) {
  f32* const arg_u = qd::array_data<f32>(qd::arg_array(ctx, 0));
  f32* const arg_out = qd::array_data<f32>(qd::arg_array(ctx, 1));
  const i32 arg_u_shape1 = (i32)qd::arg_array(ctx, 0)->shape[1];
  const i32 arg_out_shape1 = (i32)qd::arg_array(ctx, 1)->shape[1];
  const i32 v1_m = *qd::temp<i32>(ctx, 40);
  const i64 extent1_ = ((i64)qd::max(1, (v1_m - 1)) - (i64)1ll);  // changed: hoisted
  i64 outer_ = qd::raw_div(first_, extent1_);                      // changed: once per chunk
  i64 inner_ = qd::raw_mod(first_, extent1_);                      // changed: once per chunk
  for (i64 idx_ = first_; idx_ < last_; ++outer_, inner_ = 0) {    // changed: rows
    const i64 stop_ = qd::min(extent1_, inner_ + (last_ - idx_));  // changed
    idx_ += stop_ - inner_;                                         // changed
    i32 v4_i = (i32)((i64)1ll + outer_);                            // changed: hoisted
    for (i64 in_ = inner_; in_ < stop_; ++in_) {                    // changed: columns
      i32 v3_j = (i32)((i64)1ll + in_);                             // changed
      // out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]
      arg_out[(((i64)v4_i * (i64)arg_out_shape1) + (i64)v3_j)] = ((0.25f * (((arg_u[(((i64)(v4_i - 1) * (i64)arg_u_shape1) + (i64)v3_j)] + arg_u[(((i64)(v4_i + 1) * (i64)arg_u_shape1) + (i64)v3_j)]) + arg_u[(((i64)v4_i * (i64)arg_u_shape1) + (i64)(v3_j - 1))]) + arg_u[(((i64)v4_i * (i64)arg_u_shape1) + (i64)(v3_j + 1))])) - arg_u[(((i64)v4_i * (i64)arg_u_shape1) + (i64)v3_j)]);
    }
  }
}

// cgbench:reduce_sum task 1. Proposed: `total += x[i]` on a kernel-scope variable that the task
// only accumulates into goes to a chunk-private partial, added atomically once per chunk
// (Taichi/Quadrants' thread-local reduction), instead of a float CAS loop per element.
QD_TASK void qd_proposed_reduce(const qdrt_launch_context* ctx, i64 first_, i64 last_) {
  f32* const arg_x = qd::array_data<f32>(qd::arg_array(ctx, 0));
  f32& v0_total = *qd::temp<f32>(ctx, 8);
  f32 v0_total_partial_ = 0.0f;  // changed: chunk-private accumulator
  const i64 begin_ = (i64)(0);
  for (i64 idx_ = first_; idx_ < last_; ++idx_) {
    const i32 v1_i = (i32)(begin_ + idx_);
    // total += x[i]
    v0_total_partial_ += arg_x[(i64)v1_i];  // changed: was qd::atomic_add(&v0_total, ...)
  }
  qd::atomic_add(&v0_total, v0_total_partial_);  // changed: one atomic per chunk
}
