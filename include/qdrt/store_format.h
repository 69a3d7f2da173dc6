/* qdrt/store_format.h: the byte layout of qdbuild's artifact store, shared by the builder
 * (src/store) and the runtime (libqdrt). Constants and plain structs only: no code, no other
 * includes than <stdint.h>. This header is the whole contract between the two sides.
 *
 * All integers are little-endian. Structs have explicit padding and fixed sizes (checked by the
 * static asserts at the end), so a file can be used in place through mmap: every table starts at
 * an 8-byte-aligned offset and is read as an array of these structs. Nothing in a file is trusted:
 * a reader checks every offset, size, count and index against the file's size before use.
 *
 * ---------------------------------------------------------------------------------------------
 * Index file (index.qdi in a directory store; embedded in a pack), version 1
 * ---------------------------------------------------------------------------------------------
 *   index      = header entries objects tasks arguments blob
 *   header     = qdrt_index_header                 128 bytes at offset 0
 *   entries    = qdrt_index_entry[entry_count]     at entries_offset; sorted by
 *                                                  (kernel_id, instance, target), each compared
 *                                                  bytewise (memcmp, then length); no duplicates
 *   objects    = qdrt_index_object[object_count]   at objects_offset; sorted by sha256 (memcmp);
 *                                                  no duplicates
 *   tasks      = qdrt_index_task[task_count]       at tasks_offset; an entry's tasks are
 *                                                  contiguous and in launch order
 *   arguments  = qdrt_index_argument[argument_count]  at arguments_offset; an entry's arguments
 *                                                  are contiguous and in parameter order
 *   blob       = uint8[blob_size]                  at blob_offset: the bytes of every string and
 *                                                  of launch metadata, referenced by
 *                                                  qdrt_index_bytes {offset, size} relative to
 *                                                  blob_offset (strings are not NUL-terminated
 *                                                  and may contain any byte)
 *   file_size  = the size of the whole file (a reader rejects any other size)
 *   checksum   = XXH3-64 (seed 0) of the file's bytes [QDRT_INDEX_CHECKSUM_START, file_size)
 *   object references: a uint32 index into `objects`, or QDRT_NO_OBJECT
 *   lookup     = binary search of `entries` by key
 *
 * In a directory store (flags without QDRT_INDEX_FLAG_PACKED) an object's bytes are in the file
 * objects/<first 2 hex digits of sha256>/<other 62 hex digits>.qdo and `offset`/`size` are 0.
 * In a pack (flag set) they are the object's location inside the pack file.
 *
 * ---------------------------------------------------------------------------------------------
 * Pack file (*.qdpack), version 1: one file an application ships
 * ---------------------------------------------------------------------------------------------
 *   pack        = pack_header index objects
 *   pack_header = qdrt_pack_header                  64 bytes at offset 0
 *   index       = an index file as above            at index_offset, index_size bytes, with
 *                                                   QDRT_INDEX_FLAG_PACKED
 *   objects     = object files (below), back to back, each 8-byte aligned, at objects_offset,
 *                 objects_size bytes; every index object's [offset, offset + size) lies inside
 *   header_checksum = XXH3-64 of the pack header's bytes [QDRT_PACK_CHECKSUM_START, 64)
 *
 * ---------------------------------------------------------------------------------------------
 * Object file (*.qdo; also each object inside a pack), version 1
 * ---------------------------------------------------------------------------------------------
 *   object    = qdrt_object_header version payload
 *   version   = char[version_size]   the qdbuild version that wrote it (informational)
 *   payload   = uint8[payload_size]  the content, compressed as `codec` says
 *   raw_size  = size of the content after decompression
 *   content_xxh3_128 = XXH3-128 of the uncompressed content: low 64 bits, then high 64 bits
 *   header_checksum  = XXH3-64 of the header bytes [0, 56) followed by `version`
 *   the object's address (file name) is the SHA-256 of the uncompressed content
 *
 * Version history:
 *   index 1, pack 1, object 1 (qdbuild 0.1.0): first versions.
 *   index 2: QDRT_ARG_FIELD arguments and their layouts. Readers take versions 1 and 2; writers
 *            write 1 for an index without field arguments.
 */
