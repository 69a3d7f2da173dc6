/* qdrt/qdrt.h: the C API of libqdrt, the runtime that opens a qdbuild store (a directory or a
 * pack) and launches its compiled kernels. Plain C, opaque handles, status codes; nothing
 * throws across it. docs/runtime.md describes it with examples.
 *
 *   qdrt_store* store;
 *   if (qdrt_open("kernels.qdpack", NULL, &store) != QDRT_OK) { puts(qdrt_last_error()); ... }
 *   qdrt_kernel* k;
 *   qdrt_get_kernel(store, "physics:advance", &k);
 *   int64_t n = 1024;
 *   qdrt_value args[2] = {qdrt_array_value(QDRT_DTYPE_F32, x, 1, &n), qdrt_float_value(0.01)};
 *   qdrt_launch(k, args, 2, NULL);
 *   qdrt_close(store);
 *
 * Threads: every function may be called from any thread. Launches of kernels of one store may run
 * concurrently; each launch has its own temporaries. A store must not be closed while a call on
 * it (or on one of its kernels) is in progress.
 *
 * Version history: 0.1.0 (qdbuild 0.1.0): first version.
 */
#ifndef QDRT_QDRT_H
#define QDRT_QDRT_H

#include <stddef.h>
#include <stdint.h>

#include "qdrt/store_format.h"
#include "qdrt/task_abi.h"

#if defined(QDRT_BUILDING_LIBRARY)
#define QDRT_API __attribute__((visibility("default")))
#else
#define QDRT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define QDRT_VERSION_MAJOR 0
#define QDRT_VERSION_MINOR 1
#define QDRT_VERSION_PATCH 0
/* (major << 16) | (minor << 8) | patch of the headers; compare with qdrt_version(). */
#define QDRT_VERSION ((QDRT_VERSION_MAJOR << 16) | (QDRT_VERSION_MINOR << 8) | QDRT_VERSION_PATCH)

typedef enum qdrt_status {
  QDRT_OK = 0,
  QDRT_ERROR_INVALID_ARGUMENT = 1, /* a NULL handle, bad option: the caller's programming error */
  QDRT_ERROR_NOT_FOUND = 2,        /* no such store file, kernel id or target */
  QDRT_ERROR_IO = 3,               /* reading a file failed */
  QDRT_ERROR_CORRUPT = 4,          /* the index, a pack or an object is damaged */
  QDRT_ERROR_VERSION = 5,          /* a format or ABI version this runtime does not read */
  QDRT_ERROR_LOAD = 6,             /* a module could not be loaded or lacks a symbol */
  QDRT_ERROR_NO_INSTANCE = 7,      /* no built instance matches the arguments */
  QDRT_ERROR_ARGUMENT = 8,         /* an argument does not fit the kernel (dtype, shape, ...) */
  QDRT_ERROR_OUT_OF_MEMORY = 9,
  QDRT_ERROR_INTERNAL = 10,
  QDRT_ERROR_CUDA = 11 /* no CUDA driver or device, or a driver call failed (the message names
                          the call and its CUresult) */
} qdrt_status;

/* QDRT_VERSION of the library (may differ from the headers'). */
QDRT_API uint32_t qdrt_version(void);
QDRT_API const char* qdrt_version_string(void);
/* "QDRT_ERROR_ARGUMENT", ...; never NULL. */
QDRT_API const char* qdrt_status_name(qdrt_status status);
/* The message of the last failed call on this thread ("" if none); valid until the next call
 * into libqdrt on this thread. Messages name the kernel, argument, file or symbol involved. */
QDRT_API const char* qdrt_last_error(void);

typedef struct qdrt_store qdrt_store;
typedef struct qdrt_kernel qdrt_kernel;

#define QDRT_OPEN_LAZY 1u /* load each module on the first launch that needs it */
/* Hot reload: a background thread watches the index; when a builder (`qdbuild build --watch`)
 * publishes a new one, kernels whose code changed run the new code from their next launch
 * (launches in flight finish on the old code), unchanged kernels keep their loaded modules,
 * kernels that left the index fail with QDRT_ERROR_NOT_FOUND and new ones can be looked up.
 * Strings returned for a watched store live as long as the store. docs/runtime.md. */
