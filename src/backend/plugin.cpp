// libqdbuild-backend.so's entry point (plugin.hpp).
#include "backend/plugin.hpp"

extern "C" __attribute__((visibility("default"))) const qd::backend::Plugin*
qd_backend_plugin_v1() {
  static const qd::backend::Plugin p{qd::backend::k_plugin_abi, &qd::backend::compile_cpu_task,
                                     &qd::backend::link_cpu_module, &qd::backend::toolchain_id};
  return &p;
}
