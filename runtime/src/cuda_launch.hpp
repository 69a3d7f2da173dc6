// CUDA launches (qdrt/task_abi.h "CUDA modules"): routing a launch to the CPU or CUDA
// instances, the CUDA module cache of a store (one CUmodule per context and bundle), packing the
// bound arguments into the by-value qdrt_cuda_context, and running the tasks on a stream.
#pragma once

#include <memory>
#include <string>

#include "common.hpp"
#include "qdrt/task_abi.h"

namespace qdrt {

struct Kernel;
struct Instance;

// A launch bound once (launch.cpp, qdrt_prepare).
struct BoundLaunch;
struct BoundLaunchDeleter {
  void operator()(BoundLaunch* b) const;
};
using BoundLaunchPtr = std::unique_ptr<BoundLaunch, BoundLaunchDeleter>;

struct CudaLaunch {
  void* stream = nullptr;  // CUstream; nullptr: the default stream
};

// A store's CUDA state (bundles parsed once, modules and functions per context).
struct CudaState;
struct CudaStateDeleter {
  void operator()(CudaState* state) const;
};

// qdrt_launch / qdrt_launch_ex: CUDA when `options` asks for it or (QDRT_DEVICE_AUTO) when an
// argument is a QDRT_VALUE_CUDA_ARRAY, else the CPU launch. `options` may be NULL.
Status launch_routed(Kernel& k, const qdrt_value* args, size_t count, qdrt_value* result,
                     const qdrt_launch_options* options);
// The same routing for a prepared launch (qdrt_prepare): binds instead of running.
Status prepare_routed(Kernel& k, const qdrt_value* args, size_t count,
                      const qdrt_launch_options* options, BoundLaunchPtr& out);

// Packs the bound arguments (launch.cpp's CPU binding: args[p] points at the uint64_t slot of a
// scalar or at the qdrt_array of an ndarray, for every passed parameter p) into `out`.
Status pack_cuda_context(const Instance& inst, const void* const* args, uint64_t temps,
                         uint64_t result, qdrt_cuda_context& out);

// Runs a bound CUDA instance (launch.cpp calls it in place of the CPU run).
Status cuda_run(Kernel& k, Instance& inst, const void* const* args, qdrt_value* result,
                const CudaLaunch& options);

// "kernel 'ID' instance 'I' (TARGET)": how errors and warnings name a CUDA launch.
std::string kernel_what(const Kernel& k, const Instance& inst);

// qdrt_cuda_init: loads and initializes the driver.
Status cuda_init();

}  // namespace qdrt
