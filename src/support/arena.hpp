// A bump allocator for trees that are built once and freed all at once (the AST).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <vector>

namespace qd::support {

class Arena {
public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&&) noexcept = default;
  Arena& operator=(Arena&&) noexcept = default;

  void* allocate(size_t size, size_t align) {
    uintptr_t p = (reinterpret_cast<uintptr_t>(m_cur) + (align - 1)) & ~(uintptr_t(align) - 1);
    if (m_cur == nullptr || p + size > reinterpret_cast<uintptr_t>(m_end)) {
      grow(size + align);
      p = (reinterpret_cast<uintptr_t>(m_cur) + (align - 1)) & ~(uintptr_t(align) - 1);
    }
    m_cur = reinterpret_cast<char*>(p + size);
    return reinterpret_cast<void*>(p);
  }

  // Objects in the arena are never destroyed: T must be trivially destructible.
  template <class T> T* make() {
    static_assert(std::is_trivially_destructible_v<T>);
    return new (allocate(sizeof(T), alignof(T))) T{};
  }

  template <class T> T* make_array(size_t n) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (n == 0) {
      return nullptr;
    }
    T* p = static_cast<T*>(allocate(sizeof(T) * n, alignof(T)));
    for (size_t i = 0; i < n; ++i) {
      new (p + i) T{};
    }
    return p;
  }

  std::string_view copy(std::string_view s) {
    if (s.empty()) {
      return std::string_view("", 0);
    }
    char* p = static_cast<char*>(allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return std::string_view(p, s.size());
  }

  size_t bytes_reserved() const { return m_reserved; }

private:
  void grow(size_t at_least) {
    size_t size = m_next_block;
    if (size < at_least) {
      size = at_least;
    }
    m_blocks.emplace_back(new char[size]);
    m_cur = m_blocks.back().get();
    m_end = m_cur + size;
    m_reserved += size;
    if (m_next_block < (size_t(1) << 24)) {
      m_next_block *= 2;
    }
  }

  std::vector<std::unique_ptr<char[]>> m_blocks;
  char* m_cur = nullptr;
  char* m_end = nullptr;
  size_t m_next_block = 64 * 1024;
  size_t m_reserved = 0;
};

}  // namespace qd::support