#ifndef QDRT_STORE_FORMAT_H
#define QDRT_STORE_FORMAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- index ----------------------------------------------------------------------------------- */

#define QDRT_INDEX_MAGIC "QDINDEX\0" /* 8 bytes */
#define QDRT_INDEX_VERSION 2u
/* The oldest index version this header's readers take. A writer writes version 1 when no
 * argument is a QDRT_ARG_FIELD (so older runtimes read the store), else 2. */
#define QDRT_INDEX_MIN_VERSION 1u
#define QDRT_INDEX_CHECKSUM_START 32u
#define QDRT_INDEX_FLAG_PACKED 1u
#define QDRT_NO_OBJECT 0xffffffffu

/* Task kinds (qdrt_index_task.kind). */
#define QDRT_TASK_RANGE 0u  /* a parallel range-for, run on the thread pool / as a grid */
#define QDRT_TASK_SERIAL 1u /* runs on the calling thread / one GPU thread */

/* Argument kinds (qdrt_index_argument.kind). */
#define QDRT_ARG_SCALAR 0u
#define QDRT_ARG_NDARRAY 1u
#define QDRT_ARG_TEMPLATE 2u /* selects the instance; not passed to the code */
/* Index version 2: an array of a fixed shape and layout (a qd.field in Quadrants' memory),
 * passed to the code as a QDRT_ARG_NDARRAY is (its data the address of element 0, component
 * 0); the code indexes it with the strides it was compiled for. element_rank <= 2, and
 * element_shape[2], element_shape[3] are the blob offset and size of its layout: int64
 * shape[ndim + element_rank] (outer extents, then element dims), then int64
 * strides[ndim + element_rank] in bytes, each >= 0 and a multiple of the dtype's size. */
#define QDRT_ARG_FIELD 3u

/* Element dtype codes (qdrt_index_argument.dtype). */
#define QDRT_DTYPE_NONE 0u
#define QDRT_DTYPE_I8 1u
#define QDRT_DTYPE_I16 2u
#define QDRT_DTYPE_I32 3u
#define QDRT_DTYPE_I64 4u
#define QDRT_DTYPE_U8 5u
#define QDRT_DTYPE_U16 6u
#define QDRT_DTYPE_U32 7u
#define QDRT_DTYPE_U64 8u
#define QDRT_DTYPE_F16 9u
#define QDRT_DTYPE_F32 10u
#define QDRT_DTYPE_F64 11u
#define QDRT_DTYPE_U1 12u /* bool */

#define QDRT_MAX_ELEMENT_RANK 4u

/* A byte string inside the blob. */
typedef struct qdrt_index_bytes {
  uint32_t offset; /* relative to blob_offset */
  uint32_t size;
} qdrt_index_bytes;

typedef struct qdrt_index_header {
  char magic[8];        /* QDRT_INDEX_MAGIC */
  uint32_t version;     /* QDRT_INDEX_VERSION */
  uint32_t header_size; /* sizeof(qdrt_index_header) */
  uint64_t file_size;
  uint64_t checksum; /* XXH3-64 of [QDRT_INDEX_CHECKSUM_START, file_size) */
  /* --- checksummed from here (offset 32) --- */
  uint32_t flags;
  uint32_t entry_count;
  uint32_t object_count;
  uint32_t task_count;
  uint32_t argument_count;
  uint32_t reserved0;
  uint64_t entries_offset;
  uint64_t objects_offset;
  uint64_t tasks_offset;
  uint64_t arguments_offset;
  uint64_t blob_offset;
  uint64_t blob_size;
  int64_t created_time; /* unix seconds when the writer published it */
  uint64_t reserved1;
  uint64_t reserved2;
} qdrt_index_header;

