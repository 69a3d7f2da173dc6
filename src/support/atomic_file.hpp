// Files that appear whole or not at all: write a temp file beside the target, fsync it, rename it
// over the target, fsync the directory. Readers of the target see the old or the new content,
// never a mix; a crash leaves at most a temp file, which remove_stale_temps() cleans up later.
//
// Temp names are ".<target name>.<pid>.<16 hex digits>.tmp" in the target's directory, so a
// cleaner can tell whether the writer still runs.
//
// Test hook: QD_TEST_FAIL_WRITES_AFTER_BYTES=N in the environment makes every AtomicFile in the
// process fail with ENOSPC ("No space left on device") once N bytes in total have been written,
// as a full disk would.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace qd::support {

class AtomicFile {
public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  // Removes the temp file unless commit() succeeded.
  ~AtomicFile();

  // Creates the temp file for `target` (mode 0644 before umask). The directory must exist.
  bool open(const std::string& target, std::string& error);
  // Appends bytes to the temp file.
  bool write(std::string_view data, std::string& error);
  // fsync, close, rename over the target, fsync the directory. After a failure the temp file is
  // gone and the target is unchanged. `durable` false skips both fsyncs: the rename is still
  // atomic for readers, and the caller makes the data durable later (e.g. syncfs) before
  // anything that must survive a crash depends on it.
  bool commit(std::string& error, bool durable = true);
  // Closes and removes the temp file (also done by the destructor).
  void discard();

  const std::string& target() const { return m_target; }
  const std::string& temp_path() const { return m_temp; }

private:
  std::string m_target;
  std::string m_temp;
  int m_fd = -1;
};

// Writes `data` to `target` through an AtomicFile.
bool write_file_atomic(const std::string& target, std::string_view data, std::string& error,
                       bool durable = true);

// fsyncs a directory (so a rename in it is durable).
bool fsync_directory(const std::string& dir, std::string& error);

// The writer's pid if `file_name` (no directory) is an AtomicFile temp name.
std::optional<pid_t> temp_file_pid(std::string_view file_name);

// Removes the AtomicFile temps directly in `dir` whose writer is no longer running, or that are
// older than `max_age` (the writer's pid may have been reused). Returns how many were removed
// and appends their paths to `removed` when given. Errors (unreadable dir) are ignored.
size_t remove_stale_temps(const std::string& dir, std::chrono::seconds max_age,
                          std::vector<std::string>* removed = nullptr);

}  // namespace qd::support
