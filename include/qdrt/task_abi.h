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
 *   qdrt_module_abi_version : const uint32_t, from QDRT_TASK_ABI_MIN_VERSION to
 *              QDRT_TASK_ABI_VERSION (qdbuild writes QDRT_TASK_ABI_VERSION)
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
 * Random numbers (ctx->rand_states, ctx->worker, ABI 4): `qd.random(dtype)` draws from
 * rand_states[worker], Quadrants' generator (xorshift128, the output multiplied by 1000000007; f32
 * from the top 24 bits, f64 from the top 53 of two draws, high word first). `worker` is the index
 * of the thread running the call: 0 for serial tasks and for the launching thread, 1.. for the
 pool's
 * workers, always below num_rand_states; no two threads draw from one state at once (the runtime
 * runs tasks that carry QDRT_LAUNCH_RANDOM on at most num_rand_states threads, one such launch at a
 * time). The states are the runtime's own (seeded as Quadrants seeds random_seed 0) or, through
 * qdrt_bind_random_states, Quadrants' own, so compiled kernels continue its sequence.
 * Printing (ctx->print, ABI 2): a printf-compatible function the runtime provides; `print(...)` in
 * a kernel calls it once per statement with the whole line (one format, the values promoted as C
 * varargs are: f32 as double, narrow integers and u1 as int, i64/u64 as long long), as Quadrants'
 * CPU backend calls its host printf. libqdrt writes to C stdout, which it flushes after a launch
 * whose tasks carry QDRT_LAUNCH_PRINTS. Calls may come from several threads of a range task at
 * once; each call is one line, kept whole.
 *
 * ---------------------------------------------------------------------------------------------
 * CUDA modules (ABI version 1)
 * ---------------------------------------------------------------------------------------------
 *   module   = a CUDA bundle (below) holding one cubin per built SM arch and the module's PTX;
 *              the runtime loads the cubin matching the device (cuModuleLoadData) or, when none
 *              matches and the device is newer, JIT-compiles the PTX.
 *   T        : extern "C" __global__ void T(qdrt_cuda_context ctx)      (every task)
 *              a range task evaluates its own bounds (every thread, from args and temps), then
 *              grid-strides over [0, extent): idx = blockIdx.x * blockDim.x + threadIdx.x, step
 *              blockDim.x * gridDim.x; the runtime launches a saturating grid of block_dim
 *              threads (launch metadata; 0 means 128). A serial task is launched as <<<1, 1>>>.
 *   The context is passed by value (kernel parameter space): `args[k]` holds parameter k (the
 *   same numbering as CPU args): scalars stored as their dtype in `scalar`, ndarrays as a device
 *   pointer in `data` and the extents in `shape`. temps / result are device buffers of the sizes
 *   in the launch metadata (temps zero-filled before the first task of each launch); the runtime
 *   copies the result back after the last task. Since ABI 3 a kernel declares only the slots it
 *   takes: a parameter of 16 + 80 * max(1, passed) bytes (qdrt_cuda_context's first bytes);
 *   ABI 1-2 kernels declared QDRT_CUDA_LEGACY_ARGS slots. The runtime fills a whole
 *   qdrt_cuda_context (at least the first QDRT_CUDA_LEGACY_ARGS slots, the rest up to `passed`),
 *   so both read what they declare. At most QDRT_CUDA_MAX_ARGS parameters: 32,764-byte kernel
 *   parameters (CUDA 12.1+ drivers, sm_70+); over 51 parameters the context exceeds the 4 KiB
 *   that older drivers take.
 *   Printing: the device vprintf (the CUDA driver writes its buffer to stdout when the launch is
 *   synchronized), the arguments packed as CUDA's printf packs them.
 *   Random numbers (launch metadata version 6): every CUDA module defines the device global
 *     qdrt_cuda_rand_states : qdrt_rand_state*      (the module ABI unit; null when loaded)
 *   and a task that draws reads state blockIdx.x * blockDim.x + threadIdx.x of it (Quadrants'
 *   linear_thread_idx; a serial task, <<<1, 1>>>, state 0). Before launching a task that carries
 *   QDRT_LAUNCH_RANDOM the runtime points it at its device states: saturating_grid * 1024 of
 *   them (Quadrants' num_rand_states), state i seeded as Quadrants seeds it, persisting across
 *   launches; and it launches a drawing range task in Quadrants' grid, saturating_grid = SMs *
 *   max blocks per SM * 2 blocks (CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR), so iteration
 *   i runs on the thread, and draws from the state, Quadrants would use.
 *
 *   bundle   = qdrt_cuda_bundle_header qdrt_cuda_bundle_item[count] bytes
 *              each item's [offset, offset + size) lies inside the bundle (offsets from its start)
 *

 * ---------------------------------------------------------------------------------------------
 *   launch_metadata = qdrt_task_launch            exactly sizeof(qdrt_task_launch) bytes
 *   The kernel-wide fields (temps_size, result_*) repeat the same values in every task of an
 *   entry; a reader takes them from the first task and rejects an entry whose tasks disagree.
 *
 * Version history:
 *   1 (qdbuild 0.1.0): first version.
 *   2: qdrt_launch_context.print (kernels that print); QDRT_LAUNCH_PRINTS. The runtime still runs
 *      version 1 modules (they never read the new field).
 *   3: CUDA kernels declare a context of max(1, passed) argument slots (up to QDRT_CUDA_MAX_ARGS,
 *      was a fixed 32). The runtime still runs version 1-2 modules (it fills 32 slots or more).
 *   4: qdrt_launch_context.rand_states / num_rand_states / worker (kernels that call qd.random);
 *      QDRT_LAUNCH_RANDOM. The runtime still runs version 1-3 modules (they never read them).
 *   5 (launch metadata only; modules stay at 4): graph loops. A task of a kernel with
 *      qd.graph.do_while loops has launch metadata version 5, and one that ends loops carries a
 *      qdrt_task_loop_end per loop after its qdrt_task_launch (the metadata is then
 *      sizeof(qdrt_task_launch) + n * sizeof(qdrt_task_loop_end) bytes), innermost first. After
 *      such a task runs, the runtime reads each loop's condition in turn: the first that is
 *      non-zero makes the launch go on from that loop's first task; when none is, the next task
 *      follows. Kernels without graph loops keep writing version 4, which older runtimes read; a
 *      runtime that reads only versions up to 4 refuses a graph kernel's entry (it would run
 *      its loops once).
 *   6 (launch metadata only): a CUDA task that draws qd.random (QDRT_LAUNCH_RANDOM) has version 6
 *      and reads qdrt_cuda_rand_states ("CUDA modules" above); the layout is version 5's. A
 *      runtime that reads only up to version 5 refuses its entry (it would launch the task with a
 *      null state array). CPU tasks and CUDA tasks that do not draw keep version 4 or 5.
 */
#ifndef QDRT_TASK_ABI_H
#define QDRT_TASK_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QDRT_TASK_ABI_VERSION 4u
/* The oldest module and launch metadata version libqdrt runs. */
#define QDRT_TASK_ABI_MIN_VERSION 1u
/* The newest launch metadata version (5: graph loops, qdrt_task_loop_end; 6: CUDA tasks that draw
 * qd.random). */
#define QDRT_LAUNCH_METADATA_VERSION 6u
/* The CUDA module's device global of generator states (version 6). */
#define QDRT_CUDA_RAND_STATES_SYMBOL "qdrt_cuda_rand_states"
/* The most loops one task may end (graph loops nested this deep end after one task at most). */
#define QDRT_MAX_LOOP_ENDS 8u
#define QDRT_MAX_NDIM 8u
#define QDRT_EXTENT_SUFFIX "__extent"
#define QDRT_MODULE_ABI_SYMBOL "qdrt_module_abi_version"

/* qdrt_task_launch.flags */
#define QDRT_LAUNCH_WRITES_RESULT 1u /* this task may store the return value */
#define QDRT_LAUNCH_PRINTS 2u        /* this task may print (the runtime flushes stdout after) */
#define QDRT_LAUNCH_RANDOM 4u        /* this task may draw qd.random (ABI 4: needs rand_states) */

typedef struct qdrt_array {
  void* data;
  int64_t shape[QDRT_MAX_NDIM];
} qdrt_array;

/* printf-compatible output of print() in kernels (ABI 2). */
typedef void (*qdrt_print_fn)(const char* format, ...);

/* One generator state (ABI 4): Quadrants' RandState, field for field (20 bytes). */
typedef struct qdrt_rand_state {
  uint32_t x, y, z, w;
  int32_t lock; /* unused here; kept so an array of Quadrants' states is an array of these */
} qdrt_rand_state;

typedef struct qdrt_launch_context {
  const void* const* args;
  void* temps;
  void* result;
  qdrt_print_fn print;          /* ABI 2 */
  qdrt_rand_state* rand_states; /* ABI 4 */
  uint32_t num_rand_states;     /* ABI 4 */
  uint32_t worker;              /* ABI 4: this thread's state, < num_rand_states */
} qdrt_launch_context;

typedef void (*qdrt_task_fn)(const qdrt_launch_context* ctx, int64_t begin, int64_t end);
typedef int64_t (*qdrt_extent_fn)(const qdrt_launch_context* ctx);

/* --- CUDA ----------------------------------------------------------------------------------- */

/* (32764 - 16) / 80: the most argument slots a 32,764-byte kernel parameter holds. */
#define QDRT_CUDA_MAX_ARGS 409u
/* The slots every ABI 1-2 CUDA kernel declared. */
#define QDRT_CUDA_LEGACY_ARGS 32u
#define QDRT_CUDA_BUNDLE_MAGIC "QDCUDA\0\0" /* 8 bytes */
#define QDRT_CUDA_BUNDLE_VERSION 1u
#define QDRT_CUDA_ITEM_CUBIN 1u /* an ELF cubin for sm_<arch> */
#define QDRT_CUDA_ITEM_PTX 2u   /* PTX text (NUL-terminated) generated for sm_<arch> */

typedef struct qdrt_cuda_arg {
  uint64_t scalar; /* a scalar parameter, stored as its dtype (little-endian, low bytes) */
  void* data;      /* an ndarray parameter: device pointer to its C-contiguous elements */
  int64_t shape[QDRT_MAX_NDIM];
} qdrt_cuda_arg;

typedef struct qdrt_cuda_context {
  void* temps;                            /* device buffer, temps_size bytes */
  void* result;                           /* device buffer, result_size bytes */
  qdrt_cuda_arg args[QDRT_CUDA_MAX_ARGS]; /* a kernel declares max(1, passed) of them (ABI 3) */
} qdrt_cuda_context;

typedef struct qdrt_cuda_bundle_header {
  char magic[8]; /* QDRT_CUDA_BUNDLE_MAGIC */
  uint32_t version;
  uint32_t count; /* items that follow */
} qdrt_cuda_bundle_header;

typedef struct qdrt_cuda_bundle_item {
  uint32_t kind; /* QDRT_CUDA_ITEM_* */
  uint32_t arch; /* e.g. 90 for sm_90 */
  uint64_t offset;
  uint64_t size;
} qdrt_cuda_bundle_item;

typedef struct qdrt_task_launch {
  uint32_t abi_version;  /* QDRT_TASK_ABI_VERSION */
  uint32_t flags;        /* QDRT_LAUNCH_* */
  uint64_t temps_size;   /* bytes of per-launch temporaries (kernel-wide) */
  uint32_t result_dtype; /* QDRT_DTYPE_* of the return value, QDRT_DTYPE_NONE for none */
  uint32_t result_size;  /* bytes of the return value (kernel-wide) */
  uint32_t grain;        /* CPU: minimum iterations per thread-pool chunk (0: runtime's choice) */
  uint32_t block_dim;    /* CUDA: threads per block (0: runtime's choice) */
} qdrt_task_launch;

/* A graph loop (qd.graph.do_while) that ends after a task (launch metadata version 5). */
typedef struct qdrt_task_loop_end {
  uint32_t first_task; /* the loop's first task: an index into the entry's tasks, <= this one */
  uint32_t condition;  /* the flag: an index into the passed arguments (qdrt_launch_context.args,
                          qdrt_cuda_context.args), a 0-dim QDRT_DTYPE_I32 array; the loop repeats
                          while its element is non-zero */
} qdrt_task_loop_end;

#ifdef __cplusplus
} /* extern "C" */
#define QDRT_STATIC_ASSERT static_assert
#else
#define QDRT_STATIC_ASSERT _Static_assert
#endif

QDRT_STATIC_ASSERT(sizeof(qdrt_array) == 72, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_launch_context) == 48, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_rand_state) == 20, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_task_launch) == 32, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_task_loop_end) == 8, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_cuda_arg) == 80, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_cuda_context) == 16 + 80 * QDRT_CUDA_MAX_ARGS, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_cuda_bundle_header) == 16, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_cuda_bundle_item) == 24, "layout");

#undef QDRT_STATIC_ASSERT

#endif /* QDRT_TASK_ABI_H */
