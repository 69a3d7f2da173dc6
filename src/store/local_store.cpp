#include "store/local_store.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/atomic_file.hpp"
#include "support/file_io.hpp"

namespace qd::store {

namespace {

std::string errno_text(const char* verb, const std::string& path, int err) {
  return std::string("cannot ") + verb + " '" + path + "': " + std::strerror(err);
}

Result<Unit> make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return fail(FailureKind::io, errno_text("create directory", path, errno));
  }
  return Unit{};
}

// Reads a file whole; not_found when it does not exist.
Result<std::string> read_whole(const std::string& path) {
  std::string bytes;
  std::string error;
  if (!support::read_file(path, bytes, error)) {
    struct stat st{};
    bool missing = ::stat(path.c_str(), &st) != 0 && errno == ENOENT;
    return fail(missing ? FailureKind::not_found : FailureKind::io, error);
  }
  return bytes;
}

// An exclusive flock() on the store's lock file for the lifetime of the object.
class IndexLock {
public:
  Result<Unit> acquire(const std::string& path) {
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0) {
      return fail(FailureKind::io, errno_text("open lock file", path, errno));
    }
    while (::flock(m_fd, LOCK_EX) != 0) {
      if (errno != EINTR) {
        return fail(FailureKind::io, errno_text("lock", path, errno));
      }
    }
    return Unit{};
  }
  ~IndexLock() {
    if (m_fd >= 0) {
      ::close(m_fd);  // releases the lock
    }
  }

private:
  int m_fd = -1;
};

bool is_hex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

}  // namespace

LocalStore::LocalStore(std::string root, int level) : m_root(std::move(root)), m_level(level) {
  while (m_root.size() > 1 && m_root.back() == '/') {
    m_root.pop_back();
  }
}

LocalStore::~LocalStore() = default;

std::string LocalStore::object_path(const ObjectId& id) const {
  return objects_dir() + "/" + id.relative_path();
}

void LocalStore::set_warning_handler(std::function<void(const std::string&)> handler) {
  m_warn = std::move(handler);
}

void LocalStore::warn(const std::string& message) const {
  if (m_warn) {
    m_warn(message);
  } else {
    std::fprintf(stderr, "qdbuild: warning: %s\n", message.c_str());
  }
}

Result<Unit> LocalStore::create() {
  // The directories above it too (the default store is build/qdstore).
  for (size_t slash = m_root.find('/', 1); slash != std::string::npos;
       slash = m_root.find('/', slash + 1)) {
    if (auto r = make_dir(m_root.substr(0, slash)); !r) {
      return r;
    }
  }
  if (auto r = make_dir(m_root); !r) {
    return r;
  }
  // The cache directory tag (https://bford.info/cachedir/): backup tools skip the store, and so
  // do qdbuild's own source walks and watches (sema::SourceFilter). Written once.
  std::string tag = m_root + "/CACHEDIR.TAG";
  struct stat st{};
  if (::stat(tag.c_str(), &st) != 0) {
    std::string error;
    if (!support::write_file_atomic(tag, k_cachedir_tag, error, false)) {
      return fail(FailureKind::io, error);
    }
  }
  return make_dir(objects_dir());
}

Result<std::string> LocalStore::get_file(const ObjectId& id) {
  Result<std::string> bytes = read_whole(object_path(id));
  if (!bytes && bytes.failure().kind == FailureKind::not_found) {
    return fail(FailureKind::not_found, "object '" + object_path(id) + "' is not in the store");
  }
  return bytes;
}

Result<std::string> LocalStore::get(const ObjectId& id) {
  Result<std::string> bytes = get_file(id);
  if (!bytes) {
    return bytes;
  }
  return decode_object(*bytes, object_path(id));
}

Result<ObjectHeaderInfo> LocalStore::get_header(const ObjectId& id) {
  std::string path = object_path(id);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return fail(err == ENOENT ? FailureKind::not_found : FailureKind::io,
                errno_text("read", path, err));
  }
  struct stat st{};
  char buf[sizeof(qdrt_object_header) + QDRT_OBJECT_MAX_VERSION_SIZE];
  ssize_t n = ::fstat(fd, &st) == 0 ? ::pread(fd, buf, sizeof buf, 0) : -1;
  int err = errno;
  ::close(fd);
  if (n < 0) {
    return fail(FailureKind::io, errno_text("read", path, err));
  }
  return parse_object_header_prefix(std::string_view(buf, static_cast<size_t>(n)),
                                    static_cast<uint64_t>(st.st_size), path);
}

Result<ObjectId> LocalStore::put(std::string_view raw) {
  ObjectId id = sha256(raw);
  std::string path = object_path(id);
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0) {
    Result<std::string> existing = get(id);
    if (existing) {
      // Refresh its time so a concurrent gc's grace period protects it until it is indexed.
      ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
      return id;
    }
    warn("replacing damaged object: " + existing.error());
  }
  if (auto r = create(); !r) {
    return r.failure();
  }
  std::string dir = objects_dir() + "/" + id.hex().substr(0, 2);
  if (auto r = make_dir(dir); !r) {
    return r.failure();
  }
  std::string encoded = encode_object(raw, m_level);
  std::string error;
  if (!support::write_file_atomic(path, encoded, error, !m_deferred)) {
    return fail(FailureKind::io, error);
  }
  if (m_deferred) {
    note_unsynced();
  }
  return id;
}

Result<Unit> LocalStore::sync_deferred() {
  if (!m_unsynced.exchange(false)) {
    return Unit{};
  }
  int fd = ::open(m_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    m_unsynced = true;
    return fail(FailureKind::io, errno_text("open", m_root, errno));
  }
  int rc = ::syncfs(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) {
    m_unsynced = true;
    return fail(FailureKind::io, errno_text("sync the filesystem of", m_root, err));
  }
  return Unit{};
}

