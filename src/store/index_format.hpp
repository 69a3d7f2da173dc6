// The index file: kernel instances -> records, used in place through mmap. The byte layout is
// written as a grammar in include/qdrt/store_format.h (shared with the runtime, which
// reads it with its own code); this is the builder's writer and checked reader.
//
// IndexView::open checks the whole file once (magic, version, size, checksum, every offset,
// size, count, object reference and the sort order); afterwards every accessor stays in bounds
// and lookups are binary searches. Nothing is copied: the view points into the caller's bytes,
// which must outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qdrt/store_format.h"
#include "store/entry.hpp"
#include "store/result.hpp"

namespace qd::store {

// Where an object lies inside a pack.
struct ObjectLocation {
  uint64_t offset = 0;
  uint64_t size = 0;
};

using LocateObject = std::function<ObjectLocation(const ObjectId&)>;

// Serializes entries (any order; keys must be unique) into an index file. With `locate` the
// index is a pack's: flagged QDRT_INDEX_FLAG_PACKED, each object with its location.
// Failure kind invalid: duplicate keys, a table or the blob past the format's 32-bit limits, an
// element shape of more than QDRT_MAX_ELEMENT_RANK dims.
Result<std::string> write_index(const std::vector<Entry>& entries, int64_t created_time,
                                const LocateObject* locate = nullptr);

struct EntryKeyView {
  std::string_view kernel_id;
  std::string_view instance;
  std::string_view target;
};

struct IndexOpenOptions {
  bool verify_checksum = true;  // off only for fuzzing past the checksum
};

class IndexView {
public:
  using Options = IndexOpenOptions;

  // Checks `bytes` (a whole index file); `name` is the path used in messages
  // ("index 'NAME' is damaged: ..."). Failure kind corrupt.
  static Result<IndexView> open(std::string_view bytes, const std::string& name,
                                Options options = {});

  const qdrt_index_header& header() const { return m_header; }
  bool packed() const { return (m_header.flags & QDRT_INDEX_FLAG_PACKED) != 0; }
  size_t entry_count() const { return m_header.entry_count; }
  size_t object_count() const { return m_header.object_count; }
  std::string_view bytes() const { return m_bytes; }

  EntryKeyView key(size_t i) const;
  int64_t last_used(size_t i) const { return entry_struct(i).last_used; }
  // The whole entry, copied out.
  Entry entry(size_t i) const;
  std::vector<Entry> all_entries() const;
  // Binary search.
  std::optional<size_t> find(std::string_view kernel_id, std::string_view instance,
                             std::string_view target) const;

  ObjectId object_id(size_t i) const;
  ObjectLocation object_location(size_t i) const;
  std::optional<size_t> find_object(const ObjectId& id) const;

private:
  qdrt_index_entry entry_struct(size_t i) const;
  std::string_view blob_bytes(qdrt_index_bytes b) const;

  std::string_view m_bytes;
  qdrt_index_header m_header{};
};

}  // namespace qd::store
