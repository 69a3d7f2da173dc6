#include "build/watcher.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/file_io.hpp"

namespace qd::build {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint32_t k_dir_mask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                IN_CLOSE_WRITE | IN_MODIFY | IN_DELETE_SELF | IN_MOVE_SELF |
                                IN_ONLYDIR | IN_EXCL_UNLINK;

bool is_config_name(std::string_view name) {
  return name == "qdbuild.toml" || name == "pyproject.toml";
}

std::string join(const std::string& dir, std::string_view name) {
  if (dir.empty() || dir == ".") {
    return std::string(name);
  }
  return dir.back() == '/' ? dir + std::string(name) : dir + "/" + std::string(name);
}

bool exists(const std::string& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string limit_message(const std::string& path, size_t watching) {
  std::string now = inotify_setting("max_user_watches");
  return "cannot watch '" + path + "': the inotify watch limit is reached (fs.inotify." +
         "max_user_watches = " + (now.empty() ? "?" : now) + "; this tree needs more than " +
         std::to_string(watching) + " watches, one per directory). Raise it, e.g. `sudo sysctl " +
         "fs.inotify.max_user_watches=524288` (add it to /etc/sysctl.d/ to keep it)";
}

}  // namespace

std::string inotify_setting(const char* name) {
  std::string text;
  std::string error;
  if (!support::read_file(std::string("/proc/sys/fs/inotify/") + name, text, error)) {
    return "";
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

Watcher::~Watcher() {
  if (m_fd >= 0) {
    ::close(m_fd);
  }
}

bool Watcher::add_dir(const std::string& path, const Dir& what, std::string& error) {
  if (m_limit != 0 && m_dirs.size() >= m_limit) {
    error = limit_message(path, m_dirs.size());
    return false;
  }
  int wd = ::inotify_add_watch(m_fd, path.c_str(), k_dir_mask);
  if (wd < 0) {
    if (errno == ENOSPC) {
      error = limit_message(path, m_dirs.size());
      return false;
    }
    if (errno == ENOENT || errno == ENOTDIR) {
      return true;  // gone already: its parent's event says so
    }
    error = "cannot watch '" + path + "': " + std::strerror(errno);
    return false;
  }
  auto [it, fresh] = m_dirs.try_emplace(wd);
  Dir& d = it->second;
  if (fresh) {
    d.path = path;
    m_wd_of[path] = wd;
  }
  // The same directory may be reached twice (the source root is a config directory too).
  d.recursive = d.recursive || what.recursive;
  d.configs = d.configs || what.configs;
  d.files.insert(what.files.begin(), what.files.end());
  return true;
}

bool Watcher::add_tree(const std::string& path, WatchBatch* found, std::string& error) {
  Dir tree;
  tree.recursive = true;
  if (!add_dir(path, tree, error)) {
    return false;
  }
  std::error_code ec;
  std::vector<std::string> subdirs;
  for (fs::directory_iterator it(path, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::error_code tec;
    if (it->is_symlink(tec)) {
      continue;  // directory symlinks are not followed (find_sources)
    }
    if (it->is_directory(tec)) {
      if (!m_filter.skip_dir(join(path, name))) {
        subdirs.push_back(join(path, name));
      }
    } else if (found != nullptr && name.ends_with(".py") && !m_filter.skip_file(join(path, name))) {
      found->changed.insert(join(path, name));
    }
  }
  std::sort(subdirs.begin(), subdirs.end());
  for (const std::string& sub : subdirs) {
    if (!add_tree(sub, found, error)) {
      return false;
    }
  }
  return true;
}

bool Watcher::start(const std::vector<std::string>& paths, std::string& error,
                    const std::vector<std::string>& excluded) {
  m_excluded = excluded;
  m_filter = sema::SourceFilter(m_excluded);
  if (const char* env = std::getenv("QDBUILD_WATCH_LIMIT"); env != nullptr && *env != '\0') {
    m_limit = static_cast<size_t>(std::strtoull(env, nullptr, 10));
  }
  m_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (m_fd < 0) {
    if (errno == EMFILE) {
      std::string now = inotify_setting("max_user_instances");
      error = "cannot watch: the inotify instance limit is reached (fs.inotify.max_user_instances"
              " = " +
              (now.empty() ? std::string("?") : now) +
              "). Raise it, e.g. `sudo sysctl fs.inotify.max_user_instances=1024`";
    } else {
      error = std::string("cannot watch: inotify_init1 failed: ") + std::strerror(errno);
    }
    return false;
  }
  for (const std::string& p : paths) {
    struct stat st{};
    if (::stat(p.c_str(), &st) != 0) {
      error = "cannot watch '" + p + "': " + std::strerror(errno);
      return false;
    }
    if (S_ISDIR(st.st_mode)) {
      if (!add_tree(p, nullptr, error)) {
        return false;
      }
    } else {
      fs::path f(p);
      std::string dir = f.parent_path().string();
      Dir file;
      file.files.insert(f.filename().string());
      if (!add_dir(dir.empty() ? "." : dir, file, error)) {
        return false;
      }
    }
  }
  // Config candidates: the source root and every directory above it (input_stamp.cpp).
  if (!paths.empty()) {
    std::error_code ec;
    fs::path root = paths[0];
    if (!fs::is_directory(root, ec)) {
      root = root.parent_path().empty() ? fs::path(".") : root.parent_path();
    }
    fs::path dir = fs::absolute(root, ec).lexically_normal();
    if (!dir.empty() && dir.filename().empty()) {
      dir = dir.parent_path();  // "/a/b/" -> "/a/b"
    }
    Dir configs;
    configs.configs = true;
    while (!ec) {
      if (!add_dir(dir.string(), configs, error)) {
        return false;
      }
      if (!dir.has_parent_path() || dir.parent_path() == dir) {
        break;
      }
      dir = dir.parent_path();
    }
  }
  return true;
}

bool Watcher::drain(WatchBatch& out, bool& burst, bool& relevant, std::string& error) {
  alignas(inotify_event) char buf[64 * 1024];
  while (true) {
    ssize_t n = ::read(m_fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EAGAIN) {
        return true;
      }
      error = std::string("reading inotify events failed: ") + std::strerror(errno);
      return false;
    }
    for (char* p = buf; p < buf + n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(p);
      p += sizeof(inotify_event) + ev->len;
      if ((ev->mask & IN_Q_OVERFLOW) != 0) {
        out.rescan = true;
        burst = relevant = true;
        continue;
      }
      auto it = m_dirs.find(ev->wd);
      if (it == m_dirs.end()) {
        continue;
      }
      if ((ev->mask & IN_IGNORED) != 0) {
        m_wd_of.erase(it->second.path);
        m_dirs.erase(it);
        continue;
      }
      const Dir& d = it->second;
      if ((ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) != 0) {
        if (d.recursive) {
          out.changed.insert(d.path);
          burst = relevant = true;
        }
        continue;
      }
      std::string_view name(ev->len > 0 ? ev->name : "");
      name = name.substr(0, name.find('\0'));
      if (name.empty()) {
        continue;
      }
      std::string full = join(d.path, name);
      if ((ev->mask & IN_ISDIR) != 0) {
        if (!d.recursive || m_filter.skip_dir(full)) {
          continue;
        }
        burst = relevant = true;
        out.changed.insert(full);
        if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) != 0) {
          if (!add_tree(full, &out, error)) {
            return false;
          }
        } else if ((ev->mask & IN_MOVED_FROM) != 0) {
          // The watches follow the inode: drop the moved tree's (its new name is added by the
          // moved-to event, if it stays under a watched tree).
          std::string prefix = full + "/";
          for (auto w = m_dirs.begin(); w != m_dirs.end();) {
            if (w->second.path == full || w->second.path.starts_with(prefix)) {
              ::inotify_rm_watch(m_fd, w->first);
              m_wd_of.erase(w->second.path);
              w = m_dirs.erase(w);
            } else {
              ++w;
            }
          }
        }
        continue;
      }
      bool config = d.configs && is_config_name(name);
      if (d.recursive && name == ".gitignore") {
        // Which sources exist may have changed: read the rules again, build again.
        m_filter = sema::SourceFilter(m_excluded);
        config = true;
      }
      // A file named on the command line (a source, a recorded run) counts whatever its name.
      bool source = (d.recursive && name.ends_with(".py") && !m_filter.skip_file(full)) ||
                    d.files.count(std::string(name)) != 0;
      if (!config && !source) {
        continue;
      }
      relevant = true;
      if (config) {
        out.config = true;
        burst = true;
      }
      out.changed.insert(full);
      if ((ev->mask & (IN_MODIFY | IN_CREATE)) != 0) {
        m_open_for_write.insert(full);
      } else {
        m_open_for_write.erase(full);  // closed, moved or deleted
      }
      if (out.changed.size() > 1) {
        burst = true;
      }
    }
  }
}

Watcher::Wait Watcher::wait(WatchBatch& out, int stop_fd, std::string& error) {
  out = WatchBatch();
  bool started = false;
  bool burst = false;
  Clock::time_point first;
  Clock::time_point last;
  while (true) {
    int timeout = -1;
    if (started) {
      auto quiet = burst ? k_quiet_burst : k_quiet_single;
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(last + quiet - Clock::now());
      timeout = static_cast<int>(std::max<int64_t>(left.count(), 0));
      if (left.count() <= 0) {
        // Quiet: done, unless a file written to is still open (then wait for its close).
        bool pending = !m_open_for_write.empty() && Clock::now() - first < k_pending_max;
        if (!pending) {
          for (const std::string& p : out.changed) {
            if (!exists(p)) {
              out.deleted.insert(p);
            }
          }
          m_open_for_write.clear();
          return Wait::batch;
        }
        timeout = static_cast<int>(k_quiet_single.count());
      }
    }
    pollfd fds[2] = {{m_fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    int n = ::poll(fds, stop_fd >= 0 ? 2 : 1, timeout);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      error = std::string("poll failed: ") + std::strerror(errno);
      return Wait::error;
    }
    if (stop_fd >= 0 && (fds[1].revents & POLLIN) != 0) {
      return Wait::stopped;
    }
    if ((fds[0].revents & POLLIN) != 0) {
      bool relevant = false;
      if (!drain(out, burst, relevant, error)) {
        return Wait::error;
      }
      if (relevant) {
        last = Clock::now();
        if (!started) {
          first = last;
          started = true;
        }
      }
    }
  }
}

}  // namespace qd::build
