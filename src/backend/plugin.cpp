// libqdbuild-backend.so's entry point (plugin.hpp).
#include "backend/plugin.hpp"

extern "C" __attribute__((visibility("default"))) const qd::backend::Plugin*
qd_backend_plugin_v1() {
  namespace b = qd::backend;
  static const b::Plugin p{
      b::k_plugin_abi,
      &b::compile_cpu_task,
      &b::link_cpu_module,
      static_cast<std::string (*)(const b::CpuTarget&)>(&b::toolchain_id),
      &b::compile_cuda_task,
      &b::link_cuda_module,
      static_cast<std::string (*)(const b::CudaTarget&)>(&b::toolchain_id),
  };
  return &p;
}
