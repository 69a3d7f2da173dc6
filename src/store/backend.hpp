// The store behind one small interface (ccache's storage shape): a directory store
// (store/local_store.hpp) or a pack (store/pack.hpp), opened by open_store(). Every operation
// returns a Result; failures name the file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/hashing.hpp"
#include "store/index_format.hpp"
#include "store/object_format.hpp"
#include "store/result.hpp"

namespace qd::store {

struct ObjectInfo {
  ObjectId id;
  uint64_t file_size = 0;  // bytes of the object file (header + payload)
  int64_t mtime = 0;       // unix seconds (0 inside packs)
};

class Backend {
public:
  virtual ~Backend() = default;

  // "directory store 'build/qdstore'" or "pack 'app.qdpack'".
  virtual std::string describe() const = 0;
  // The name of an object in messages: its path, or "pack 'p' object <hex>".
  virtual std::string object_name(const ObjectId& id) const = 0;

  // The content of an object, checked (header, sizes, XXH3-128). Failure: not_found, corrupt, io.
  virtual Result<std::string> get(const ObjectId& id) = 0;
  // The object file's bytes as stored, unchecked.
  virtual Result<std::string> get_file(const ObjectId& id) = 0;
  // Only the header of an object, checked.
  virtual Result<ObjectHeaderInfo> get_header(const ObjectId& id) = 0;
  // Stores content; returns its address. Identical content is stored once; a damaged file at
  // that address is replaced. Packs are read-only (Failure invalid).
  virtual Result<ObjectId> put(std::string_view raw) = 0;
  // Removes an object; false if it was not there. Packs: Failure invalid.
  virtual Result<bool> remove(const ObjectId& id) = 0;
  // Every object file present (directory stores) or listed (packs).
  virtual Result<std::vector<ObjectInfo>> list_objects() = 0;

  // The current index, mapped and checked; nullptr when the store has none yet. The view stays
  // valid until reload_index() or the backend's destruction.
  virtual Result<const IndexView*> index() = 0;
  virtual void reload_index() {}
  // Path of the index file, for messages.
  virtual std::string index_name() const = 0;
};

// Opens `path`: a directory store (a directory) or a pack (a file). Failure not_found when the
// path does not exist; a pack that fails its checks is corrupt.
Result<std::unique_ptr<Backend>> open_store(const std::string& path, int level = k_default_level);

}  // namespace qd::store
