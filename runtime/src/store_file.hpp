// The store as the runtime sees it: an index (of a directory store, or inside a pack) mapped and
// checked once at open, then read in place, and the objects it references, read, verified
// (header checksum, sizes, XXH3-128) and decompressed on demand. Reimplements the few readers it
// needs from qdrt/store_format.h; links nothing from src/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common.hpp"
#include "qdrt/store_format.h"

namespace qdrt {

// A read-only mapping of a whole file.
class Mapping {
public:
  Mapping() = default;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping();
  Status open(const std::string& path);
  std::string_view bytes() const { return {static_cast<const char*>(m_data), m_size}; }

private:
  void* m_data = nullptr;
  size_t m_size = 0;
};

class StoreFile {
public:
  // A directory (DIR/index.qdi), an index file, or a pack.
  Status open(const std::string& path);

  const std::string& name() const { return m_name; }
  bool packed() const { return m_packed; }
  const qdrt_index_header& header() const { return m_header; }

  uint32_t entry_count() const { return m_header.entry_count; }
  qdrt_index_entry entry(uint32_t i) const;
  qdrt_index_task task(uint32_t i) const;
  qdrt_index_argument argument(uint32_t i) const;
  qdrt_index_object object(uint32_t i) const;
  std::string_view blob(qdrt_index_bytes b) const;

  // The object's content, checked; `what` names it in messages.
  Status read_object(uint32_t object, std::string& content) const;
  std::string object_hex(uint32_t object) const;

private:
  Status check_index(std::string_view index);
  Status check_pack();

  std::string m_name;  // for messages: the pack or the index path
  std::string m_root;  // directory stores: where objects/ is
  Mapping m_file;
  std::string_view m_index;
  qdrt_index_header m_header{};
  bool m_packed = false;
};

// Object files (also used on pack slices): checks and decodes one.
Status decode_object(std::string_view file, const std::string& name, std::string& content);

}  // namespace qdrt
