// Test helpers for the backend units: load a shared object from memory (memfd + dlopen, the
// runtime's way) and capture what a block of code writes to stderr.
#pragma once

#include <cstdio>
#include <dlfcn.h>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace qd::backend::test {

// A shared object loaded from bytes. The memfd stays open until dlclose.
class LoadedModule {
public:
  explicit LoadedModule(const std::string& bytes) {
    m_fd = memfd_create("qd_backend_test", MFD_CLOEXEC);
    if (m_fd < 0) {
      throw std::runtime_error("memfd_create failed");
    }
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(m_fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) {
        throw std::runtime_error("write to memfd failed");
      }
      done += static_cast<size_t>(n);
    }
    std::string path = "/proc/self/fd/" + std::to_string(m_fd);
    m_handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (m_handle == nullptr) {
      m_error = dlerror();
    }
  }
  ~LoadedModule() {
    if (m_handle != nullptr) {
      dlclose(m_handle);
    }
    if (m_fd >= 0) {
      close(m_fd);
    }
  }
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;

  bool ok() const { return m_handle != nullptr; }
  const std::string& error() const { return m_error; }
  template <class T> T symbol(const char* name) const {
    return reinterpret_cast<T>(dlsym(m_handle, name));
  }

private:
  int m_fd = -1;
  void* m_handle = nullptr;
  std::string m_error;
};

// Redirects fd 2 into a temporary file for its lifetime; text() returns what was written.
class StderrCapture {
public:
  StderrCapture() {
    std::fflush(stderr);
    m_file = std::tmpfile();
    m_saved = dup(2);
    dup2(fileno(m_file), 2);
  }
  ~StderrCapture() {
    restore();
    if (m_file != nullptr) {
      std::fclose(m_file);
    }
  }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  std::string text() {
    restore();
    std::string out;
    std::rewind(m_file);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, m_file)) > 0) {
      out.append(buf, n);
    }
    return out;
  }

private:
  void restore() {
    if (m_saved >= 0) {
      std::fflush(stderr);
      dup2(m_saved, 2);
      close(m_saved);
      m_saved = -1;
    }
  }
  std::FILE* m_file = nullptr;
  int m_saved = -1;
};

}  // namespace qd::backend::test
