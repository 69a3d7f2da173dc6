/* stdint.h for task translation units: the fixed-width integer types from the compiler's own
 * predefined macros, so that qdrt/task_abi.h (which includes <stdint.h>) compiles with no system
 * or compiler resource headers. Embedded into qd_backend at build time (src/backend). */
#ifndef QD_PRELUDE_STDINT_H
#define QD_PRELUDE_STDINT_H

typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;

#define INT32_MIN (-__INT32_MAX__ - 1)
#define INT32_MAX __INT32_MAX__
#define INT64_MIN (-__INT64_MAX__ - 1)
#define INT64_MAX __INT64_MAX__
#define UINT32_MAX __UINT32_MAX__
#define UINT64_MAX __UINT64_MAX__

#endif /* QD_PRELUDE_STDINT_H */
