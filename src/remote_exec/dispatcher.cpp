#include "remote_exec/dispatcher.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <optional>
#include <thread>

#include "remote_exec/exec_client.hpp"

namespace qd::remote_exec {

namespace {

using Clock = std::chrono::steady_clock;

// Consecutive transport failures that open the breaker, and how long it stays open.
constexpr int k_breaker_failures = 3;
constexpr auto k_breaker_open = std::chrono::seconds(30);
// A straggler: running remotely for longer than this many times the median remote turnaround
// (and at least k_straggler_floor) while local cores are idle.
constexpr double k_straggler_factor = 3.0;
constexpr auto k_straggler_floor = std::chrono::seconds(2);
// RESOURCE_EXHAUSTED answers in a row (100 ms apart) to the last remote thread before the server
// counts as failing.
constexpr int k_busy_limit = 50;
// Messages about individual actions: the first few, then a count.
constexpr int k_action_warnings = 3;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

struct Dispatcher::RunState {
  enum class State { pending, remote, done };
  struct Job {
    State state = State::pending;
    bool local_taken = false;  // a local thread compiles it (fallback or straggler)
    bool started = false;
    std::string toolchain;
    Clock::time_point sent{};
    std::unique_ptr<ExecCall> call;
  };
  const std::vector<CompileRequest>* requests = nullptr;
  std::vector<ActionBlobs> actions;
  std::vector<Job> jobs;
  std::deque<size_t> pending;
  std::deque<size_t> fallback;
  size_t remaining = 0;
  unsigned remote_threads = 0;  // remote_loop threads still running
  int busy_streak = 0;          // RESOURCE_EXHAUSTED answers in a row to the last remote thread
  std::map<std::string, Clock::time_point> progress;  // toolchain -> last start or finish
  std::map<std::string, size_t> submitted;            // toolchain -> actions sent
  std::set<std::string> served;                       // toolchains a worker started work of
  std::map<std::string, size_t> compiled_here;        // toolchain -> actions compiled locally
  std::vector<double> turnaround_s;                   // remote results, submission to result
  std::vector<double> executed_s;                     // the same, of results a worker ran
  std::vector<double> queued_s;                       // of those: submission to EXECUTING
  size_t cached = 0;
  size_t local_done = 0;
  int action_warnings = 0;
  int suppressed_warnings = 0;
  std::mutex mutex;
  std::condition_variable cv;
  const Local* local = nullptr;
  const Started* started = nullptr;
  const Done* done = nullptr;

  void mark_started(size_t i) {  // under `mutex`
    if (!jobs[i].started) {
      jobs[i].started = true;
      (*started)(i);
    }
  }
};

std::unique_ptr<Dispatcher> Dispatcher::make(const ExecSettings& settings, Warn warn,
                                             std::string& error) {
  Endpoint ep;
  if (!parse_endpoint(settings.url, ep, error)) {
    error = "remote execution: " + error;
    return nullptr;
  }
  return std::unique_ptr<Dispatcher>(new Dispatcher(settings, std::move(warn)));
}

Dispatcher::Dispatcher(const ExecSettings& settings, Warn warn)
    : m_settings(settings), m_warn(std::move(warn)) {
  Endpoint ep;
  std::string ignored;
  parse_endpoint(settings.url, ep, ignored);
  ep.token = settings.token;
  ep.ca_pem = settings.ca_pem;
  m_client = std::make_unique<ExecClient>(ep, std::chrono::milliseconds(settings.timeout_ms),
                                          std::chrono::milliseconds(settings.action_timeout_ms));
}

Dispatcher::~Dispatcher() = default;

std::string Dispatcher::display() const {
  const Endpoint& ep = m_client->endpoint();
  return (ep.tls ? "grpcs://" : "grpc://") + ep.target +
         (ep.instance.empty() ? "" : "/" + ep.instance);
}

bool Dispatcher::usable() {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_disabled || Clock::now() < m_open_until) {
    return false;
  }
  if (!m_checked) {
    std::string error;
    bool transport = false;
    if (!m_client->check_server(error, transport)) {
      if (transport) {
        m_open_until = Clock::now() + k_breaker_open;
        m_warn("remote execution: " + display() + " cannot be reached (" + error +
               "); compiling locally");
      } else {
        m_disabled = true;
        m_warn("remote execution: " + display() + " refused: " + error + "; compiling locally");
      }
      return false;
    }
    m_checked = true;
  }
  return true;
}

void Dispatcher::transport_failed(const std::string& what) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (++m_consecutive_failures >= k_breaker_failures && Clock::now() >= m_open_until) {
    m_open_until = Clock::now() + k_breaker_open;
    m_checked = false;  // ask again when the breaker closes
    m_warn(
        "remote execution: " + display() + " is failing (" + what +
        "); compiling locally for the next " +
        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(k_breaker_open).count()) +
        " s");
  }
}

