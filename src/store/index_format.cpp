#include "store/index_format.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

#include "store/hashing.hpp"

namespace qd::store {

namespace {

template <class T> T load(std::string_view bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

template <class T> void append(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void pad8(std::string& out) { out.resize((out.size() + 7) & ~size_t{7}, '\0'); }

int compare_key(const EntryKeyView& a, const EntryKeyView& b) {
  if (int c = a.kernel_id.compare(b.kernel_id)) {
    return c;
  }
  if (int c = a.instance.compare(b.instance)) {
    return c;
  }
  return a.target.compare(b.target);
}

constexpr uint64_t k_max32 = std::numeric_limits<uint32_t>::max();

// Appends strings to the blob, sharing equal ones.
class BlobWriter {
public:
  bool add(std::string_view s, qdrt_index_bytes& out) {
    auto it = m_seen.find(std::string(s));
    if (it != m_seen.end()) {
      out = it->second;
      return true;
    }
    if (m_blob.size() + s.size() > k_max32) {
      return false;
    }
    out.offset = static_cast<uint32_t>(m_blob.size());
    out.size = static_cast<uint32_t>(s.size());
    m_blob.append(s);
    m_seen.emplace(std::string(s), out);
    return true;
  }
  const std::string& blob() const { return m_blob; }

private:
  std::string m_blob;
  std::unordered_map<std::string, qdrt_index_bytes> m_seen;
};

}  // namespace

Result<std::string> write_index(const std::vector<Entry>& entries, int64_t created_time,
                                const LocateObject* locate) {
  std::vector<const Entry*> sorted;
  sorted.reserve(entries.size());
  for (const Entry& e : entries) {
    sorted.push_back(&e);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const Entry* a, const Entry* b) { return a->key < b->key; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i - 1]->key == sorted[i]->key) {
      return fail(FailureKind::invalid,
                  "index: duplicate entry for kernel '" + sorted[i]->key.kernel_id + "'");
    }
  }
  std::vector<ObjectId> objects;
  for (const Entry* e : sorted) {
    std::vector<ObjectId> refs = referenced_objects(*e);
    objects.insert(objects.end(), refs.begin(), refs.end());
  }
  std::sort(objects.begin(), objects.end());
  objects.erase(std::unique(objects.begin(), objects.end()), objects.end());
  auto object_index = [&](const std::optional<ObjectId>& id) -> uint32_t {
    if (!id) {
      return QDRT_NO_OBJECT;
    }
    return static_cast<uint32_t>(std::lower_bound(objects.begin(), objects.end(), *id) -
                                 objects.begin());
  };

  BlobWriter blob;
  bool any_field = false;
  std::vector<qdrt_index_entry> entry_table;
  std::vector<qdrt_index_task> task_table;
  std::vector<qdrt_index_argument> argument_table;
  entry_table.reserve(sorted.size());
  bool fits = true;
  for (const Entry* e : sorted) {
    const Record& r = e->record;
    qdrt_index_entry ie{};
    fits = fits && blob.add(e->key.kernel_id, ie.kernel_id) &&
           blob.add(e->key.instance, ie.instance) && blob.add(e->key.target, ie.target);
    ie.first_task = static_cast<uint32_t>(task_table.size());
    ie.task_count = static_cast<uint32_t>(r.tasks.size());
    ie.first_argument = static_cast<uint32_t>(argument_table.size());
    ie.argument_count = static_cast<uint32_t>(r.arguments.size());
    ie.module_object = object_index(r.module);
    ie.last_used = r.last_used;
    for (const Task& t : r.tasks) {
      qdrt_index_task it{};
      fits = fits && blob.add(t.name, it.name) && blob.add(t.launch_metadata, it.launch_metadata);
      it.kind = static_cast<uint32_t>(t.kind);
      it.code_object = object_index(t.code);
      task_table.push_back(it);
    }
    for (const Argument& a : r.arguments) {
      qdrt_index_argument ia{};
      fits = fits && blob.add(a.name, ia.name);
      if (a.element_shape.size() > QDRT_MAX_ELEMENT_RANK) {
        return fail(FailureKind::invalid, "index: argument '" + a.name + "' of kernel '" +
                                              e->key.kernel_id + "' has an element shape of " +
                                              std::to_string(a.element_shape.size()) +
                                              " dims (at most 4)");
      }
      ia.kind = a.kind;
      ia.dtype = a.dtype;
      ia.ndim = a.ndim;
      ia.element_rank = static_cast<uint32_t>(a.element_shape.size());
      std::copy(a.element_shape.begin(), a.element_shape.end(), ia.element_shape);
      if (a.kind == QDRT_ARG_FIELD) {
        size_t dims = a.ndim + a.element_shape.size();
        if (a.element_shape.size() > 2 || a.field_shape.size() != dims ||
            a.field_strides.size() != dims) {
          return fail(FailureKind::invalid, "index: field argument '" + a.name + "' of kernel '" +
                                                e->key.kernel_id + "' has no layout of " +
                                                std::to_string(dims) + " dims");
        }
        std::string layout;
        for (const std::vector<int64_t>* part : {&a.field_shape, &a.field_strides}) {
          for (int64_t x : *part) {
            layout.append(reinterpret_cast<const char*>(&x), sizeof x);  // little-endian
          }
        }
        qdrt_index_bytes ref{};
        fits = fits && blob.add(layout, ref);
        ia.element_shape[2] = ref.offset;
        ia.element_shape[3] = ref.size;
        any_field = true;
      }
      argument_table.push_back(ia);
    }
    entry_table.push_back(ie);
  }
  if (!fits || entry_table.size() >= k_max32 || task_table.size() >= k_max32 ||
      argument_table.size() >= k_max32 || objects.size() >= k_max32) {
    return fail(FailureKind::invalid, "index: too large for the index format's 32-bit tables");
  }

