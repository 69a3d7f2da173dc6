#include "store/task_cache.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <dirent.h>
#include <sys/stat.h>

#include "store/local_store.hpp"
#include "support/atomic_file.hpp"
#include "support/file_io.hpp"

namespace qd::store {

namespace {

constexpr std::string_view k_prefix = "qdbuild task v1 ";
constexpr std::string_view k_suffix = ".qdt";

bool is_lower_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Result<Unit> make_cache_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return fail(FailureKind::io, "cannot create directory '" + path + "': " + std::strerror(errno));
  }
  return Unit{};
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    return names;
  }
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") {
      names.push_back(std::move(name));
    }
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

bool is_task_key(std::string_view key) { return key.size() == 64 && is_lower_hex(key); }

std::optional<TaskRecord> parse_task_record(std::string_view bytes) {
  if (!bytes.starts_with(k_prefix) || !bytes.ends_with("\n")) {
    return std::nullopt;
  }
  std::string_view rest = bytes.substr(k_prefix.size(), bytes.size() - k_prefix.size() - 1);
  size_t space = rest.find(' ');
  if (space != 64) {
    return std::nullopt;
  }
  std::string_view hex = rest.substr(0, 64);
  std::string_view ms = rest.substr(65);
  if (!is_lower_hex(hex) || ms.empty()) {
    return std::nullopt;
  }
  TaskRecord r;
  std::optional<ObjectId> id = ObjectId::from_hex(hex);
  if (!id) {
    return std::nullopt;
  }
  r.object = *id;
  auto [end, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), r.compile_ms);
  if (ec != std::errc() || end != ms.data() + ms.size()) {
    return std::nullopt;
  }
  return r;
}

std::string format_task_record(const TaskRecord& record) {
  return std::string(k_prefix) + record.object.hex() + " " + std::to_string(record.compile_ms) +
         "\n";
}

TaskCache::TaskCache(LocalStore& store) : m_store(store) {}

std::string TaskCache::tasks_dir() const { return m_store.root() + "/tasks"; }

std::string TaskCache::record_path(std::string_view key) const {
  return tasks_dir() + "/" + std::string(key.substr(0, 2)) + "/" + std::string(key.substr(2)) +
         std::string(k_suffix);
}

std::optional<TaskRecord> TaskCache::lookup(std::string_view key) const {
  if (!is_task_key(key)) {
    return std::nullopt;
  }
  std::string bytes;
  std::string error;
  if (!support::read_file(record_path(key), bytes, error)) {
    return std::nullopt;
  }
  std::optional<TaskRecord> r = parse_task_record(bytes);
  if (!r) {
    return std::nullopt;
  }
  // The object must be there and intact (a crash during a build with deferred durability can
  // leave a record whose object never reached the disk): anything else is a miss.
  struct stat st{};
  if (::stat(m_store.object_path(r->object).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  if (!m_store.get_header(r->object)) {
    return std::nullopt;
  }
  return r;
}

Result<Unit> TaskCache::insert(std::string_view key, const TaskRecord& record) {
  if (!is_task_key(key)) {
    return fail(FailureKind::invalid, "'" + std::string(key) + "' is not a task key");
  }
  if (auto r = make_cache_dir(tasks_dir()); !r) {
    return r;
  }
  if (auto r = make_cache_dir(tasks_dir() + "/" + std::string(key.substr(0, 2))); !r) {
    return r;
  }
  std::string error;
  if (!support::write_file_atomic(record_path(key), format_task_record(record), error,
                                  !m_store.deferred_sync())) {
    return fail(FailureKind::io, error);
  }
  if (m_store.deferred_sync()) {
    m_store.note_unsynced();
  }
  return Unit{};
}

std::vector<TaskCache::Listed> TaskCache::list() const {
  std::vector<Listed> out;
  for (const std::string& sub : list_dir(tasks_dir())) {
    if (sub.size() != 2 || !is_lower_hex(sub)) {
      continue;
    }
    std::string dir = tasks_dir() + "/" + sub;
    for (const std::string& name : list_dir(dir)) {
      if (!name.ends_with(k_suffix)) {
        continue;
      }
      std::string key = sub + name.substr(0, name.size() - k_suffix.size());
      if (!is_task_key(key)) {
        continue;
      }
      Listed l;
      l.path = dir + "/" + name;
      l.key = key;
      std::string bytes;
      std::string error;
      if (support::read_file(l.path, bytes, error)) {
        l.record = parse_task_record(bytes);
      }
      out.push_back(std::move(l));
    }
  }
  return out;
}

}  // namespace qd::store
