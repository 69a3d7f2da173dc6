#include "store/pack.hpp"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <map>
#include <set>

#include <sys/stat.h>

#include "store/local_store.hpp"
#include "support/atomic_file.hpp"

namespace qd::store {

namespace {

constexpr size_t k_pack_checksummed = QDRT_PACK_CHECKSUM_START;

uint64_t pack_checksum(const qdrt_pack_header& h) {
  return xxh3_64(
      std::string_view(reinterpret_cast<const char*>(&h), sizeof h).substr(k_pack_checksummed));
}

uint64_t align8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

}  // namespace

Result<PackSummary> write_pack(Backend& store, const std::string& out,
                               const std::vector<std::string>& targets) {
  Result<const IndexView*> index = store.index();
  if (!index) {
    return index.failure();
  }
  if (*index == nullptr) {
    return fail(FailureKind::invalid, store.describe() + " has no index (nothing was built)");
  }
  std::vector<Entry> entries;
  std::set<std::string> present;
  for (size_t i = 0; i < (*index)->entry_count(); ++i) {
    EntryKeyView key = (*index)->key(i);
    present.emplace(key.target);
    if (targets.empty() || std::find(targets.begin(), targets.end(), key.target) != targets.end()) {
      entries.push_back((*index)->entry(i));
    }
  }
  for (const std::string& t : targets) {
    if (present.count(t) == 0) {
      std::string known;
      for (const std::string& p : present) {
        known += (known.empty() ? "" : ", ") + p;
      }
      return fail(FailureKind::invalid, store.describe() + " has no entries for target '" + t +
                                            "' (targets: " + (known.empty() ? "none" : known) +
                                            ")");
    }
  }
  // Every referenced object, checked, in address order.
  std::map<ObjectId, std::string> files;
  for (const Entry& e : entries) {
    for (const ObjectId& id : referenced_objects(e)) {
      if (files.count(id) != 0) {
        continue;
      }
      Result<std::string> file = store.get_file(id);
      if (!file) {
        return file.failure();
      }
      Result<std::string> raw = decode_object(*file, store.object_name(id));
      if (!raw) {
        return raw.failure();
      }
      if (sha256(*raw) != id) {
        return fail(FailureKind::corrupt, "object '" + store.object_name(id) +
                                              "' is damaged: content does not match its address");
      }
      files.emplace(id, std::move(*file));
    }
  }
  // Layout: header, index, objects. The index's size does not depend on the locations it holds,
  // so it is written once with placeholder locations to learn its size.
  std::map<ObjectId, ObjectLocation> where;
  LocateObject locate = [&](const ObjectId& id) { return where[id]; };
  Result<std::string> sizing = write_index(entries, ::time(nullptr), &locate);
  if (!sizing) {
    return sizing.failure();
  }
  qdrt_pack_header h{};
  std::memcpy(h.magic, QDRT_PACK_MAGIC, 8);
  h.version = QDRT_PACK_VERSION;
  h.header_size = sizeof h;
  h.index_offset = sizeof h;
  h.index_size = sizing->size();
  h.objects_offset = align8(h.index_offset + h.index_size);
  uint64_t at = h.objects_offset;
  for (const auto& [id, file] : files) {
    where[id] = {at, file.size()};
    at = align8(at + file.size());
  }
  h.objects_size = at - h.objects_offset;
  h.file_size = at;
  Result<std::string> index_bytes = write_index(entries, ::time(nullptr), &locate);
  if (!index_bytes) {
    return index_bytes.failure();
  }
  h.header_checksum = pack_checksum(h);

  support::AtomicFile file;
  std::string error;
  std::string pad(8, '\0');
  bool ok =
      file.open(out, error) &&
      file.write(std::string_view(reinterpret_cast<const char*>(&h), sizeof h), error) &&
      file.write(*index_bytes, error) &&
      file.write(std::string_view(pad).substr(0, h.objects_offset - h.index_offset - h.index_size),
                 error);
  for (auto it = files.begin(); ok && it != files.end(); ++it) {
    ok = file.write(it->second, error) &&
         file.write(std::string_view(pad).substr(0, align8(it->second.size()) - it->second.size()),
                    error);
  }
  if (!ok || !file.commit(error)) {
    return fail(FailureKind::io, error);
  }
  return PackSummary{entries.size(), files.size(), h.file_size};
}

Result<std::unique_ptr<PackReader>> PackReader::open(const std::string& path) {
  support::MappedFile file;
  std::string error;
  if (!file.open(path, error)) {
    return fail(FailureKind::io, error);
  }
  Result<std::unique_ptr<PackReader>> r = open_bytes(file.bytes(), path);
  if (r) {
    (*r)->m_file = std::move(file);  // the mapping's address does not change
  }
  return r;
}

Result<std::unique_ptr<PackReader>> PackReader::open_bytes(std::string_view bytes,
                                                           const std::string& name,
                                                           IndexView::Options options) {
  auto damaged = [&](const std::string& why) -> Failure {
    return fail(FailureKind::corrupt, "pack '" + name + "' is damaged: " + why);
  };
  if (bytes.size() < sizeof(qdrt_pack_header)) {
    return damaged("truncated (" + std::to_string(bytes.size()) + " bytes)");
  }
  qdrt_pack_header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::memcmp(h.magic, QDRT_PACK_MAGIC, 8) != 0) {
    return damaged("not a qdbuild pack (wrong magic)");
  }
  if (h.version != QDRT_PACK_VERSION) {
    return damaged("unsupported pack format version " + std::to_string(h.version) +
                   " (this qdbuild reads version " + std::to_string(QDRT_PACK_VERSION) + ")");
  }
  if (h.header_size != sizeof h) {
    return damaged("bad header size");
  }
  if (options.verify_checksum && pack_checksum(h) != h.header_checksum) {
    return damaged("header checksum mismatch");
  }
  uint64_t size = bytes.size();
  if (h.file_size != size) {
    return damaged("truncated or extended (" + std::to_string(size) + " bytes, header says " +
                   std::to_string(h.file_size) + ")");
  }
  if (h.index_offset < sizeof h || h.index_offset % 8 != 0 || h.index_offset > size ||
      h.index_size > size - h.index_offset || h.objects_offset > size ||
      h.objects_size > size - h.objects_offset) {
    return damaged("index or objects lie outside the file");
  }
  std::unique_ptr<PackReader> r(new PackReader());
  r->m_name = name;
  r->m_bytes = bytes;
  Result<IndexView> index = IndexView::open(bytes.substr(h.index_offset, h.index_size),
                                            "pack '" + name + "' index", options);
  if (!index) {
    return index.failure();
  }
  if (!index->packed()) {
    return damaged("its index is not a pack index");
  }
  for (size_t i = 0; i < index->object_count(); ++i) {
    ObjectLocation loc = index->object_location(i);
    if (loc.offset < h.objects_offset || loc.size > h.objects_offset + h.objects_size ||
        loc.offset > h.objects_offset + h.objects_size - loc.size) {
      return damaged("object " + index->object_id(i).hex() + " lies outside the object area");
    }
  }
  r->m_index = *index;
  return r;
}

