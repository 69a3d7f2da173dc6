#include "remote_exec/sandbox.hpp"

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace qd::remote_exec {

namespace {

// Landlock's ABI, defined here so that Debian 12's older kernel headers do not limit it.
constexpr long k_sys_create_ruleset = 444;  // x86-64 syscall numbers (asm-generic too)
constexpr long k_sys_add_rule = 445;
constexpr long k_sys_restrict_self = 446;
constexpr uint32_t k_create_ruleset_version = 1U << 0;
constexpr int k_rule_path_beneath = 1;
constexpr uint64_t k_fs_write_file = 1ULL << 1;
constexpr uint64_t k_fs_read_file = 1ULL << 2;
constexpr uint64_t k_fs_remove_file = 1ULL << 5;
constexpr uint64_t k_fs_make_reg = 1ULL << 8;
constexpr uint64_t k_fs_truncate = 1ULL << 14;  // ABI >= 3
constexpr uint64_t k_net_bind_tcp = 1ULL << 0;
constexpr uint64_t k_net_connect_tcp = 1ULL << 1;

struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI >= 4
};

struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
};

// Every file-system right the ABI knows: 13 rights in ABI 1, REFER in 2, TRUNCATE in 3,
// IOCTL_DEV in 5.
uint64_t fs_rights(int abi) {
  uint64_t rights = (1ULL << 13) - 1;
  if (abi >= 2) {
    rights |= 1ULL << 13;
  }
  if (abi >= 3) {
    rights |= 1ULL << 14;
  }
  if (abi >= 5) {
    rights |= 1ULL << 15;
  }
  return rights;
}

bool add_rule(int ruleset, const std::string& path, uint64_t access, std::string& error) {
  int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) {
    return true;  // a file that is not there cannot be read anyway
  }
  PathBeneathAttr rule{access, fd};
  long r = syscall(k_sys_add_rule, ruleset, k_rule_path_beneath, &rule, 0);
  int saved = errno;
  close(fd);
  if (r != 0) {
    error = "landlock_add_rule " + path + ": " + std::strerror(saved);
    return false;
  }
  return true;
}

bool landlock(const std::vector<std::string>& readable, const std::string& writable_dir,
              SandboxReport& report, std::string& error) {
  long abi = syscall(k_sys_create_ruleset, nullptr, 0, k_create_ruleset_version);
  if (abi < 1) {
    return true;  // no Landlock in this kernel (or disabled): left out, and reported
  }
  report.landlock_abi = static_cast<int>(abi);
  RulesetAttr attr{fs_rights(report.landlock_abi), 0};
  size_t size = sizeof attr.handled_access_fs;
  if (abi >= 4) {
    attr.handled_access_net = k_net_bind_tcp | k_net_connect_tcp;
    size = sizeof attr;
    report.network_rules = true;
  }
  int ruleset = static_cast<int>(syscall(k_sys_create_ruleset, &attr, size, 0));
  if (ruleset < 0) {
    error = std::string("landlock_create_ruleset: ") + std::strerror(errno);
    return false;
  }
  for (const std::string& path : readable) {
    if (!add_rule(ruleset, path, k_fs_read_file, error)) {
      close(ruleset);
      return false;
    }
  }
  uint64_t write = k_fs_write_file | k_fs_remove_file | k_fs_make_reg |
                   (report.landlock_abi >= 3 ? k_fs_truncate : 0);
  if (!writable_dir.empty() && !add_rule(ruleset, writable_dir, write, error)) {
    close(ruleset);
    return false;
  }
  long r = syscall(k_sys_restrict_self, ruleset, 0);
  int saved = errno;
  close(ruleset);
  if (r != 0) {
    error = std::string("landlock_restrict_self: ") + std::strerror(saved);
    return false;
  }
  return true;
}

bool seccomp_filter(SandboxReport& report, std::string& error) {
  constexpr uint32_t k_deny = SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA);
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),  // another ABI: never ours
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, k_deny),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, k_deny),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, k_deny),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
    if (errno == ENOSYS || errno == EINVAL) {
      return true;  // no seccomp filters here: left out, and reported
    }
    error = std::string("seccomp: ") + std::strerror(errno);
    return false;
  }
  report.seccomp = true;
  return true;
}

}  // namespace

std::string SandboxReport::text() const {
  std::string out = landlock_abi > 0 ? "landlock ABI " + std::to_string(landlock_abi) +
                                           (network_rules ? " (files, TCP)" : " (files)")
                                     : "no landlock";
  out += seccomp ? ", seccomp (socket, exec)" : ", no seccomp";
  return out;
}

bool enter_sandbox(const std::vector<std::string>& readable_files, const std::string& writable_dir,
                   SandboxReport& report, std::string& error) {
  report = SandboxReport{};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    error = std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno);
    return false;
  }
  return landlock(readable_files, writable_dir, report, error) && seccomp_filter(report, error);
}

}  // namespace qd::remote_exec
