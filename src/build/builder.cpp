#include "build/builder.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include <sys/stat.h>

#include "backend/backend.hpp"
#include "backend/plugin.hpp"
#include "build/build_log.hpp"
#include "build/build_target.hpp"
#include "build/explain.hpp"
#include "build/input_stamp.hpp"
#include "codegen/kernel_codegen.hpp"
#include "sema/key_hasher.hpp"
#include "store/build_stats.hpp"
#include "store/local_store.hpp"
#include "store/task_cache.hpp"
#include "support/file_io.hpp"
#include "support/thread_pool.hpp"

namespace qd::build {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using syntax::Severity;

namespace {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

int64_t unix_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

// -d stats: scoped timers (ninja's METRIC_RECORD), printed in order at the end.
class Metrics {
public:
  void add(const std::string& name, double ms) { m_items.emplace_back(name, ms); }
  void report(Status& status) const {
    status.info("metric                   ms");
    for (const auto& [name, ms] : m_items) {
      char line[96];
      std::snprintf(line, sizeof line, "%-20s %8.1f", name.c_str(), ms);
      status.info(line);
    }
  }

private:
  std::vector<std::pair<std::string, double>> m_items;
};

class Timer {
public:
  Timer(Metrics& m, std::string name) : m_m(m), m_name(std::move(name)), m_t(Clock::now()) {}
  ~Timer() { stop(); }
  void stop() {
    if (!m_done) {
      m_m.add(m_name, ms_since(m_t));
      m_done = true;
    }
  }

private:
  Metrics& m_m;
  std::string m_name;
  Clock::time_point m_t;
  bool m_done = false;
};

// What decides the generated and compiled code besides the kernel key: qdbuild itself (its
// binary, so a rebuilt compiler re-lowers), the toolchain and the CPU target.
std::string compiler_identity(const std::string& toolchain) {
  std::string id = std::string(sema::k_tool_version) + "\n" + toolchain + "\n";
  int64_t size = 0;
  int64_t mtime = 0;
  if (stat_file("/proc/self/exe", size, mtime)) {
    id += "exe " + std::to_string(size) + " " + std::to_string(mtime);
  }
  return sema::sha256_hex(id);
}

// The no-op record's key: what was built, from where, by which compiler.
std::string config_key(const BuildOptions& o, const std::string& compiler) {
  std::error_code ec;
  std::string key = "qdbuild-build-config-1\ncwd " + fs::current_path(ec).string() + "\n";
  for (const std::string& p : o.paths) {
    key += "path " + p + "\n";
  }
  key += "target " + o.target + "\ncompiler " + compiler + "\n";
  return sema::sha256_hex(key);
}

// Who owns the entries a build publishes: the working directory, the paths and the target (not
// the compiler: a new qdbuild still owns what the old one published).
std::string owner_key(const BuildOptions& o) {
  std::error_code ec;
  std::string key = "qdbuild-build-owner-1\ncwd " + fs::current_path(ec).string() + "\n";
  for (const std::string& p : o.paths) {
    key += "path " + p + "\n";
  }
  key += "target " + o.target + "\n";
  return sema::sha256_hex(key);
}

void stat_index(const std::string& path, int64_t& size, int64_t& mtime) {
  if (!stat_file(path, size, mtime)) {
    size = -1;
    mtime = 0;
  }
}

std::string describe_instance(const std::string& id, const std::string& instance) {
  return "kernel '" + id + "'" + (instance.empty() ? "" : " (instance " + instance + ")");
}

// One kernel instance of the build.
struct Work {
  size_t kernel = 0;
  size_t instance = 0;
  int32_t module = sema::k_none;
  std::string where;  // "path:qualname"
  bool reused = false;
  bool failed = false;
  store::Record record;  // reused: the index's record
  codegen::KernelCode code;
  std::vector<std::string> unit_keys;
  std::vector<std::optional<store::ObjectId>> unit_objects;
  std::vector<std::string> messages;  // failure lines besides source diagnostics
  double duration_ms = 0;
  std::optional<store::ObjectId> module_object;
};

struct CompileJob {
  std::string key;
  std::string source;
  TaskEvent event;
  bool silent = false;  // the module ABI unit: not a task of any kernel
  bool ok = false;
  store::ObjectId object;
  std::string bytes;
  double ms = 0;
  std::vector<std::string> errors;
};

// publish() plus removals, under one index lock: each key of `remove_if` leaves the index if the
// index still holds the module object this builder published for it (another builder's newer
// entry stays). `removed`: the kernel ids removed.
store::Result<store::Unit>
publish_and_remove(store::LocalStore& st, std::vector<store::Entry> entries,
                   const std::map<store::EntryKey, std::string>& remove_if,
                   std::set<std::string>& removed) {
  int64_t now = static_cast<int64_t>(::time(nullptr));
  for (store::Entry& e : entries) {
    if (e.record.last_used == 0) {
      e.record.last_used = now;
    }
  }
  return st.update_index(
      [&](std::vector<store::Entry> current) -> store::Result<std::vector<store::Entry>> {
        removed.clear();
        for (const store::Entry& e : entries) {
          for (const store::ObjectId& id : store::referenced_objects(e)) {
            struct stat sb{};
            if (::stat(st.object_path(id).c_str(), &sb) != 0) {
              return store::fail(store::FailureKind::not_found,
                                 "cannot publish kernel '" + e.key.kernel_id + "': its object '" +
                                     st.object_path(id) + "' is not in the store (removed by gc?)");
            }
          }
        }
        std::vector<store::Entry> merged = store::merge_entries(std::move(current), entries);
        std::erase_if(merged, [&](const store::Entry& e) {
          auto it = remove_if.find(e.key);
          if (it == remove_if.end() || !e.record.module || e.record.module->hex() != it->second) {
            return false;
          }
          removed.insert(e.key.kernel_id);
          return true;
        });
        return merged;
      });
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v) {
    out += (out.empty() ? "" : sep) + s;
  }
  return out;
}

}  // namespace

