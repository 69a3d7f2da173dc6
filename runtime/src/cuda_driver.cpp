#include "cuda_driver.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include <dlfcn.h>

namespace qdrt::cuda {

namespace {

struct Loaded {
  Driver driver;
  Status status;
};

Loaded* g_loaded = nullptr;  // never freed: the driver stays loaded for the process
std::once_flag g_once;

const char* builtin_name(CUresult r) {
  switch (r) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 4: return "CUDA_ERROR_DEINITIALIZED";
    case 34: return "CUDA_ERROR_STUB_LIBRARY";
    case 35: return "CUDA_ERROR_INSUFFICIENT_DRIVER";
    case 46: return "CUDA_ERROR_DEVICES_UNAVAILABLE";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 200: return "CUDA_ERROR_INVALID_IMAGE";
    case 201: return "CUDA_ERROR_INVALID_CONTEXT";
    case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case 218: return "CUDA_ERROR_INVALID_PTX";
    case 222: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
    case 400: return "CUDA_ERROR_INVALID_HANDLE";
    case 500: return "CUDA_ERROR_NOT_FOUND";
    case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case 701: return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    case 719: return "CUDA_ERROR_LAUNCH_FAILED";
    case 999: return "CUDA_ERROR_UNKNOWN";
    default: return nullptr;
  }
}

Status load_once(Driver& d) {
  const char* env = std::getenv("QDRT_CUDA_LIBRARY");
  bool from_env = env != nullptr && *env != '\0';
  d.path = from_env ? env : "libcuda.so.1";
  void* handle = ::dlopen(d.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    std::string m = "no CUDA driver: cannot load ";
    m += from_env ? "'" + d.path + "' (from QDRT_CUDA_LIBRARY)" : d.path;
    m += std::string(": ") + (why != nullptr ? why : "dlopen failed");
    m += from_env ? "" : " (CUDA kernels need the NVIDIA driver; QDRT_CUDA_LIBRARY names it)";
    return Status::error(QDRT_ERROR_CUDA, m);
  }
  std::string missing;
#define QDRT_CUDA_FN(name, symbol, ret, params)                                                    \
  d.name = reinterpret_cast<ret(*) params>(::dlsym(handle, symbol));                               \
  if (d.name == nullptr) {                                                                         \
    missing += missing.empty() ? symbol : std::string(", ") + symbol;                              \
  }
#define QDRT_CUDA_OPTIONAL_FN(name, symbol, ret, params)                                           \
  d.name = reinterpret_cast<ret(*) params>(::dlsym(handle, symbol));
  QDRT_CUDA_FUNCTION_LIST
#undef QDRT_CUDA_FN
#undef QDRT_CUDA_OPTIONAL_FN
  if (!missing.empty()) {
    return Status::error(QDRT_ERROR_CUDA, "the CUDA driver '" + d.path + "' lacks " + missing +
                                              " (a driver older than CUDA 11?)");
  }
  CUresult r = d.cuInit(0);
  if (r == CUDA_ERROR_STUB_LIBRARY) {
    return Status::error(QDRT_ERROR_CUDA,
                         "CUDA driver stub library (CUDA_ERROR_STUB_LIBRARY): cuInit failed: '" +
                             d.path +
                             "' is the CUDA toolkit's stub libcuda, not a driver (no GPU "
                             "driver is installed, or the stub shadows it on the library path)");
  }
  if (r != CUDA_SUCCESS) {
    return call_error(d, "initializing the CUDA driver '" + d.path + "'", "cuInit", r);
  }
  if (r = d.cuDriverGetVersion(&d.version); r != CUDA_SUCCESS) {
    return call_error(d, "CUDA driver '" + d.path + "'", "cuDriverGetVersion", r);
  }
  log_debug("CUDA driver '%s' loaded (version %d.%d)", d.path.c_str(), d.version / 1000,
            d.version % 1000 / 10);
  return {};
}

std::mutex g_devices_mutex;
std::map<CUdevice, std::unique_ptr<Device>>* g_devices = nullptr;  // never freed
CUcontext g_primary = nullptr;  // device 0's primary context, retained once

}  // namespace

Status load_driver(const Driver*& out) {
  std::call_once(g_once, [] {
    g_loaded = new Loaded;
    g_loaded->status = load_once(g_loaded->driver);
  });
  out = g_loaded->status.ok() ? &g_loaded->driver : nullptr;
  return g_loaded->status;
}