#define QDRT_OPEN_WATCH 2u

typedef struct qdrt_open_options {
  uint32_t struct_size; /* sizeof(qdrt_open_options) */
  uint32_t flags;       /* QDRT_OPEN_* */
  int32_t num_threads;  /* range-task threads, the caller included; <= 0: $QDRT_NUM_THREADS,
                           else every core */
  uint32_t reserved;
} qdrt_open_options;

/* Opens a directory store (DIR with DIR/index.qdi), an index file or a pack. Without
 * QDRT_OPEN_LAZY (the default, options may be NULL) every CPU module is loaded and checked
 * now, so a damaged store fails here. */
QDRT_API qdrt_status qdrt_open(const char* path, const qdrt_open_options* options,
                               qdrt_store** out);
/* Unloads everything; NULL is allowed. Kernel handles die with their store. */
QDRT_API void qdrt_close(qdrt_store* store);

/* The distinct kernel ids (module:qualname), sorted; the pointers live as long as the store. */
QDRT_API size_t qdrt_kernel_count(const qdrt_store* store);
QDRT_API const char* qdrt_kernel_id(const qdrt_store* store, size_t i);

/* Resolves a kernel id. Unknown ids fail with QDRT_ERROR_NOT_FOUND and a did-you-mean. */
QDRT_API qdrt_status qdrt_get_kernel(qdrt_store* store, const char* kernel_id, qdrt_kernel** out);
/* The kernel's built CPU instances (canonical instance strings), in index order. */
QDRT_API size_t qdrt_kernel_instance_count(const qdrt_kernel* kernel);
QDRT_API const char* qdrt_kernel_instance(const qdrt_kernel* kernel, size_t i);
QDRT_API const char* qdrt_kernel_name(const qdrt_kernel* kernel);
/* The launch flags of built CPU instance `instance`: the OR of its tasks' QDRT_LAUNCH_* flags
 * (task_abi.h), e.g. QDRT_LAUNCH_RANDOM for one that draws qd.random; 0 for a bad instance. */
QDRT_API uint32_t qdrt_kernel_instance_flags(const qdrt_kernel* kernel, size_t instance);
/* The arguments built instance `instance` takes, in the order qdrt_launch reads them: each a
 * kernel parameter's name, or the member path of a dataclass parameter's member
 * ("state.links.pos"; only the members the instance reads), or a template object's ndarray
 * member. NULL / 0 for an instance out of range. */
QDRT_API size_t qdrt_kernel_argument_count(const qdrt_kernel* kernel, size_t instance);
QDRT_API const char* qdrt_kernel_argument_name(const qdrt_kernel* kernel, size_t instance,
                                               size_t i);

/* --- arguments ------------------------------------------------------------------------------ */

#define QDRT_VALUE_NONE 0u
#define QDRT_VALUE_ARRAY 1u      /* data, dtype, ndim, shape (and strides) */
#define QDRT_VALUE_INT 2u        /* i */
#define QDRT_VALUE_FLOAT 3u      /* f */
#define QDRT_VALUE_BOOL 4u       /* i (0 or 1) */
#define QDRT_VALUE_TEXT 5u       /* text: a template value compared verbatim with the instance's */
#define QDRT_VALUE_CUDA_ARRAY 6u /* as ARRAY, but data is a CUDA device pointer (CUdeviceptr) */

/* qdrt_value.flags */
#define QDRT_VALUE_UNSIGNED 1u /* INT: `i` holds a uint64 bit pattern (values >= 2^63 for u64) */

/* One argument, in parameter order (template parameters included: they select the instance).
 * An array's shape holds the ndarray's ndim extents followed by the element dims of a vector /
 * matrix dtype; its data must be C-contiguous (strides NULL or the C-contiguous byte strides)
 * and aligned for the dtype. */
typedef struct qdrt_value {
  uint32_t kind;  /* QDRT_VALUE_* */
  uint32_t dtype; /* arrays: QDRT_DTYPE_* of the scalar elements; results: the dtype */
  int32_t ndim;   /* arrays: entries in shape */
  uint32_t flags; /* QDRT_VALUE_UNSIGNED, else 0 */
  void* data;
  const int64_t* shape;
  const int64_t* strides; /* bytes; NULL: C-contiguous */
  int64_t i;
  double f;
  const char* text;
} qdrt_value;

