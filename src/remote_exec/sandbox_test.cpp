// The sandbox of remote-compile (sandbox.hpp), entered in a child process: no socket, no exec,
// no file but those named (where the kernel has Landlock), and the named file still readable.
#include <doctest/doctest.h>

#include <cerrno>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "remote_exec/sandbox.hpp"

using namespace qd::remote_exec;

namespace {

// Bits of the child's exit status: what failed inside the sandbox.
enum : int {
  k_enter_failed = 1,
  k_socket_allowed = 2,
  k_exec_allowed = 4,
  k_file_allowed = 8,
  k_named_denied = 16,
  k_no_seccomp = 32,
};

int in_child() {
  SandboxReport report;
  std::string error;
  if (!enter_sandbox({"/etc/hostname"}, "", report, error)) {
    return k_enter_failed;
  }
  int out = report.seccomp ? 0 : k_no_seccomp;
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s >= 0 || errno != EACCES) {
    out |= k_socket_allowed;
  }
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  execv("/bin/true", argv);  // returns only when refused
  if (errno != EACCES) {
    out |= k_exec_allowed;
  }
  if (report.landlock_abi > 0) {
    if (open("/etc/passwd", O_RDONLY) >= 0) {
      out |= k_file_allowed;
    }
    if (open("/etc/hostname", O_RDONLY) < 0 && access("/etc/hostname", F_OK) == 0) {
      out |= k_named_denied;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("sandbox: no socket, no exec, no file but the named ones") {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    _exit(in_child());
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  int bits = WEXITSTATUS(status);
  CHECK((bits & k_enter_failed) == 0);
  CHECK((bits & k_no_seccomp) == 0);
  CHECK((bits & k_socket_allowed) == 0);
  CHECK((bits & k_exec_allowed) == 0);
  CHECK((bits & k_file_allowed) == 0);
  CHECK((bits & k_named_denied) == 0);
}

TEST_CASE("sandbox report text") {
  SandboxReport r;
  CHECK(r.text() == "no landlock, no seccomp");
  r.landlock_abi = 7;
  r.network_rules = true;
  r.seccomp = true;
  CHECK(r.text() == "landlock ABI 7 (files, TCP), seccomp (socket, exec)");
}
