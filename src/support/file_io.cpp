#include "support/file_io.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace qd::support {

namespace {

std::string io_error(const char* verb, const std::string& path, int err) {
  return std::string("cannot ") + verb + " '" + path + "': " + std::strerror(err);
}

// Closes a descriptor on scope exit.
class FdGuard {
public:
  explicit FdGuard(int fd) : m_fd(fd) {}
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  ~FdGuard() {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
  }
  int get() const { return m_fd; }

private:
  int m_fd;
};

}  // namespace

bool read_file(const std::string& path, std::string& out, std::string& error) {
  out.clear();
  FdGuard fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    error = io_error("read", path, errno);
    return false;
  }
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) {
    error = io_error("read", path, errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    error = io_error("read", path, EISDIR);
    return false;
  }
  // The size is a hint only (pipes and /proc files report 0 or lie); read until EOF.
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    out.reserve(static_cast<size_t>(st.st_size));
  }
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      error = io_error("read", path, errno);
      out.clear();
      return false;
    }
    if (n == 0) {
      break;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return true;
}

bool write_file(const std::string& path, const std::string& data, std::string& error) {
  FdGuard fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
  if (fd.get() < 0) {
    error = io_error("write", path, errno);
    return false;
  }
  if (!write_all(fd.get(), data)) {
    error = io_error("write", path, errno);
    return false;
  }
  return true;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace qd::support
