// Recorded runs kept between analyses of one tree (`qdbuild lsp`): reading a record (JSON, then
// every description as a configured value) is most of an analysis of a tree with large records,
// and records rarely change while a user types. A record whose size, mtime and inode are those
// of the cached read is not read again; otherwise it is read, and if its content hashes the same
// the cached read stays. (The recorder writes a record to a temporary file and renames it over
// the old one: a new inode.)
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "sema/instance_record.hpp"

namespace qd::sema {

class RecordCache {
public:
  // The record at `path` read on its own; an unreadable file gives a content with its error.
  std::shared_ptr<const RecordContent> get(const std::string& path);
  size_t reads() const { return m_reads; }

private:
  struct Item {
    int64_t size = -1;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    std::string hash;
    std::shared_ptr<const RecordContent> content;
  };
  std::mutex m_mutex;
  std::map<std::string, Item> m_items;
  size_t m_reads = 0;
};

}  // namespace qd::sema
