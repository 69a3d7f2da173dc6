#include "store.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace qdrt {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// open_eager's per-thread buffer for decompressed modules (the calling thread releases its own
// at the end of the open).
thread_local std::string t_stage_buffer;

// Launch metadata and argument sizes this runtime accepts (far above what codegen emits).
constexpr uint64_t k_max_temps = uint64_t{1} << 30;
// Task symbol names (qdbuild's are "qd_" + 16 hex digits); ensure_loaded copies one onto its stack.
constexpr size_t k_max_task_name = 255;

// A whole-kernel variant runs with the arguments bound for its split entry: same layout only.
bool same_arguments(const Instance& a, const Instance& b) {
  if (a.args.size() != b.args.size()) {
    return false;
  }
  for (size_t i = 0; i < a.args.size(); ++i) {
    const qdrt_index_argument& x = a.args[i].index;
    const qdrt_index_argument& y = b.args[i].index;
    if (x.kind != y.kind || x.dtype != y.dtype || x.ndim != y.ndim ||
        x.element_rank != y.element_rank ||
        std::memcmp(x.element_shape, y.element_shape, sizeof x.element_shape) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

int resolve_threads(int requested) {
  if (requested > 0) {
    return std::min(requested, 1024);
  }
  if (const char* env = std::getenv("QDRT_NUM_THREADS"); env != nullptr && *env != '\0') {
    int n = std::atoi(env);
    if (n > 0) {
      return std::min(n, 1024);
    }
    log_warning(std::string("ignoring QDRT_NUM_THREADS='") + env + "' (not a positive integer)");
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

std::map<std::string, std::string, std::less<>> parse_instance(std::string_view s) {
  std::map<std::string, std::string, std::less<>> out;
  size_t start = 0;
  int depth = 0;
  char quote = 0;
  auto add = [&](std::string_view part) {
    while (!part.empty() && part.front() == ' ') {
      part.remove_prefix(1);
    }
    size_t eq = part.find('=');
    if (eq != std::string_view::npos) {
      out.emplace(std::string(part.substr(0, eq)), std::string(part.substr(eq + 1)));
    }
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      add(s.substr(start, i - start));
      start = i + 1;
    }
  }
  add(s.substr(start));
  return out;
}

std::string template_repr(const qdrt_value& v) {
  switch (v.kind) {
    case QDRT_VALUE_INT: return std::to_string(v.i);
    case QDRT_VALUE_BOOL: return v.i != 0 ? "True" : "False";
    case QDRT_VALUE_TEXT: return v.text != nullptr ? v.text : "";
    case QDRT_VALUE_FLOAT: {
      double f = v.f;
      if (f != f) {
        return "nan";
      }
      if (f == __builtin_inf() || f == -__builtin_inf()) {
        return f > 0 ? "inf" : "-inf";
      }
      // Python's repr: the shortest round-trip digits, fixed for 1e-4 <= |f| < 1e16.
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
      std::string sci(buf, r.ptr);
      size_t e = sci.find('e');
      int exp = std::atoi(sci.c_str() + e + 1);
      std::string digits;
      bool neg = sci[0] == '-';
      for (size_t i = neg ? 1 : 0; i < e; ++i) {
        if (sci[i] != '.') {
          digits += sci[i];
        }
      }
      std::string out = neg ? "-" : "";
      if (exp >= -4 && exp < 16) {
        if (exp < 0) {
          out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
        } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
          out += digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0') + ".0";
        } else {
          out += digits.substr(0, static_cast<size_t>(exp) + 1) + "." +
                 digits.substr(static_cast<size_t>(exp) + 1);
        }
        return out;
      }
      out += digits.substr(0, 1);
      if (digits.size() > 1) {
        out += "." + digits.substr(1);
      }
      char tail[16];
      std::snprintf(tail, sizeof tail, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
      return out + tail;
    }
    default: return "<none>";
  }
}

// The `n`th argument passed to the code (templates are not passed), or null.
static const ArgInfo* passed_argument(const Instance& inst, uint32_t n) {
  for (const ArgInfo& a : inst.args) {
    if (a.index.kind != QDRT_ARG_TEMPLATE && n-- == 0) {
      return &a;
    }
  }
  return nullptr;
}

Status Store::open(const std::string& path, const OpenOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  m_options = options;
  if (m_options.random == nullptr) {
    m_options.random = std::make_shared<RandomStates>();
  }
  if (Status s = m_file.open(path); !s.ok()) {
    return s;
  }
  for (uint32_t i = 0; i < m_file.entry_count(); ++i) {
    std::string_view id = m_file.blob(m_file.entry(i).kernel_id);
    if (m_ids.empty() || m_ids.back() != id) {
      m_ids.emplace_back(id);
      m_first_entry.push_back(i);
      m_entry_count.push_back(0);
    }
    ++m_entry_count.back();
  }
  m_kernels.resize(m_ids.size());
  log_debug("opened %s '%s': %u entries, %zu kernels, %u objects (%.3f ms)",
            m_file.packed() ? "pack" : "store", m_file.name().c_str(), m_file.entry_count(),
            m_ids.size(), m_file.header().object_count, ms_since(t0));
  if (!options.lazy) {
    if (Status s = open_eager(); !s.ok()) {
      return s;
    }
    log_debug("eager open: every CPU module loaded (%.3f ms)", ms_since(t0));
  }
  return {};
}

Status Store::open_eager() {
  auto t0 = std::chrono::steady_clock::now();
  // The distinct modules of the CPU entries (whole-kernel variants included), in index order.
  std::vector<uint32_t> objects;
  {
    std::vector<char> seen(m_file.header().object_count, 0);
    for (uint32_t e = 0; e < m_file.entry_count(); ++e) {
      qdrt_index_entry entry = m_file.entry(e);
      std::string_view target = m_file.blob(entry.target);
      if ((target == k_cpu_target ||
           (target.starts_with(k_cpu_target) && target.ends_with(k_whole_suffix) &&
            target.size() == k_cpu_target.size() + k_whole_suffix.size())) &&
          entry.module_object < seen.size() && seen[entry.module_object] == 0) {
        seen[entry.module_object] = 1;
        objects.push_back(entry.module_object);
      }
    }
  }
  // A pipeline: helper threads stage modules (read, verify, decompress into a reused per-thread
  // buffer, memfd + write + seal) while this thread builds the kernel tables, then dlopens the
  // staged modules as they become ready (staging one itself when none is ready and some are
  // unclaimed). The loader serializes dlopen, so one thread doing all of them loses nothing.
  struct Slot {
    std::unique_ptr<Module> module;
    Status status;
  };
  std::vector<Slot> slots(objects.size());
  std::vector<char> loaded(m_file.header().object_count, 0);  // by object: dlopened here
  std::atomic<size_t> next{0};
  std::mutex ready_mutex;
  std::condition_variable ready_cv;
  std::vector<size_t> ready;  // staged slots, in staging order
  ready.reserve(objects.size());
  auto stage = [&](size_t i) {
    std::string& code = t_stage_buffer;  // reused: fresh pages cost a fault each
    Slot& slot = slots[i];
    slot.status = m_file.read_object(objects[i], code);
    if (slot.status.ok()) {
      slot.module = std::make_unique<Module>();
      slot.status = slot.module->stage(code, m_file.object_hex(objects[i]));
    }
    {
      std::lock_guard<std::mutex> lock(ready_mutex);
      ready.push_back(i);
    }
    ready_cv.notify_one();
  };
  auto stage_all = [&] {
    for (size_t i = next.fetch_add(1); i < objects.size(); i = next.fetch_add(1)) {
      stage(i);
    }
  };
  // Errors are reported in kernel order, as a kernel-by-kernel open would: a kernel whose table
  // cannot be built (`failed_at`, the smallest such index) comes after the modules of the
  // kernels before it.
  std::atomic<size_t> next_table{0};
  std::mutex failed_mutex;
  Status first;
  size_t failed_at = m_ids.size();
  auto table = [&] {  // builds the next kernel table; false when none is left
    size_t i = next_table.fetch_add(1);
    if (i >= m_ids.size()) {
      return false;
    }
    {
      std::lock_guard<std::mutex> lock(failed_mutex);
      if (i > failed_at) {
        return false;
      }
    }
    Kernel* k = nullptr;
    if (Status s = kernel_at(i, k); !s.ok()) {
      std::lock_guard<std::mutex> lock(failed_mutex);
      if (i < failed_at) {
        failed_at = i;
        first = s;
      }
    }
    return true;
  };
  // The store's thread count (open option, QDRT_NUM_THREADS, else the cores) bounds the helpers.
  size_t cores = static_cast<size_t>(resolve_threads(m_options.threads));
  size_t helpers = std::min<size_t>({cores > 1 ? cores - 1 : 0, 3, objects.size() / 2});
  std::vector<std::thread> threads;
  threads.reserve(helpers);
  for (size_t h = 0; h < helpers; ++h) {
    threads.emplace_back([&] {
      stage_all();
      while (table()) {
      }
    });
  }
  // This thread: dlopen whatever is staged; otherwise build a kernel table, otherwise stage a
  // module itself, otherwise wait for a helper's.
  size_t taken = 0;
  while (taken < objects.size()) {
    size_t i = 0;
    {
      std::unique_lock<std::mutex> lock(ready_mutex);
      if (taken == ready.size()) {
        lock.unlock();
        if (table()) {
          continue;
        }
        if (size_t j = next.fetch_add(1); j < objects.size()) {
          stage(j);
          continue;
        }
        lock.lock();
        ready_cv.wait(lock, [&] { return taken < ready.size(); });
      }
      i = ready[taken++];
    }
    Slot& slot = slots[i];
    if (!slot.status.ok()) {
      continue;  // load_module reads it again below and reports the error in its place
    }
    auto t1 = std::chrono::steady_clock::now();
    std::string hex = m_file.object_hex(objects[i]);
    if (Status s = slot.module->open(hex); !s.ok()) {
      continue;
    }
    if (debug_enabled()) {
      log_debug("loaded module %s (dlopen %.3f ms)", hex.c_str(), ms_since(t1));
    }
    loaded[objects[i]] = 1;
    std::lock_guard<std::mutex> lock(m_modules_mutex);
    m_modules.emplace(objects[i], std::move(slot.module));
  }
  double modules_ms = ms_since(t0);
  std::string().swap(t_stage_buffer);  // this thread's (the helpers' go with them)
  while (table()) {
  }
  for (std::thread& t : threads) {
    t.join();
  }
  log_debug("eager open: %zu modules staged and loaded by %.3f ms, %zu kernel tables by %.3f ms "
            "(%zu helper threads)",
            objects.size(), modules_ms, m_ids.size(), ms_since(t0), helpers);
  // Every module is loaded here (a damaged store fails at open, in kernel order); each
  // instance's task entry points are looked up on its first launch (ensure_loaded).
  for (size_t i = 0; i < failed_at; ++i) {
    Kernel* k = nullptr;
    if (Status s = kernel_at(i, k); !s.ok()) {
      return s;
    }
    for (auto* list : {&k->instances, &k->wholes}) {
      for (auto& inst : *list) {
        Module* module = nullptr;
        if (inst->module_object < loaded.size() && loaded[inst->module_object] != 0) {
          continue;
        }
        if (Status s = load_module(inst->module_object, module); !s.ok()) {
          return s;  // read (or staged, or opened) again here to report it in kernel order
        }
      }
    }
  }
  return first;
}

Status Store::kernel(std::string_view id, Kernel*& out) {
  auto it = std::lower_bound(m_ids.begin(), m_ids.end(), id);
  if (it == m_ids.end() || *it != id) {
    std::string m = "no kernel '" + std::string(id) + "' in " +
                    (m_file.packed() ? "pack '" : "store '") + m_file.name() + "'";
    // did you mean: the closest id by edit distance, or one with the same qualname.
    size_t best = SIZE_MAX;
    const std::string* pick = nullptr;
    for (const std::string& k : m_ids) {
      size_t d = edit_distance(id, k);
      std::string_view q = std::string_view(k).substr(k.find(':') + 1);
      if (q == id || (id.find(':') != std::string_view::npos && q == id.substr(id.find(':') + 1))) {
        d = 0;
      }
      if (d < best) {
        best = d;
        pick = &k;
      }
    }
    if (pick != nullptr && best <= std::max<size_t>(3, id.size() / 3)) {
      m += "; did you mean '" + *pick + "'?";
    } else if (m_ids.empty()) {
      m += " (it holds no kernels)";
    }
    return Status::error(QDRT_ERROR_NOT_FOUND, m);
  }
  return kernel_at(static_cast<size_t>(it - m_ids.begin()), out);
}

Status Store::kernel_at(size_t index, Kernel*& out) {
  {
    std::lock_guard<std::mutex> lock(m_kernels_mutex);
    if (m_kernels[index]) {
      out = m_kernels[index].get();
      return {};
    }
  }
  // Built outside the lock (it only reads the index), so several threads can build tables; if
  // two build the same kernel, the first one stored wins.
  std::unique_ptr<Kernel> k;
  if (Status s = build_kernel(index, k); !s.ok()) {
    return s;
  }
  std::lock_guard<std::mutex> lock(m_kernels_mutex);
  if (!m_kernels[index]) {
    m_kernels[index] = std::move(k);
  }
  out = m_kernels[index].get();
  return {};
}

Status Store::build_kernel(size_t index, std::unique_ptr<Kernel>& out) {
  auto k = std::make_unique<Kernel>(this, m_ids[index]);
  for (uint32_t e = m_first_entry[index]; e < m_first_entry[index] + m_entry_count[index]; ++e) {
    std::string_view target = m_file.blob(m_file.entry(e).target);
    bool whole = target.size() == k_cpu_target.size() + k_whole_suffix.size() &&
                 target.starts_with(k_cpu_target) && target.ends_with(k_whole_suffix);
    bool cuda = target.starts_with("cuda:") && !target.ends_with(k_whole_suffix);
    if (target != k_cpu_target && !whole) {
      if (std::find(k->other_targets.begin(), k->other_targets.end(), target) ==
          k->other_targets.end()) {
        k->other_targets.emplace_back(target);
      }
      if (!cuda) {
        continue;
      }
    }
    auto inst = std::make_unique<Instance>();
    if (Status s = build_instance(e, *inst); !s.ok()) {
      return s;
    }
    (cuda ? k->cuda_instances : whole ? k->wholes : k->instances).push_back(std::move(inst));
  }
  for (auto& w : k->wholes) {
    for (auto& i : k->instances) {
      if (i->instance == w->instance && same_arguments(*i, *w)) {
        i->whole = w.get();
      }
    }
  }
  out = std::move(k);
  return {};
}

Status Store::build_instance(uint32_t e, Instance& out) {
  qdrt_index_entry entry = m_file.entry(e);
  out.entry = e;
  out.instance = m_file.blob(entry.instance);
  out.target = m_file.blob(entry.target);
  out.module_object = entry.module_object;
  // Only error paths need the description: build it on demand (open builds every kernel).
  auto what = [&] {
    return "kernel '" + std::string(m_file.blob(entry.kernel_id)) + "' instance '" +
           std::string(out.instance) + "' (" + std::string(out.target) + ")";
  };
  if (entry.module_object == QDRT_NO_OBJECT) {
    return Status::error(QDRT_ERROR_CORRUPT, what() + " has no module object in the index");
  }
  out.args.reserve(entry.argument_count);
  for (uint32_t a = 0; a < entry.argument_count; ++a) {
    ArgInfo info;
    info.index = m_file.argument(entry.first_argument + a);
    info.name = m_file.blob(info.index.name);
    const qdrt_index_argument& ia = info.index;
    if (ia.kind != QDRT_ARG_TEMPLATE &&
        (dtype_size(ia.dtype) == 0 || ia.ndim + ia.element_rank > QDRT_MAX_NDIM ||
         (ia.kind == QDRT_ARG_SCALAR && (ia.ndim != 0 || ia.element_rank != 0)))) {
      return Status::error(QDRT_ERROR_CORRUPT, what() + ": argument '" + std::string(info.name) +
                                                   "' has an unusable type in the index");
    }
    if (ia.kind == QDRT_ARG_FIELD) {
      // (check_index: the layout lies in the blob and holds 16 bytes per dimension)
      std::string_view layout =
          m_file.blob(qdrt_index_bytes{ia.element_shape[2], ia.element_shape[3]});
      uint32_t dims = ia.ndim + ia.element_rank;
      std::memcpy(info.field_shape, layout.data(), 8u * dims);
      std::memcpy(info.field_strides, layout.data() + 8u * dims, 8u * dims);
      size_t itemsize = dtype_size(ia.dtype);
      for (uint32_t d = 0; d < dims; ++d) {
        if (info.field_shape[d] < 0 || info.field_strides[d] < 0 ||
            info.field_strides[d] % static_cast<int64_t>(itemsize) != 0 ||
            (d >= ia.ndim && info.field_shape[d] != ia.element_shape[d - ia.ndim])) {
          return Status::error(QDRT_ERROR_CORRUPT, what() + ": field argument '" +
                                                       std::string(info.name) +
                                                       "' has an unusable layout in the index");
        }
      }
    }
    if (ia.kind != QDRT_ARG_TEMPLATE) {
      ++out.passed;
    }
    out.args.push_back(info);
  }
  // Template values select among instances; without template parameters there is nothing to
  // match (most kernels), so the instance string is parsed only when needed.
  bool templated = false;
  for (const ArgInfo& a : out.args) {
    templated = templated || a.index.kind == QDRT_ARG_TEMPLATE;
  }
  if (templated) {
    out.params = parse_instance(out.instance);
  }
  if (entry.task_count == 0) {
    return Status::error(QDRT_ERROR_CORRUPT, what() + " has no tasks");
  }
  out.tasks.reserve(entry.task_count);
  for (uint32_t t = 0; t < entry.task_count; ++t) {
    qdrt_index_task it = m_file.task(entry.first_task + t);
    TaskInfo task;
    task.name = m_file.blob(it.name);
    task.kind = it.kind;
    std::string_view meta = m_file.blob(it.launch_metadata);
    if (task.name.empty() || task.name.size() > k_max_task_name ||
        task.name.find('\0') != std::string_view::npos) {
      return Status::error(QDRT_ERROR_CORRUPT,
                           what() + ": task " + std::to_string(t) + " has an invalid name");
    }
    if (meta.size() < sizeof(qdrt_task_launch)) {
      return Status::error(QDRT_ERROR_CORRUPT, what() + ": task '" + std::string(task.name) +
                                                   "' has " + std::to_string(meta.size()) +
                                                   " bytes of launch metadata (expected " +
                                                   std::to_string(sizeof(qdrt_task_launch)) + ")");
    }
    std::memcpy(&task.launch, meta.data(), sizeof task.launch);
    const qdrt_task_launch& l = task.launch;
    if (l.abi_version < QDRT_TASK_ABI_MIN_VERSION || l.abi_version > QDRT_LAUNCH_METADATA_VERSION) {
      return Status::error(QDRT_ERROR_VERSION,
                           what() + ": task '" + std::string(task.name) +
                               "' has launch metadata version " + std::to_string(l.abi_version) +
                               "; this libqdrt reads versions " +
                               std::to_string(QDRT_TASK_ABI_MIN_VERSION) + " to " +
                               std::to_string(QDRT_LAUNCH_METADATA_VERSION));
    }
    // Version 5: the graph loops the task ends (task_abi.h), after the qdrt_task_launch.
    size_t extra = meta.size() - sizeof(qdrt_task_launch);
    size_t ends = extra / sizeof(qdrt_task_loop_end);
    if ((l.abi_version < 5 && extra != 0) || extra % sizeof(qdrt_task_loop_end) != 0 ||
        ends > QDRT_MAX_LOOP_ENDS) {
      return Status::error(QDRT_ERROR_CORRUPT, what() + ": task '" + std::string(task.name) +
                                                   "' has " + std::to_string(meta.size()) +
                                                   " bytes of launch metadata (version " +
                                                   std::to_string(l.abi_version) + ")");
    }
    for (size_t e = 0; e < ends; ++e) {
      qdrt_task_loop_end end;
      std::memcpy(&end, meta.data() + sizeof(qdrt_task_launch) + e * sizeof end, sizeof end);
      const ArgInfo* flag = passed_argument(out, end.condition);
      if (end.first_task > t || flag == nullptr ||
          (flag->index.kind != QDRT_ARG_NDARRAY && flag->index.kind != QDRT_ARG_FIELD) ||
          flag->index.dtype != QDRT_DTYPE_I32 || flag->index.ndim != 0 ||
          flag->index.element_rank != 0) {
        return Status::error(QDRT_ERROR_CORRUPT,
                             what() + ": task '" + std::string(task.name) +
                                 "' ends a graph loop that does not start at an earlier task or "
                                 "whose flag is not a 0-dim i32 array argument");
      }
      task.loop_ends.push_back(end);
    }
    if (t == 0) {
      out.temps_size = l.temps_size;
      out.result_dtype = l.result_dtype;
      out.result_size = l.result_size;
    } else if (l.temps_size != out.temps_size || l.result_dtype != out.result_dtype ||
               l.result_size != out.result_size) {
      return Status::error(QDRT_ERROR_CORRUPT, what() + ": its tasks disagree on the kernel-wide "
                                                        "launch metadata (temps, result)");
    }
    if (l.temps_size > k_max_temps ||
        (l.result_dtype == QDRT_DTYPE_NONE ? l.result_size != 0
                                           : l.result_size != dtype_size(l.result_dtype))) {
      return Status::error(QDRT_ERROR_CORRUPT, what() + ": task '" + std::string(task.name) +
                                                   "' has unusable launch metadata");
    }
    out.prints = out.prints || (l.flags & QDRT_LAUNCH_PRINTS) != 0;
    out.random = out.random || (l.flags & QDRT_LAUNCH_RANDOM) != 0;
    out.graph_loops = out.graph_loops || !task.loop_ends.empty();
    out.tasks.push_back(task);
  }
  return {};
}

bool Store::module_loaded(uint32_t object) {
  std::lock_guard<std::mutex> lock(m_modules_mutex);
  return m_modules.count(object) != 0;
}

Status Store::load_module(uint32_t object, Module*& out) {
  std::lock_guard<std::mutex> lock(m_modules_mutex);
  auto it = m_modules.find(object);
  if (it != m_modules.end()) {
    out = it->second.get();
    return {};
  }
  auto t0 = std::chrono::steady_clock::now();
  std::string code;
  if (Status s = m_file.read_object(object, code); !s.ok()) {
    return s;
  }
  double read_ms = ms_since(t0);
  auto module = std::make_unique<Module>();
  std::string hex = m_file.object_hex(object);
  if (Status s = module->load(code, hex); !s.ok()) {
    return s;
  }
  log_debug("loaded module %s (%zu bytes; read+verify+decompress %.3f ms, memfd+dlopen %.3f ms)",
            hex.c_str(), code.size(), read_ms, ms_since(t0) - read_ms);
  out = module.get();
  m_modules.emplace(object, std::move(module));
  return {};
}

Status Store::ensure_loaded(Instance& inst) {
  if (inst.ready.load(std::memory_order_acquire)) {
    return {};
  }
  std::lock_guard<std::mutex> lock(inst.load_mutex);
  if (inst.ready.load(std::memory_order_relaxed)) {
    return {};
  }
  Module* module = nullptr;
  if (Status s = load_module(inst.module_object, module); !s.ok()) {
    return s;
  }
  auto what = [&] {
    return "kernel '" + std::string(m_file.blob(m_file.entry(inst.entry).kernel_id)) +
           "' instance '" + std::string(inst.instance) + "'";
  };
  for (TaskInfo& t : inst.tasks) {
    // The names are not NUL-terminated in the index (build_instance bounded their length).
    char sym[k_max_task_name + sizeof QDRT_EXTENT_SUFFIX];
    std::memcpy(sym, t.name.data(), t.name.size());
    sym[t.name.size()] = '\0';
    t.fn = reinterpret_cast<qdrt_task_fn>(module->symbol(sym));
    if (t.fn == nullptr) {
      return Status::error(QDRT_ERROR_LOAD, what() + ": module " + object_hex(inst.module_object) +
                                                " has no task symbol '" + sym + "'");
    }
    if (t.kind == QDRT_TASK_RANGE) {
      std::memcpy(sym + t.name.size(), QDRT_EXTENT_SUFFIX, sizeof QDRT_EXTENT_SUFFIX);
      t.extent = reinterpret_cast<qdrt_extent_fn>(module->symbol(sym));
      if (t.extent == nullptr) {
        return Status::error(QDRT_ERROR_LOAD, what() + ": module " +
                                                  object_hex(inst.module_object) +
                                                  " has no extent symbol '" + sym +
                                                  "' for range task '" + std::string(t.name) + "'");
      }
    }
  }
  if (debug_enabled()) {
    log_debug("%s (%.*s): %zu tasks resolved in module %s", what().c_str(),
              static_cast<int>(inst.target.size()), inst.target.data(), inst.tasks.size(),
              object_hex(inst.module_object).c_str());
  }
  inst.ready.store(true, std::memory_order_release);
  return {};
}

const char* Store::intern(std::string_view s) {
  std::lock_guard<std::mutex> lock(m_intern_mutex);
  return m_interned.emplace(s).first->c_str();
}

ThreadPool& Store::pool() {
  std::call_once(m_pool_once, [this] {
    int n = resolve_threads(m_options.threads);
    log_debug("thread pool: %d threads", n);
    m_pool = std::make_unique<ThreadPool>(n);
  });
  return *m_pool;
}

}  // namespace qdrt
