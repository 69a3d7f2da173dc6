// `qdbuild store gc`: drops objects no index entry references, and with a size limit evicts the
// least recently used entries first until the objects left fit. Also removes temp files of
// writers that died.
//
// Safety with concurrent builders: gc holds the index lock while it rewrites the index and removes
// objects, and publish checks under the same lock that the objects it references exist. Objects
// modified (written or re-put) within the grace period are kept even when unreferenced, so a
// builder that has stored objects but not yet published its entries does not lose them.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/local_store.hpp"

namespace qd::store {

struct GcOptions {
  std::optional<uint64_t> max_size;  // bytes of object files to keep at most
  std::chrono::seconds grace{600};   // keep unreferenced objects younger than this
  bool dry_run = false;
};

struct GcReport {
  size_t entries_before = 0;
  size_t entries_evicted = 0;
  size_t objects_before = 0;
  size_t objects_removed = 0;
  uint64_t bytes_before = 0;
  uint64_t bytes_removed = 0;
  size_t temps_removed = 0;
  size_t task_records_removed = 0;    // task cache records whose object is gone (task_cache.hpp)
  std::vector<std::string> warnings;  // objects that could not be removed, ...
};

// Task cache records (store/task_cache.hpp) do not keep objects alive: a record whose object is
// gone after the collection is removed with it.
//
// Fails (leaving everything as it was) when the index is damaged: `store verify` names it, and the
// next build replaces it.
Result<GcReport> collect_garbage(LocalStore& store, const GcOptions& options);

// Parses "123", "10K", "1.5M", "2G", "1T" (powers of 1024; an optional trailing "B" or "iB").
std::optional<uint64_t> parse_size(std::string_view text);

}  // namespace qd::store
