// The build statistics log: one line per `qdbuild build`, appended to DIR/stats.log, read by
// `qdbuild store stats`. Append-only text, ninja-log style:
//
//   log    = "# qdbuild store stats v1\n" record*
//   record = time " " hits " " misses " " compile_ms " " saved_ms [remote] "\n"   (decimal
//   integers) remote = " r " remote_hits " " remote_misses " " remote_errors " " remote_corrupt " "
//            bytes_down " " bytes_up " " remote_saved_ms " " remote_requests
//
// time: unix seconds at the end of the build; hits/misses: kernel-instance lookups that found /
// did not find their objects; compile_ms: compile time spent on misses; saved_ms: compile time the
// hits saved (what those objects cost when they were compiled). `remote` (a build that had a
// remote cache, docs/remote.md): tasks it served and missed, failed requests and bodies that did
// not verify (of which corrupt: did not verify), bytes fetched and uploaded, the compile time of
// the tasks it served, round trips. History: v1 had no remote part; readers take both forms. Each
// record is written with one O_APPEND write, so concurrent builders do not interleave; a reader
// skips malformed lines (a torn last line after a crash).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/result.hpp"

namespace qd::store {

struct BuildStats {
  int64_t time = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t compile_ms = 0;
  uint64_t saved_ms = 0;
  bool remote = false;  // the remote part is present
  uint64_t remote_hits = 0;
  uint64_t remote_misses = 0;
  uint64_t remote_errors = 0;
  uint64_t remote_corrupt = 0;
  uint64_t bytes_down = 0;
  uint64_t bytes_up = 0;
  uint64_t remote_saved_ms = 0;
  uint64_t remote_requests = 0;

  bool operator==(const BuildStats&) const = default;
};

struct BuildStatsLog {
  std::vector<BuildStats> records;  // oldest first
  size_t malformed_lines = 0;
};

// Appends one record (creating the log with its version line when it does not exist).
Result<Unit> append_build_stats(const std::string& path, const BuildStats& stats);

// Reads the log; a missing log is empty. Failure corrupt: the version line is not v1.
Result<BuildStatsLog> read_build_stats(const std::string& path);

// Sums of the last `recent` records (all when 0).
BuildStats sum_build_stats(const std::vector<BuildStats>& records, size_t recent = 0);

}  // namespace qd::store
