// The CUDA driver, dlopened on first use (never linked: the same libqdrt runs without a GPU).
// $QDRT_CUDA_LIBRARY names the library to load instead of libcuda.so.1 (the tests load the
// toolkit's stub that way). Every failure is a QDRT_ERROR_CUDA status naming the failing call
// and its CUresult name.
#pragma once

#include <string>

#include "common.hpp"
#include "cuda_functions.h"

namespace qdrt::cuda {

using namespace qdrt::cu;

struct Driver {
#define QDRT_CUDA_FN(name, symbol, ret, params) ret(*name) params = nullptr;
#define QDRT_CUDA_OPTIONAL_FN QDRT_CUDA_FN
  QDRT_CUDA_FUNCTION_LIST
#undef QDRT_CUDA_FN
#undef QDRT_CUDA_OPTIONAL_FN
  std::string path;  // what was dlopened
  int version = 0;   // cuDriverGetVersion: 1000 * major + 10 * minor
};

// Loads and initializes the driver once per process (thread-safe); later calls return the same
// driver or the same failure ("no CUDA driver: ...", "CUDA driver stub library ...").
Status load_driver(const Driver*& out);

// "CUDA_ERROR_INVALID_VALUE" (the driver's name when it knows it, else a built-in table).
std::string result_name(const Driver* d, CUresult r);
// QDRT_ERROR_CUDA: "<what>: <call> failed: <CUresult name> (<description>)".
Status call_error(const Driver& d, const std::string& what, const char* call, CUresult r);

// Facts of one device, queried once per device.
struct Device {
  CUdevice ordinal = 0;
  uint32_t arch = 0;  // compute capability, 10 * major + minor (90 for sm_90)
  int sms = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;  // resident blocks per SM (16 when the driver predates CUDA 11)
  int max_block_dim = 0;      // threads per block in x
  bool memory_pools = false;  // cuMemAllocAsync usable
};

// The context a launch runs in: the thread's current context, else device 0's primary context
// (retained once, kept for the process), pushed for the scope and popped at its end.
class ContextScope {
public:
  ContextScope() = default;
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
  ~ContextScope();
  Status enter(const Driver& d, const std::string& what);
  CUcontext context() const { return m_ctx; }
  const Device& device() const { return *m_device; }

private:
  const Driver* m_driver = nullptr;
  CUcontext m_ctx = nullptr;
  const Device* m_device = nullptr;
  bool m_pushed = false;
};

}  // namespace qdrt::cuda
