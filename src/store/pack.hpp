// Packs: one file holding an index and every object it references, for shipping with an app.
// The layout (qdrt_pack_header, then an index with QDRT_INDEX_FLAG_PACKED, then object files
// back to back) is the grammar in include/qdrt/store_format.h. The runtime maps a pack and
// reads it like a directory store; so does PackReader here.
#pragma once

#include <string>
#include <vector>

#include "store/backend.hpp"
#include "support/mapped_file.hpp"

namespace qd::store {

struct PackSummary {
  size_t entries = 0;
  size_t objects = 0;
  uint64_t bytes = 0;  // size of the pack file
};

// Writes the entries of `store` (only those whose target is in `targets`, when not empty) and
// every object they reference into the pack `out`, atomically. Each object is checked (content
// checksum and SHA-256) before it is packed. Failure invalid: a requested target has no entries,
// or the store has no index; corrupt: a damaged object or index.
Result<PackSummary> write_pack(Backend& store, const std::string& out,
                               const std::vector<std::string>& targets);

class PackReader : public Backend {
public:
  // Maps and checks a pack file: header, index, every object's location.
  static Result<std::unique_ptr<PackReader>> open(const std::string& path);
  // The same over bytes in memory (which must outlive the reader); for the fuzzer.
  static Result<std::unique_ptr<PackReader>>
  open_bytes(std::string_view bytes, const std::string& name, IndexView::Options options = {});

  std::string describe() const override { return "pack '" + m_name + "'"; }
  std::string object_name(const ObjectId& id) const override;
  Result<std::string> get(const ObjectId& id) override;
  Result<std::string> get_file(const ObjectId& id) override;
  Result<ObjectHeaderInfo> get_header(const ObjectId& id) override;
  Result<ObjectId> put(std::string_view raw) override;
  Result<bool> remove(const ObjectId& id) override;
  Result<std::vector<ObjectInfo>> list_objects() override;
  Result<const IndexView*> index() override { return static_cast<const IndexView*>(&m_index); }
  std::string index_name() const override { return m_name; }

private:
  PackReader() = default;
  Result<std::string_view> slice(const ObjectId& id) const;

  std::string m_name;
  support::MappedFile m_file;
  std::string_view m_bytes;
  IndexView m_index;
};

}  // namespace qd::store
