#include "build/build_run.hpp"

#include <cstdio>
#include <filesystem>

#include "backend/backend.hpp"
#include "support/file_io.hpp"
#include "support/self_object.hpp"

namespace qd::build {

namespace fs = std::filesystem;

namespace detail {

namespace {

// What decides the generated and compiled code besides the kernel key: qdbuild itself (its
// binary, so a rebuilt compiler re-lowers), the toolchain and the CPU target.
std::string compiler_identity(const std::string& toolchain) {
  std::string id = std::string(sema::k_tool_version) + "\n" + toolchain + "\n";
  int64_t size = 0;
  int64_t mtime = 0;
  // The qdbuild executable, or libqdbuild.so in an app that embeds the builder.
  if (std::string self = support::self_object_path();
      !self.empty() && stat_file(self, size, mtime)) {
    id += "exe " + std::to_string(size) + " " + std::to_string(mtime);
  }
  return sema::sha256_hex(id);
}

// The no-op record's key: what was built, from where, by which compiler.
std::string config_key(const ResolvedBuild& r, const std::string& target,
                       const std::string& compiler) {
  const qdbuild::BuildOptions& o = r.options;
  std::error_code ec;
  std::string key = "qdbuild-build-config-1\ncwd " + fs::current_path(ec).string() + "\n";
  for (const std::string& p : o.paths) {
    key += "path " + p + "\n";
  }
  key += "target " + target + "\ncompiler " + compiler + "\n";
  if (!o.root.empty()) {
    key += "root " + o.root + "\n";
  }
  for (const std::string& f : o.instance_files) {
    key += "instances " + f + "\n";
  }
  for (const std::string& d : r.exclude) {
    key += "exclude " + d + "\n";
  }
  return sema::sha256_hex(key);
}

// Who owns the entries a build publishes: the working directory, the paths and the target (not
// the compiler: a new qdbuild still owns what the old one published).
std::string owner_key(const qdbuild::BuildOptions& o, const std::string& target) {
  std::error_code ec;
  std::string key = "qdbuild-build-owner-1\ncwd " + fs::current_path(ec).string() + "\n";
  for (const std::string& p : o.paths) {
    key += "path " + p + "\n";
  }
  key += "target " + target + "\n";
  return sema::sha256_hex(key);
}

}  // namespace

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v) {
    out += (out.empty() ? "" : sep) + s;
  }
  return out;
}

std::vector<std::string> Run::record_files() const {
  sema::AnalysisOptions ao;
  ao.instance_files = m_o.instance_files;
  return sema::record_files(m_o.paths, ao);
}

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
  if (m_s.resolved.sources_from_records) {
    if (m_o.explain) {
      m_status.info("qdbuild explain: the sources come from the records: analysing them again");
    }
    return false;
  }
  store::LocalStore probe(m_o.store);
  if (stamp_up_to_date(*logged, m_o.paths, probe.index_path(), why, record_files(),
                       excluded_dirs(m_s.resolved))) {
    return true;
  }
  if (m_o.explain) {
    m_status.info("qdbuild explain: " + why);
  }
  return false;
}

BuildResult Run::run(bool check_noop) {
  if (!m_s.ready) {
    Timer t(m_metrics, "compiler identity");
    m_log_path = m_o.store + "/build.log";
    std::string error;
    if (!BuildTarget::parse(m_s.target_name, m_target, error)) {
      m_status.error(error);
      m_r.input_error = true;
      return m_r;
    }
    m_toolchain = m_target.toolchain();
    m_compiler = compiler_identity(m_toolchain);
    m_config = config_key(m_s.resolved, m_s.target_name, m_compiler);
    m_s.owner = owner_key(m_o, m_s.target_name);
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
    m_stamp = take_stamp(m_o.paths, true, record_files(), excluded_dirs(m_s.resolved));
  }
  {
    Timer t(m_metrics, "analyze");
    sema::AnalysisOptions ao;
    ao.jobs = m_o.jobs;
    ao.target = m_s.target_name;
    ao.keys = true;
    ao.parse_cache = &m_s.parse_cache;
    ao.root = m_o.root;
    ao.follow_imports = m_s.resolved.sources_from_records;
    ao.instance_files = m_o.instance_files;
    ao.exclude = excluded_dirs(m_s.resolved);
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
    m_store = std::make_unique<store::LocalStore>(m_o.store);
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
  upload_to_remote();
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

}  // namespace detail

namespace {

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

Builder::Builder(const ResolvedBuild& resolved, const std::string& target, Status& status)
    : m_s(std::make_unique<Session>(resolved, target, status)) {}

Builder::~Builder() = default;

BuildResult Builder::run(bool check_noop) {
  detail::Run r(*m_s);
  BuildResult out = r.run(check_noop);
  out.target = m_s->target_name;
  out.summary = summary_line(out);
  return out;
}

std::vector<std::string> excluded_dirs(const ResolvedBuild& resolved) {
  std::vector<std::string> out = resolved.exclude;
  if (!resolved.store.empty()) {
    out.push_back(resolved.store);
  }
  return out;
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
         "): " + plural(r.tasks.compiled, "task", "tasks") + " compiled, " +
         std::to_string(r.tasks.reused) + " reused, " +
         plural(r.modules_linked, "module", "modules") + " linked in " + time;
}

}  // namespace qd::build
