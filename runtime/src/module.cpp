#include "module.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qdrt/task_abi.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U  // Linux 6.3; bookworm's headers lack it
#endif
#ifdef F_SEAL_FUTURE_WRITE
constexpr int k_seal_future_write = F_SEAL_FUTURE_WRITE;
#else
constexpr int k_seal_future_write = 0x0010;  // Linux 5.1; older headers lack it
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif

namespace qdrt {

Module::~Module() {
  if (m_handle != nullptr) {
    ::dlclose(m_handle);
  }
  if (m_fd >= 0) {
    ::close(m_fd);  // only after dlclose (see the header)
  }
}

Status Module::load(std::string_view code, const std::string& name) {
  if (Status s = stage(code, name); !s.ok()) {
    return s;
  }
  return open(name);
}

Status Module::stage(std::string_view code, const std::string& name) {
  std::string memfd_name = "qdrt:" + name.substr(0, 16);
  // MFD_EXEC first (needed where vm.memfd_noexec=2), without it on kernels before 6.3.
  int fd = ::memfd_create(memfd_name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && errno == EINVAL) {
    fd = ::memfd_create(memfd_name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  }
  if (fd < 0) {
    return Status::error(QDRT_ERROR_LOAD,
                         "module " + name + ": memfd_create failed: " + std::strerror(errno));
  }
  m_fd = fd;
  size_t done = 0;
  while (done < code.size()) {
    ssize_t n = ::write(fd, code.data() + done, code.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return Status::error(QDRT_ERROR_LOAD, "module " + name + ": writing the memfd failed: " +
                                                std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  // Hardening: the bytes dlopen maps cannot change afterwards (best effort). F_SEAL_FUTURE_WRITE
  // (Linux 5.1) rather than F_SEAL_WRITE: the latter waits for page pins (an LRU drain) and cost
  // ~20 us per module, ~1 ms of a 1,000-kernel start (scripts/bench/start_bench.py).
  (void)::fcntl(fd, F_ADD_SEALS, k_seal_future_write | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
  return {};
}

Status Module::open(const std::string& name) {
  if (m_fd < 0 || m_handle != nullptr) {
    return Status::error(QDRT_ERROR_INTERNAL, "module " + name + ": not staged, or opened twice");
  }
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", m_fd);
  m_handle = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (m_handle == nullptr) {
    const char* why = ::dlerror();
    return Status::error(QDRT_ERROR_LOAD, "module " + name + " cannot be loaded: " +
                                              (why != nullptr ? why : "dlopen failed"));
  }
  auto* abi = static_cast<const uint32_t*>(::dlsym(m_handle, QDRT_MODULE_ABI_SYMBOL));
  if (abi == nullptr) {
    return Status::error(QDRT_ERROR_LOAD, "module " + name + " is not a qdbuild module (no " +
                                              QDRT_MODULE_ABI_SYMBOL + " symbol)");
  }
  if (*abi < QDRT_TASK_ABI_MIN_VERSION || *abi > QDRT_TASK_ABI_VERSION) {
    return Status::error(QDRT_ERROR_VERSION,
                         "module " + name + " has task ABI version " + std::to_string(*abi) +
                             "; this libqdrt runs versions " +
                             std::to_string(QDRT_TASK_ABI_MIN_VERSION) + " to " +
                             std::to_string(QDRT_TASK_ABI_VERSION) + " (rebuild the store)");
  }
  return {};
}

void* Module::symbol(const char* name) const {
  return m_handle == nullptr ? nullptr : ::dlsym(m_handle, name);
}

}  // namespace qdrt
