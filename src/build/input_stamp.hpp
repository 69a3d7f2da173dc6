// No-op builds (issue 5 item 6): what a build read, stamped cheaply, so the next build of an
// unchanged tree can say "no work to do" without parsing anything and without writing anything.
//
// A stamp is the set of source files the paths name (sema::find_sources: a directory walk, no
// reads), each file's size and mtime (ns), every config file candidate (qdbuild.toml and
// pyproject.toml in the source root and each directory above it: present or not, size, mtime),
// and the store index's size and mtime as the build left it. Racy files (git's "racily clean"
// problem: modified within the file system clock's granularity of the stat, so a later edit in
// the same tick would keep the mtime) also get a content hash, taken before the build reads them
// and compared on the next check.
#pragma once

#include <string>
#include <vector>

#include "build/build_log.hpp"

namespace qd::build {

// Files modified less than this before the stamp was taken are racy (coarse kernel clocks tick
// every 1-10 ms).
inline constexpr int64_t k_racy_window_ns = 50'000'000;

// Stats the sources and config candidates of `paths` now (stamp_ns = the time before the stats).
// `hash_racy`: hash the content of racy files. Source errors (a path that does not exist) leave
// that path out: the build reports them and records no stamp.
// `extra`: other input files (recorded runs, --instances), stamped after the sources.
// `excluded`: directories the walk leaves out (sema::SourceFilter; the build's store and build
// directory).
InputsRecord take_stamp(const std::vector<std::string>& paths, bool hash_racy,
                        const std::vector<std::string>& extra = {},
                        const std::vector<std::string>& excluded = {});

// The size and mtime of a file; false when it cannot be stat()ed.
bool stat_file(const std::string& path, int64_t& size, int64_t& mtime_ns);

// Content hash used for racy files (hex XXH3-64; "" when unreadable).
std::string content_hash(const std::string& path);

// Whether `logged` still describes the tree and the index at `index_path`: same files, sizes,
// mtimes, same content for racy ones, same config candidates, same index stat. `why` says what
// differs (for -d explain).
bool stamp_up_to_date(const InputsRecord& logged, const std::vector<std::string>& paths,
                      const std::string& index_path, std::string& why,
                      const std::vector<std::string>& extra = {},
                      const std::vector<std::string>& excluded = {});

}  // namespace qd::build