std::string result_name(const Driver* d, CUresult r) {
  const char* name = nullptr;
  if (d != nullptr && d->cuGetErrorName != nullptr && d->cuGetErrorName(r, &name) == CUDA_SUCCESS &&
      name != nullptr) {
    return name;
  }
  name = builtin_name(r);
  return name != nullptr ? name : "CUresult " + std::to_string(r);
}

Status call_error(const Driver& d, const std::string& what, const char* call, CUresult r) {
  std::string m = what + ": " + call + " failed: " + result_name(&d, r);
  const char* text = nullptr;
  if (d.cuGetErrorString != nullptr && d.cuGetErrorString(r, &text) == CUDA_SUCCESS &&
      text != nullptr) {
    m += std::string(" (") + text + ")";
  }
  return Status::error(r == 2 ? QDRT_ERROR_OUT_OF_MEMORY : QDRT_ERROR_CUDA, m);
}

ContextScope::~ContextScope() {
  if (m_pushed) {
    CUcontext popped = nullptr;
    m_driver->cuCtxPopCurrent(&popped);
  }
}

Status ContextScope::enter(const Driver& d, const std::string& what) {
  m_driver = &d;
  CUresult r = d.cuCtxGetCurrent(&m_ctx);
  if (r != CUDA_SUCCESS) {
    return call_error(d, what, "cuCtxGetCurrent", r);
  }
  if (m_ctx == nullptr) {
    std::lock_guard<std::mutex> lock(g_devices_mutex);
    if (g_primary == nullptr) {
      CUdevice dev = 0;
      if (r = d.cuDeviceGet(&dev, 0); r != CUDA_SUCCESS) {
        return call_error(d, what + " (no current context: using device 0)", "cuDeviceGet", r);
      }
      if (r = d.cuDevicePrimaryCtxRetain(&g_primary, dev); r != CUDA_SUCCESS) {
        g_primary = nullptr;
        return call_error(d, what, "cuDevicePrimaryCtxRetain", r);
      }
      log_debug("CUDA: no current context; using device 0's primary context");
    }
    m_ctx = g_primary;
  }
  if (r = d.cuCtxPushCurrent(m_ctx); r != CUDA_SUCCESS) {
    return call_error(d, what, "cuCtxPushCurrent", r);
  }
  m_pushed = true;
  CUdevice dev = 0;
  if (r = d.cuCtxGetDevice(&dev); r != CUDA_SUCCESS) {
    return call_error(d, what, "cuCtxGetDevice", r);
  }
  std::lock_guard<std::mutex> lock(g_devices_mutex);
  if (g_devices == nullptr) {
    g_devices = new std::map<CUdevice, std::unique_ptr<Device>>;
  }
  auto& slot = (*g_devices)[dev];
  if (!slot) {
    auto info = std::make_unique<Device>();
    info->ordinal = dev;
    int major = 0, minor = 0, pools = 0;
    struct Query {
      CUdevice_attribute attr;
      int* out;
      const char* name;
    } queries[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major, "compute capability"},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor, "compute capability"},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info->sms, "multiprocessor count"},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &info->max_threads_per_sm,
         "max threads per multiprocessor"},
        {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, &pools, "memory pools"},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &info->max_block_dim, "max block dim x"},
    };
    for (const Query& q : queries) {
      if (r = d.cuDeviceGetAttribute(q.out, q.attr, dev); r != CUDA_SUCCESS) {
        return call_error(d, what + " (device " + std::to_string(dev) + " " + q.name + ")",
                          "cuDeviceGetAttribute", r);
      }
    }
    // Resident blocks per SM: CUDA 11+ drivers report it; before that Quadrants assumes 16.
    info->max_blocks_per_sm = 16;
    if (d.version >= 11000 &&
        d.cuDeviceGetAttribute(&info->max_blocks_per_sm,
                               CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
                               dev) != CUDA_SUCCESS) {
      info->max_blocks_per_sm = 16;
    }
    info->arch = static_cast<uint32_t>(major * 10 + minor);
    info->memory_pools = pools != 0 && d.cuMemAllocAsync != nullptr && d.cuMemFreeAsync != nullptr;
    log_debug("CUDA device %d: sm_%u, %d SMs, %d threads/SM, %d blocks/SM, memory pools %s", dev,
              info->arch, info->sms, info->max_threads_per_sm, info->max_blocks_per_sm,
              info->memory_pools ? "yes" : "no");
    slot = std::move(info);
  }
  m_device = slot.get();
  return {};
}

}  // namespace qdrt::cuda
