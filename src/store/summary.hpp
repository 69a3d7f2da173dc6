// What `qdbuild store stats` and `store ls` report, computed from a store (directory or pack).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/backend.hpp"
#include "store/build_stats.hpp"

namespace qd::store {

struct StoreSummary {
  size_t objects = 0;
  uint64_t raw_bytes = 0;     // content, uncompressed
  uint64_t stored_bytes = 0;  // object files (headers + compressed payloads)
  size_t unreferenced_objects = 0;
  uint64_t unreferenced_bytes = 0;
  size_t entries = 0;
  std::map<std::string, size_t> entries_per_target;
  std::optional<BuildStatsLog> build_log;  // directory stores only
  std::vector<std::string> problems;       // damaged headers, index, log: each names its file

  double ratio() const {
    return stored_bytes == 0 ? 1.0 : static_cast<double>(raw_bytes) / stored_bytes;
  }
};

StoreSummary summarize_store(Backend& store);

struct EntrySummary {
  std::string kernel_id;
  std::string instance;
  std::string target;
  size_t tasks = 0;
  size_t arguments = 0;
  size_t objects = 0;
  uint64_t bytes = 0;  // stored bytes of the objects it references (shared ones counted in each)
  size_t missing_objects = 0;
  std::vector<std::string> missing_names;  // of the missing objects, for messages
  int64_t last_used = 0;
};

// Every entry of the index, in index order. Failure when the index is damaged.
Result<std::vector<EntrySummary>> list_entries(Backend& store);

}  // namespace qd::store
