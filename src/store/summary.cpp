#include "store/summary.hpp"

#include <set>

#include "store/local_store.hpp"

namespace qd::store {

StoreSummary summarize_store(Backend& store) {
  StoreSummary s;
  Result<std::vector<ObjectInfo>> objects = store.list_objects();
  if (!objects) {
    s.problems.push_back(objects.error());
    return s;
  }
  std::set<ObjectId> referenced;
  Result<const IndexView*> index = store.index();
  if (!index) {
    s.problems.push_back(index.error());
  } else if (*index != nullptr) {
    const IndexView& view = **index;
    s.entries = view.entry_count();
    for (size_t i = 0; i < view.entry_count(); ++i) {
      ++s.entries_per_target[std::string(view.key(i).target)];
    }
    for (size_t i = 0; i < view.object_count(); ++i) {
      referenced.insert(view.object_id(i));
    }
  }
  for (const ObjectInfo& o : *objects) {
    ++s.objects;
    s.stored_bytes += o.file_size;
    Result<ObjectHeaderInfo> header = store.get_header(o.id);
    if (header) {
      s.raw_bytes += header->raw_size;
    } else {
      s.problems.push_back(header.error());
    }
    if (index && referenced.count(o.id) == 0) {
      ++s.unreferenced_objects;
      s.unreferenced_bytes += o.file_size;
    }
  }
  if (auto* local = dynamic_cast<LocalStore*>(&store)) {
    Result<BuildStatsLog> log = read_build_stats(local->stats_log_path());
    if (log) {
      s.build_log = std::move(*log);
    } else {
      s.problems.push_back(log.error());
    }
  }
  return s;
}

Result<std::vector<EntrySummary>> list_entries(Backend& store) {
  Result<const IndexView*> index = store.index();
  if (!index) {
    return index.failure();
  }
  std::vector<EntrySummary> out;
  if (*index == nullptr) {
    return out;
  }
  Result<std::vector<ObjectInfo>> objects = store.list_objects();
  if (!objects) {
    return objects.failure();
  }
  std::map<ObjectId, uint64_t> sizes;
  for (const ObjectInfo& o : *objects) {
    sizes[o.id] = o.file_size;
  }
  const IndexView& view = **index;
  for (size_t i = 0; i < view.entry_count(); ++i) {
    Entry e = view.entry(i);
    EntrySummary row;
    row.kernel_id = e.key.kernel_id;
    row.instance = e.key.instance;
    row.target = e.key.target;
    row.tasks = e.record.tasks.size();
    row.arguments = e.record.arguments.size();
    row.last_used = e.record.last_used;
    for (const ObjectId& id : referenced_objects(e)) {
      ++row.objects;
      auto it = sizes.find(id);
      if (it == sizes.end()) {
        ++row.missing_objects;
        row.missing_names.push_back(store.object_name(id));
      } else {
        row.bytes += it->second;
      }
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace qd::store
