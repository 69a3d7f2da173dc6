// Hot reload (QDRT_OPEN_WATCH, issue 8; docs/runtime.md "Hot reload"): a store opened with the flag
// watches its index file (inotify on its directory, in a background thread; a 100 ms stat poll
// where inotify is unavailable). When a builder publishes a new index, the thread opens it as a
// new generation (a qdrt::Store, lazily) and, per kernel handle the app holds, compares the
// kernel's entries (instances, targets, arguments, task names, kinds, launch metadata and code
// objects; not the module object, which a relink of a neighbour changes): an unchanged kernel
// keeps its Kernel and loaded modules of the older generation; a changed one is switched to the
// new generation's Kernel (its modules loaded first unless the store was opened lazily), so the
// next launch runs the new code.
//
// Handles: with the flag, qdrt_get_kernel returns a WatchedKernel, tagged by the low pointer bit
// (Kernel objects are aligned, so plain handles have it clear). A launch pins the handle (an
// in-flight count), reads the current Kernel and runs on it; a generation a handle leaves is kept
// (retired) until the handle's in-flight count is seen at zero after the switch (seq_cst: a
// launch that pinned later reads the new Kernel), then released, and a generation no handle
// holds any more is destroyed (its modules dlclosed). So launches in flight finish on the old
// code and nothing is dlclosed while in use. Without the flag nothing here runs: a launch pays
// one test of the tag bit.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "store.hpp"

namespace qdrt {

class Watch;

struct WatchedKernel {
  Watch* watch = nullptr;
  std::string id;
  std::atomic<Kernel*> current{nullptr};  // nullptr: not in the current index
  std::atomic<uint32_t> inflight{0};
  std::atomic<uint64_t> launches_before{0};  // launches counted by Kernels it left
  // Under Watch's mutex:
  std::shared_ptr<Store> generation;  // owns `current`
  std::string fingerprint;
  std::vector<std::shared_ptr<Store>> retired;
};

class Watch {
public:
  Watch() = default;
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;
  ~Watch();

  // Before `first` is opened: notes the index file and starts watching its directory.
  Status prepare(const std::string& path);
  // After `first` opened: the first generation (owned by the caller), and the thread.
  void start(Store& first, const OpenOptions& options);

  Status kernel(std::string_view id, WatchedKernel*& out);
  size_t kernel_count();
  const char* kernel_id(size_t i);
  // A copy of `s` that lives as long as the store.
  const char* intern(std::string_view s);
  uint64_t generations() const { return m_generations.load(std::memory_order_relaxed); }

private:
  void loop();
  void check();    // reloads when the index file changed
  void reload();   // opens the new generation and switches changed kernels
  bool reclaim();  // true while some generation is still retired
  static std::map<std::string, std::string, std::less<>> fingerprints(const StoreFile& f);
  bool stat_changed();

  std::string m_path;
  std::string m_index;  // the file that is replaced (DIR/index.qdi or the pack)
  std::string m_dir;
  std::string m_name;
  OpenOptions m_options;
  struct Identity {
    uint64_t dev = 0, ino = 0;
    int64_t size = -1, mtime_ns = 0;
    bool operator==(const Identity&) const = default;
  } m_identity;

  std::mutex m_mutex;
  std::shared_ptr<Store> m_current;
  std::map<std::string, std::string, std::less<>> m_fingerprints;  // of m_current
  std::vector<const char*> m_ids;                                  // of m_current (interned)
  std::map<std::string, std::unique_ptr<WatchedKernel>, std::less<>> m_kernels;
  std::set<std::string, std::less<>> m_interned;
  std::atomic<uint64_t> m_generations{1};

  int m_inotify = -1;
  int m_stop = -1;  // eventfd
  std::thread m_thread;
};

// The Kernel a handle stands for, pinned for the duration of a call.
class Pin {
public:
  explicit Pin(const qdrt_kernel* handle) {
    auto bits = reinterpret_cast<uintptr_t>(handle);
    if ((bits & 1u) == 0) {
      m_kernel = reinterpret_cast<Kernel*>(bits);
      return;
    }
    m_watched = reinterpret_cast<WatchedKernel*>(bits & ~uintptr_t{1});
    m_watched->inflight.fetch_add(1, std::memory_order_seq_cst);
    m_kernel = m_watched->current.load(std::memory_order_seq_cst);
  }
  ~Pin() {
    if (m_watched != nullptr) {
      m_watched->inflight.fetch_sub(1, std::memory_order_seq_cst);
    }
  }
  Pin(const Pin&) = delete;
  Pin& operator=(const Pin&) = delete;

  Kernel* kernel() const { return m_kernel; }  // nullptr: left the index (watched handles)
  WatchedKernel* watched() const { return m_watched; }

private:
  Kernel* m_kernel = nullptr;
  WatchedKernel* m_watched = nullptr;
};

inline qdrt_kernel* watched_handle(WatchedKernel* k) {
  return reinterpret_cast<qdrt_kernel*>(reinterpret_cast<uintptr_t>(k) | 1u);
}

}  // namespace qdrt