// What a Builder keeps between runs (watch mode): the compiler identity, the build log as last
// written, the store handles, the parse cache, the objects it compiled or read (link inputs).
struct Builder::Session {
  explicit Session(BuildOptions o, Status& s) : options(std::move(o)), status(s) {}
  ~Session() {
    // Never destroyed: freeing every AST at exit costs time and changes nothing.
    (void)analysis.release();
  }

  BuildOptions options;
  Status& status;
  bool ready = false;       // compiler identity, config and owner keys computed
  bool log_loaded = false;  // `log` holds the log file (as this process last wrote it)
  std::string toolchain;    // backend::toolchain_id of the target
  BuildTarget target;       // parsed from options.target
  std::string compiler;
  std::string config;
  std::string owner;
  BuildLog log;
  std::string log_path;
  std::unique_ptr<store::LocalStore> store;
  std::unique_ptr<store::TaskCache> cache;
  sema::ParseCache parse_cache;
  std::unique_ptr<sema::Analysis> analysis;  // the last run's (the next run replaces it)
  // Object bytes by address (this run's compiles, objects read for links), kept for the next
  // run's links up to k_object_cache_bytes.
  std::map<store::ObjectId, std::string> objects;
  size_t object_bytes = 0;
  std::mutex status_mutex;  // Status calls from worker threads (and the store's warnings)
};

namespace {

constexpr size_t k_object_cache_bytes = size_t{256} << 20;

class Run {
public:
  explicit Run(Builder::Session& s)
      : m_s(s), m_o(s.options), m_status(s.status), m_target(s.target), m_toolchain(s.toolchain),
        m_compiler(s.compiler), m_config(s.config), m_log(s.log), m_log_path(s.log_path),
        m_store(s.store), m_cache(s.cache), m_fresh_objects(s.objects),
        m_status_mutex(s.status_mutex) {}

  BuildResult run(bool check_noop);

private:
  BuildResult finish_noop();
  bool try_noop(const std::string* log_text);
  void remember_object(const store::ObjectId& id, std::string bytes);
  void ownership(std::vector<store::EntryKey>& remove, OwnerRecord& owned);
  void classify_diagnostics();
  void plan();
  void generate();
  void compile();
  void link_modules();
  void publish_and_log();
  void fail(Work& w, std::vector<std::string> messages);
  std::optional<std::string> object_bytes(const store::ObjectId& id);

  // Status calls from worker threads go through here.
  template <class F> void locked(F&& f) {
    std::lock_guard<std::mutex> lock(m_status_mutex);
    f();
  }

  Builder::Session& m_s;
  const BuildOptions& m_o;
  Status& m_status;
  BuildResult m_r;
  Metrics m_metrics;
  Clock::time_point m_start = Clock::now();

  BuildTarget& m_target;
  std::string& m_toolchain;
  std::string& m_compiler;
  std::string& m_config;
  BuildLog& m_log;
  std::string& m_log_path;
  InputsRecord m_stamp;
  std::unique_ptr<store::LocalStore>& m_store;
  std::unique_ptr<store::TaskCache>& m_cache;
  const store::IndexView* m_index = nullptr;
  sema::Analysis* m_a = nullptr;