void Dispatcher::transport_ok() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_consecutive_failures = 0;
}

void Dispatcher::run(const std::vector<CompileRequest>& jobs, unsigned local_threads,
                     const Local& local, const Started& started, const Done& done) {
  RunState st;
  st.requests = &jobs;
  st.jobs.resize(jobs.size());
  st.remaining = jobs.size();
  st.local = &local;
  st.started = &started;
  st.done = &done;
  m_unserved.clear();
  m_stats = Stats{};
  if (jobs.empty()) {
    return;
  }
  auto t_check = Clock::now();
  bool remote = usable();
  m_stats.check_ms = 1000 * seconds(Clock::now() - t_check);
  if (remote) {
    auto t_upload = Clock::now();
    st.actions.reserve(jobs.size());
    std::vector<const ActionBlobs*> all;
    for (size_t i = 0; i < jobs.size(); ++i) {
      st.actions.push_back(make_action(jobs[i]));
      st.jobs[i].toolchain = toolchain_property(jobs[i].cuda);
    }
    for (const ActionBlobs& a : st.actions) {
      all.push_back(&a);
    }
    std::string error;
    if (!m_client->upload(all, error)) {
      transport_failed("uploading the inputs: " + error);
      m_warn("remote execution: cannot upload the actions' inputs to " + display() + " (" + error +
             "); compiling locally");
      remote = false;
    }
    m_stats.upload_ms = 1000 * seconds(Clock::now() - t_upload);
  }
  auto now = Clock::now();
  for (size_t i = 0; i < jobs.size(); ++i) {
    (remote ? st.pending : st.fallback).push_back(i);
    st.progress[st.jobs[i].toolchain] = now;
  }
  unsigned remote_threads =
      remote
          ? static_cast<unsigned>(std::min<int64_t>(std::max<int64_t>(m_settings.max_in_flight, 1),
                                                    static_cast<int64_t>(jobs.size())))
          : 0;
  local_threads = std::max(local_threads, 1u);
  std::vector<std::thread> threads;
  st.remote_threads = remote_threads;
  for (unsigned t = 0; t < remote_threads; ++t) {
    threads.emplace_back([&] { remote_loop(st); });
  }
  for (unsigned t = 0; t < local_threads; ++t) {
    threads.emplace_back([&] { local_loop(st); });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  // Local cores may have compiled every action of a toolchain before its queue timeout (idle
  // cores take outstanding actions): say so when no worker started any of them.
  bool open = false;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    open = m_disabled || Clock::now() < m_open_until;
  }
  for (const auto& [toolchain, n] : st.compiled_here) {
    if (!open && st.submitted.count(toolchain) != 0 && st.served.count(toolchain) == 0 &&
        m_unserved.count(toolchain) == 0) {
      m_warn("remote execution: no worker of " + display() + " started any of " +
             std::to_string(st.submitted[toolchain]) + " actions for " +
             toolchain.substr(0, toolchain.find('-')) + " (toolchain " +
             toolchain.substr(toolchain.find('-') + 1, 12) + "...); " + std::to_string(n) +
             " were compiled locally");
    }
  }
  for (const auto& [toolchain, n] : st.submitted) {
    m_stats.submitted += n;
  }
  m_stats.executed = st.executed_s.size();
  m_stats.cached = st.cached;
  m_stats.local = st.local_done;
  if (!st.executed_s.empty()) {
    std::vector<double> t = st.executed_s;
    std::sort(t.begin(), t.end());
    m_stats.turnaround_median_ms = 1000 * t[t.size() / 2];
    m_stats.turnaround_p90_ms = 1000 * t[std::min(t.size() - 1, t.size() * 9 / 10)];
  }
  if (!st.queued_s.empty()) {
    std::vector<double> q = st.queued_s;
    std::nth_element(q.begin(), q.begin() + q.size() / 2, q.end());
    m_stats.queued_median_ms = 1000 * q[q.size() / 2];
  }
  if (st.suppressed_warnings > 0) {
    m_warn("remote execution: " + std::to_string(st.suppressed_warnings) +
           " more actions failed remotely and were compiled locally");
  }
}

