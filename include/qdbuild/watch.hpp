// Watch mode: `qdbuild build --watch` as a class (docs/build.md "Watch mode").
//
//   qdbuild::ResolvedBuild r = qdbuild::resolve(options);
//   qdbuild::Watch w(r, &reporter);
//   std::string error;
//   if (!w.start(error)) { ... }                 // the watches, before the first build
//   qdbuild::WatchEvent e;
//   while (w.next(e, stop_fd, error) == qdbuild::Watch::Next::built) {
//     std::puts(e.line.c_str());                 // the summary, then one line per rebuild
//   }
//
// The first next() builds; each later one waits for a batch of saved changes (debounced) under
// the paths, the recorded-run files and the project's config, then rebuilds what they need with
// one Builder (build.hpp), so it re-parses, lowers and compiles only what changed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "qdbuild/build.hpp"

namespace qdbuild {

struct WatchEvent {
  bool first = false;                // the first build (changed and deleted are empty)
  std::vector<std::string> changed;  // the saved paths that caused this build, sorted
  std::vector<std::string> deleted;  // those of `changed` that are gone
  BuildResult result;
  // What the command prints: the summary after the first build, then one line per rebuild:
  // "src/sph.py: density 1/5 tasks rebuilt (38 ms); 0 errors".
  std::string line;
};

class Watch {
public:
  // `resolved` from resolve() (exit ok); builds resolved.targets.front(). The reporter must
  // outlive the Watch (null: report nothing).
  Watch(const ResolvedBuild& resolved, Reporter* reporter = nullptr);
  ~Watch();
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

  // Sets up the watches (inotify). False with `error` when that fails (e.g. the kernel's
  // inotify limits are too low: the message says which and how to raise them).
  bool start(std::string& error);
  size_t watch_count() const;  // directories watched

  enum class Next { built, stopped, error };
  // The first call builds at once; later calls block until a batch of changes and rebuild.
  // `stop_fd`: readable means stop (e.g. a signalfd), -1 for none; `stopped` then, before any
  // build starts. `error` with Next::error: the watches failed.
  Next next(WatchEvent& out, int stop_fd, std::string& error);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace qdbuild
