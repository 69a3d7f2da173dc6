#include "support/atomic_file.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace qd::support {

namespace {

std::string describe(const char* verb, const std::string& path, int err) {
  return std::string("cannot ") + verb + " '" + path + "': " + std::strerror(err);
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    return ".";
  }
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

uint64_t random_u64() {
  thread_local std::mt19937_64 rng([] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(::getpid());
  }());
  return rng();
}

// QD_TEST_FAIL_WRITES_AFTER_BYTES: the byte budget of this process, or -1 for none.
int64_t write_budget() {
  static const int64_t budget = [] {
    const char* v = std::getenv("QD_TEST_FAIL_WRITES_AFTER_BYTES");
    if (v == nullptr || *v == '\0') {
      return int64_t{-1};
    }
    char* end = nullptr;
    long long n = std::strtoll(v, &end, 10);
    return (end != nullptr && *end == '\0' && n >= 0) ? static_cast<int64_t>(n) : int64_t{-1};
  }();
  return budget;
}

std::atomic<int64_t> g_bytes_written{0};

// How many of `want` bytes the test hook lets through (all of them without the hook).
size_t allowed_bytes(size_t want) {
  int64_t budget = write_budget();
  if (budget < 0) {
    return want;
  }
  int64_t before = g_bytes_written.fetch_add(static_cast<int64_t>(want));
  if (before >= budget) {
    return 0;
  }
  return static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(want), budget - before));
}

}  // namespace

AtomicFile::~AtomicFile() { discard(); }

bool AtomicFile::open(const std::string& target, std::string& error) {
  discard();
  m_target = target;
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".%ld.%016llx.tmp", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(random_u64()));
  std::string dir = dir_of(target);
  m_temp = (dir == "." && target.find('/') == std::string::npos ? std::string() : dir + "/") + "." +
           base_of(target) + suffix;
  m_fd = ::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (m_fd < 0) {
    error = describe("create a temporary file for", target, errno);
    m_temp.clear();
    return false;
  }
  return true;
}

bool AtomicFile::write(std::string_view data, std::string& error) {
  if (m_fd < 0) {
    error = describe("write", m_target, EBADF);
    return false;
  }
  size_t allowed = allowed_bytes(data.size());
  const char* p = data.data();
  size_t left = allowed;
  while (left > 0) {
    ssize_t n = ::write(m_fd, p, left);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      error = describe("write", m_target, errno);
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (allowed < data.size()) {
    error = describe("write", m_target, ENOSPC);
    return false;
  }
  return true;
}

bool AtomicFile::commit(std::string& error, bool durable) {
  if (m_fd < 0) {
    error = describe("write", m_target, EBADF);
    return false;
  }
  if (durable && ::fsync(m_fd) != 0) {
    error = describe("write", m_target, errno);
    discard();
    return false;
  }
  int fd = m_fd;
  m_fd = -1;
  if (::close(fd) != 0) {
    error = describe("write", m_target, errno);
    discard();
    return false;
  }
  if (::rename(m_temp.c_str(), m_target.c_str()) != 0) {
    error = describe("rename a temporary file to", m_target, errno);
    discard();
    return false;
  }
  m_temp.clear();
  return !durable || fsync_directory(dir_of(m_target), error);
}

void AtomicFile::discard() {
  if (m_fd >= 0) {
    ::close(m_fd);
    m_fd = -1;
  }
  if (!m_temp.empty()) {
    ::unlink(m_temp.c_str());
    m_temp.clear();
  }
}

bool write_file_atomic(const std::string& target, std::string_view data, std::string& error,
                       bool durable) {
  AtomicFile file;
  return file.open(target, error) && file.write(data, error) && file.commit(error, durable);
}

bool fsync_directory(const std::string& dir, std::string& error) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    error = describe("open directory", dir, errno);
    return false;
  }
  bool ok = ::fsync(fd) == 0 || errno == EINVAL;  // some filesystems refuse fsync on dirs
  if (!ok) {
    error = describe("sync directory", dir, errno);
  }
  ::close(fd);
  return ok;
}

std::optional<pid_t> temp_file_pid(std::string_view name) {
  // .<target>.<pid>.<16 hex>.tmp
  constexpr std::string_view k_ext = ".tmp";
  if (name.size() < 1 + 1 + 1 + 1 + 1 + 16 + k_ext.size() || name[0] != '.' ||
      name.substr(name.size() - k_ext.size()) != k_ext) {
    return std::nullopt;
  }
  std::string_view rest = name.substr(0, name.size() - k_ext.size());
  size_t dot = rest.rfind('.');
  if (dot == std::string_view::npos || rest.size() - dot - 1 != 16) {
    return std::nullopt;
  }
  for (char c : rest.substr(dot + 1)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return std::nullopt;
    }
  }
  rest = rest.substr(0, dot);
  size_t pid_dot = rest.rfind('.');
  if (pid_dot == std::string_view::npos || pid_dot == 0 || pid_dot + 1 == rest.size() ||
      rest.size() - pid_dot - 1 > 10) {
    return std::nullopt;
  }
  long pid = 0;
  for (char c : rest.substr(pid_dot + 1)) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    pid = pid * 10 + (c - '0');
  }
  if (pid <= 0 || pid > 0x7fffffff) {
    return std::nullopt;
  }
  return static_cast<pid_t>(pid);
}

size_t remove_stale_temps(const std::string& dir, std::chrono::seconds max_age,
                          std::vector<std::string>* removed) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    return 0;
  }
  size_t count = 0;
  time_t now = ::time(nullptr);
  while (dirent* e = ::readdir(d)) {
    std::optional<pid_t> pid = temp_file_pid(e->d_name);
    if (!pid) {
      continue;
    }
    std::string path = dir + "/" + e->d_name;
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      continue;
    }
    bool writer_dead = ::kill(*pid, 0) != 0 && errno == ESRCH;
    bool too_old = now - st.st_mtime > max_age.count();
    if ((writer_dead || too_old) && ::unlink(path.c_str()) == 0) {
      ++count;
      if (removed != nullptr) {
        removed->push_back(path);
      }
    }
  }
  ::closedir(d);
  return count;
}

}  // namespace qd::support
