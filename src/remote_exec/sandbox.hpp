// The sandbox `qdbuild remote-compile` enters before it compiles (docs/remote-exec.md
// "Workers"), where the kernel allows it: from then on the process can read no file but those
// named (libdevice, for CUDA), create files only in the directory named (the output's), execute
// nothing, create no socket and make no TCP connection. Inputs are read and the backend loaded
// before it is entered; the compile itself works on in-memory files. Linux: Landlock (file access
// from ABI 1, TCP from ABI 4) and a seccomp filter (socket, execve and execveat fail with EACCES),
// both after PR_SET_NO_NEW_PRIVS; the seccomp filter covers every thread. Nothing here needs
// privileges.
#pragma once

#include <string>
#include <vector>

namespace qd::remote_exec {

struct SandboxReport {
  int landlock_abi = 0;        // 0: Landlock is not available here (files and TCP not restricted)
  bool network_rules = false;  // Landlock restricts TCP too (ABI >= 4)
  bool seccomp = false;
  std::string text() const;  // "landlock ABI 7 (files, TCP), seccomp (socket, exec)"
};

// Enters the sandbox; false with `error` when a step the kernel offers fails (a step the kernel
// does not offer is left out and shows in the report).
bool enter_sandbox(const std::vector<std::string>& readable_files, const std::string& writable_dir,
                   SandboxReport& report, std::string& error);

}  // namespace qd::remote_exec