static inline qdrt_value qdrt_array_value(uint32_t dtype, void* data, int32_t ndim,
                                          const int64_t* shape) {
  qdrt_value v = {QDRT_VALUE_ARRAY, dtype, ndim, 0, data, shape, NULL, 0, 0.0, NULL};
  return v;
}
/* A C-contiguous array in CUDA device memory: `data` is a CUdeviceptr (cast to void*). */
static inline qdrt_value qdrt_cuda_array_value(uint32_t dtype, void* data, int32_t ndim,
                                               const int64_t* shape) {
  qdrt_value v = {QDRT_VALUE_CUDA_ARRAY, dtype, ndim, 0, data, shape, NULL, 0, 0.0, NULL};
  return v;
}
static inline qdrt_value qdrt_int_value(int64_t i) {
  qdrt_value v = {QDRT_VALUE_INT, 0, 0, 0, NULL, NULL, NULL, i, 0.0, NULL};
  return v;
}
static inline qdrt_value qdrt_float_value(double f) {
  qdrt_value v = {QDRT_VALUE_FLOAT, 0, 0, 0, NULL, NULL, NULL, 0, f, NULL};
  return v;
}
static inline qdrt_value qdrt_bool_value(int b) {
  qdrt_value v = {QDRT_VALUE_BOOL, 0, 0, 0, NULL, NULL, NULL, b ? 1 : 0, 0.0, NULL};
  return v;
}
static inline qdrt_value qdrt_text_value(const char* text) {
  qdrt_value v = {QDRT_VALUE_TEXT, 0, 0, 0, NULL, NULL, NULL, 0, 0.0, text};
  return v;
}

/* Picks the instance the arguments select (among the CUDA instances when an argument is a
 * QDRT_VALUE_CUDA_ARRAY, see "CUDA" below), validates every argument, runs the tasks in order
 * and, when `result` is not NULL, stores the return value there (kind QDRT_VALUE_INT, FLOAT or
 * BOOL with its dtype; QDRT_VALUE_NONE for a kernel without one). */
QDRT_API qdrt_status qdrt_launch(qdrt_kernel* kernel, const qdrt_value* args, size_t arg_count,
                                 qdrt_value* result);

/* --- CUDA ------------------------------------------------------------------------------------
 * Entries built for a "cuda:sm_XX" target run on an NVIDIA GPU. The driver (libcuda.so.1, or
 * $QDRT_CUDA_LIBRARY) is loaded on the first CUDA launch, never linked: without it a CUDA launch
 * fails with QDRT_ERROR_CUDA "no CUDA driver: ...". A launch uses the calling thread's current
 * CUDA context, else device 0's primary context. Tasks are queued in order on the stream; the
 * call returns once they are queued (asynchronous) unless the kernel returns a value and
 * `result` is not NULL, which waits for the stream. Array arguments are QDRT_VALUE_CUDA_ARRAY
 * (device pointers: checked for NULL and alignment, never dereferenced by the host). */

#define QDRT_DEVICE_AUTO 0u /* CUDA when an argument is a QDRT_VALUE_CUDA_ARRAY, else the CPU */
#define QDRT_DEVICE_CPU 1u
#define QDRT_DEVICE_CUDA 2u

typedef struct qdrt_launch_options {
  uint32_t struct_size; /* sizeof(qdrt_launch_options) */
  uint32_t device;      /* QDRT_DEVICE_* */
  void* cuda_stream;    /* CUstream to queue the tasks on; NULL: the default stream */
} qdrt_launch_options;

/* qdrt_launch with options (NULL: as qdrt_launch, which is QDRT_DEVICE_AUTO). */
QDRT_API qdrt_status qdrt_launch_ex(qdrt_kernel* kernel, const qdrt_value* args, size_t arg_count,
                                    qdrt_value* result, const qdrt_launch_options* options);

