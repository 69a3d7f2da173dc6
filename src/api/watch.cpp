// qdbuild::Watch (include/qdbuild/watch.hpp): build::Watcher (inotify, debounce) around one
// qdbuild::Builder. What is watched: the paths (for a build from the records' sources, what such
// a build can follow: sema::follow_watch_paths), the recorded-run files, and the configs above
// them; never the store or the build directory.
#include "qdbuild/watch.hpp"

#include "build/watch_line.hpp"
#include "build/watcher.hpp"
#include "sema/analysis.hpp"

namespace qdbuild {

struct Watch::Impl {
  Impl(const ResolvedBuild& r, Reporter* reporter)
      : resolved(r), builder(r, r.targets.front(), reporter) {}
  ResolvedBuild resolved;
  Builder builder;
  qd::build::Watcher watcher;
  bool built = false;
};

Watch::Watch(const ResolvedBuild& resolved, Reporter* reporter)
    : m_impl(std::make_unique<Impl>(resolved, reporter)) {}
Watch::~Watch() = default;

bool Watch::start(std::string& error) {
  const ResolvedBuild& r = m_impl->resolved;
  std::vector<std::string> watched =
      r.sources_from_records ? qd::sema::follow_watch_paths(r.paths, r.options.root) : r.paths;
  // Recorded runs (--instances, instances-from) are inputs too: a new record rebuilds.
  qd::sema::AnalysisOptions records;
  records.instance_files = r.options.instance_files;
  for (std::string& f : qd::sema::record_files(r.paths, records)) {
    watched.push_back(std::move(f));
  }
  std::vector<std::string> excluded = r.exclude;
  excluded.push_back(r.store);
  return m_impl->watcher.start(watched, error, excluded);
}

size_t Watch::watch_count() const { return m_impl->watcher.watch_count(); }

Watch::Next Watch::next(WatchEvent& out, int stop_fd, std::string& error) {
  out = WatchEvent();
  if (!m_impl->built) {
    m_impl->built = true;
    out.first = true;
    out.result = m_impl->builder.run(true);
    out.line = out.result.summary;
    return Next::built;
  }
  qd::build::WatchBatch batch;
  qd::build::Watcher::Wait w = m_impl->watcher.wait(batch, stop_fd, error);
  if (w == qd::build::Watcher::Wait::stopped) {
    return Next::stopped;
  }
  if (w == qd::build::Watcher::Wait::error) {
    return Next::error;
  }
  out.changed.assign(batch.changed.begin(), batch.changed.end());
  out.deleted.assign(batch.deleted.begin(), batch.deleted.end());
  out.result = m_impl->builder.run(false);
  out.line = qd::build::watch_line(batch, out.result);
  return Next::built;
}

}  // namespace qdbuild
