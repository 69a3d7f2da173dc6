// The build's side of remote execution: puts actions' inputs into the server's CAS and runs
// actions through Execution.Execute (a stream of google.longrunning.Operation), resuming with
// WaitExecution when the stream breaks, and reads each result's output back, verified against its
// digest (docs/remote-exec.md). Thread-safe: one client serves every in-flight action.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "remote_exec/cas_client.hpp"
#include "remote_exec/compile_action.hpp"

namespace grpc {
class ClientContext;
}

namespace qd::remote_exec {

// One Execute in flight: its stage as the server last said, and a way to abandon it (from any
// thread; the Execute call then returns `cancelled`).
class ExecCall {
public:
  enum class Stage { submitting, queued, executing, done };
  Stage stage() const { return m_stage.load(); }
  // When the server first said the action executes (a worker holds it); unset before.
  std::chrono::steady_clock::time_point executing_since() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_executing_since;
  }
  void cancel();

private:
  friend class ExecClient;
  void attach(grpc::ClientContext* ctx);
  void set_stage(Stage s) {
    if (s == Stage::executing && m_stage.load() != Stage::executing) {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_executing_since = std::chrono::steady_clock::now();
    }
    m_stage.store(s);
  }
  std::atomic<Stage> m_stage{Stage::submitting};
  mutable std::mutex m_mutex;
  std::chrono::steady_clock::time_point m_executing_since{};
  grpc::ClientContext* m_ctx = nullptr;
  bool m_cancelled = false;
};

struct ExecOutcome {
  enum class Kind {
    ok,         // `output` holds the verified output
    failed,     // the action ran (or was refused) without an output: `error` says why
    transport,  // the server could not be reached or failed: counts toward the breaker
    cancelled,  // ExecCall::cancel
    busy,       // the server refused the call for its load (RESOURCE_EXHAUSTED): try later
  };
  Kind kind = Kind::failed;
  std::string output;
  bool cached = false;  // served from the server's action cache (no worker ran it)
  std::string worker;   // ExecutedActionMetadata.worker
  std::string error;
};

class ExecClient {
public:
  ExecClient(const Endpoint& endpoint, std::chrono::milliseconds call_timeout,
             std::chrono::milliseconds action_timeout);
  ~ExecClient();
  ExecClient(const ExecClient&) = delete;
  ExecClient& operator=(const ExecClient&) = delete;

  // GetCapabilities: false with `error` when the server cannot execute for us (no execution, no
  // SHA-256). `transport`: the failure was the server's reachability, not its answer.
  bool check_server(std::string& error, bool& transport);
  // Every blob of `actions` the CAS lacks, uploaded (one FindMissingBlobs pass, batched).
  bool upload(const std::vector<const ActionBlobs*>& actions, std::string& error);
  // Runs one action to its end (or the action timeout, or `call.cancel()`).
  ExecOutcome execute(const Digest& action, ExecCall& call);

  const Endpoint& endpoint() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace qd::remote_exec
