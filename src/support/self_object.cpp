#include "support/self_object.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <unistd.h>

namespace qd::support {

std::string self_object_path() {
  Dl_info info{};
  link_map* map = nullptr;
  void* self = reinterpret_cast<void*>(&self_object_path);
  if (dladdr1(self, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0 &&
      map != nullptr && map->l_name != nullptr && map->l_name[0] == '/') {
    return map->l_name;  // a shared library (the main program's l_name is "")
  }
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) {
    return "";
  }
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace qd::support
