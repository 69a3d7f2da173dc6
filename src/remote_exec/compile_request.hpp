// One task's compile as qdbuild's remote actions carry it, without the protocol: the request
// (a target and a translation unit), the target's flags as text (the action's qd_target file),
// the toolchain a worker must have, and the compile itself with the backend plugin a local build
// uses. Both the REAPI side (compile_action.hpp, needs gRPC) and `qdbuild remote-compile` (run
// by a server's own workers, no gRPC) use it.
#pragma once

#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace qd::remote_exec {

// The platform property every action carries and every worker advertises (a match key of the
// scheduler, so an action never reaches a worker with another compiler).
inline constexpr const char* k_toolchain_key = "qdbuild-toolchain";

inline constexpr const char* k_task_file = "qd_task.cpp";
inline constexpr const char* k_target_file = "qd_target";
inline constexpr const char* k_output_file = "qd_task.out";
inline constexpr const char* k_include_dir = "include";

struct CompileRequest {
  bool cuda = false;
  backend::CpuTarget cpu;
  backend::CudaTarget gpu;
  std::string source;  // the translation unit
};

// "cpu-<sha256>" / "cuda-<sha256>": the hash of the toolchain id of the family's default target,
// which records the backend's scheme, LLVM's version, the compiler flags, the prelude and (cuda)
// libdevice. The target's own settings travel in the input tree instead.
std::string toolchain_property(bool cuda);

// The target's flags as the action carries them (qd_target) and their parser; false with `error`
// for any text target_flags_text does not make.
std::string target_flags_text(const CompileRequest& r);
bool parse_target_flags(const std::string& text, CompileRequest& out, std::string& error);

// The exact argument vector of the one command a worker accepts.
const std::vector<std::string>& command_arguments();

// `qdbuild remote-compile` run by a server's own workers: whether `dir` (the materialised
// include/) holds exactly this qdbuild's prelude; false with `error` naming the first difference.
bool check_prelude_directory(const std::string& dir, std::string& error);

// Compiles a request with the backend plugin (the same call as a local build). `bytes`: the
// object / PTX; `diagnostics`: formatted compiler messages (one per line) on failure.
struct CompileOutput {
  bool ok = false;
  std::string bytes;
  std::string diagnostics;
};
CompileOutput compile_request(const CompileRequest& r);

}  // namespace qd::remote_exec
