/* qdrt/task_abi.h: the calling convention between compiled kernel code and libqdrt.
 *
 * qdbuild compiles every offload task of a kernel instance into a function of a native module
 * (a shared object for CPU targets, a cubin/PTX module for CUDA). libqdrt loads the module named
 * by the index entry's `module_object` and calls each task, in the entry's task order, through the
 * signatures below. This header, like store_format.h, is plain C with constants and structs only;
 * the code generator emits declarations that match it, and the runtime includes it.
 *
 * ---------------------------------------------------------------------------------------------
 * CPU modules (ABI version 1)
 * ---------------------------------------------------------------------------------------------
 *   module   = an ELF shared object (x86-64, no undefined symbols except libc/libm) exporting,
 *              for every task T of the entries that reference it:
 *   T        : void T(const qdrt_launch_context* ctx, int64_t begin, int64_t end)
 *              runs iterations [begin, end) of a range task; a serial task is called once with
 *              (0, 1). A range task may be called concurrently on disjoint sub-ranges.
 *   T__extent: int64_t T__extent(const qdrt_launch_context* ctx)      (range tasks only)
 *              the number of iterations, evaluated on the launching thread right before T runs
 *              (after every earlier task of the launch has finished), so bounds may depend on
 *              arguments and on values earlier tasks stored in the temporaries; <= 0 means none.
 *   qdrt_module_abi_version : const uint32_t, equal to QDRT_TASK_ABI_VERSION
 *   The index task's `name` is T. Modules are self-contained and position independent; they are
 *   loaded from memory (memfd + dlopen) and never written to disk by the runtime.
 *
 * Arguments (qdrt_launch_context.args): one pointer per parameter that is passed to the code, in
 * parameter order, i.e. every index argument whose kind is not QDRT_ARG_TEMPLATE:
 *   QDRT_ARG_SCALAR  -> pointer to the value, stored as its dtype (bool as one byte 0/1)
 *   QDRT_ARG_NDARRAY -> pointer to a qdrt_array: C-contiguous (row-major) elements of the dtype,
 *                       each element the dtype's scalar or a dense vector/matrix of the argument's
 *                       element_shape; shape[] holds the ndim outer extents.
 * Temporaries (ctx->temps): a per-launch buffer of `temps_size` bytes (from the launch metadata),
 * zero-filled before the first task, 16-byte aligned, holding kernel-scope values that cross tasks
 * (e.g. the `total += x[i]` reduction target); parallel tasks update it atomically.
 * Result (ctx->result): `result_size` bytes (launch metadata), 16-byte aligned, zero-filled; the
 * last task that executes `return` stores the kernel's scalar return value there.
 *
 * ---------------------------------------------------------------------------------------------
 * Launch metadata (qdrt_index_task.launch_metadata), version 1
 * ---------------------------------------------------------------------------------------------
 *   launch_metadata = qdrt_task_launch            exactly sizeof(qdrt_task_launch) bytes
 *   The kernel-wide fields (temps_size, result_*) repeat the same values in every task of an
 *   entry; a reader takes them from the first task and rejects an entry whose tasks disagree.
 *
 * Version history:
 *   1 (qdbuild 0.1.0): first version.
 */
#ifndef QDRT_TASK_ABI_H
#define QDRT_TASK_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QDRT_TASK_ABI_VERSION 1u
#define QDRT_MAX_NDIM 8u
#define QDRT_EXTENT_SUFFIX "__extent"
#define QDRT_MODULE_ABI_SYMBOL "qdrt_module_abi_version"

/* qdrt_task_launch.flags */
#define QDRT_LAUNCH_WRITES_RESULT 1u /* this task may store the return value */

typedef struct qdrt_array {
  void* data;
  int64_t shape[QDRT_MAX_NDIM];
} qdrt_array;

typedef struct qdrt_launch_context {
  const void* const* args;
  void* temps;
  void* result;
} qdrt_launch_context;

typedef void (*qdrt_task_fn)(const qdrt_launch_context* ctx, int64_t begin, int64_t end);
typedef int64_t (*qdrt_extent_fn)(const qdrt_launch_context* ctx);

typedef struct qdrt_task_launch {
  uint32_t abi_version;  /* QDRT_TASK_ABI_VERSION */
  uint32_t flags;        /* QDRT_LAUNCH_* */
  uint64_t temps_size;   /* bytes of per-launch temporaries (kernel-wide) */
  uint32_t result_dtype; /* QDRT_DTYPE_* of the return value, QDRT_DTYPE_NONE for none */
  uint32_t result_size;  /* bytes of the return value (kernel-wide) */
  uint32_t grain;        /* CPU: minimum iterations per thread-pool chunk (0: runtime's choice) */
  uint32_t block_dim;    /* CUDA: threads per block (0: runtime's choice) */
} qdrt_task_launch;

#ifdef __cplusplus
} /* extern "C" */
#define QDRT_STATIC_ASSERT static_assert
#else
#define QDRT_STATIC_ASSERT _Static_assert
#endif

QDRT_STATIC_ASSERT(sizeof(qdrt_array) == 72, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_launch_context) == 24, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_task_launch) == 32, "layout");

#undef QDRT_STATIC_ASSERT

#endif /* QDRT_TASK_ABI_H */
