#include "store/build_stats.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "support/file_io.hpp"

namespace qd::store {

namespace {

constexpr std::string_view k_version_line = "# qdbuild store stats v1\n";

bool parse_record(std::string_view line, BuildStats& out) {
  long long time = 0;
  unsigned long long v[12] = {};
  int used = 0;
  std::string text(line);
  if (std::sscanf(text.c_str(), "%lld %llu %llu %llu %llu%n", &time, &v[0], &v[1], &v[2], &v[3],
                  &used) != 5) {
    return false;
  }
  out = {time, v[0], v[1], v[2], v[3]};
  if (static_cast<size_t>(used) == text.size()) {
    return true;
  }
  // The remote part.
  int more = 0;
  std::string rest = text.substr(static_cast<size_t>(used));
  if (std::sscanf(rest.c_str(), " r %llu %llu %llu %llu %llu %llu %llu %llu%n", &v[4], &v[5], &v[6],
                  &v[7], &v[8], &v[9], &v[10], &v[11], &more) != 8 ||
      static_cast<size_t>(more) != rest.size()) {
    return false;
  }
  out.remote = true;
  out.remote_hits = v[4];
  out.remote_misses = v[5];
  out.remote_errors = v[6];
  out.remote_corrupt = v[7];
  out.bytes_down = v[8];
  out.bytes_up = v[9];
  out.remote_saved_ms = v[10];
  out.remote_requests = v[11];
  return true;
}

}  // namespace

Result<Unit> append_build_stats(const std::string& path, const BuildStats& s) {
  // Whoever creates the log writes its version line; O_EXCL makes that one process.
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    bool ok = support::write_all(fd, k_version_line);
    ::close(fd);
    if (!ok) {
      return fail(FailureKind::io, "cannot write '" + path + "': " + std::strerror(errno));
    }
  } else if (errno != EEXIST) {
    return fail(FailureKind::io, "cannot write '" + path + "': " + std::strerror(errno));
  }
  fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    return fail(FailureKind::io, "cannot write '" + path + "': " + std::strerror(errno));
  }
  char line[400];
  int n =
      std::snprintf(line, sizeof line, "%" PRId64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
                    s.time, s.hits, s.misses, s.compile_ms, s.saved_ms);
  if (s.remote) {
    n += std::snprintf(line + n, sizeof line - static_cast<size_t>(n),
                       " r %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                       " %" PRIu64 " %" PRIu64,
                       s.remote_hits, s.remote_misses, s.remote_errors, s.remote_corrupt,
                       s.bytes_down, s.bytes_up, s.remote_saved_ms, s.remote_requests);
  }
  line[n++] = '\n';
  bool ok = support::write_all(fd, std::string_view(line, static_cast<size_t>(n)));
  int err = errno;
  ::close(fd);
  if (!ok) {
    return fail(FailureKind::io, "cannot write '" + path + "': " + std::strerror(err));
  }
  return Unit{};
}

Result<BuildStatsLog> read_build_stats(const std::string& path) {
  BuildStatsLog log;
  std::string text;
  std::string error;
  if (!support::read_file(path, text, error)) {
    if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) {
      return log;
    }
    return fail(FailureKind::io, error);
  }
  if (text.empty()) {
    return log;
  }
  if (text.compare(0, k_version_line.size(), k_version_line) != 0) {
    return fail(FailureKind::corrupt, "build statistics log '" + path +
                                          "' has an unknown version line (expected '" +
                                          std::string(k_version_line.substr(0, 24)) + "')");
  }
  std::string_view rest = std::string_view(text).substr(k_version_line.size());
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    BuildStats s;
    if (nl != std::string_view::npos && parse_record(line, s)) {
      log.records.push_back(s);
    } else if (!line.empty()) {
      ++log.malformed_lines;
    }
  }
  return log;
}

BuildStats sum_build_stats(const std::vector<BuildStats>& records, size_t recent) {
  BuildStats sum;
  size_t first = recent == 0 || recent >= records.size() ? 0 : records.size() - recent;
  for (size_t i = first; i < records.size(); ++i) {
    sum.time = records[i].time;
    sum.hits += records[i].hits;
    sum.misses += records[i].misses;
    sum.compile_ms += records[i].compile_ms;
    sum.saved_ms += records[i].saved_ms;
    const BuildStats& r = records[i];
    sum.remote = sum.remote || r.remote;
    sum.remote_hits += r.remote_hits;
    sum.remote_misses += r.remote_misses;
    sum.remote_errors += r.remote_errors;
    sum.remote_corrupt += r.remote_corrupt;
    sum.bytes_down += r.bytes_down;
    sum.bytes_up += r.bytes_up;
    sum.remote_saved_ms += r.remote_saved_ms;
    sum.remote_requests += r.remote_requests;
  }
  return sum;
}

}  // namespace qd::store
