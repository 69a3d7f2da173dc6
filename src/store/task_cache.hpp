// The task cache: task key (backend::task_key, 64 hex digits) -> the object holding that task's
// compiled code, so an unchanged task anywhere (another kernel, an earlier build) is never
// recompiled (docs/build.md "What is rebuilt").
//
//   DIR/tasks/ab/cdef….qdt   one record per task key (the key's first two hex digits fan out)
//
//   record = "qdbuild task v1 " object-hex " " compile_ms "\n"
//
// object-hex: the 64 hex digits of the object's address; compile_ms: what compiling it cost
// (build statistics count it as saved time on a hit). Records are written through
// support::AtomicFile after the object itself, so a record never names an object that was not
// yet stored. A record whose object is gone (gc removed it) is a miss; gc removes such records
// and `store verify` reports them. Only hex task keys become file names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/hashing.hpp"
#include "store/result.hpp"

namespace qd::store {

class LocalStore;

struct TaskRecord {
  ObjectId object;
  uint64_t compile_ms = 0;
};

// Parses a record file's bytes; nullopt when malformed.
std::optional<TaskRecord> parse_task_record(std::string_view bytes);
std::string format_task_record(const TaskRecord& record);

// True for exactly 64 lowercase hex digits (the only keys that become file names).
bool is_task_key(std::string_view key);

class TaskCache {
public:
  explicit TaskCache(LocalStore& store);

  std::string tasks_dir() const;
  // DIR/tasks/ab/cdef….qdt (the key must satisfy is_task_key).
  std::string record_path(std::string_view key) const;

  // The record for `key` when it exists, parses and its object is present in the store.
  std::optional<TaskRecord> lookup(std::string_view key) const;

  // Writes (or replaces) the record for `key`. The object must already be in the store.
  Result<Unit> insert(std::string_view key, const TaskRecord& record);

  struct Listed {
    std::string path;                  // the record file
    std::string key;                   // from the file name
    std::optional<TaskRecord> record;  // nullopt: malformed
  };
  // Every record file under DIR/tasks (temp files and other names skipped), sorted by key.
  std::vector<Listed> list() const;

private:
  LocalStore& m_store;
};

}  // namespace qd::store
