// The backend as a plugin: qdbuild does not link LLVM. The in-process compiler (Clang/LLVM/lld,
// 100+ MB of shared libraries whose loading costs ~40 ms) lives in libqdbuild-backend.so, which
// qdbuild dlopens the first time a build has something to compile, so every other command (and
// every no-op build) starts in a few milliseconds.
//
// Where it is found: $QDBUILD_BACKEND if set; else <directory of the file holding qdbuild's code
// (support/self_object.hpp)>/../lib/libqdbuild-backend.so (build/bin -> build/lib, <prefix>/bin ->
// <prefix>/lib when installed, and lib/libqdbuild.so -> lib/ for an app embedding the builder).
// The plugin must come from the same qdbuild: its toolchain_id() is checked against ours.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace qd::backend {

// 2: compile_cuda_task, link_cuda_module, cuda_toolchain_id appended.
inline constexpr uint32_t k_plugin_abi = 2;
inline constexpr const char* k_plugin_entry = "qd_backend_plugin_v1";
inline constexpr const char* k_plugin_file = "libqdbuild-backend.so";

struct Plugin {
  uint32_t abi = k_plugin_abi;
  TaskObject (*compile_cpu_task)(const TaskUnit&, const CpuTarget&) = nullptr;
  LinkedModule (*link_cpu_module)(const std::vector<std::string>&) = nullptr;
  std::string (*toolchain_id)(const CpuTarget&) = nullptr;
  TaskPtx (*compile_cuda_task)(const TaskUnit&, const CudaTarget&) = nullptr;
  CudaModule (*link_cuda_module)(const std::vector<std::string>&, unsigned) = nullptr;
  std::string (*cuda_toolchain_id)(const CudaTarget&) = nullptr;
};

namespace plugin {

// Loads the plugin once (thread-safe); null with `error` set when it cannot be loaded.
const Plugin* load(std::string& error);

// compile_cpu_task / link_cpu_module through the plugin. When the plugin cannot be loaded they
// return a failed result whose diagnostic says why.
TaskObject compile_cpu_task(const TaskUnit& task, const CpuTarget& target);
LinkedModule link_cpu_module(const std::vector<std::string>& objects);
TaskPtx compile_cuda_task(const TaskUnit& task, const CudaTarget& target);
CudaModule link_cuda_module(const std::vector<std::string>& ptx_units, unsigned arch);

}  // namespace plugin
}  // namespace qd::backend