/* --- prepared launches ------------------------------------------------------------------------
 * For a kernel called again and again with the same arguments (a simulation step): qdrt_prepare
 * does what qdrt_launch does before running anything (routes by the options and the arguments,
 * selects the instance, checks and binds every argument, chooses the variant for aliased arrays)
 * once, copying the argument values (not the memory they name, which must stay where it is and
 * keep its size); qdrt_prepared_launch then runs the tasks with no per-argument work. `options`
 * may be NULL (QDRT_DEVICE_AUTO on the default stream). A prepared launch is used by one thread
 * at a time and is not launched after its store is closed (qdrt_prepared_free may come before
 * or after qdrt_close: it frees only the prepared launch). With a watched store
 * (hot reload) a launch after the kernel was rebuilt binds the saved values to the new build
 * first (its errors are qdrt_launch's); a kernel that left the index gives
 * QDRT_ERROR_NOT_FOUND. */
typedef struct qdrt_prepared qdrt_prepared;
QDRT_API qdrt_status qdrt_prepare(qdrt_kernel* kernel, const qdrt_value* args, size_t arg_count,
                                  const qdrt_launch_options* options, qdrt_prepared** out);
QDRT_API qdrt_status qdrt_prepared_launch(qdrt_prepared* prepared, qdrt_value* result);
QDRT_API void qdrt_prepared_free(qdrt_prepared* prepared);

/* Loads and initializes the CUDA driver now (a CUDA launch does it on first use): QDRT_OK, or
 * QDRT_ERROR_CUDA with why (no driver, the toolkit's stub library, no device). */
QDRT_API qdrt_status qdrt_cuda_init(void);

/* --- random numbers --------------------------------------------------------------------------
 * Kernels that call qd.random draw from per-thread generator states, Quadrants' own generator
 * (task_abi.h "Random numbers"). By default the store owns them, one per thread, seeded as
 * Quadrants' qd.init(random_seed=0) seeds its states, so a kernel run on one thread draws the
 * numbers Quadrants draws on one thread. qdrt_seed_random re-seeds them (random_seed=seed).
 * qdrt_bind_random_states makes launches draw from `states` instead: `count` states of 20 bytes
 * (qdrt_rand_state, laid out as Quadrants' RandState), e.g. Quadrants' own array, which launches
 * then advance in place; NULL and 0 go back to the store's own. Launches that draw run one at a
 * time, on at most `count` threads. The caller keeps `states` valid while it is bound. */
QDRT_API qdrt_status qdrt_bind_random_states(qdrt_store* store, void* states, uint32_t count);
QDRT_API qdrt_status qdrt_seed_random(qdrt_store* store, uint32_t seed);

/* --- observations --------------------------------------------------------------------------- */

typedef struct qdrt_observations {
  uint32_t struct_size; /* sizeof(qdrt_observations), set by the caller */
  uint32_t loaded;      /* 1 when the module of `instance` is loaded */
  uint64_t launches;    /* successful launches of the kernel (all instances) */
  uint64_t fallbacks;   /* launches that met aliased arrays ([PER_OFFLOAD][FALLBACK]) */
  const char* instance; /* the last launched instance, else the first built one */
  const char* object;   /* hex SHA-256 address of that instance's module object ("" if none) */
  const char* target;   /* the target of the entry that ran last ("cpu", "cpu+whole",
                           "cuda:sm_90") */
} qdrt_observations;

QDRT_API qdrt_status qdrt_kernel_observations(const qdrt_kernel* kernel, qdrt_observations* out);

/* --- instance text ---------------------------------------------------------------------------- */

/* The canonical text qdbuild prints in instance strings (qdrt_kernel_instance) for one recorded
 * parameter description: `length` bytes of JSON as `python -m qdrt.record` writes a parameter
 * (the record format), e.g. "ndarray(f32, 1)" -> "{dtype='f32', ndim=1}". It is read and printed
 * by the same code qdbuild uses, so a bridge can tell which built instance a call is by comparing
 * texts. *out is the text, valid until the next call on this thread; "" for a description that
 * adds nothing (a runtime scalar). QDRT_ERROR_ARGUMENT with why when the description is not
 * understood (not JSON, an unknown kind, a malformed member). */
QDRT_API qdrt_status qdrt_instance_text(const char* description_json, size_t length,
                                        const char** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QDRT_QDRT_H */
