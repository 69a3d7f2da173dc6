// Where a build's compiles run when remote execution is configured (docs/remote-exec.md
// "Scheduling and faults"): every task goes to the server, as many in flight as `max_in_flight`;
// the build's own cores compile what the server cannot (a refused or failed action, a toolchain
// no worker serves within `queue_timeout`, a server that is down: a circuit breaker) and, once
// nothing is left to send, the last outstanding tasks (stragglers): the first result wins. So a
// build never fails because of the remote side, and every object is the bytes a local compile
// gives (the compile is deterministic and every output is verified against its digest).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "remote_exec/compile_request.hpp"
#include "remote_exec/exec_config.hpp"

namespace qd::remote_exec {

class ExecClient;

class Dispatcher {
public:
  using Warn = std::function<void(const std::string&)>;
  // False with `error` when the URL is not a grpc:// or grpcs:// address.
  static std::unique_ptr<Dispatcher> make(const ExecSettings& settings, Warn warn,
                                          std::string& error);
  ~Dispatcher();

  struct Result {
    enum class Where { local, remote, action_cache };
    bool ok = false;
    std::string bytes;
    Where where = Where::local;
    std::string worker;               // remote: the worker that ran it
    std::vector<std::string> errors;  // a failed local compile's messages
  };
  // A local compile of job i (called on up to `local_threads` threads at once).
  using Local = std::function<Result(size_t)>;
  // Job i's result, once (from any thread, never two at once).
  using Done = std::function<void(size_t, Result&&)>;
  // Job i was handed to a worker or a local thread (the first time only).
  using Started = std::function<void(size_t)>;

  void run(const std::vector<CompileRequest>& jobs, unsigned local_threads, const Local& local,
           const Started& started, const Done& done);

  std::string display() const;  // the server, as messages name it

  // The last run's remote side, for -d stats: actions sent, results from workers and from the
  // action cache, and the turnaround (submission to verified result) of the workers' results.
  struct Stats {
    size_t submitted = 0;
    size_t executed = 0;
    size_t cached = 0;
    size_t local = 0;
    double turnaround_median_ms = 0;
    double turnaround_p90_ms = 0;
    double queued_median_ms = 0;  // of those, submission until a worker held it
    double check_ms = 0;          // GetCapabilities (the first run of a Dispatcher only)
    double upload_ms = 0;         // FindMissingBlobs and the uploads of every action's inputs
  };
  const Stats& last_stats() const { return m_stats; }

private:
  Dispatcher(const ExecSettings& settings, Warn warn);
  bool usable();  // the server answered its capabilities (once) and the breaker is closed
  void transport_failed(const std::string& what);
  void transport_ok();

  struct RunState;
  void remote_loop(RunState& st);
  void local_loop(RunState& st);

  ExecSettings m_settings;
  Warn m_warn;
  std::unique_ptr<ExecClient> m_client;
  std::mutex m_mutex;
  bool m_checked = false;
  bool m_disabled = false;  // the server refused us (credentials, no execution): not again
  int m_consecutive_failures = 0;
  std::chrono::steady_clock::time_point m_open_until{};
  std::set<std::string> m_unserved;  // toolchains no worker took within the queue timeout
  Stats m_stats;
};

}  // namespace qd::remote_exec