void Dispatcher::remote_loop(RunState& st) {
  std::unique_lock<std::mutex> lock(st.mutex);
  while (!st.pending.empty()) {
    bool open = false;
    {
      std::lock_guard<std::mutex> l(m_mutex);
      open = m_disabled || Clock::now() < m_open_until;
    }
    size_t i = st.pending.front();
    st.pending.pop_front();
    RunState::Job& job = st.jobs[i];
    if (open || m_unserved.count(job.toolchain) != 0) {
      st.fallback.push_back(i);
      st.cv.notify_all();
      continue;
    }
    job.state = RunState::State::remote;
    job.sent = Clock::now();
    ++st.submitted[job.toolchain];
    job.call = std::make_unique<ExecCall>();
    ExecCall& call = *job.call;
    st.mark_started(i);
    lock.unlock();
    ExecOutcome out = m_client->execute(st.actions[i].action, call);
    if (out.kind == ExecOutcome::Kind::transport) {
      transport_failed(out.error);
    } else if (out.kind != ExecOutcome::Kind::cancelled && out.kind != ExecOutcome::Kind::busy) {
      transport_ok();
    }
    lock.lock();
    if (out.kind == ExecOutcome::Kind::busy && job.state != RunState::State::done) {
      // The server has fewer slots than we have calls in flight: this call goes back to the
      // queue and its thread retires (the last one stays), so the run settles at what the
      // server takes.
      job.state = RunState::State::pending;
      job.call.reset();
      if (!job.local_taken) {
        st.pending.push_front(i);
      }
      if (st.remote_threads > 1) {
        --st.remote_threads;
        st.cv.notify_all();
        return;
      }
      // The last thread: a server that stays busy for k_busy_limit tries is a failing one
      // (the breaker then sends the rest to local cores).
      if (++st.busy_streak >= k_busy_limit) {
        st.busy_streak = 0;
        lock.unlock();
        for (int n = 0; n < k_breaker_failures; ++n) {
          transport_failed("the server stays busy (RESOURCE_EXHAUSTED)");
        }
        lock.lock();
        continue;
      }
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      lock.lock();
      continue;
    }
    st.busy_streak = 0;
    if (job.state == RunState::State::done) {
      continue;  // a local compile won
    }
    if (out.kind == ExecOutcome::Kind::ok) {
      if (!out.cached) {  // (an action cache hit says nothing about the workers)
        st.progress[job.toolchain] = Clock::now();
        st.served.insert(job.toolchain);
        st.executed_s.push_back(seconds(Clock::now() - job.sent));
        if (auto since = call.executing_since(); since != Clock::time_point{}) {
          st.queued_s.push_back(seconds(since - job.sent));
        }
      } else {
        ++st.cached;
      }
      st.turnaround_s.push_back(seconds(Clock::now() - job.sent));
      job.state = RunState::State::done;
      --st.remaining;
      Result r;
      r.ok = true;
      r.bytes = std::move(out.output);
      r.where = out.cached ? Result::Where::action_cache : Result::Where::remote;
      r.worker = std::move(out.worker);
      (*st.done)(i, std::move(r));
      st.cv.notify_all();
      continue;
    }
    if (out.kind == ExecOutcome::Kind::failed) {
      if (st.action_warnings < k_action_warnings) {
        ++st.action_warnings;
        m_warn("remote execution: " + out.error + "; compiling locally");
      } else {
        ++st.suppressed_warnings;
      }
    }
    job.state = RunState::State::pending;
    if (!job.local_taken) {
      st.fallback.push_back(i);
    }
    st.cv.notify_all();
  }
  --st.remote_threads;
  st.cv.notify_all();
}