Result<bool> LocalStore::remove(const ObjectId& id) {
  std::string path = object_path(id);
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT) {
      return false;
    }
    return fail(FailureKind::io, errno_text("remove", path, errno));
  }
  return true;
}

Result<std::vector<ObjectInfo>> LocalStore::list_objects() {
  std::vector<ObjectInfo> out;
  m_strays.clear();
  m_temps = 0;
  std::string dir = objects_dir();
  DIR* top = ::opendir(dir.c_str());
  if (top == nullptr) {
    if (errno == ENOENT) {
      return out;
    }
    return fail(FailureKind::io, errno_text("list", dir, errno));
  }
  std::vector<std::string> subdirs;
  while (dirent* e = ::readdir(top)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") {
      continue;
    }
    if (name.size() == 2 && is_hex(name)) {
      subdirs.push_back(name);
    } else {
      m_strays.push_back(dir + "/" + name);
    }
  }
  ::closedir(top);
  for (const std::string& sub : subdirs) {
    std::string subdir = dir + "/" + sub;
    DIR* d = ::opendir(subdir.c_str());
    if (d == nullptr) {
      m_strays.push_back(subdir);
      continue;
    }
    while (dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name == "." || name == "..") {
        continue;
      }
      std::string path = subdir + "/" + std::string(name);
      if (support::temp_file_pid(name)) {
        ++m_temps;
        continue;
      }
      std::optional<ObjectId> id;
      if (name.size() == 62 + 4 && name.substr(62) == ".qdo") {
        id = ObjectId::from_hex(sub + std::string(name.substr(0, 62)));
      }
      struct stat st{};
      if (!id || !is_hex(name.substr(0, 62)) || ::lstat(path.c_str(), &st) != 0 ||
          !S_ISREG(st.st_mode)) {
        m_strays.push_back(path);
        continue;
      }
      out.push_back({*id, static_cast<uint64_t>(st.st_size), static_cast<int64_t>(st.st_mtime)});
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.id < b.id; });
  return out;
}

void LocalStore::reload_index() {
  m_index.reset();
  m_index_file.close();
  m_index_loaded = false;
}

Result<const IndexView*> LocalStore::index() {
  if (m_index_loaded) {
    return static_cast<const IndexView*>(m_index.get());
  }
  std::string path = index_path();
  std::string error;
  if (!m_index_file.open(path, error)) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
      m_index_loaded = true;
      return static_cast<const IndexView*>(nullptr);
    }
    return fail(FailureKind::io, error);
  }
  Result<IndexView> view = IndexView::open(m_index_file.bytes(), path);
  if (!view) {
    m_index_file.close();
    return view.failure();
  }
  m_index = std::make_unique<IndexView>(*view);
  m_index_loaded = true;
  return static_cast<const IndexView*>(m_index.get());
}

Result<std::vector<Entry>> LocalStore::read_entries_locked(bool replace_damaged) {
  std::string path = index_path();
  Result<std::string> bytes = read_whole(path);
  if (!bytes) {
    if (bytes.failure().kind == FailureKind::not_found) {
      return std::vector<Entry>{};
    }
    return bytes.failure();
  }
  Result<IndexView> view = IndexView::open(*bytes, path);
  if (!view) {
    if (!replace_damaged) {
      return view.failure();
    }
    warn(view.error() + "; replacing it (entries it held will be rebuilt)");
    return std::vector<Entry>{};
  }
  return view->all_entries();
}

Result<Unit> LocalStore::update_index(const IndexUpdate& update, bool replace_damaged,
                                      const std::function<void()>& after_write) {
  if (auto r = create(); !r) {
    return r;
  }
  // Objects and task records written without fsync become durable before an index can
  // reference them.
  if (auto r = sync_deferred(); !r) {
    return r;
  }
  IndexLock lock;
  if (auto r = lock.acquire(lock_path()); !r) {
    return r;
  }
  Result<std::vector<Entry>> current = read_entries_locked(replace_damaged);
  if (!current) {
    return current.failure();
  }
  Result<std::vector<Entry>> next = update(std::move(*current));
  if (!next) {
    return next.failure();
  }
  Result<std::string> bytes = write_index(*next, static_cast<int64_t>(::time(nullptr)));
  if (!bytes) {
    return bytes.failure();
  }
  std::string error;
  if (!support::write_file_atomic(index_path(), *bytes, error)) {
    return fail(FailureKind::io, error);
  }
  if (after_write) {
    after_write();
  }
  // Temps of index writers that died (objects' temps are cleaned by gc).
  support::remove_stale_temps(m_root, std::chrono::hours(1));
  reload_index();
  return Unit{};
}

Result<Unit> LocalStore::publish(std::vector<Entry> entries) {
  int64_t now = static_cast<int64_t>(::time(nullptr));
  for (Entry& e : entries) {
    if (e.record.last_used == 0) {
      e.record.last_used = now;
    }
  }
  return update_index([&](std::vector<Entry> current) -> Result<std::vector<Entry>> {
    // Checked under the lock: gc removes objects only while holding it.
    for (const Entry& e : entries) {
      for (const ObjectId& id : referenced_objects(e)) {
        struct stat st{};
        if (::stat(object_path(id).c_str(), &st) != 0) {
          return fail(FailureKind::not_found, "cannot publish kernel '" + e.key.kernel_id +
                                                  "': its object '" + object_path(id) +
                                                  "' is not in the store (removed by gc?)");
        }
      }
    }
    return merge_entries(std::move(current), std::move(entries));
  });
}

}  // namespace qd::store
