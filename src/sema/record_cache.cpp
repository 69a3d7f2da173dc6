#include "sema/record_cache.hpp"

#include <sys/stat.h>

#include "sema/key_hasher.hpp"
#include "support/file_io.hpp"

namespace qd::sema {

std::shared_ptr<const RecordContent> RecordCache::get(const std::string& path) {
  std::lock_guard<std::mutex> lock(m_mutex);
  struct stat st{};
  bool stat_ok = ::stat(path.c_str(), &st) == 0;
  int64_t size = stat_ok ? static_cast<int64_t>(st.st_size) : -1;
  int64_t mtime =
      stat_ok ? static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec : 0;
  auto it = m_items.find(path);
  if (stat_ok && it != m_items.end() && it->second.size == size && it->second.mtime_ns == mtime &&
      it->second.inode == st.st_ino) {
    return it->second.content;
  }
  std::string text;
  std::string error;
  if (!support::read_file(path, text, error)) {
    m_items.erase(path);
    auto content = std::make_shared<RecordContent>();
    content->path = path;
    content->errors.push_back({path, 1, 0, "cannot read the instance record: " + error, ""});
    return content;
  }
  std::string hash = sha256_hex(text);
  if (it != m_items.end() && it->second.hash == hash) {
    it->second.size = size;
    it->second.mtime_ns = mtime;
    it->second.inode = st.st_ino;
    return it->second.content;
  }
  ++m_reads;
  auto content = std::make_shared<const RecordContent>(read_record_content(text, path));
  m_items[path] = Item{size, mtime, static_cast<uint64_t>(st.st_ino), std::move(hash), content};
  return content;
}

}  // namespace qd::sema