typedef struct qdrt_index_entry {
  qdrt_index_bytes kernel_id; /* module:qualname */
  qdrt_index_bytes instance;  /* canonical instance string */
  qdrt_index_bytes target;    /* e.g. "cpu", "cuda:sm_90" */
  uint32_t first_task;
  uint32_t task_count;
  uint32_t first_argument;
  uint32_t argument_count;
  uint32_t module_object; /* the linked module for the target, or QDRT_NO_OBJECT */
  uint32_t reserved;
  int64_t last_used; /* unix seconds; least recently used entries are evicted first */
} qdrt_index_entry;

typedef struct qdrt_index_object {
  uint8_t sha256[32]; /* the address: SHA-256 of the uncompressed content */
  uint64_t offset;    /* packs: where the object file starts in the pack; else 0 */
  uint64_t size;      /* packs: its size in bytes; else 0 */
} qdrt_index_object;

typedef struct qdrt_index_task {
  qdrt_index_bytes name;
  qdrt_index_bytes launch_metadata; /* opaque to the store */
  uint32_t kind;                    /* QDRT_TASK_* */
  uint32_t code_object;             /* object index, or QDRT_NO_OBJECT */
} qdrt_index_task;

typedef struct qdrt_index_argument {
  qdrt_index_bytes name;
  uint32_t kind;         /* QDRT_ARG_* */
  uint32_t dtype;        /* QDRT_DTYPE_* */
  uint32_t ndim;         /* array dimensions (0 for scalars) */
  uint32_t element_rank; /* 0 scalar element, 1 vector, 2 matrix; <= QDRT_MAX_ELEMENT_RANK */
  uint32_t element_shape[QDRT_MAX_ELEMENT_RANK]; /* unused trailing dims are 0 */
} qdrt_index_argument;

/* --- pack ------------------------------------------------------------------------------------ */

#define QDRT_PACK_MAGIC "QDPACK\0\0" /* 8 bytes */
#define QDRT_PACK_VERSION 1u
#define QDRT_PACK_CHECKSUM_START 24u

typedef struct qdrt_pack_header {
  char magic[8];        /* QDRT_PACK_MAGIC */
  uint32_t version;     /* QDRT_PACK_VERSION */
  uint32_t header_size; /* sizeof(qdrt_pack_header) */
  uint64_t header_checksum;
  /* --- checksummed from here (offset 24) --- */
  uint64_t file_size;
  uint64_t index_offset;
  uint64_t index_size;
  uint64_t objects_offset;
  uint64_t objects_size;
} qdrt_pack_header;

/* --- object ---------------------------------------------------------------------------------- */

#define QDRT_OBJECT_MAGIC "QDOBJ\0\0\0" /* 8 bytes */
#define QDRT_OBJECT_VERSION 1u
#define QDRT_CODEC_NONE 0u
#define QDRT_CODEC_ZSTD 1u
#define QDRT_OBJECT_MAX_VERSION_SIZE 64u

typedef struct qdrt_object_header {
  char magic[8];         /* QDRT_OBJECT_MAGIC */
  uint32_t version;      /* QDRT_OBJECT_VERSION */
  uint32_t header_size;  /* sizeof(qdrt_object_header) + version_size */
  uint8_t codec;         /* QDRT_CODEC_* */
  int8_t level;          /* compression level it was written with (informational) */
  uint16_t version_size; /* <= QDRT_OBJECT_MAX_VERSION_SIZE */
  uint32_t reserved;
  uint64_t raw_size;
  uint64_t payload_size;
  uint8_t content_xxh3_128[16];
  uint64_t header_checksum;
} qdrt_object_header;

#ifdef __cplusplus
} /* extern "C" */
#define QDRT_STATIC_ASSERT static_assert
#else
#define QDRT_STATIC_ASSERT _Static_assert
#endif

QDRT_STATIC_ASSERT(sizeof(qdrt_index_bytes) == 8, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_index_header) == 128, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_index_entry) == 56, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_index_object) == 48, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_index_task) == 24, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_index_argument) == 40, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_pack_header) == 64, "layout");
QDRT_STATIC_ASSERT(sizeof(qdrt_object_header) == 64, "layout");

#undef QDRT_STATIC_ASSERT

#endif /* QDRT_STORE_FORMAT_H */
