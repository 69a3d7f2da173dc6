#include "store/gc.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>

#include <unistd.h>

#include "store/task_cache.hpp"
#include "support/atomic_file.hpp"

namespace qd::store {

namespace {

struct GcPlan {
  std::vector<Entry> keep;
  std::vector<ObjectInfo> remove;
};

// Decides what goes: entries by LRU while over the limit, then every object nothing references
// (unless young, or referenced only by an evicted entry).
GcPlan plan_gc(std::vector<Entry> entries, const std::vector<ObjectInfo>& objects,
               const GcOptions& options, int64_t now, GcReport& report) {
  report.entries_before = entries.size();
  report.objects_before = objects.size();
  std::map<ObjectId, uint64_t> size_of;
  for (const ObjectInfo& o : objects) {
    size_of[o.id] = o.file_size;
    report.bytes_before += o.file_size;
  }
  std::map<ObjectId, size_t> refs;
  for (const Entry& e : entries) {
    for (const ObjectId& id : referenced_objects(e)) {
      ++refs[id];
    }
  }
  auto is_young = [&](const ObjectInfo& o) { return now - o.mtime < options.grace.count(); };
  uint64_t kept = 0;
  for (const ObjectInfo& o : objects) {
    if (refs.count(o.id) != 0 || is_young(o)) {
      kept += o.file_size;
    }
  }
  // Least recently used first; ties by key, for determinism.
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (entries[a].record.last_used != entries[b].record.last_used) {
      return entries[a].record.last_used < entries[b].record.last_used;
    }
    return entries[a].key < entries[b].key;
  });
  std::vector<bool> evicted(entries.size(), false);
  std::map<ObjectId, bool> dropped;  // referenced only by evicted entries: removed even if young
  if (options.max_size) {
    for (size_t k = 0; k < order.size() && kept > *options.max_size; ++k) {
      evicted[order[k]] = true;
      ++report.entries_evicted;
      for (const ObjectId& id : referenced_objects(entries[order[k]])) {
        if (--refs[id] == 0) {
          refs.erase(id);
          dropped[id] = true;
          auto it = size_of.find(id);
          kept -= std::min(kept, it == size_of.end() ? 0 : it->second);
        }
      }
    }
  }
  GcPlan plan;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!evicted[i]) {
      plan.keep.push_back(std::move(entries[i]));
    }
  }
  for (const ObjectInfo& o : objects) {
    if (refs.count(o.id) == 0 && (!is_young(o) || dropped.count(o.id) != 0)) {
      plan.remove.push_back(o);
      ++report.objects_removed;
      report.bytes_removed += o.file_size;
    }
  }
  return plan;
}

// Removes (or, dry run, counts) the task cache records whose object is missing or going.
size_t prune_task_records(LocalStore& store, const std::set<ObjectId>& going, bool dry_run,
                          GcReport& report) {
  TaskCache cache(store);
  size_t removed = 0;
  for (const TaskCache::Listed& l : cache.list()) {
    bool dangling = !l.record || going.count(l.record->object) != 0 ||
                    ::access(store.object_path(l.record->object).c_str(), F_OK) != 0;
    if (!dangling) {
      continue;
    }
    if (dry_run || ::unlink(l.path.c_str()) == 0) {
      ++removed;
    } else {
      report.warnings.push_back("cannot remove task record '" + l.path + "'");
    }
  }
  return removed;
}

}  // namespace

std::optional<uint64_t> parse_size(std::string_view text) {
  size_t digits = 0;
  bool dot = false;
  while (digits < text.size() &&
         ((text[digits] >= '0' && text[digits] <= '9') || (text[digits] == '.' && !dot))) {
    dot = dot || text[digits] == '.';
    ++digits;
  }
  if (digits == 0 || (digits == 1 && dot)) {
    return std::nullopt;
  }
  double value = std::stod(std::string(text.substr(0, digits)));
  std::string_view unit = text.substr(digits);
  double scale = 1;
  if (!unit.empty()) {
    switch (unit[0]) {
      case 'k':
      case 'K': scale = 1024.0; break;
      case 'm':
      case 'M': scale = 1024.0 * 1024; break;
      case 'g':
      case 'G': scale = 1024.0 * 1024 * 1024; break;
      case 't':
      case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
      case 'b':
      case 'B': scale = 1; break;
      default: return std::nullopt;
    }
    std::string_view tail = unit.substr(1);
    bool plain_b = unit[0] == 'b' || unit[0] == 'B';
    if (plain_b ? !tail.empty() : !(tail.empty() || tail == "B" || tail == "iB")) {
      return std::nullopt;
    }
  }
  double bytes = std::floor(value * scale);
  if (!(bytes >= 0) || bytes > 1.8e19) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(bytes);
}

Result<GcReport> collect_garbage(LocalStore& store, const GcOptions& options) {
  GcReport report;
  int64_t now = static_cast<int64_t>(::time(nullptr));
  if (options.dry_run) {
    Result<const IndexView*> index = store.index();
    if (!index) {
      return index.failure();
    }
    Result<std::vector<ObjectInfo>> objects = store.list_objects();
    if (!objects) {
      return objects.failure();
    }
    std::vector<Entry> entries = *index ? (*index)->all_entries() : std::vector<Entry>{};
    GcPlan plan = plan_gc(std::move(entries), *objects, options, now, report);
    std::set<ObjectId> going;
    for (const ObjectInfo& o : plan.remove) {
      going.insert(o.id);
    }
    report.task_records_removed = prune_task_records(store, going, true, report);
    return report;
  }
  std::vector<ObjectInfo> remove;
  Result<Unit> updated = store.update_index(
      [&](std::vector<Entry> entries) -> Result<std::vector<Entry>> {
        Result<std::vector<ObjectInfo>> objects = store.list_objects();
        if (!objects) {
          return objects.failure();
        }
        GcPlan plan = plan_gc(std::move(entries), *objects, options, now, report);
        remove = std::move(plan.remove);
        return std::move(plan.keep);
      },
      /*replace_damaged=*/false,
      // Objects go only once the new index is in place (and before the lock is released), so no
      // published index ever names a missing object.
      [&] {
        for (const ObjectInfo& o : remove) {
          Result<bool> removed = store.remove(o.id);
          if (!removed) {
            report.warnings.push_back(removed.error());
            --report.objects_removed;
            report.bytes_removed -= o.file_size;
          }
        }
      });
  if (!updated) {
    return updated.failure();
  }
  report.task_records_removed = prune_task_records(store, {}, false, report);
  report.temps_removed = support::remove_stale_temps(store.root(), std::chrono::hours(1));
  for (int i = 0; i < 256; ++i) {
    char sub[4];
    std::snprintf(sub, sizeof sub, "%02x", i);
    report.temps_removed +=
        support::remove_stale_temps(store.objects_dir() + "/" + sub, std::chrono::hours(1));
    report.temps_removed +=
        support::remove_stale_temps(store.root() + "/tasks/" + sub, std::chrono::hours(1));
  }
  return report;
}

}  // namespace qd::store
