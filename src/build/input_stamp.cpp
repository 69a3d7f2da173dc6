#include "build/input_stamp.hpp"

#include <cstdio>
#include <ctime>
#include <filesystem>

#include <sys/stat.h>

#include "sema/source_tree.hpp"
#include "store/hashing.hpp"
#include "support/file_io.hpp"

namespace qd::build {

namespace fs = std::filesystem;

namespace {

int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::vector<ConfigStamp> config_candidates(const std::vector<std::string>& paths) {
  std::vector<ConfigStamp> out;
  if (paths.empty()) {
    return out;
  }
  std::error_code ec;
  fs::path root = paths[0];
  if (!fs::is_directory(root, ec)) {
    root = root.parent_path();
    if (root.empty()) {
      root = ".";
    }
  }
  fs::path dir = fs::absolute(root, ec).lexically_normal();
  if (ec) {
    return out;
  }
  while (true) {
    for (const char* name : {"qdbuild.toml", "pyproject.toml"}) {
      ConfigStamp c;
      c.path = (dir / name).string();
      c.exists = stat_file(c.path, c.size, c.mtime_ns);
      if (!c.exists) {
        c.size = 0;
        c.mtime_ns = 0;
      }
      out.push_back(std::move(c));
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) {
      break;
    }
    dir = dir.parent_path();
  }
  return out;
}

}  // namespace

bool stat_file(const std::string& path, int64_t& size, int64_t& mtime_ns) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    return false;
  }
  size = static_cast<int64_t>(st.st_size);
  mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return true;
}

std::string content_hash(const std::string& path) {
  std::string bytes;
  std::string error;
  if (!support::read_file(path, bytes, error)) {
    return "";
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(store::xxh3_64(bytes)));
  return buf;
}

InputsRecord take_stamp(const std::vector<std::string>& paths, bool hash_racy,
                        const std::vector<std::string>& extra,
                        const std::vector<std::string>& excluded) {
  InputsRecord r;
  r.stamp_ns = now_ns();
  sema::SourceTree tree = sema::find_sources(paths, "", excluded);
  r.files.reserve(tree.files.size() + extra.size());
  auto add = [&](const std::string& path) {
    FileStamp s;
    s.path = path;
    if (!stat_file(path, s.size, s.mtime_ns)) {
      s.size = -1;
      s.mtime_ns = 0;
    } else if (hash_racy && s.mtime_ns >= r.stamp_ns - k_racy_window_ns) {
      s.hash = content_hash(path);
    }
    r.files.push_back(std::move(s));
  };
  for (const sema::SourceEntry& e : tree.files) {
    add(e.path);
  }
  for (const std::string& path : extra) {
    add(path);
  }
  r.configs = config_candidates(paths);
  return r;
}

bool stamp_up_to_date(const InputsRecord& logged, const std::vector<std::string>& paths,
                      const std::string& index_path, std::string& why,
                      const std::vector<std::string>& extra,
                      const std::vector<std::string>& excluded) {
  int64_t size = 0;
  int64_t mtime = 0;
  if (!stat_file(index_path, size, mtime)) {
    why = "the store has no index";
    return false;
  }
  if (size != logged.index_size || mtime != logged.index_mtime_ns) {
    why = "the store index changed since the last build";
    return false;
  }
  InputsRecord now = take_stamp(paths, false, extra, excluded);
  if (now.files.size() != logged.files.size()) {
    why = "the set of source files changed";
    return false;
  }
  for (size_t i = 0; i < now.files.size(); ++i) {
    const FileStamp& a = now.files[i];
    const FileStamp& b = logged.files[i];
    if (a.path != b.path) {
      why = "the set of source files changed";
      return false;
    }
    if (a.size != b.size || a.mtime_ns != b.mtime_ns) {
      why = "'" + a.path + "' changed";
      return false;
    }
    if (!b.hash.empty() && content_hash(a.path) != b.hash) {
      why = "'" + a.path + "' changed (same mtime)";
      return false;
    }
  }
  if (now.configs != logged.configs) {
    why = "a configuration file changed";
    return false;
  }
  return true;
}

}  // namespace qd::build
