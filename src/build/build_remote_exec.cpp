// The builder's side of remote execution (docs/remote-exec.md): when a server is configured, the
// run's compile jobs (what the local store and the remote cache both missed) go through the
// dispatcher, which runs them on the server's workers and falls back to this machine's cores;
// each result is stored and recorded exactly as a local compile's. --audit N recompiles a random
// sample of the remote results here and compares the bytes.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "build/build_run.hpp"
#include "remote_exec/exec_config.hpp"
#include "support/thread_pool.hpp"
#ifdef QD_HAVE_REMOTE_EXEC
#include "remote_exec/dispatcher.hpp"
#endif

namespace qd::build::detail {

namespace {

remote_exec::ExecFileSettings file_settings(const sema::Analysis* a) {
  remote_exec::ExecFileSettings f;
  if (a != nullptr) {
    const sema::BuildConfig::RemoteExecution& r = a->config.remote_execution;
    f.url = r.url;
    f.max_in_flight = r.max_in_flight;
    f.queue_timeout_ms = r.queue_timeout_ms;
    f.action_timeout_ms = r.action_timeout_ms;
    f.timeout_ms = r.timeout_ms;
  }
  return f;
}

}  // namespace

remote_exec::Dispatcher* Run::dispatcher() {
  if (!m_s.dispatcher_ready) {
    m_s.dispatcher_ready = true;
    remote_exec::ExecSettings settings;
    bool enabled = false;
    std::string error;
    if (!remote_exec::resolve_exec_settings(
            file_settings(m_a), [](const char* name) { return std::getenv(name); }, settings,
            enabled, error)) {
      m_status.error(error);
      m_r.input_error = true;
      ++m_r.errors;
      return nullptr;
    }
    if (!enabled) {
      return nullptr;
    }
#ifdef QD_HAVE_REMOTE_EXEC
    m_s.dispatcher = remote_exec::Dispatcher::make(
        settings,
        [&s = m_s](const std::string& w) {
          std::lock_guard<std::mutex> lock(s.status_mutex);
          s.status.warning(w);
        },
        error);
    if (!m_s.dispatcher) {
      m_status.error(error);
      m_r.input_error = true;
      ++m_r.errors;
    }
#else
    m_status.warning("remote execution is configured (" + settings.url +
                     ") but this qdbuild was built without it (no gRPC); compiling locally");
#endif
  }
  return m_s.dispatcher.get();
}

bool Run::compile_remotely() {
#ifndef QD_HAVE_REMOTE_EXEC
  dispatcher();  // says once that it cannot be used
  return false;
#else
  remote_exec::Dispatcher* d = m_jobs.empty() ? nullptr : dispatcher();
  if (d == nullptr) {
    return false;
  }
  std::vector<remote_exec::CompileRequest> requests(m_jobs.size());
  for (size_t i = 0; i < m_jobs.size(); ++i) {
    requests[i].cuda = m_target.cuda;
    requests[i].cpu = m_target.cpu;
    requests[i].gpu = m_target.gpu;
    requests[i].source = m_jobs[i].source;
  }
  using Result = remote_exec::Dispatcher::Result;
  std::vector<Clock::time_point> started(m_jobs.size());
  auto local = [&](size_t i) {
    Result r;
    BuildTarget::Output obj = m_target.compile({m_jobs[i].event.where, m_jobs[i].source});
    r.ok = obj.ok;
    r.bytes = std::move(obj.bytes);
    for (const backend::Diagnostic& diag : obj.diagnostics) {
      if (diag.severity == backend::Diagnostic::Severity::error) {
        r.errors.push_back(backend::format_diagnostic(diag));
      }
    }
    return r;
  };
  auto on_started = [&](size_t i) {
    started[i] = Clock::now();
    if (!m_jobs[i].silent) {
      locked([&] { m_status.compile_started(m_jobs[i].event); });
    }
  };
  auto done = [&](size_t i, Result&& r) {
    CompileJob& job = m_jobs[i];
    job.ms = ms_since(started[i]);
    job.where = r.where == Result::Where::remote         ? CompileJob::Where::remote
                : r.where == Result::Where::action_cache ? CompileJob::Where::action_cache
                                                         : CompileJob::Where::local;
    job.worker = std::move(r.worker);
    BuildTarget::Output obj;
    obj.ok = r.ok;
    obj.bytes = std::move(r.bytes);
    for (const std::string& e : r.errors) {
      obj.diagnostics.push_back({backend::Diagnostic::Severity::error, "", "", 0, 0, e});
    }
    finish_job(job, std::move(obj));
  };
  d->run(requests, m_o.jobs, local, on_started, done);
  if (m_o.stats) {
    const remote_exec::Dispatcher::Stats& st = d->last_stats();
    char line[256];
    std::snprintf(line, sizeof line,
                  "remote execution: %zu sent, %zu executed, %zu from the action cache, %zu "
                  "compiled here; turnaround median %.1f ms, p90 %.1f ms; queued median %.1f ms; "
                  "capabilities %.1f ms, uploads %.1f ms",
                  st.submitted, st.executed, st.cached, st.local, st.turnaround_median_ms,
                  st.turnaround_p90_ms, st.queued_median_ms, st.check_ms, st.upload_ms);
    m_status.info(line);
  }
  audit_remote();
  return true;
#endif
}

void Run::audit_remote() {
  if (m_o.audit <= 0) {
    return;
  }
  // A sample of N kernel tasks, and every module ABI unit (one small unit per target, not a task
  // of any kernel): a sample drawn from both would sometimes audit fewer than N tasks.
  std::vector<size_t> tasks;
  std::vector<size_t> units;
  for (size_t i = 0; i < m_jobs.size(); ++i) {
    if (m_jobs[i].ok && m_jobs[i].where != CompileJob::Where::local) {
      (m_jobs[i].silent ? units : tasks).push_back(i);
    }
  }
  std::mt19937_64 rng(std::random_device{}());
  std::shuffle(tasks.begin(), tasks.end(), rng);
  tasks.resize(std::min(tasks.size(), static_cast<size_t>(m_o.audit)));
  std::vector<size_t> remote = tasks;
  remote.insert(remote.end(), units.begin(), units.end());
  std::vector<BuildTarget::Output> local(remote.size());
  support::parallel_for(
      remote.size(),
      [&](size_t n) {
        const CompileJob& job = m_jobs[remote[n]];
        local[n] = m_target.compile({job.event.where, job.source});
      },
      m_o.jobs);
  size_t differ = 0;
  for (size_t n = 0; n < remote.size(); ++n) {
    CompileJob& job = m_jobs[remote[n]];
    if (!local[n].ok || local[n].bytes == job.bytes) {
      continue;  // a local failure is reported by no one: the remote result stands
    }
    ++differ;
    m_status.error("audit: the object of " + job.event.where + " from worker '" +
                   (job.worker.empty() ? std::string("?") : job.worker) +
                   "' differs from a local compile (" + std::to_string(job.bytes.size()) +
                   " bytes against " + std::to_string(local[n].bytes.size()) +
                   "); the local object is kept and no result of this build can be trusted");
    store::Result<store::ObjectId> id = m_store->put(local[n].bytes);
    if (!id) {
      job.ok = false;
      job.errors.push_back("cannot store the object of " + job.event.where + ": " + id.error());
      continue;
    }
    job.object = *id;
    job.bytes = std::move(local[n].bytes);
    if (store::Result<store::Unit> rec = m_cache->insert(job.key, {*id, 0}); !rec) {
      m_status.warning(rec.error());
    }
  }
  m_r.tasks.audited += tasks.size();  // the module ABI units are not tasks: not counted
  if (differ > 0) {
    m_r.internal_error = true;
    m_r.errors += differ;
  }
}

}  // namespace qd::build::detail
