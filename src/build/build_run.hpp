// Internal to src/build: one run of a Builder and what a Builder keeps between runs. The run's
// phases live in one file each: builder.cpp (the run, the no-op check, the Builder API),
// build_plan.cpp (diagnostics, what to build and what to reuse), build_compile.cpp (generate,
// compile, link), build_publish.cpp (ownership, publishing, the build log).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "build/build_log.hpp"
#include "build/build_target.hpp"
#include "build/builder.hpp"
#include "build/input_stamp.hpp"
#include "codegen/kernel_codegen.hpp"
#include "sema/key_hasher.hpp"
#include "store/local_store.hpp"
#include "store/remote.hpp"
#include "store/task_cache.hpp"
#include "support/never_freed.hpp"

namespace qd::remote_exec {
class Dispatcher;  // remote_exec/dispatcher.hpp (only with gRPC)
}

namespace qd::build {

// What a Builder keeps between runs (watch mode): the compiler identity, the build log as last
// written, the store handles, the parse cache, the objects it compiled or read (link inputs).
struct Builder::Session {
  Session(const ResolvedBuild& r, const std::string& t, Status& s)
      : resolved(r), target_name(t), status(s) {}
  ~Session() {
    // Never destroyed: freeing every AST at exit costs time and changes nothing.
    support::never_freed(analysis.release());
  }

  ResolvedBuild resolved;   // what to build (qdbuild::resolve)
  std::string target_name;  // one of resolved.targets
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
  // The remote cache (store/remote.hpp), made on the first build that is not a no-op; nullptr
  // when none is configured. Its circuit breakers last as long as the Builder.
  std::unique_ptr<store::RemoteSet> remote;
  bool remote_ready = false;
  // Remote execution (build_remote_exec.cpp), made on the first run that compiles; null when
  // none is configured. Its circuit breaker lasts as long as the Builder.
  std::shared_ptr<remote_exec::Dispatcher> dispatcher;
  bool dispatcher_ready = false;
  sema::ParseCache parse_cache;
  std::unique_ptr<sema::Analysis> analysis;  // the last run's (the next run replaces it)
  // Object bytes by address (this run's compiles, objects read for links), kept for the next
  // run's links up to k_object_cache_bytes.
  std::map<store::ObjectId, std::string> objects;
  size_t object_bytes = 0;
  std::mutex status_mutex;  // Status calls from worker threads (and the store's warnings)
};

namespace detail {

using Clock = std::chrono::steady_clock;
using syntax::Severity;

inline double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
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
  enum class Where { local, remote, action_cache } where = Where::local;
  std::string worker;  // remote: the worker that compiled it
  store::ObjectId object;
  std::string bytes;
  double ms = 0;
  std::vector<std::string> errors;
};

// Object bytes kept between watch-mode runs for links (Builder::Session::objects).
constexpr size_t k_object_cache_bytes = size_t{256} << 20;

std::string join(const std::vector<std::string>& v, const char* sep);

class Run {
public:
  explicit Run(Builder::Session& s)
      : m_s(s), m_o(s.resolved.options), m_status(s.status), m_target(s.target),
        m_toolchain(s.toolchain), m_compiler(s.compiler), m_config(s.config), m_log(s.log),
        m_log_path(s.log_path), m_store(s.store), m_cache(s.cache), m_fresh_objects(s.objects),
        m_status_mutex(s.status_mutex) {}

  BuildResult run(bool check_noop);

private:
  BuildResult finish_noop();
  bool try_noop(const std::string* log_text);
  // The recorded-run files the analysis reads (sema::record_files), stamped with the sources.
  std::vector<std::string> record_files() const;
  void remember_object(const store::ObjectId& id, std::string bytes);
  void ownership(std::vector<store::EntryKey>& remove, OwnerRecord& owned);
  void classify_diagnostics();
  void plan();
  void generate();
  void compile();
  // One job's compile output into the store and the task cache (any thread; job-local state).
  void finish_job(CompileJob& job, BuildTarget::Output&& obj);
  // build_remote_exec.cpp: remote execution, when configured (null otherwise, or without gRPC).
  remote_exec::Dispatcher* dispatcher();
  // Every job through the dispatcher (remote, with local fallback); false when there is none.
  bool compile_remotely();
  // --audit N: N remote results recompiled locally and compared byte for byte.
  void audit_remote();
  void link_modules();
  std::string link_inputs(const std::vector<Work*>& works, std::vector<store::ObjectId>& ids);
  void publish_and_log();
  // build_remote.cpp: the remote cache, when one is configured.
  store::RemoteSet* remote_set();
  // A fetched record (and its object, already verified by RemoteSet) into the local store and
  // task cache; false, with a warning, when it could not be kept. `remember`: keep the object's
  // bytes for this run's links too (task objects).
  bool keep_fetched(const std::string& key, store::RemoteSet::Fetched& f, bool remember);
  // Task records and objects of the units `todo`'s kernels miss locally (and the module ABI
  // unit), in one batch; fills their unit_objects.
  void fetch_from_remote(const std::vector<size_t>& todo);
  // Link records of the modules `keys` (link key -> module path), in one batch.
  void fetch_links_from_remote(const std::vector<std::string>& keys);
  void upload_to_remote();
  void note_upload(const std::string& key, const store::ObjectId& id, uint64_t ms,
                   const std::string& content);
  void fail(Work& w, std::vector<std::string> messages);
  std::optional<std::string> object_bytes(const store::ObjectId& id);

  // Status calls from worker threads go through here.
  template <class F> void locked(F&& f) {
    std::lock_guard<std::mutex> lock(m_status_mutex);
    f();
  }

  Builder::Session& m_s;
  const qdbuild::BuildOptions& m_o;  // resolved: paths, store, root filled in
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
  std::vector<store::RemoteSet::Upload> m_uploads;  // what this run compiled or linked
  std::set<std::string> m_fetched;                  // task keys served by the remote
};

}  // namespace detail

}  // namespace qd::build
