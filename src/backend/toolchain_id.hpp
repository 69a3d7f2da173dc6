// Toolchain identity and hashing for task keys (docs/kernel-keys.md: the task key is
// the hash of the generated unit + target + toolchain version). The public functions
// (toolchain_id, task_key, driver_arguments) are declared in backend.hpp.
#pragma once

#include <string>
#include <string_view>

namespace qd::backend {

// The LLVM target triple every CPU object is compiled for.
inline constexpr std::string_view k_cpu_triple = "x86_64-pc-linux-gnu";
// ... and every CUDA unit.
inline constexpr std::string_view k_cuda_triple = "nvptx64-nvidia-cuda";

// The LLVM version the library was built against ("19.1.7").
std::string llvm_version();

// 64 lowercase hex digits of SHA-256(data), from OpenSSL's libcrypto.
std::string sha256_hex(std::string_view data);

}  // namespace qd::backend