  std::set<std::string> m_failed_kernels;
  std::set<std::string> m_kept_broken;  // owned kernels of files with errors: entries kept
  std::map<std::string, std::vector<sema::SemaDiagnostic>> m_kernel_errors;
  std::set<int32_t> m_broken_modules;  // modules with parse errors
  std::vector<Work> m_work;
  std::vector<CompileJob> m_jobs;
  std::map<std::string, size_t> m_job_of;  // task key -> job
  std::map<store::ObjectId, std::string>& m_fresh_objects;
  std::mutex& m_status_mutex;
  std::optional<store::ObjectId> m_abi_object;
  std::vector<store::Entry> m_entries;
  std::vector<InstanceRecord> m_log_records;
  uint64_t m_saved_ms = 0;
  double m_compile_ms = 0;
};

// `log_text`: the log file (first run); nullptr: the log this Builder last wrote (later runs).
bool Run::try_noop(const std::string* log_text) {
  Timer t(m_metrics, "no-op check");
  std::optional<InputsRecord> logged;
  if (log_text != nullptr) {
    logged = BuildLog::scan_inputs(*log_text, m_config);
  } else if (const InputsRecord* r = m_log.find_inputs(m_config)) {
    logged = *r;
  }
  if (!logged) {
    if (m_o.explain) {
      m_status.info("qdbuild explain: no earlier build of these paths in the log");
    }
    return false;
  }
  std::string why;
  store::LocalStore probe(m_o.store_dir);
  if (stamp_up_to_date(*logged, m_o.paths, probe.index_path(), why)) {
    return true;
  }
  if (m_o.explain) {
    m_status.info("qdbuild explain: " + why);
  }
  return false;
}

void Run::classify_diagnostics() {
  sema::Analysis& a = *m_a;
  std::set<std::string> kernel_ids;
  for (const sema::KernelReport& k : a.kernels) {
    kernel_ids.insert(k.id);
  }
  std::vector<sema::SemaDiagnostic> shown;
  for (const sema::SemaDiagnostic& d : a.diagnostics) {
    bool error = d.d.severity == Severity::Error;
    if (error) {
      ++m_r.errors;
    }
    if (error && !d.kernel.empty() && kernel_ids.count(d.kernel) != 0) {
      m_kernel_errors[d.kernel].push_back(d);  // shown under FAILED: <kernel>
      continue;
    }
    if (error) {
      if (d.module != sema::k_none) {
        m_broken_modules.insert(d.module);
      }
      m_r.input_error = true;  // a file or config error: exit 1, no inputs record
    }
    shown.push_back(d);
  }
  m_status.diagnostics(a, shown);
}

void Run::fail(Work& w, std::vector<std::string> messages) {
  w.failed = true;
  w.messages.insert(w.messages.end(), messages.begin(), messages.end());
}

void Run::plan() {
  Timer t(m_metrics, "plan");
  sema::Analysis& a = *m_a;
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    const sema::KernelReport& kr = a.kernels[k];
    const sema::DefInfo& def = a.program->defs[kr.def];
    const sema::ModuleInfo& mod = a.program->modules[def.module];
    bool sema_failed = m_kernel_errors.count(kr.id) != 0 || m_broken_modules.count(def.module) != 0;
    if (sema_failed) {
      m_failed_kernels.insert(kr.id);
      m_status.kernel_failed(a, kr.id, m_kernel_errors[kr.id],
                             m_broken_modules.count(def.module) != 0
                                 ? std::vector<std::string>{"(its file has errors)"}
                                 : std::vector<std::string>{});
      continue;
    }
    size_t buildable = 0;
    for (size_t i = 0; i < kr.instances.size(); ++i) {
      const sema::InstanceKey& inst = kr.instances[i];
      if (!inst.unbound.empty()) {
        sema::SemaDiagnostic d;
        d.d.severity = Severity::Warning;
        d.d.code = "QD301";
        d.d.line = def.line;
        d.d.col = def.col;
        d.d.end_line = def.line;
        d.d.end_col = def.col;
        d.d.message = "kernel '" + kr.id +
                      "' has no buildable instance: " + join(inst.unbound, ", ") + " ha" +
                      (inst.unbound.size() == 1 ? "s" : "ve") +
                      " no value (give instances in [tool.qdbuild.instances.\"" + kr.id + "\"])";
        d.module = def.module;
        d.kernel = kr.id;
        m_status.diagnostics(a, {d});
        continue;
      }
      ++buildable;
      Work w;
      w.kernel = k;
      w.instance = i;
      w.module = def.module;
      w.where = mod.path + ":" + def.qualname;
      // Reuse without lowering: same kernel key and compiler as the log's record, and the
      // index still holds what that build published.
      const InstanceRecord* logged = m_log.find(kr.id, inst.instance, m_target.name);
      std::string why;
      if (logged == nullptr) {
        why = "not built before";
      } else if (logged->compiler != m_compiler) {
        why = "the compiler changed (qdbuild or its toolchain)";
      } else if (logged->kernel_key != inst.key) {
        Components now;
        for (const sema::KeyHasher::Component& c : inst.components) {
          now.emplace_back(c.tag, c.hash);
        }
        why = explain_key_change(logged->components, now);
      } else {
        std::optional<size_t> at =
            m_index == nullptr ? std::nullopt : m_index->find(kr.id, inst.instance, m_target.name);
        if (!at) {
          why = "entry missing from the store index";
        } else {
          store::Entry e = m_index->entry(*at);
          bool same = e.record.module && e.record.module->hex() == logged->module_object &&
                      e.record.tasks.size() == logged->tasks.size();
          for (size_t j = 0; same && j < e.record.tasks.size(); ++j) {
            same =
                e.record.tasks[j].code && e.record.tasks[j].code->hex() == logged->tasks[j].object;
          }
          if (same) {
            w.reused = true;
            w.record = std::move(e.record);
            w.module_object = w.record.module;
          } else {
            why = "the store index holds a different entry";
          }
        }
      }
      if (!w.reused && m_o.explain) {
        m_status.info("qdbuild explain: " + describe_instance(kr.id, inst.instance) + ": " + why);
      }
      m_work.push_back(std::move(w));
    }
    if (buildable == 0) {
      m_r.skipped.push_back(kr.id);
    }
  }
}

