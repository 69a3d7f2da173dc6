// A whole file mapped read-only into memory (the store's index and packs are used in place).
#pragma once

#include <string>
#include <string_view>

namespace qd::support {

class MappedFile {
public:
  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Maps `path`. On failure returns false and sets `error` ("cannot read 'p': ..."). An empty file
  // maps to an empty view; directories are refused.
  bool open(const std::string& path, std::string& error);
  void close();

  std::string_view bytes() const { return {static_cast<const char*>(m_data), m_size}; }
  bool is_open() const { return m_open; }

private:
  void* m_data = nullptr;
  size_t m_size = 0;
  bool m_open = false;
};

}  // namespace qd::support
