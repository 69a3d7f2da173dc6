// What the index maps: a kernel instance on a target -> its record (tasks, module, arguments).
// The store treats launch metadata as opaque bytes; the compiler and the runtime give it meaning.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/hashing.hpp"

namespace qd::store {

// Compared bytewise, field by field (the index's sort order).
struct EntryKey {
  std::string kernel_id;  // module:qualname (any bytes: never used as a file name)
  std::string instance;   // canonical instance string
  std::string target;     // "cpu", "cuda:sm_90", ...

  auto operator<=>(const EntryKey&) const = default;
};

enum class TaskKind : uint32_t { range = 0, serial = 1 };

struct Task {
  std::string name;
  TaskKind kind = TaskKind::range;
  std::string launch_metadata;   // opaque bytes
  std::optional<ObjectId> code;  // the task's object code

  bool operator==(const Task&) const = default;
};

struct Argument {
  std::string name;
  uint32_t kind = 0;   // QDRT_ARG_*
  uint32_t dtype = 0;  // QDRT_DTYPE_*
  uint32_t ndim = 0;
  std::vector<uint32_t> element_shape;  // at most QDRT_MAX_ELEMENT_RANK dims
  // QDRT_ARG_FIELD: the fixed shape (outer extents, then element dims) and byte strides.
  std::vector<int64_t> field_shape;
  std::vector<int64_t> field_strides;

  bool operator==(const Argument&) const = default;
};

struct Record {
  std::vector<Task> tasks;          // launch order
  std::optional<ObjectId> module;   // the linked module for the target
  std::vector<Argument> arguments;  // parameter order
  int64_t last_used = 0;            // unix seconds

  bool operator==(const Record&) const = default;
};

struct Entry {
  EntryKey key;
  Record record;

  bool operator==(const Entry&) const = default;
};

// Every object an entry references (module and task code), without duplicates.
std::vector<ObjectId> referenced_objects(const Entry& entry);

// Merges `incoming` into `base` (both any order): the union by key; for a key in both, the record
// with the larger last_used wins, `incoming` on a tie. The result is sorted by key.
std::vector<Entry> merge_entries(std::vector<Entry> base, std::vector<Entry> incoming);

}  // namespace qd::store