void Run::generate() {
  Timer t(m_metrics, "lower+codegen");
  std::vector<size_t> todo;
  for (size_t i = 0; i < m_work.size(); ++i) {
    if (!m_work[i].reused) {
      todo.push_back(i);
    }
  }
  codegen::Options copt;
  copt.dump_ir = m_o.dump_ir;
  copt.cuda = m_target.cuda;
  support::parallel_for(
      todo.size(),
      [&](size_t n) {
        Work& w = m_work[todo[n]];
        auto t0 = Clock::now();
        try {
          w.code = codegen::generate_kernel(*m_a, w.kernel, w.instance, copt);
        } catch (const std::exception& e) {
          w.code = {};
          fail(w,
               {std::string("internal error, please report: code generation threw: ") + e.what()});
        }
        if (w.code.ok) {
          for (const codegen::Unit& u : w.code.units) {
            std::string key = m_target.task_key(u.source);
            std::optional<store::TaskRecord> hit = m_cache->lookup(key);
            w.unit_objects.push_back(hit ? std::optional(hit->object) : std::nullopt);
            if (hit) {
              std::lock_guard<std::mutex> lock(m_status_mutex);
              m_saved_ms += hit->compile_ms;
            }
            w.unit_keys.push_back(std::move(key));
          }
        }
        w.duration_ms = ms_since(t0);
      },
      m_o.jobs);
  // In kernel order: IR dumps, failures, and the compile jobs (equal units once).
  for (size_t i : todo) {
    Work& w = m_work[i];
    const sema::KernelReport& kr = m_a->kernels[w.kernel];
    if (m_o.dump_ir && !w.code.ir_dump.empty()) {
      m_status.output(w.code.ir_dump);
    }
    if (!w.code.ok) {
      if (!w.failed && w.code.diagnostics.empty()) {
        fail(w, {"internal error, please report: code generation failed without a diagnostic"});
      }
      w.failed = true;
      continue;
    }
    for (size_t u = 0; u < w.code.units.size(); ++u) {
      if (w.unit_objects[u] || m_job_of.count(w.unit_keys[u]) != 0) {
        continue;
      }
      CompileJob job;
      job.key = w.unit_keys[u];
      job.source = w.code.units[u].source;
      job.event.kernel_id = kr.id;
      job.event.instance = kr.instances[w.instance].instance;
      job.event.where = w.where + "#" + std::to_string(u);
      for (const codegen::TaskCode& tc : w.code.tasks) {
        if (tc.unit == u) {
          job.event.label = tc.label;
          break;
        }
      }
      m_job_of[job.key] = m_jobs.size();
      m_jobs.push_back(std::move(job));
    }
  }
}