  std::string out(sizeof(qdrt_index_header), '\0');
  qdrt_index_header h{};
  std::memcpy(h.magic, QDRT_INDEX_MAGIC, 8);
  h.version = any_field ? QDRT_INDEX_VERSION : QDRT_INDEX_MIN_VERSION;
  h.header_size = sizeof h;
  h.flags = locate != nullptr ? QDRT_INDEX_FLAG_PACKED : 0;
  h.entry_count = static_cast<uint32_t>(entry_table.size());
  h.object_count = static_cast<uint32_t>(objects.size());
  h.task_count = static_cast<uint32_t>(task_table.size());
  h.argument_count = static_cast<uint32_t>(argument_table.size());
  h.created_time = created_time;
  h.entries_offset = out.size();
  for (const qdrt_index_entry& e : entry_table) {
    append(out, e);
  }
  h.objects_offset = out.size();
  for (const ObjectId& id : objects) {
    qdrt_index_object o{};
    std::memcpy(o.sha256, id.bytes.data(), 32);
    if (locate != nullptr) {
      ObjectLocation loc = (*locate)(id);
      o.offset = loc.offset;
      o.size = loc.size;
    }
    append(out, o);
  }
  h.tasks_offset = out.size();
  for (const qdrt_index_task& t : task_table) {
    append(out, t);
  }
  h.arguments_offset = out.size();
  for (const qdrt_index_argument& a : argument_table) {
    append(out, a);
  }
  h.blob_offset = out.size();
  h.blob_size = blob.blob().size();
  out.append(blob.blob());
  pad8(out);
  h.file_size = out.size();
  std::memcpy(out.data(), &h, sizeof h);
  h.checksum = xxh3_64(std::string_view(out).substr(QDRT_INDEX_CHECKSUM_START));
  std::memcpy(out.data(), &h, sizeof h);
  return out;
}

Result<IndexView> IndexView::open(std::string_view bytes, const std::string& name,
                                  Options options) {
  auto damaged = [&](const std::string& why) -> Failure {
    return fail(FailureKind::corrupt, "index '" + name + "' is damaged: " + why);
  };
  IndexView v;
  v.m_bytes = bytes;
  if (bytes.size() < sizeof(qdrt_index_header)) {
    return damaged("truncated (" + std::to_string(bytes.size()) + " bytes)");
  }
  qdrt_index_header& h = v.m_header;
  h = load<qdrt_index_header>(bytes, 0);
  if (std::memcmp(h.magic, QDRT_INDEX_MAGIC, 8) != 0) {
    return damaged("not a qdbuild index (wrong magic)");
  }
  if (h.version < QDRT_INDEX_MIN_VERSION || h.version > QDRT_INDEX_VERSION) {
    return damaged("unsupported index format version " + std::to_string(h.version) +
                   " (this qdbuild reads versions " + std::to_string(QDRT_INDEX_MIN_VERSION) +
                   " to " + std::to_string(QDRT_INDEX_VERSION) + ")");
  }
  if (h.header_size != sizeof h) {
    return damaged("bad header size");
  }
  if (h.file_size != bytes.size()) {
    return damaged("truncated or extended (" + std::to_string(bytes.size()) +
                   " bytes, header says " + std::to_string(h.file_size) + ")");
  }
  if (options.verify_checksum && xxh3_64(bytes.substr(QDRT_INDEX_CHECKSUM_START)) != h.checksum) {
    return damaged("checksum mismatch");
  }
  if ((h.flags & ~uint32_t{QDRT_INDEX_FLAG_PACKED}) != 0) {
    return damaged("unknown flags");
  }
  uint64_t size = bytes.size();
  auto table_ok = [&](uint64_t offset, uint64_t count, uint64_t elem) {
    return offset % 8 == 0 && offset >= sizeof h && offset <= size &&
           count <= (size - offset) / elem;
  };
  if (!table_ok(h.entries_offset, h.entry_count, sizeof(qdrt_index_entry)) ||
      !table_ok(h.objects_offset, h.object_count, sizeof(qdrt_index_object)) ||
      !table_ok(h.tasks_offset, h.task_count, sizeof(qdrt_index_task)) ||
      !table_ok(h.arguments_offset, h.argument_count, sizeof(qdrt_index_argument)) ||
      !table_ok(h.blob_offset, h.blob_size, 1) || h.blob_size > k_max32) {
    return damaged("a table lies outside the file");
  }
  auto bytes_ok = [&](qdrt_index_bytes b) { return uint64_t{b.offset} + b.size <= h.blob_size; };
  auto object_ok = [&](uint32_t o) { return o == QDRT_NO_OBJECT || o < h.object_count; };
  for (uint32_t i = 0; i < h.object_count; ++i) {
    auto o =
        load<qdrt_index_object>(bytes, h.objects_offset + uint64_t{i} * sizeof(qdrt_index_object));
    if (!v.packed() && (o.offset != 0 || o.size != 0)) {
      return damaged("object location in a directory index");
    }
    if (i > 0) {
      auto prev = load<qdrt_index_object>(bytes, h.objects_offset +
                                                     uint64_t{i - 1} * sizeof(qdrt_index_object));
      if (std::memcmp(prev.sha256, o.sha256, 32) >= 0) {
        return damaged("object table not sorted");
      }
    }
  }
  for (uint32_t i = 0; i < h.task_count; ++i) {
    auto t = load<qdrt_index_task>(bytes, h.tasks_offset + uint64_t{i} * sizeof(qdrt_index_task));
    if (!bytes_ok(t.name) || !bytes_ok(t.launch_metadata) || !object_ok(t.code_object) ||
        t.kind > QDRT_TASK_SERIAL) {
      return damaged("bad task " + std::to_string(i));
    }
  }
  for (uint32_t i = 0; i < h.argument_count; ++i) {
    auto a = load<qdrt_index_argument>(bytes, h.arguments_offset +
                                                  uint64_t{i} * sizeof(qdrt_index_argument));
    if (!bytes_ok(a.name) || a.kind > QDRT_ARG_FIELD ||
        (a.kind == QDRT_ARG_FIELD && h.version < 2) || a.element_rank > QDRT_MAX_ELEMENT_RANK) {
      return damaged("bad argument " + std::to_string(i));
    }
    if (a.kind == QDRT_ARG_FIELD &&
        (a.element_rank > 2 || a.ndim + a.element_rank > 8 ||
         !bytes_ok(qdrt_index_bytes{a.element_shape[2], a.element_shape[3]}) ||
         a.element_shape[3] != 16u * (a.ndim + a.element_rank))) {
      return damaged("bad field layout of argument " + std::to_string(i));
    }
  }
  for (uint32_t i = 0; i < h.entry_count; ++i) {
    qdrt_index_entry e = v.entry_struct(i);
    if (!bytes_ok(e.kernel_id) || !bytes_ok(e.instance) || !bytes_ok(e.target) ||
        uint64_t{e.first_task} + e.task_count > h.task_count ||
        uint64_t{e.first_argument} + e.argument_count > h.argument_count ||
        !object_ok(e.module_object)) {
      return damaged("bad entry " + std::to_string(i));
    }
    if (i > 0 && compare_key(v.key(i - 1), v.key(i)) >= 0) {
      return damaged("entries not sorted");
    }
  }
  return v;
}

qdrt_index_entry IndexView::entry_struct(size_t i) const {
  return load<qdrt_index_entry>(m_bytes, m_header.entries_offset + i * sizeof(qdrt_index_entry));
}

std::string_view IndexView::blob_bytes(qdrt_index_bytes b) const {
  return m_bytes.substr(m_header.blob_offset + b.offset, b.size);
}

EntryKeyView IndexView::key(size_t i) const {
  qdrt_index_entry e = entry_struct(i);
  return {blob_bytes(e.kernel_id), blob_bytes(e.instance), blob_bytes(e.target)};
}

Entry IndexView::entry(size_t i) const {
  qdrt_index_entry e = entry_struct(i);
  Entry out;
  out.key = {std::string(blob_bytes(e.kernel_id)), std::string(blob_bytes(e.instance)),
             std::string(blob_bytes(e.target))};
  auto object = [&](uint32_t o) -> std::optional<ObjectId> {
    if (o == QDRT_NO_OBJECT) {
      return std::nullopt;
    }
    return object_id(o);
  };
  out.record.module = object(e.module_object);
  out.record.last_used = e.last_used;
  for (uint32_t k = 0; k < e.task_count; ++k) {
    auto t = load<qdrt_index_task>(m_bytes, m_header.tasks_offset + (uint64_t{e.first_task} + k) *
                                                                        sizeof(qdrt_index_task));
    out.record.tasks.push_back({std::string(blob_bytes(t.name)), static_cast<TaskKind>(t.kind),
                                std::string(blob_bytes(t.launch_metadata)), object(t.code_object)});
  }
  for (uint32_t k = 0; k < e.argument_count; ++k) {
    auto a = load<qdrt_index_argument>(
        m_bytes,
        m_header.arguments_offset + (uint64_t{e.first_argument} + k) * sizeof(qdrt_index_argument));
    Argument arg{std::string(blob_bytes(a.name)),
                 a.kind,
                 a.dtype,
                 a.ndim,
                 std::vector<uint32_t>(a.element_shape, a.element_shape + a.element_rank),
                 {},
                 {}};
    if (a.kind == QDRT_ARG_FIELD) {
      std::string_view layout =
          blob_bytes(qdrt_index_bytes{a.element_shape[2], a.element_shape[3]});
      size_t dims = a.ndim + a.element_rank;
      for (size_t d = 0; d < 2 * dims; ++d) {
        int64_t x = 0;
        std::memcpy(&x, layout.data() + 8 * d, 8);
        (d < dims ? arg.field_shape : arg.field_strides).push_back(x);
      }
    }
    out.record.arguments.push_back(std::move(arg));
  }
  return out;
}

std::vector<Entry> IndexView::all_entries() const {
  std::vector<Entry> out;
  out.reserve(entry_count());
  for (size_t i = 0; i < entry_count(); ++i) {
    out.push_back(entry(i));
  }
  return out;
}

std::optional<size_t> IndexView::find(std::string_view kernel_id, std::string_view instance,
                                      std::string_view target) const {
  EntryKeyView want{kernel_id, instance, target};
  size_t lo = 0;
  size_t hi = entry_count();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = compare_key(key(mid), want);
    if (c == 0) {
      return mid;
    }
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return std::nullopt;
}

ObjectId IndexView::object_id(size_t i) const {
  auto o =
      load<qdrt_index_object>(m_bytes, m_header.objects_offset + i * sizeof(qdrt_index_object));
  ObjectId id;
  std::memcpy(id.bytes.data(), o.sha256, 32);
  return id;
}

ObjectLocation IndexView::object_location(size_t i) const {
  auto o =
      load<qdrt_index_object>(m_bytes, m_header.objects_offset + i * sizeof(qdrt_index_object));
  return {o.offset, o.size};
}

std::optional<size_t> IndexView::find_object(const ObjectId& id) const {
  size_t lo = 0;
  size_t hi = object_count();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    ObjectId m = object_id(mid);
    if (m == id) {
      return mid;
    }
    if (m < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return std::nullopt;
}

}  // namespace qd::store
