// Watching source trees for `qdbuild build --watch` (issue 8; docs/build.md "Watch mode"): Linux
// inotify on every directory under the paths (recursively; what sema::SourceFilter leaves out of
// the source walk is not watched either: hidden directories, the store and the build directory,
// directories with a CACHEDIR.TAG, .gitignore'd ones), on the directory of each file argument, and
// on each directory that holds a configuration candidate (qdbuild.toml / pyproject.toml in the
// source root and above). A .gitignore'd `*.py` file is not relevant; a changed .gitignore is (the
// rules are read again; directories it no longer ignores are watched from the next start).
//
// Relevant names: `*.py` under a watched tree (a file argument: that file), and the two config
// names. A batch holds the relevant paths that were written (closed after writing), created,
// deleted or moved in or out, and directories that appeared (watched from then on; the files
// already in them count as changed), disappeared or were renamed (their files count as changed).
// The pattern editors use, write a temp file and rename it over the source, is a moved-in event
// for the source; the temp file itself is not relevant.
//
// Debounce: a batch closes once no relevant event came for the quiet window: k_quiet_single (a
// few ms) while the batch is one completed save of one file, k_quiet_burst (50 ms) as soon as it
// holds two paths or a directory event (`git checkout`, a tool writing many files), and never
// while a file written to has not been closed yet (up to k_pending_max). An inotify queue
// overflow makes the batch a full rescan.
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sema/source_tree.hpp"

namespace qd::build {

inline constexpr std::chrono::milliseconds k_quiet_single{2};
inline constexpr std::chrono::milliseconds k_quiet_burst{50};
inline constexpr std::chrono::milliseconds k_pending_max{1000};

struct WatchBatch {
  std::set<std::string> changed;  // relevant paths (as reachable from the working directory)
  std::set<std::string> deleted;  // those of `changed` that are gone now
  bool rescan = false;            // the event queue overflowed: anything may have changed
  bool config = false;            // a qdbuild.toml / pyproject.toml changed
};

class Watcher {
public:
  Watcher() = default;
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;
  ~Watcher();

  // Sets up the watches. False with `error` when inotify is unavailable or its limits are too low
  // (the message names fs.inotify.max_user_watches / max_user_instances and how to raise them).
  // `excluded`: directories never watched (the store, the build directory; sema::SourceFilter).
  bool start(const std::vector<std::string>& paths, std::string& error,
             const std::vector<std::string>& excluded = {});

  enum class Wait { batch, stopped, error };
  // Blocks for the next batch. `stop_fd`: readable means stop (a signalfd); -1 for none.
  Wait wait(WatchBatch& out, int stop_fd, std::string& error);

  size_t watch_count() const { return m_dirs.size(); }

private:
  struct Dir {
    std::string path;             // as reachable from the working directory ("src/pkg")
    bool recursive = false;       // a source tree: every *.py, subdirectories watched too
    bool configs = false;         // qdbuild.toml / pyproject.toml are relevant here
    std::set<std::string> files;  // file arguments in this directory
  };
  bool add_dir(const std::string& path, const Dir& what, std::string& error);
  bool add_tree(const std::string& path, WatchBatch* found, std::string& error);
  // Reads the pending events into `out`; false on a read error.
  bool drain(WatchBatch& out, bool& burst, bool& relevant, std::string& error);

  int m_fd = -1;
  std::map<int, Dir> m_dirs;  // watch descriptor -> directory
  std::map<std::string, int> m_wd_of;
  std::set<std::string> m_open_for_write;  // modified, not closed yet
  size_t m_limit = 0;                      // $QDBUILD_WATCH_LIMIT (tests): pretend limit
  std::vector<std::string> m_excluded;
  sema::SourceFilter m_filter;
};

// `fs.inotify.max_user_watches` as /proc reports it ("" when unreadable).
std::string inotify_setting(const char* name);

}  // namespace qd::build