void Run::compile() {
  Timer t(m_metrics, "compile");
  // The module ABI unit, once per toolchain, through the task cache too.
  bool need_link = std::any_of(m_work.begin(), m_work.end(),
                               [](const Work& w) { return !w.reused && !w.failed; });
  if (need_link) {
    backend::TaskUnit abi = backend::module_abi_unit();
    std::string key = m_target.task_key(abi.source);
    if (std::optional<store::TaskRecord> hit = m_cache->lookup(key)) {
      m_abi_object = hit->object;
    } else {
      CompileJob job;
      job.key = key;
      job.source = abi.source;
      job.event.where = "module ABI";
      job.silent = true;
      m_job_of[key] = m_jobs.size();
      m_jobs.push_back(std::move(job));
    }
  }
  size_t visible = static_cast<size_t>(
      std::count_if(m_jobs.begin(), m_jobs.end(), [](const CompileJob& j) { return !j.silent; }));
  m_status.planned(visible);
  support::parallel_for(
      m_jobs.size(),
      [&](size_t i) {
        CompileJob& job = m_jobs[i];
        if (!job.silent) {
          locked([&] { m_status.compile_started(job.event); });
        }
        auto t0 = Clock::now();
        BuildTarget::Output obj = m_target.compile({job.event.where, job.source});
        job.ms = ms_since(t0);
        if (obj.ok) {
          store::Result<store::ObjectId> id = m_store->put(obj.bytes);
          if (!id) {
            job.errors.push_back("cannot store the object of " + job.event.where + ": " +
                                 id.error());
          } else {
            job.object = *id;
            job.ok = true;
            store::Result<store::Unit> rec =
                m_cache->insert(job.key, {*id, static_cast<uint64_t>(job.ms)});
            if (!rec) {
              locked([&] { m_status.warning(rec.error()); });
            }
            job.bytes = std::move(obj.bytes);
          }
        } else {
          for (const backend::Diagnostic& d : obj.diagnostics) {
            if (d.severity == backend::Diagnostic::Severity::error) {
              job.errors.push_back(backend::format_diagnostic(d));
            }
          }
          if (job.errors.empty()) {
            job.errors.push_back("the backend failed without a diagnostic");
          }
        }
        if (!job.silent) {
          locked([&] { m_status.compile_finished(job.event, job.ok); });
        }
      },
      m_o.jobs);
  for (CompileJob& job : m_jobs) {
    m_compile_ms += job.ms;
    if (job.ok) {
      remember_object(job.object, std::move(job.bytes));
      if (job.silent) {
        m_abi_object = job.object;
      }
    } else if (job.silent) {
      m_r.internal_error = true;
      m_status.error("internal error, please report: the module ABI unit does not compile: " +
                     join(job.errors, "; "));
    }
  }
  for (Work& w : m_work) {
    if (w.reused || w.failed) {
      continue;
    }
    for (size_t u = 0; u < w.unit_objects.size(); ++u) {
      if (w.unit_objects[u]) {
        continue;
      }
      const CompileJob& job = m_jobs[m_job_of.at(w.unit_keys[u])];
      if (job.ok) {
        w.unit_objects[u] = job.object;
        continue;
      }
      std::vector<std::string> lines;
      lines.push_back("internal error, please report: task " + job.event.where + " (" +
                      job.event.label + ") does not compile:");
      for (const std::string& e : job.errors) {
        lines.push_back("  " + e);
      }
      fail(w, lines);
      m_r.internal_error = true;
      break;
    }
  }
}

void Run::remember_object(const store::ObjectId& id, std::string bytes) {
  if (m_s.object_bytes + bytes.size() > k_object_cache_bytes) {
    m_fresh_objects.clear();
    m_s.object_bytes = 0;
  }
  m_s.object_bytes += bytes.size();
  m_fresh_objects[id] = std::move(bytes);
}

std::optional<std::string> Run::object_bytes(const store::ObjectId& id) {
  auto it = m_fresh_objects.find(id);
  if (it != m_fresh_objects.end()) {
    return it->second;
  }
  store::Result<std::string> raw = m_store->get(id);
  if (!raw) {
    m_status.error(raw.error());
    return std::nullopt;
  }
  remember_object(id, *raw);
  return std::move(*raw);
}

void Run::link_modules() {
  Timer t(m_metrics, "link");
  std::map<int32_t, std::vector<Work*>> by_module;
  for (Work& w : m_work) {
    if (!w.failed) {
      by_module[w.module].push_back(&w);
    }
  }
  for (auto& [module, works] : by_module) {
    // Relink when an instance of the module was lowered, or its instances disagree on the .so.
    bool relink = false;
    for (Work* w : works) {
      relink = relink || !w->reused || w->module_object != works.front()->module_object;
    }
    if (!relink) {
      continue;
    }
    if (!m_abi_object) {
      for (Work* w : works) {
        fail(*w, {"internal error, please report: no module ABI object to link"});
      }
      continue;
    }
    std::vector<store::ObjectId> ids;
    std::set<store::ObjectId> seen;
    auto add = [&](const store::ObjectId& id) {
      if (seen.insert(id).second) {
        ids.push_back(id);
      }
    };
    for (Work* w : works) {
      if (w->reused) {
        for (const store::Task& task : w->record.tasks) {
          if (task.code) {
            add(*task.code);
          }
        }
      } else {
        for (const std::optional<store::ObjectId>& id : w->unit_objects) {
          add(*id);
        }
      }
    }
    add(*m_abi_object);
    const std::string& path = m_a->program->modules[module].path;
    std::optional<store::ObjectId> so;
    std::vector<std::string> errors;
    // A link is cached like a task: the same objects in the same order give the same module.
    std::string link_input = "qd-link-1\n" + m_toolchain + "\n";
    for (const store::ObjectId& id : ids) {
      link_input += id.hex() + "\n";
    }
    std::string link_key = sema::sha256_hex(link_input);
    if (std::optional<store::TaskRecord> hit = m_cache->lookup(link_key)) {
      so = hit->object;
    } else {
      std::vector<std::string> objects;
      bool missing = false;
      for (const store::ObjectId& id : ids) {
        std::optional<std::string> bytes = object_bytes(id);
        if (!bytes) {
          missing = true;
          break;
        }
        objects.push_back(std::move(*bytes));
      }
      auto t0 = Clock::now();
      if (missing) {
        errors.push_back("a task object of module '" + path + "' cannot be read from the store");
      } else {
        BuildTarget::Output linked = m_target.link(objects);
        if (!linked.ok) {
          errors.push_back("internal error, please report: module '" + path + "' does not link:");
          for (const backend::Diagnostic& d : linked.diagnostics) {
            errors.push_back("  " + backend::format_diagnostic(d));
          }
        } else if (store::Result<store::ObjectId> id = m_store->put(linked.bytes); !id) {
          errors.push_back("cannot store module '" + path + "': " + id.error());
        } else {
          so = *id;
          ++m_r.modules_linked;
          store::Result<store::Unit> rec =
              m_cache->insert(link_key, {*id, static_cast<uint64_t>(ms_since(t0))});
          if (!rec) {
            m_status.warning(rec.error());
          }
        }
      }
    }
    if (!so) {
      m_r.internal_error = true;
      for (Work* w : works) {
        fail(*w, errors);
      }
      continue;
    }
    for (Work* w : works) {
      w->module_object = so;
    }
  }
}

