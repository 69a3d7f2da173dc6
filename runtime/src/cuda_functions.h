// The CUDA driver API subset libqdrt uses, declared here so libqdrt builds without the CUDA SDK
//.
// Only the types, constants and entry points below are used; values are those of CUDA 13's
// cuda.h (stable ABI since CUDA 11). The functions are resolved with dlsym from the driver that
// cuda_driver.cpp dlopens on first use (libcuda.so.1, or $QDRT_CUDA_LIBRARY); libqdrt never
// links libcuda.
//
// QDRT_CUDA_FN(name, symbol, ret, params)          required: a driver lacking one is refused
// QDRT_CUDA_OPTIONAL_FN(name, symbol, ret, params) may be missing (nullptr): older drivers
// `symbol` is the exported name (the cuda.h macro's target: cuMemAlloc -> cuMemAlloc_v2).
#ifndef QDRT_CUDA_FUNCTIONS_H
#define QDRT_CUDA_FUNCTIONS_H

#include <cstddef>
#include <cstdint>

namespace qdrt::cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUjit_option = int;
using CUdevice_attribute = int;
using CUgraph = struct CUgraph_st*;
using CUgraphNode = struct CUgraphNode_st*;
using CUgraphExec = struct CUgraphExec_st*;
using CUgraphConditionalHandle = unsigned long long;

// cuGraphAddKernelNode's parameters (the unversioned export takes CUDA_KERNEL_NODE_PARAMS_v1).
struct KernelNodeParams {
  CUfunction func;
  unsigned int grid_x, grid_y, grid_z;
  unsigned int block_x, block_y, block_z;
  unsigned int shared_bytes;
  void** params;
  void** extra;
};

// CUDA_CONDITIONAL_NODE_PARAMS.
struct ConditionalNodeParams {
  CUgraphConditionalHandle handle;
  int type;           // CUgraphConditionalNodeType
  unsigned int size;  // body graphs: 1 for a WHILE node
  CUgraph* body_out;  // phGraph_out: the driver's array of body graphs
  CUcontext ctx;
};

// CUgraphNodeParams (256 bytes): the node type, then a union of 29 long longs, of which only
// the conditional member is used here; unused bytes must be zero.
struct GraphNodeParams {
  int type;  // CUgraphNodeType
  int reserved0[3];
  union {
    long long reserved1[29];
    ConditionalNodeParams conditional;
  };
  long long reserved2;
};

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;

inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115;

inline constexpr int CU_GRAPH_NODE_TYPE_CONDITIONAL = 13;
inline constexpr int CU_GRAPH_COND_TYPE_WHILE = 1;
inline constexpr unsigned int GRAPH_COND_ASSIGN_DEFAULT = 1;  // cuda.h: a macro

inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

}  // namespace qdrt::cu

