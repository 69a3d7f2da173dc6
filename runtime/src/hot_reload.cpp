#include "hot_reload.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

namespace qdrt {

namespace {

constexpr int k_poll_ms = 100;    // stat poll without inotify
constexpr int k_reclaim_ms = 20;  // retry releasing retired generations

void put(std::string& out, std::string_view s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
}

void put(std::string& out, uint64_t v) {
  out += std::to_string(v);
  out += ',';
}

}  // namespace

Watch::~Watch() {
  if (m_thread.joinable()) {
    uint64_t one = 1;
    (void)!::write(m_stop, &one, sizeof one);
    m_thread.join();
  }
  if (m_inotify >= 0) {
    ::close(m_inotify);
  }
  if (m_stop >= 0) {
    ::close(m_stop);
  }
  // Handles die with the store: release every generation (the first is the caller's).
  m_kernels.clear();
  m_current.reset();
}

bool Watch::stat_changed() {
  struct stat st{};
  Identity now;
  if (::stat(m_index.c_str(), &st) == 0) {
    now = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
           static_cast<int64_t>(st.st_size),
           static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
  }
  if (now == m_identity) {
    return false;
  }
  m_identity = now;
  return now.size >= 0;  // a missing index (a store being recreated): wait for the next one
}

Status Watch::prepare(const std::string& path) {
  m_path = path;
  struct stat st{};
  bool dir = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  m_index = dir ? path + "/index.qdi" : path;
  size_t slash = m_index.rfind('/');
  m_dir = slash == std::string::npos ? "." : slash == 0 ? "/" : m_index.substr(0, slash);
  m_name = slash == std::string::npos ? m_index : m_index.substr(slash + 1);
  m_stop = ::eventfd(0, EFD_CLOEXEC);
  if (m_stop < 0) {
    return Status::error(QDRT_ERROR_INTERNAL,
                         std::string("QDRT_OPEN_WATCH: eventfd failed: ") + std::strerror(errno));
  }
  m_inotify = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (m_inotify >= 0 &&
      ::inotify_add_watch(m_inotify, m_dir.c_str(),
                          IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE | IN_ONLYDIR) < 0) {
    ::close(m_inotify);
    m_inotify = -1;
  }
  if (m_inotify < 0) {
    log_debug("hot reload: inotify unavailable for '%s' (%s); polling every %d ms", m_dir.c_str(),
              std::strerror(errno), k_poll_ms);
  }
  stat_changed();  // the identity before the first open: a publish after it is seen
  return {};
}

std::map<std::string, std::string, std::less<>> Watch::fingerprints(const StoreFile& f) {
  std::map<std::string, std::string, std::less<>> out;
  for (uint32_t e = 0; e < f.entry_count(); ++e) {
    qdrt_index_entry entry = f.entry(e);
    std::string& fp = out[std::string(f.blob(entry.kernel_id))];
    put(fp, f.blob(entry.instance));
    put(fp, f.blob(entry.target));
    for (uint32_t a = 0; a < entry.argument_count; ++a) {
      qdrt_index_argument arg = f.argument(entry.first_argument + a);
      put(fp, f.blob(arg.name));
      put(fp, arg.kind);
      put(fp, arg.dtype);
      put(fp, arg.ndim);
      put(fp, arg.element_rank);
      for (uint32_t d : arg.element_shape) {
        put(fp, d);
      }
    }
    for (uint32_t t = 0; t < entry.task_count; ++t) {
      qdrt_index_task task = f.task(entry.first_task + t);
      put(fp, f.blob(task.name));
      put(fp, f.blob(task.launch_metadata));
      put(fp, task.kind);
      put(fp,
          task.code_object == QDRT_NO_OBJECT ? std::string("-") : f.object_hex(task.code_object));
    }
    fp += ';';
  }
  return out;
}

void Watch::start(Store& first, const OpenOptions& options) {
  m_options = options;
  std::lock_guard<std::mutex> lock(m_mutex);
  m_current = std::shared_ptr<Store>(&first, [](Store*) {});  // owned by qdrt_store
  m_fingerprints = fingerprints(first.file());
  for (const std::string& id : first.kernel_ids()) {
    m_ids.push_back(m_interned.emplace(id).first->c_str());
  }
  m_thread = std::thread([this] { loop(); });
}

const char* Watch::intern(std::string_view s) {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_interned.emplace(s).first->c_str();
}

size_t Watch::kernel_count() {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_ids.size();
}

const char* Watch::kernel_id(size_t i) {
  std::lock_guard<std::mutex> lock(m_mutex);
  return i < m_ids.size() ? m_ids[i] : nullptr;
}

Status Watch::kernel(std::string_view id, WatchedKernel*& out) {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_kernels.find(id);
  if (it != m_kernels.end()) {
    out = it->second.get();
    return {};
  }
  Kernel* k = nullptr;
  if (Status s = m_current->kernel(id, k); !s.ok()) {
    return s;  // not found, with a did-you-mean over the current index
  }
  auto w = std::make_unique<WatchedKernel>();
  w->watch = this;
  w->id = std::string(id);
  w->generation = m_current;
  auto fp = m_fingerprints.find(id);
  w->fingerprint = fp == m_fingerprints.end() ? "" : fp->second;
  w->current.store(k, std::memory_order_seq_cst);
  out = w.get();
  m_kernels.emplace(w->id, std::move(w));
  return {};
}

void Watch::reload() {
  auto gen = std::make_shared<Store>();
  OpenOptions lazy = m_options;
  lazy.lazy = true;  // only the changed kernels' modules are loaded (below)
  if (Status s = gen->open(m_path, lazy); !s.ok()) {
    log_warning("hot reload: cannot open the new index of '" + m_path + "' (" + s.message +
                "); the loaded kernels stay as they are");
    return;
  }
  auto fps = fingerprints(gen->file());
  size_t switched = 0;
  std::lock_guard<std::mutex> lock(m_mutex);
  for (auto& [id, w] : m_kernels) {
    auto fp = fps.find(id);
    Kernel* old = w->current.load(std::memory_order_relaxed);
    if (fp != fps.end() && old != nullptr && fp->second == w->fingerprint) {
      continue;  // unchanged: keeps its Kernel and modules
    }
    Kernel* k = nullptr;
    if (fp != fps.end()) {
      if (Status s = gen->kernel(id, k); !s.ok()) {
        log_warning("hot reload: kernel '" + id + "': " + s.message + "; keeping the old code");
        continue;
      }
      bool loaded = true;
      for (auto* list : {&k->instances, &k->wholes}) {
        for (auto& inst : *list) {
          if (Status s = m_options.lazy ? Status{} : gen->ensure_loaded(*inst); !s.ok()) {
            log_warning("hot reload: kernel '" + id + "': " + s.message + "; keeping the old code");
            loaded = false;
          }
        }
      }
      if (!loaded) {
        continue;
      }
    }
    if (old != nullptr) {
      w->launches_before.fetch_add(old->launches.load(std::memory_order_relaxed),
                                   std::memory_order_relaxed);
    }
    if (w->generation) {
      w->retired.push_back(std::move(w->generation));
    }
    w->generation = k != nullptr ? gen : nullptr;
    w->fingerprint = fp != fps.end() ? fp->second : "";
    w->current.store(k, std::memory_order_seq_cst);
    ++switched;
  }
  m_current = gen;
  m_fingerprints = std::move(fps);
  m_ids.clear();
  for (const std::string& id : gen->kernel_ids()) {
    m_ids.push_back(m_interned.emplace(id).first->c_str());
  }
  m_generations.fetch_add(1, std::memory_order_relaxed);
  log_debug("hot reload: new index of '%s': %zu kernel handles switched", m_path.c_str(), switched);
}

bool Watch::reclaim() {
  std::lock_guard<std::mutex> lock(m_mutex);
  bool left = false;
  for (auto& [id, w] : m_kernels) {
    if (w->retired.empty()) {
      continue;
    }
    // seq_cst with Pin: a launch that pins after this load reads the new Kernel.
    if (w->inflight.load(std::memory_order_seq_cst) == 0) {
      w->retired.clear();  // the last holder of a generation destroys it (dlclose)
    } else {
      left = true;
    }
  }
  return left;
}

void Watch::check() {
  if (stat_changed()) {
    reload();
  }
}

void Watch::loop() {
  bool retired = false;
  while (true) {
    int timeout = m_inotify < 0 ? k_poll_ms : -1;
    if (retired) {
      timeout = timeout < 0 ? k_reclaim_ms : std::min(timeout, k_reclaim_ms);
    }
    pollfd fds[2] = {{m_stop, POLLIN, 0}, {m_inotify, POLLIN, 0}};
    int n = ::poll(fds, m_inotify >= 0 ? 2 : 1, timeout);
    if (n < 0 && errno != EINTR) {
      log_warning(std::string("hot reload: poll failed: ") + std::strerror(errno));
      return;
    }
    if ((fds[0].revents & POLLIN) != 0) {
      return;
    }
    bool relevant = m_inotify < 0;
    if (m_inotify >= 0 && (fds[1].revents & POLLIN) != 0) {
      alignas(inotify_event) char buf[8192];
      ssize_t got = 0;
      while ((got = ::read(m_inotify, buf, sizeof buf)) > 0) {
        for (char* p = buf; p < buf + got;) {
          const auto* ev = reinterpret_cast<const inotify_event*>(p);
          p += sizeof(inotify_event) + ev->len;
          if ((ev->mask & IN_Q_OVERFLOW) != 0 ||
              (ev->len > 0 && std::string_view(ev->name) == m_name)) {
            relevant = true;
          }
        }
      }
    }
    if (relevant) {
      check();
    }
    retired = reclaim();
  }
}

}  // namespace qdrt