// Entries this build owns (docs/build.md "Entries a build owns"): the instances it built or
// reused now, plus the previously owned entries of kernels that failed or whose file has errors
// (their last good entries stay published). Previously owned entries of kernels that left the
// tree (file deleted or renamed, kernel removed, instance no longer configured) are removed.
void Run::ownership(std::vector<store::EntryKey>& remove, OwnerRecord& owned) {
  const sema::Analysis& a = *m_a;
  owned.owner = m_s.owner;
  std::set<std::string> broken;
  for (int32_t m : m_broken_modules) {
    broken.insert(a.program->modules[m].name);
  }
  std::set<std::string> failed(m_failed_kernels.begin(), m_failed_kernels.end());
  std::map<InstanceId, std::string> now;
  for (const Work& w : m_work) {
    const sema::KernelReport& kr = a.kernels[w.kernel];
    if (w.failed) {
      failed.insert(kr.id);
    } else if (w.module_object) {
      now[{kr.id, kr.instances[w.instance].instance, m_target.name}] = w.module_object->hex();
    }
  }
  for (const auto& [id, hex] : now) {
    owned.entries.push_back({std::get<0>(id), std::get<1>(id), std::get<2>(id), hex});
  }
  if (const OwnerRecord* prev = m_log.find_owner(m_s.owner)) {
    for (const OwnedEntry& e : prev->entries) {
      if (now.count({e.kernel_id, e.instance, e.target}) != 0) {
        continue;
      }
      std::string module = e.kernel_id.substr(0, e.kernel_id.find(':'));
      if (broken.count(module) != 0 || failed.count(e.kernel_id) != 0) {
        owned.entries.push_back(e);
        if (broken.count(module) != 0) {
          m_kept_broken.insert(e.kernel_id);
        }
        continue;
      }
      remove.push_back({e.kernel_id, e.instance, e.target});
    }
  }
  std::sort(owned.entries.begin(), owned.entries.end());
}

