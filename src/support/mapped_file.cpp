#include "support/mapped_file.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace qd::support {

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)),
      m_open(std::exchange(other.m_open, false)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    close();
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
    m_open = std::exchange(other.m_open, false);
  }
  return *this;
}

MappedFile::~MappedFile() { close(); }

void MappedFile::close() {
  if (m_data != nullptr) {
    ::munmap(m_data, m_size);
  }
  m_data = nullptr;
  m_size = 0;
  m_open = false;
}

bool MappedFile::open(const std::string& path, std::string& error) {
  close();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return false;
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
    ::close(fd);
    error = "cannot read '" + path + "': " + std::strerror(err);
    return false;
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size > 0) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      error = "cannot map '" + path + "': " + std::strerror(err);
      return false;
    }
    m_data = p;
  }
  ::close(fd);
  m_size = size;
  m_open = true;
  return true;
}

}  // namespace qd::support