void Dispatcher::local_loop(RunState& st) {
  std::unique_lock<std::mutex> lock(st.mutex);
  const auto queue_timeout = std::chrono::milliseconds(m_settings.queue_timeout_ms);
  while (st.remaining > 0) {
    std::optional<size_t> take;
    while (!st.fallback.empty() && !take) {
      size_t i = st.fallback.front();
      st.fallback.pop_front();
      if (st.jobs[i].state != RunState::State::done && !st.jobs[i].local_taken) {
        take = i;
      }
    }
    auto now = Clock::now();
    if (!take) {
      // A toolchain counts as served while any of its actions executes; one whose actions all
      // waited for the queue timeout, with none started, goes local from now on (no worker
      // with this toolchain is connected, or all are stuck).
      for (const RunState::Job& job : st.jobs) {
        if (job.state == RunState::State::remote && job.call &&
            job.call->stage() == ExecCall::Stage::executing) {
          st.progress[job.toolchain] = now;
          st.served.insert(job.toolchain);
        }
      }
      for (RunState::Job& job : st.jobs) {
        if (job.state != RunState::State::remote || !job.call ||
            job.call->stage() == ExecCall::Stage::executing) {
          continue;
        }
        if (now - job.sent > queue_timeout && now - st.progress[job.toolchain] > queue_timeout &&
            m_unserved.insert(job.toolchain).second) {
          m_warn("remote execution: no worker of " + display() + " started an action for " +
                 job.toolchain.substr(0, job.toolchain.find('-')) + " (toolchain " +
                 job.toolchain.substr(job.toolchain.find('-') + 1, 12) + "...) within " +
                 std::to_string(m_settings.queue_timeout_ms / 1000) +
                 " s; compiling those tasks locally");
        }
        if (m_unserved.count(job.toolchain) != 0) {
          job.call->cancel();  // its remote thread puts it on the fallback queue
        }
      }
      if (st.pending.empty()) {
        // Stragglers: the longest-running remote action, once it is well past the median.
        std::vector<double> t = st.turnaround_s;
        double median = 0;
        if (!t.empty()) {
          std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
          median = t[t.size() / 2];
        }
        double after = std::max(seconds(k_straggler_floor), k_straggler_factor * median);
        std::optional<size_t> oldest;
        for (size_t i = 0; i < st.jobs.size(); ++i) {
          const RunState::Job& job = st.jobs[i];
          if (job.state == RunState::State::remote && !job.local_taken &&
              seconds(now - job.sent) > after && (!oldest || job.sent < st.jobs[*oldest].sent)) {
            oldest = i;
          }
        }
        take = oldest;
      }
    }
    if (!take) {
      st.cv.wait_for(lock, std::chrono::milliseconds(50));
      continue;
    }
    size_t i = *take;
    st.jobs[i].local_taken = true;
    st.mark_started(i);
    lock.unlock();
    Result r = (*st.local)(i);
    lock.lock();
    RunState::Job& job = st.jobs[i];
    if (job.state == RunState::State::done) {
      continue;  // the remote result came first
    }
    if (job.state == RunState::State::remote && job.call) {
      job.call->cancel();
    }
    job.state = RunState::State::done;
    --st.remaining;
    ++st.compiled_here[job.toolchain];
    ++st.local_done;
    r.where = Result::Where::local;
    (*st.done)(i, std::move(r));
    st.cv.notify_all();
  }
  st.cv.notify_all();
}

}  // namespace qd::remote_exec