void Run::publish_and_log() {
  const sema::Analysis& a = *m_a;
  std::map<std::string, bool> kernel_ok;
  std::set<std::string> compiled;  // task keys counted as compiled
  for (Work& w : m_work) {
    const sema::KernelReport& kr = a.kernels[w.kernel];
    const sema::InstanceKey& inst = kr.instances[w.instance];
    if (w.failed) {
      kernel_ok[kr.id] = false;
      continue;
    }
    kernel_ok.emplace(kr.id, true);
    ++m_r.instances;
    bool module_changed = !w.reused || w.module_object != w.record.module;
    if (w.reused) {
      std::set<store::ObjectId> codes;
      for (const store::Task& task : w.record.tasks) {
        if (task.code) {
          codes.insert(*task.code);
        }
      }
      m_r.tasks_total += codes.size();
      m_r.tasks_reused += codes.size();
      if (!module_changed) {
        continue;
      }
      const InstanceRecord* logged = m_log.find(kr.id, inst.instance, m_target.name);
      store::Entry e{{kr.id, inst.instance, m_target.name}, w.record};
      e.record.module = w.module_object;
      e.record.last_used = 0;
      m_entries.push_back(std::move(e));
      InstanceRecord r = *logged;
      r.module_object = w.module_object->hex();
      m_log_records.push_back(std::move(r));
      continue;
    }
    // Lowered: the tasks whose unit this build compiled count as compiled (each unit once).
    m_r.lowered_tasks += w.unit_keys.size();
    store::Entry e;
    e.key = {kr.id, inst.instance, m_target.name};
    InstanceRecord r;
    r.kernel_id = kr.id;
    r.instance = inst.instance;
    r.target = m_target.name;
    r.kernel_key = inst.key;
    r.compiler = m_compiler;
    r.module = a.program->modules[w.module].name;
    r.module_object = w.module_object->hex();
    r.end_ms = unix_ms();
    r.duration_ms = static_cast<int64_t>(w.duration_ms);
    for (const sema::KeyHasher::Component& c : inst.components) {
      r.components.emplace_back(c.tag, c.hash);
    }
    for (const codegen::TaskCode& tc : w.code.tasks) {
      store::Task task;
      task.name = tc.symbol;
      task.kind = tc.range ? store::TaskKind::range : store::TaskKind::serial;
      task.launch_metadata.assign(reinterpret_cast<const char*>(&tc.launch), sizeof tc.launch);
      task.code = w.unit_objects[tc.unit];
      e.record.tasks.push_back(std::move(task));
      r.tasks.push_back({w.unit_keys[tc.unit], w.unit_objects[tc.unit]->hex()});
    }
    // Counted per unit (one per task when split): compiled when this build compiled it, the
    // first time it appears; else reused.
    for (const std::string& key : w.unit_keys) {
      ++m_r.tasks_total;
      if (m_job_of.count(key) != 0 && compiled.insert(key).second) {
        ++m_r.tasks_compiled;
      } else {
        ++m_r.tasks_reused;
      }
    }
    e.record.module = w.module_object;
    for (const codegen::ArgumentInfo& arg : w.code.arguments) {
      e.record.arguments.push_back({arg.name, arg.kind, arg.dtype, arg.ndim, arg.element_shape});
    }
    m_entries.push_back(std::move(e));
    m_log_records.push_back(std::move(r));
  }
  for (const std::string& id : m_failed_kernels) {
    kernel_ok[id] = false;
  }
  std::set<std::string> lowered;
  for (const Work& w : m_work) {
    if (!w.reused) {
      lowered.insert(a.kernels[w.kernel].id);
    }
  }
  m_r.lowered.assign(lowered.begin(), lowered.end());
  std::vector<store::EntryKey> remove;
  std::map<store::EntryKey, std::string> remove_if;  // key -> module object hex still published
  OwnerRecord owned;
  ownership(remove, owned);
  for (const store::EntryKey& k : remove) {
    const OwnerRecord* prev = m_log.find_owner(m_s.owner);
    for (const OwnedEntry& e : prev->entries) {
      if (e.kernel_id == k.kernel_id && e.instance == k.instance && e.target == k.target) {
        remove_if[k] = e.module_object;
      }
    }
  }
  for (const std::string& id : m_kept_broken) {
    kernel_ok[id] = false;
  }
  for (const auto& [id, ok] : kernel_ok) {
    if (ok) {
      ++m_r.kernels;
    } else {
      m_r.failed.push_back(id);
    }
  }
  // Failed kernels, in kernel order (their source diagnostics first).
  std::set<std::string> reported;
  for (Work& w : m_work) {
    const sema::KernelReport& kr = a.kernels[w.kernel];
    if (w.failed && reported.insert(kr.id).second) {
      std::vector<sema::SemaDiagnostic> diags = w.code.diagnostics;
      m_r.errors += static_cast<size_t>(
          std::count_if(diags.begin(), diags.end(), [](const sema::SemaDiagnostic& d) {
            return d.d.severity == Severity::Error;
          }));
      std::vector<std::string> messages;
      for (Work& other : m_work) {
        if (other.kernel == w.kernel && other.failed) {
          messages.insert(messages.end(), other.messages.begin(), other.messages.end());
        }
      }
      m_status.kernel_failed(a, kr.id, diags, messages);
    }
  }

  {
    Timer t(m_metrics, "publish");
    store::Result<store::Unit> published = store::Unit{};
    std::set<std::string> removed;
    if (!remove_if.empty()) {
      published = publish_and_remove(*m_store, m_entries, remove_if, removed);
    } else if (!m_entries.empty()) {
      published = m_store->publish(m_entries);
    }
    if (!published) {
      m_status.error(published.error());
      m_r.internal_error = true;
      return;  // nothing logged: the next build retries
    }
    m_r.removed.assign(removed.begin(), removed.end());
  }
  Timer t(m_metrics, "build log");
  std::vector<InputsRecord> inputs;
  if (m_r.failed.empty() && !m_r.input_error && !m_r.internal_error) {
    m_stamp.config = m_config;
    stat_index(m_store->index_path(), m_stamp.index_size, m_stamp.index_mtime_ns);
    inputs.push_back(std::move(m_stamp));
  }
  std::vector<OwnerRecord> owners;
  const OwnerRecord* prev_owned = m_log.find_owner(m_s.owner);
  if (prev_owned == nullptr || *prev_owned != owned) {
    owners.push_back(std::move(owned));
  }
  std::string error;
  if (!m_log_records.empty() || !inputs.empty() || !owners.empty()) {
    if (!m_log.write(m_log_path, m_log_records, inputs, error, owners)) {
      m_status.warning(error);
    }
  }
  store::BuildStats s;
  s.time = static_cast<int64_t>(::time(nullptr));
  for (const Work& w : m_work) {
    if (!w.failed) {
      (w.reused ? s.hits : s.misses) += 1;
    }
  }
  s.compile_ms = static_cast<uint64_t>(m_compile_ms);
  s.saved_ms = m_saved_ms;
  if (store::Result<store::Unit> r = store::append_build_stats(m_store->stats_log_path(), s); !r) {
    m_status.warning(r.error());
  }
}

