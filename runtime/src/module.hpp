// A CPU module loaded from memory: memfd_create + write + seal + dlopen("/proc/self/fd/N").
// The memfd stays open until after dlclose: glibc matches dlopen names as strings first, so a
// reused fd number would return the previously loaded library.
#pragma once

#include <string>
#include <string_view>

#include "common.hpp"

namespace qdrt {

class Module {
public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  // Loads `code` (an ELF shared object) RTLD_NOW | RTLD_LOCAL and checks qdrt_module_abi_version.
  // `name` (the object's address) names it in messages and in /proc/self/maps. Same as stage()
  // then open().
  Status load(std::string_view code, const std::string& name);
  // The two halves of load(), so that an eager open can stage modules on helper threads while
  // one thread dlopens (the loader serializes dlopen anyway). stage: memfd_create + write + seal
  // (any thread; `code` may be reused afterwards). open: dlopen of the staged memfd + ABI check.
  Status stage(std::string_view code, const std::string& name);
  Status open(const std::string& name);
  // A symbol of the module, or nullptr.
  void* symbol(const char* name) const;
  bool loaded() const { return m_handle != nullptr; }

private:
  void* m_handle = nullptr;
  int m_fd = -1;
};

}  // namespace qdrt
