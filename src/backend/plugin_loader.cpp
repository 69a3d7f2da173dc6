#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

#include "backend/plugin.hpp"
#include "support/self_object.hpp"

namespace qd::backend::plugin {

namespace {

// <directory of qdbuild's code>/../lib/: bin/qdbuild -> lib/, and lib/libqdbuild.so -> lib/.
std::string default_path() {
  std::string self = support::self_object_path();
  if (self.empty()) {
    return k_plugin_file;
  }
  std::string dir = self.substr(0, self.rfind('/'));
  return dir + "/../lib/" + k_plugin_file;
}

struct Loaded {
  const Plugin* plugin = nullptr;
  std::string error;
};

Loaded load_once() {
  Loaded out;
  const char* env = std::getenv("QDBUILD_BACKEND");
  std::string path = env != nullptr && *env != 0 ? env : default_path();
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* e = dlerror();
    out.error = "cannot load the compiler backend '" + path + "': " + (e ? e : "unknown error") +
                " (set QDBUILD_BACKEND to its path)";
    return out;
  }
  using Entry = const Plugin* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(h, k_plugin_entry));
  if (entry == nullptr) {
    out.error = "'" + path + "' is not a qdbuild backend (no " + k_plugin_entry + ")";
    return out;
  }
  const Plugin* p = entry();
  if (p == nullptr || p->abi != k_plugin_abi || p->compile_cpu_task == nullptr ||
      p->link_cpu_module == nullptr || p->toolchain_id == nullptr ||
      p->compile_cuda_task == nullptr || p->link_cuda_module == nullptr ||
      p->cuda_toolchain_id == nullptr) {
    out.error = "'" + path + "' has another plugin ABI than this qdbuild";
    return out;
  }
  if (p->toolchain_id(CpuTarget{}) != toolchain_id(CpuTarget{})) {
    out.error = "'" + path + "' was built from another qdbuild (its toolchain id differs)";
    return out;
  }
  out.plugin = p;  // never unloaded: LLVM's static state lives until exit
  return out;
}

Diagnostic failure(const std::string& message) {
  Diagnostic d;
  d.severity = Diagnostic::Severity::error;
  d.message = message;
  return d;
}

}  // namespace

const Plugin* load(std::string& error) {
  static const Loaded loaded = load_once();
  error = loaded.error;
  return loaded.plugin;
}

TaskObject compile_cpu_task(const TaskUnit& task, const CpuTarget& target) {
  std::string error;
  if (const Plugin* p = load(error)) {
    return p->compile_cpu_task(task, target);
  }
  TaskObject out;
  out.name = task.name;
  out.key = task_key(task.source, target);
  out.diagnostics.push_back(failure(error));
  return out;
}

LinkedModule link_cpu_module(const std::vector<std::string>& objects) {
  std::string error;
  if (const Plugin* p = load(error)) {
    return p->link_cpu_module(objects);
  }
  LinkedModule out;
  out.diagnostics.push_back(failure(error));
  return out;
}

TaskPtx compile_cuda_task(const TaskUnit& task, const CudaTarget& target) {
  std::string error;
  if (const Plugin* p = load(error)) {
    return p->compile_cuda_task(task, target);
  }
  TaskPtx out;
  out.name = task.name;
  out.key = task_key(task.source, target);
  out.diagnostics.push_back(failure(error));
  return out;
}

CudaModule link_cuda_module(const std::vector<std::string>& ptx_units, unsigned arch) {
  std::string error;
  if (const Plugin* p = load(error)) {
    return p->link_cuda_module(ptx_units, arch);
  }
  CudaModule out;
  out.diagnostics.push_back(failure(error));
  return out;
}

}  // namespace qd::backend::plugin