BuildResult Run::run(bool check_noop) {
  if (!m_s.ready) {
    Timer t(m_metrics, "compiler identity");
    m_log_path = m_o.store_dir + "/build.log";
    std::string error;
    if (!BuildTarget::parse(m_o.target, m_target, error)) {
      m_status.error(error);
      m_r.input_error = true;
      return m_r;
    }
    m_toolchain = m_target.toolchain();
    m_compiler = compiler_identity(m_toolchain);
    m_config = config_key(m_o, m_compiler);
    m_s.owner = owner_key(m_o);
    m_s.ready = true;
  }
  if (!m_s.log_loaded) {
    std::string log_text;
    bool have_log = false;
    {
      Timer t(m_metrics, "read log");
      std::string error;
      have_log = support::read_file(m_log_path, log_text, error);
    }
    if (check_noop && try_noop(&log_text)) {
      return finish_noop();
    }
    Timer t(m_metrics, "parse log");
    if (have_log) {
      m_log.parse(log_text);
    }
    m_s.log_loaded = true;
  } else if (check_noop && try_noop(nullptr)) {
    return finish_noop();
  }
  {
    Timer t(m_metrics, "stamp inputs");
    m_stamp = take_stamp(m_o.paths, true);
  }
  {
    Timer t(m_metrics, "analyze");
    sema::AnalysisOptions ao;
    ao.jobs = m_o.jobs;
    ao.target = m_o.target;
    ao.keys = true;
    ao.parse_cache = &m_s.parse_cache;
    m_s.analysis = std::make_unique<sema::Analysis>(sema::analyze(m_o.paths, ao));
    m_a = m_s.analysis.get();
    m_target.gpu.fast_math = m_a->config.fast_math;  // part of every CUDA task key
    std::vector<std::string> paths;
    for (const sema::ModuleInfo& m : m_a->program->modules) {
      paths.push_back(m.path);
    }
    m_s.parse_cache.retain(paths);
  }
  for (const std::string& e : m_a->tool_errors) {
    m_status.error(e);
    m_r.input_error = true;
    ++m_r.errors;
  }
  classify_diagnostics();

  if (!m_store) {
    m_store = std::make_unique<store::LocalStore>(m_o.store_dir);
    // A build writes many objects and task records: one syncfs before its index update instead
    // of two fsyncs each (the index is the commit point; store/local_store.hpp).
    m_store->set_deferred_sync(true);
    m_store->set_warning_handler([&s = m_s](const std::string& w) {
      std::lock_guard<std::mutex> lock(s.status_mutex);
      s.status.warning(w);
    });
    m_cache = std::make_unique<store::TaskCache>(*m_store);
  }
  if (store::Result<store::Unit> r = m_store->create(); !r) {
    m_status.error(r.error());
    m_r.internal_error = true;
    return m_r;
  }
  m_store->reload_index();  // another builder may have published since the last run
  store::Result<const store::IndexView*> index = m_store->index();
  m_index = index ? *index : nullptr;  // a damaged index: everything is rebuilt and replaces it

  plan();
  generate();
  compile();
  link_modules();
  publish_and_log();
  std::sort(m_r.failed.begin(), m_r.failed.end());
  m_r.compile_ms = m_compile_ms;
  m_r.time_s = ms_since(m_start) / 1000;
  if (m_o.stats) {
    m_metrics.report(m_status);
  }
  return m_r;
}

BuildResult Run::finish_noop() {
  m_r.noop = true;
  m_r.time_s = ms_since(m_start) / 1000;
  if (m_o.stats) {
    m_metrics.report(m_status);
  }
  return m_r;
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

Builder::Builder(BuildOptions options, Status& status)
    : m_s(std::make_unique<Session>(std::move(options), status)) {}

Builder::~Builder() = default;

const BuildOptions& Builder::options() const { return m_s->options; }

BuildResult Builder::run(bool check_noop) {
  Run r(*m_s);
  return r.run(check_noop);
}

BuildResult run_build(const BuildOptions& options, Status& status) {
  Builder b(options, status);
  return b.run();
}

std::string summary_line(const BuildResult& r) {
  if (r.noop) {
    return "qdbuild: no work to do.";
  }
  if (!r.failed.empty()) {
    return "qdbuild: build stopped: " + plural(r.failed.size(), "kernel", "kernels") + " failed.";
  }
  char time[32];
  std::snprintf(time, sizeof time, "%.2fs", r.time_s);
  return "qdbuild: built " + plural(r.kernels, "kernel", "kernels") + " (" +
         plural(r.instances, "instance", "instances") +
         "): " + plural(r.tasks_compiled, "task", "tasks") + " compiled, " +
         std::to_string(r.tasks_reused) + " reused, " +
         plural(r.modules_linked, "module", "modules") + " linked in " + time;
}

}  // namespace qd::build
