// Compile-time check that libqdrt's own copies of the CUDA driver's types and constants
// (runtime/src/cuda_functions.h, which builds without the CUDA SDK) match the toolkit's cuda.h:
// sizes, member offsets, enum values. Built into qdrt_cuda_test when cuda.h is found.
#include <cuda.h>

#include <cstddef>

#include "cuda_functions.h"

namespace cu = qdrt::cu;

static_assert(sizeof(cu::CUgraphConditionalHandle) == sizeof(CUgraphConditionalHandle));
static_assert(sizeof(cu::KernelNodeParams) == sizeof(CUDA_KERNEL_NODE_PARAMS_v1));
static_assert(offsetof(cu::KernelNodeParams, func) == offsetof(CUDA_KERNEL_NODE_PARAMS_v1, func));
static_assert(offsetof(cu::KernelNodeParams, grid_x) ==
              offsetof(CUDA_KERNEL_NODE_PARAMS_v1, gridDimX));
static_assert(offsetof(cu::KernelNodeParams, block_x) ==
              offsetof(CUDA_KERNEL_NODE_PARAMS_v1, blockDimX));
static_assert(offsetof(cu::KernelNodeParams, shared_bytes) ==
              offsetof(CUDA_KERNEL_NODE_PARAMS_v1, sharedMemBytes));
static_assert(offsetof(cu::KernelNodeParams, params) ==
              offsetof(CUDA_KERNEL_NODE_PARAMS_v1, kernelParams));
static_assert(offsetof(cu::KernelNodeParams, extra) == offsetof(CUDA_KERNEL_NODE_PARAMS_v1, extra));

static_assert(sizeof(cu::GraphNodeParams) == sizeof(CUgraphNodeParams));
static_assert(offsetof(cu::GraphNodeParams, type) == offsetof(CUgraphNodeParams, type));
static_assert(offsetof(cu::GraphNodeParams, conditional) ==
              offsetof(CUgraphNodeParams, conditional));
static_assert(offsetof(cu::GraphNodeParams, reserved2) == offsetof(CUgraphNodeParams, reserved2));
static_assert(sizeof(cu::ConditionalNodeParams) == sizeof(CUDA_CONDITIONAL_NODE_PARAMS));
static_assert(offsetof(cu::ConditionalNodeParams, handle) ==
              offsetof(CUDA_CONDITIONAL_NODE_PARAMS, handle));
static_assert(offsetof(cu::ConditionalNodeParams, type) ==
              offsetof(CUDA_CONDITIONAL_NODE_PARAMS, type));
static_assert(offsetof(cu::ConditionalNodeParams, size) ==
              offsetof(CUDA_CONDITIONAL_NODE_PARAMS, size));
static_assert(offsetof(cu::ConditionalNodeParams, body_out) ==
              offsetof(CUDA_CONDITIONAL_NODE_PARAMS, phGraph_out));
static_assert(offsetof(cu::ConditionalNodeParams, ctx) ==
              offsetof(CUDA_CONDITIONAL_NODE_PARAMS, ctx));

static_assert(cu::CU_GRAPH_NODE_TYPE_CONDITIONAL == CU_GRAPH_NODE_TYPE_CONDITIONAL);
static_assert(cu::CU_GRAPH_COND_TYPE_WHILE == CU_GRAPH_COND_TYPE_WHILE);
static_assert(cu::GRAPH_COND_ASSIGN_DEFAULT == CU_GRAPH_COND_ASSIGN_DEFAULT);
static_assert(cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cu::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR ==
              CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
static_assert(cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cu::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED ==
              CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
static_assert(cu::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X == CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
static_assert(cu::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR ==
              CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
static_assert(cu::CU_JIT_INFO_LOG_BUFFER == CU_JIT_INFO_LOG_BUFFER);
static_assert(cu::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
static_assert(cu::CU_JIT_ERROR_LOG_BUFFER == CU_JIT_ERROR_LOG_BUFFER);
static_assert(cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(cu::CUDA_ERROR_STUB_LIBRARY == CUDA_ERROR_STUB_LIBRARY);
