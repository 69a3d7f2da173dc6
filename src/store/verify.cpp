#include "store/verify.hpp"

#include <algorithm>
#include <mutex>
#include <set>

#include "store/local_store.hpp"
#include "store/task_cache.hpp"
#include "support/thread_pool.hpp"

namespace qd::store {

VerifyReport verify_store(Backend& store, unsigned threads) {
  VerifyReport report;
  Result<std::vector<ObjectInfo>> objects = store.list_objects();
  if (!objects) {
    report.damage.push_back(objects.error());
    return report;
  }
  if (auto* local = dynamic_cast<LocalStore*>(&store)) {
    for (const std::string& stray : local->stray_files()) {
      report.notes.push_back("'" + stray + "' is not an object (ignored)");
    }
    if (local->temp_files() > 0) {
      report.notes.push_back(std::to_string(local->temp_files()) +
                             " temporary files of writers (running, or crashed: `store gc` "
                             "removes those)");
    }
  }

  // Objects, in parallel: each is decoded and hashed.
  std::vector<std::string> object_damage(objects->size());
  support::parallel_for(
      objects->size(),
      [&](size_t i) {
        const ObjectId& id = (*objects)[i].id;
        Result<std::string> raw = store.get(id);
        if (!raw) {
          object_damage[i] = raw.error();
        } else if (sha256(*raw) != id) {
          object_damage[i] = "object '" + store.object_name(id) +
                             "' is damaged: content does not match its address";
        }
      },
      threads);
  report.objects_checked = objects->size();
  for (std::string& d : object_damage) {
    if (!d.empty()) {
      report.damage.push_back(std::move(d));
    }
  }

  // Task cache records (directory stores): each must parse and name an object that is present.
  if (auto* local = dynamic_cast<LocalStore*>(&store)) {
    std::set<ObjectId> present;
    for (const ObjectInfo& o : *objects) {
      present.insert(o.id);
    }
    for (const TaskCache::Listed& l : TaskCache(*local).list()) {
      if (!l.record) {
        report.damage.push_back("task record '" + l.path + "' is damaged (`store gc` removes it)");
      } else if (present.count(l.record->object) == 0) {
        report.damage.push_back("task record '" + l.path + "' names object " +
                                l.record->object.hex() +
                                ", which is missing (`store gc` removes it)");
      }
    }
  }

  Result<const IndexView*> index = store.index();
  if (!index) {
    report.damage.push_back(index.error());
    return report;
  }
  if (*index == nullptr) {
    return report;
  }
  const IndexView& view = **index;
  std::set<ObjectId> present;
  for (const ObjectInfo& o : *objects) {
    present.insert(o.id);
  }
  report.entries_checked = view.entry_count();
  std::set<ObjectId> reported;
  for (size_t i = 0; i < view.entry_count(); ++i) {
    Entry e = view.entry(i);
    for (const ObjectId& id : referenced_objects(e)) {
      if (present.count(id) == 0 && reported.insert(id).second) {
        report.damage.push_back("object '" + store.object_name(id) +
                                "' is missing (used by kernel '" + e.key.kernel_id +
                                "' for target '" + e.key.target + "')");
      }
    }
  }
  return report;
}

}  // namespace qd::store
