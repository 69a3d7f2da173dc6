// A directory store:
//
//   DIR/index.qdi            the index (store/index_format.hpp), replaced atomically
//   DIR/index.lock           flock()ed exclusively by every index update
//   DIR/objects/ab/cdef….qdo objects (store/object_format.hpp), by SHA-256 of their content
//   DIR/stats.log            build statistics, append-only (store/build_stats.hpp)
//   DIR/CACHEDIR.TAG         the cache directory tag (written by create(); source walks skip it)
//   .<name>.<pid>.<rand>.tmp temp files of writers in progress (or crashed: removed by gc)
//
// Every file is written through support::AtomicFile. An object is published before any index
// references it; index updates take the lock, re-read the current index, merge and replace it, so
// concurrent builders never lose each other's entries and readers see the old or the new index.
// Only hex addresses become file names.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/backend.hpp"
#include "store/entry.hpp"
#include "support/mapped_file.hpp"

namespace qd::store {

// https://bford.info/cachedir/: the signature line is the standard's, the rest is free text.
inline constexpr const char* k_cachedir_tag =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by qdbuild (its artifact store).\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n";

class LocalStore : public Backend {
public:
  explicit LocalStore(std::string root, int level = k_default_level);
  ~LocalStore() override;

  const std::string& root() const { return m_root; }
  std::string object_path(const ObjectId& id) const;
  std::string index_path() const { return m_root + "/index.qdi"; }
  std::string lock_path() const { return m_root + "/index.lock"; }
  std::string objects_dir() const { return m_root + "/objects"; }
  std::string stats_log_path() const { return m_root + "/stats.log"; }

  // Creates DIR and DIR/objects if needed.
  Result<Unit> create();

  // Where warnings go (a damaged object or index being replaced). Default: stderr,
  // "qdbuild: warning: ...".
  void set_warning_handler(std::function<void(const std::string&)> handler);

  std::string describe() const override { return "directory store '" + m_root + "'"; }
  std::string object_name(const ObjectId& id) const override { return object_path(id); }
  Result<std::string> get(const ObjectId& id) override;
  Result<std::string> get_file(const ObjectId& id) override;
  Result<ObjectHeaderInfo> get_header(const ObjectId& id) override;
  Result<ObjectId> put(std::string_view raw) override;
  Result<bool> remove(const ObjectId& id) override;
  Result<std::vector<ObjectInfo>> list_objects() override;
  Result<const IndexView*> index() override;
  void reload_index() override;
  std::string index_name() const override { return index_path(); }

  // Files under objects/ that are neither objects nor temps (reported by verify), and the number
  // of temp files, as of the last list_objects().
  const std::vector<std::string>& stray_files() const { return m_strays; }
  size_t temp_files() const { return m_temps; }

  // Deferred durability (a build's many objects and task records): when on, put() and the task
  // cache write without fsync, and the next index update first makes everything durable with one
  // syncfs() of the store's filesystem — the index stays the commit point, so no published entry
  // ever references data that a crash could lose. Off by default (every write is durable).
  void set_deferred_sync(bool on) { m_deferred = on; }
  bool deferred_sync() const { return m_deferred; }
  void note_unsynced() { m_unsynced.store(true, std::memory_order_relaxed); }
  // syncfs() of the store's filesystem if a deferred write happened since the last one.
  Result<Unit> sync_deferred();

  // Adds or replaces entries (merge_entries) under the index lock. A record with last_used 0 gets
  // the current time. Every object the entries reference must already be in the store.
  Result<Unit> publish(std::vector<Entry> entries);

  // Runs `update` under the index lock with the current entries and writes what it returns (when
  // it returns a value; a Failure leaves the index as it was), then runs `after_write` still under
  // the lock. A missing index reads as empty; a damaged one reads as empty with a warning when
  // `replace_damaged`, else is the Failure.
  using IndexUpdate = std::function<Result<std::vector<Entry>>(std::vector<Entry>)>;
  Result<Unit> update_index(const IndexUpdate& update, bool replace_damaged = true,
                            const std::function<void()>& after_write = {});

private:
  Result<std::vector<Entry>> read_entries_locked(bool replace_damaged);
  void warn(const std::string& message) const;

  std::string m_root;
  int m_level;
  bool m_deferred = false;
  std::atomic<bool> m_unsynced{false};
  std::function<void(const std::string&)> m_warn;
  support::MappedFile m_index_file;
  std::unique_ptr<IndexView> m_index;
  bool m_index_loaded = false;
  std::vector<std::string> m_strays;
  size_t m_temps = 0;
};

}  // namespace qd::store