std::string PackReader::object_name(const ObjectId& id) const {
  return "pack '" + m_name + "' object " + id.hex();
}

Result<std::string_view> PackReader::slice(const ObjectId& id) const {
  std::optional<size_t> i = m_index.find_object(id);
  if (!i) {
    return fail(FailureKind::not_found, "object " + id.hex() + " is not in pack '" + m_name + "'");
  }
  ObjectLocation loc = m_index.object_location(*i);
  return m_bytes.substr(loc.offset, loc.size);
}

Result<std::string> PackReader::get(const ObjectId& id) {
  Result<std::string_view> bytes = slice(id);
  if (!bytes) {
    return bytes.failure();
  }
  return decode_object(*bytes, object_name(id));
}

Result<std::string> PackReader::get_file(const ObjectId& id) {
  Result<std::string_view> bytes = slice(id);
  if (!bytes) {
    return bytes.failure();
  }
  return std::string(*bytes);
}

Result<ObjectHeaderInfo> PackReader::get_header(const ObjectId& id) {
  Result<std::string_view> bytes = slice(id);
  if (!bytes) {
    return bytes.failure();
  }
  return parse_object_header(*bytes, object_name(id));
}

Result<ObjectId> PackReader::put(std::string_view) {
  return fail(FailureKind::invalid, "pack '" + m_name + "' is read-only");
}

Result<bool> PackReader::remove(const ObjectId&) {
  return fail(FailureKind::invalid, "pack '" + m_name + "' is read-only");
}

Result<std::vector<ObjectInfo>> PackReader::list_objects() {
  std::vector<ObjectInfo> out;
  for (size_t i = 0; i < m_index.object_count(); ++i) {
    out.push_back({m_index.object_id(i), m_index.object_location(i).size, 0});
  }
  return out;
}

Result<std::unique_ptr<Backend>> open_store(const std::string& path, int level) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    return fail(FailureKind::not_found, "no store at '" + path + "'");
  }
  if (S_ISDIR(st.st_mode)) {
    return std::unique_ptr<Backend>(std::make_unique<LocalStore>(path, level));
  }
  Result<std::unique_ptr<PackReader>> pack = PackReader::open(path);
  if (!pack) {
    return pack.failure();
  }
  return std::unique_ptr<Backend>(std::move(*pack));
}

}  // namespace qd::store