// clang-format off
#define QDRT_CUDA_FUNCTION_LIST                                                                  \
  QDRT_CUDA_FN(cuInit, "cuInit", CUresult, (unsigned int))                                       \
  QDRT_CUDA_FN(cuDriverGetVersion, "cuDriverGetVersion", CUresult, (int*))                       \
  QDRT_CUDA_FN(cuGetErrorName, "cuGetErrorName", CUresult, (CUresult, const char**))             \
  QDRT_CUDA_FN(cuGetErrorString, "cuGetErrorString", CUresult, (CUresult, const char**))         \
  QDRT_CUDA_FN(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice*, int))                           \
  QDRT_CUDA_FN(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult,                           \
               (int*, CUdevice_attribute, CUdevice))                                             \
  QDRT_CUDA_FN(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult,                   \
               (CUcontext*, CUdevice))                                                           \
  QDRT_CUDA_FN(cuCtxGetCurrent, "cuCtxGetCurrent", CUresult, (CUcontext*))                       \
  QDRT_CUDA_FN(cuCtxPushCurrent, "cuCtxPushCurrent_v2", CUresult, (CUcontext))                   \
  QDRT_CUDA_FN(cuCtxPopCurrent, "cuCtxPopCurrent_v2", CUresult, (CUcontext*))                    \
  QDRT_CUDA_FN(cuCtxGetDevice, "cuCtxGetDevice", CUresult, (CUdevice*))                          \
  QDRT_CUDA_FN(cuModuleLoadDataEx, "cuModuleLoadDataEx", CUresult,                               \
               (CUmodule*, const void*, unsigned int, CUjit_option*, void**))                    \
  QDRT_CUDA_FN(cuModuleUnload, "cuModuleUnload", CUresult, (CUmodule))                           \
  QDRT_CUDA_FN(cuModuleGetFunction, "cuModuleGetFunction", CUresult,                             \
               (CUfunction*, CUmodule, const char*))                                             \
  QDRT_CUDA_FN(cuModuleGetGlobal, "cuModuleGetGlobal_v2", CUresult,                              \
               (CUdeviceptr*, size_t*, CUmodule, const char*))                                   \
  QDRT_CUDA_FN(cuOccupancyMaxActiveBlocksPerMultiprocessor,                                      \
               "cuOccupancyMaxActiveBlocksPerMultiprocessor", CUresult,                          \
               (int*, CUfunction, int, size_t))                                                  \
  QDRT_CUDA_FN(cuLaunchKernel, "cuLaunchKernel", CUresult,                                       \
               (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,              \
                unsigned int, unsigned int, unsigned int, CUstream, void**, void**))             \
  QDRT_CUDA_FN(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr*, size_t))                    \
  QDRT_CUDA_FN(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr))                               \
  QDRT_CUDA_FN(cuMemsetD8Async, "cuMemsetD8Async", CUresult,                                     \
               (CUdeviceptr, unsigned char, size_t, CUstream))                                   \
  QDRT_CUDA_FN(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", CUresult,                              \
               (void*, CUdeviceptr, size_t, CUstream))                                           \
  QDRT_CUDA_FN(cuMemcpyHtoD, "cuMemcpyHtoD_v2", CUresult, (CUdeviceptr, const void*, size_t))    \
  QDRT_CUDA_FN(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream))                 \
  QDRT_CUDA_OPTIONAL_FN(cuMemAllocAsync, "cuMemAllocAsync", CUresult,                            \
                        (CUdeviceptr*, size_t, CUstream))                                        \
  QDRT_CUDA_OPTIONAL_FN(cuMemFreeAsync, "cuMemFreeAsync", CUresult, (CUdeviceptr, CUstream))  \
  QDRT_CUDA_OPTIONAL_FN(cuGraphCreate, "cuGraphCreate", CUresult, (CUgraph*, unsigned int))      \
  QDRT_CUDA_OPTIONAL_FN(cuGraphDestroy, "cuGraphDestroy", CUresult, (CUgraph))                  \
  QDRT_CUDA_OPTIONAL_FN(cuGraphAddKernelNode, "cuGraphAddKernelNode", CUresult,                  \
                        (CUgraphNode*, CUgraph, const CUgraphNode*, size_t,                      \
                         const KernelNodeParams*))                                               \
  QDRT_CUDA_OPTIONAL_FN(cuGraphAddNode, "cuGraphAddNode", CUresult,                              \
                        (CUgraphNode*, CUgraph, const CUgraphNode*, size_t, GraphNodeParams*))   \
  QDRT_CUDA_OPTIONAL_FN(cuGraphConditionalHandleCreate, "cuGraphConditionalHandleCreate",        \
                        CUresult,                                                                \
                        (CUgraphConditionalHandle*, CUgraph, CUcontext, unsigned int,            \
                         unsigned int))                                                          \
  QDRT_CUDA_OPTIONAL_FN(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", CUresult,    \
                        (CUgraphExec*, CUgraph, unsigned long long))                             \
  QDRT_CUDA_OPTIONAL_FN(cuGraphLaunch, "cuGraphLaunch", CUresult, (CUgraphExec, CUstream))       \
  QDRT_CUDA_OPTIONAL_FN(cuGraphExecDestroy, "cuGraphExecDestroy", CUresult, (CUgraphExec))
// clang-format on

#endif  // QDRT_CUDA_FUNCTIONS_H
