#include "sema/parse_cache.hpp"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <set>

#include <sys/stat.h>

#include "sema/key_hasher.hpp"
#include "support/file_io.hpp"

namespace qd::sema {

namespace {

// input_stamp.hpp's k_racy_window_ns (sema sits below the build layer).
constexpr int64_t k_racy_ns = 50'000'000;

int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

std::string ParseCache::overlay_key(const std::string& path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return (ec ? std::filesystem::path(path) : abs).lexically_normal().string();
}

void ParseCache::set_overlay(const std::string& path, std::string text) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_overlays[overlay_key(path)] = std::move(text);
}

void ParseCache::clear_overlay(const std::string& path) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_overlays.erase(overlay_key(path));
}

std::shared_ptr<syntax::ParseResult> ParseCache::get(const std::string& path) {
  std::string overlay;
  bool has_overlay = false;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_overlays.empty()) {
      auto it = m_overlays.find(overlay_key(path));
      if (it != m_overlays.end()) {
        overlay = it->second;
        has_overlay = true;
      }
    }
  }
  if (has_overlay) {
    std::string hash = sha256_hex(overlay);
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      auto it = m_items.find(path);
      if (it != m_items.end() && it->second.hash == hash) {
        ++m_hits;
        it->second.size = -1;  // the next lookup without the overlay reads the disk again
        return it->second.parsed;
      }
    }
    std::shared_ptr<syntax::ParseResult> parsed = syntax::parse_bytes(path, std::move(overlay));
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_misses;
    m_items[path] = Item{-1, 0, 0, 0, std::move(hash), parsed};
    return parsed;
  }
  int64_t stamp = now_ns();
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    return syntax::parse_file(path);  // its QD006 diagnostic
  }
  int64_t size = static_cast<int64_t>(st.st_size);
  int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_items.find(path);
    if (it != m_items.end() && it->second.size == size && it->second.mtime_ns == mtime &&
        it->second.inode == st.st_ino && mtime < it->second.cached_ns - k_racy_ns) {
      ++m_hits;
      return it->second.parsed;
    }
  }
  std::string bytes;
  std::string error;
  if (!support::read_file(path, bytes, error)) {
    return syntax::parse_file(path);
  }
  std::string hash = sha256_hex(bytes);
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_items.find(path);
    if (it != m_items.end() && it->second.hash == hash) {
      ++m_hits;
      it->second.size = size;
      it->second.mtime_ns = mtime;
      it->second.inode = st.st_ino;
      it->second.cached_ns = stamp;
      return it->second.parsed;
    }
  }
  std::shared_ptr<syntax::ParseResult> parsed = syntax::parse_bytes(path, std::move(bytes));
  std::lock_guard<std::mutex> lock(m_mutex);
  ++m_misses;
  m_items[path] =
      Item{size, mtime, static_cast<uint64_t>(st.st_ino), stamp, std::move(hash), parsed};
  return parsed;
}

void ParseCache::retain(const std::vector<std::string>& paths) {
  std::set<std::string> keep(paths.begin(), paths.end());
  std::lock_guard<std::mutex> lock(m_mutex);
  std::erase_if(m_items, [&](const auto& item) { return keep.count(item.first) == 0; });
}

size_t ParseCache::size() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_items.size();
}

}  // namespace qd::sema
