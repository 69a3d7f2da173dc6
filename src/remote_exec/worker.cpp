#include "remote_exec/worker.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "backend/plugin.hpp"
#include "build/bazel/remote/execution/v2/remote_execution.pb.h"
#include "google/devtools/remoteworkers/v1test2/bots.grpc.pb.h"
#include "remote_exec/channel.hpp"
#include "remote_exec/compile_action.hpp"

namespace qd::remote_exec {

namespace re = build::bazel::remote::execution::v2;
namespace rw = google::devtools::remoteworkers::v1test2;

namespace {

using Clock = std::chrono::steady_clock;

// The long poll: BuildGrid waits for work up to 0.8 x the call's deadline, and not at all below
// 3 s (PROTOCOL.md), so a bot with spare capacity asks with this deadline.
constexpr auto k_poll_deadline = std::chrono::seconds(8);
constexpr auto k_stop_deadline = std::chrono::seconds(2);
constexpr auto k_cas_timeout = std::chrono::seconds(60);
// A bot at capacity reports in at least this often (BuildGrid's keepalive is seconds).
constexpr auto k_full_heartbeat = std::chrono::milliseconds(1000);
// The largest translation unit a worker reads (a generated unit is far below).
constexpr int64_t k_max_source = 64 * 1024 * 1024;

void stamp(google::protobuf::Timestamp* t) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  t->set_seconds(ns / 1000000000);
  t->set_nanos(static_cast<int32_t>(ns % 1000000000));
}

// One lease being compiled.
struct LeaseRun {
  std::thread thread;
  bool finished = false;  // under Worker::mutex
  google::rpc::Status status;
  google::protobuf::Any result;
};

class Worker {
public:
  explicit Worker(const WorkerOptions& o)
      : m_o(o), m_channel(open_channel(o.endpoint)), m_bots(rw::Bots::NewStub(m_channel)),
        m_cas(o.endpoint, k_cas_timeout, m_channel), m_cpu(toolchain_property(false)),
        m_cuda(toolchain_property(true)) {}

  ~Worker() {
    for (auto& [id, run] : m_running) {
      if (run->thread.joinable()) {
        run->thread.join();
      }
    }
  }

  int run();
  // From another thread, once stop is set: ends the poll in flight.
  void wake_for_stop() {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_poll != nullptr) {
      m_poll->TryCancel();
    }
    m_finished.notify_all();
  }

private:
  bool stopping() const { return m_o.stop != nullptr && m_o.stop->load(); }
  void log(const std::string& line) {
    if (m_o.log) {
      m_o.log(line);
    }
  }
  rw::BotSession initial_session() const;
  // The session to send: as last received, with the leases' states and results filled in.
  rw::BotSession outgoing(std::vector<std::string>& completed);
  void take_leases(const rw::BotSession& from_server);
  void compile_lease(const std::string& id, const google::protobuf::Any& payload, LeaseRun& run);
  // Reads and checks the action; compiles; uploads. Sets `status` (OK: `result` is filled).
  void execute(const google::protobuf::Any& payload, google::rpc::Status& status,
               re::ActionResult& result);
  void wake();  // a lease finished: cut the long poll short to report it
  void wait_while_full();
  // Joins finished (or abandoned) runs, outside m_mutex (a finishing run takes it in wake()).
  static void join(std::vector<std::unique_ptr<LeaseRun>>& runs) {
    for (std::unique_ptr<LeaseRun>& r : runs) {
      if (r->thread.joinable()) {
        r->thread.join();
      }
    }
  }

  WorkerOptions m_o;
  std::shared_ptr<grpc::Channel> m_channel;
  std::unique_ptr<rw::Bots::Stub> m_bots;
  CasClient m_cas;
  std::string m_cpu;
  std::string m_cuda;
  rw::BotSession m_session;  // as the server last returned it
  std::mutex m_mutex;
  std::map<std::string, std::unique_ptr<LeaseRun>> m_running;  // lease id -> run
  grpc::ClientContext* m_poll = nullptr;                       // the update in flight
  bool m_woken = false;
  std::condition_variable m_finished;  // wake()
};

rw::BotSession Worker::initial_session() const {
  rw::BotSession s;
  s.set_bot_id(m_o.bot_id);
  s.set_status(rw::BotStatus::OK);
  rw::Device* d = s.mutable_worker()->add_devices();
  d->set_handle("qdbuild");
  for (const std::string& t : {m_cpu, m_cuda}) {
    rw::Device::Property* p = d->add_properties();
    p->set_key(k_toolchain_key);
    p->set_value(t);
  }
  rw::Worker::Config* c = s.mutable_worker()->add_configs();
  c->set_key("capacity");
  c->set_value(std::to_string(m_o.capacity));
  return s;
}

void Worker::wake() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_woken = true;
  if (m_poll != nullptr) {
    m_poll->TryCancel();
  }
  m_finished.notify_all();
}

void Worker::wait_while_full() {
  std::unique_lock<std::mutex> lock(m_mutex);
  auto busy = [&] {
    size_t n = 0;
    for (const auto& [id, run] : m_running) {
      n += run->finished ? 0 : 1;
    }
    return n;
  };
  // At capacity the server answers at once (it long-polls only a bot with room): wait for a
  // lease to finish instead, sending a heartbeat at least every k_full_heartbeat.
  if (!m_woken && !stopping() && busy() >= m_o.capacity) {
    m_finished.wait_for(lock, k_full_heartbeat, [&] { return m_woken || stopping(); });
  }
}

rw::BotSession Worker::outgoing(std::vector<std::string>& completed) {
  rw::BotSession s = m_session;
  s.set_status(stopping() ? rw::BotStatus::BOT_TERMINATING : rw::BotStatus::OK);
  s.clear_leases();
  std::lock_guard<std::mutex> lock(m_mutex);
  for (const rw::Lease& lease : m_session.leases()) {
    auto it = m_running.find(lease.id());
    if (it == m_running.end()) {
      continue;
    }
    rw::Lease* l = s.add_leases();
    *l = lease;
    if (it->second->finished) {
      l->set_state(rw::LeaseState::COMPLETED);
      *l->mutable_status() = it->second->status;
      if (it->second->status.code() == 0) {
        *l->mutable_result() = it->second->result;
      }
      completed.push_back(lease.id());
    } else {
      l->set_state(rw::LeaseState::ACTIVE);
    }
  }
  return s;
}

void Worker::take_leases(const rw::BotSession& from_server) {
  std::vector<std::unique_ptr<LeaseRun>> dropped;
  std::unique_lock<std::mutex> lock(m_mutex);
  std::set<std::string> listed;
  for (const rw::Lease& lease : from_server.leases()) {
    listed.insert(lease.id());
    if (lease.state() != rw::LeaseState::ACTIVE || m_running.count(lease.id()) != 0) {
      continue;
    }
    auto run = std::make_unique<LeaseRun>();
    LeaseRun* r = run.get();
    std::string id = lease.id();
    google::protobuf::Any payload = lease.payload();
    m_running[id] = std::move(run);
    r->thread = std::thread([this, id, payload, r] { compile_lease(id, payload, *r); });
  }
  // A lease the server no longer lists was cancelled (or given to another bot): its result is
  // not reported. The compile cannot be interrupted; its thread is joined when it ends.
  for (auto it = m_running.begin(); it != m_running.end();) {
    if (listed.count(it->first) == 0 && it->second->finished) {
      dropped.push_back(std::move(it->second));
      it = m_running.erase(it);
    } else {
      ++it;
    }
  }
  lock.unlock();
  join(dropped);
}

void Worker::compile_lease(const std::string& id, const google::protobuf::Any& payload,
                           LeaseRun& run) {
  log("lease " + id + ": started");
  auto t0 = Clock::now();
  google::rpc::Status status;
  re::ActionResult result;
  execute(payload, status, result);
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (status.code() == 0) {
    log("lease " + id + ": exit " + std::to_string(result.exit_code()) + " in " +
        std::to_string(static_cast<int>(ms)) + " ms");
  } else {
    log("lease " + id + ": " + status.message());
  }
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    run.status = status;
    run.result.PackFrom(result);
    run.finished = true;
  }
  wake();
}

// A CAS call retried a few times when the server is busy or briefly away (a lease whose inputs
// cannot be read goes back to the server as UNAVAILABLE, to be retried elsewhere).
template <class F> bool with_retries(F&& call, std::string& error) {
  auto pause = std::chrono::milliseconds(100);
  for (int attempt = 0;; ++attempt) {
    error.clear();
    if (call(error)) {
      return true;
    }
    bool transient = error.find("UNAVAILABLE") != std::string::npos ||
                     error.find("RESOURCE_EXHAUSTED") != std::string::npos;
    if (!transient || attempt == 4) {
      return false;
    }
    std::this_thread::sleep_for(pause);
    pause *= 2;
  }
}

void Worker::execute(const google::protobuf::Any& payload, google::rpc::Status& status,
                     re::ActionResult& result) {
  auto fail = [&](grpc::StatusCode code, const std::string& message) {
    status.set_code(static_cast<int>(code));
    status.set_message(message);
  };
  re::ExecutedActionMetadata* md = result.mutable_execution_metadata();
  md->set_worker(m_o.bot_id);
  stamp(md->mutable_worker_start_timestamp());
  re::Action action;
  std::string error;
  if (payload.Is<re::Action>()) {
    payload.UnpackTo(&action);
  } else if (re::Digest d; payload.UnpackTo(&d)) {
    std::vector<std::string> got;
    if (!with_retries(
            [&](std::string& e) { return m_cas.read({{d.hash(), d.size_bytes()}}, got, e); },
            error) ||
        !action.ParseFromString(got[0])) {
      return fail(grpc::StatusCode::UNAVAILABLE, "cannot read the action: " + error);
    }
  } else {
    return fail(grpc::StatusCode::INVALID_ARGUMENT, "the lease carries no action");
  }
  stamp(md->mutable_input_fetch_start_timestamp());
  std::vector<std::string> got;
  std::vector<Digest> first = {
      {action.command_digest().hash(), action.command_digest().size_bytes()},
      {action.input_root_digest().hash(), action.input_root_digest().size_bytes()}};
  if (!with_retries([&](std::string& e) { return m_cas.read(first, got, e); }, error)) {
    return fail(grpc::StatusCode::UNAVAILABLE, "cannot read the action's command: " + error);
  }
  CheckedAction checked;
  if (!check_action(got[0], got[1], m_cpu, m_cuda, checked, error)) {
    bool mismatch =
        error.find("toolchain") != std::string::npos || error.find("prelude") != std::string::npos;
    return fail(mismatch ? grpc::StatusCode::FAILED_PRECONDITION
                         : grpc::StatusCode::INVALID_ARGUMENT,
                "qdbuild worker " + m_o.bot_id + ": " + error);
  }
  std::string toolchain = command_toolchain(got[0]);
  if (checked.task.size > k_max_source || checked.target.size > 4096) {
    return fail(grpc::StatusCode::INVALID_ARGUMENT, "qdbuild worker: the inputs are too large");
  }
  if (!with_retries(
          [&](std::string& e) { return m_cas.read({checked.target, checked.task}, got, e); },
          error)) {
    return fail(grpc::StatusCode::UNAVAILABLE, "cannot read the action's inputs: " + error);
  }
  stamp(md->mutable_input_fetch_completed_timestamp());
  CompileRequest req;
  if (!parse_target_flags(got[0], req, error)) {
    return fail(grpc::StatusCode::INVALID_ARGUMENT, "qdbuild worker: " + error);
  }
  if (toolchain != (req.cuda ? m_cuda : m_cpu)) {
    return fail(grpc::StatusCode::FAILED_PRECONDITION,
                "qdbuild worker: the action's toolchain is not the one of its target");
  }
  req.source = std::move(got[1]);
  stamp(md->mutable_execution_start_timestamp());
  CompileOutput out = compile_request(req);
  stamp(md->mutable_execution_completed_timestamp());
  stamp(md->mutable_output_upload_start_timestamp());
  std::vector<std::string> blobs;
  if (out.ok) {
    result.set_exit_code(0);
    re::OutputFile* f = result.add_output_files();
    f->set_path(k_output_file);
    Digest d = digest_of(out.bytes);
    f->mutable_digest()->set_hash(d.hash);
    f->mutable_digest()->set_size_bytes(d.size);
    blobs.push_back(std::move(out.bytes));
  } else {
    result.set_exit_code(1);
    Digest d = digest_of(out.diagnostics);
    result.mutable_stderr_digest()->set_hash(d.hash);
    result.mutable_stderr_digest()->set_size_bytes(d.size);
    blobs.push_back(out.diagnostics);
  }
  if (!with_retries([&](std::string& e) { return m_cas.upload(blobs, e); }, error)) {
    return fail(grpc::StatusCode::UNAVAILABLE, "cannot upload the output: " + error);
  }
  stamp(md->mutable_output_upload_completed_timestamp());
  stamp(md->mutable_worker_completed_timestamp());
  status.set_code(0);
}

int Worker::run() {
  std::string error;
  if (backend::plugin::load(error) == nullptr) {
    log("error: the backend cannot be loaded: " + error);
    return 1;
  }
  log("toolchains " + m_cpu + " " + m_cuda);
  auto backoff = std::chrono::milliseconds(250);
  bool have_session = false;
  bool said_down = false;
  while (true) {
    if (!have_session) {
      if (stopping()) {
        return 0;
      }
      grpc::ClientContext ctx;
      prepare_call(ctx, m_o.endpoint, k_poll_deadline);
      rw::CreateBotSessionRequest req;
      req.set_parent(m_o.endpoint.instance);
      *req.mutable_bot_session() = initial_session();
      rw::BotSession got;
      grpc::Status s = m_bots->CreateBotSession(&ctx, req, &got);
      if (!s.ok()) {
        if (s.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
            s.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
          log("error: the server refuses this worker: " + status_text(s));
          return 1;
        }
        if (!said_down) {
          log("cannot create a bot session (" + status_text(s) + "); retrying");
          said_down = true;
        }
        std::this_thread::sleep_for(backoff);
        backoff = std::min(backoff * 2, std::chrono::milliseconds(4000));
        continue;
      }
      said_down = false;
      backoff = std::chrono::milliseconds(250);
      m_session = got;
      have_session = true;
      log("bot session " + got.name() + " (capacity " + std::to_string(m_o.capacity) + ")");
      take_leases(got);
    }
    std::vector<std::string> completed;
    rw::BotSession out = outgoing(completed);
    bool idle_stop = false;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      idle_stop = stopping() && m_running.size() == completed.size();
    }
    grpc::ClientContext ctx;
    // Stopping: under 3 s BuildGrid assigns nothing and answers at once (PROTOCOL.md).
    prepare_call(ctx, m_o.endpoint, stopping() ? k_stop_deadline : k_poll_deadline);
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      if (m_woken) {
        // A lease finished while `out` was made: make it again, with that lease reported.
        m_woken = false;
        continue;
      }
      m_poll = &ctx;
    }
    rw::UpdateBotSessionRequest req;
    req.set_name(out.name());
    *req.mutable_bot_session() = out;
    req.mutable_update_mask()->add_paths("leases");
    req.mutable_update_mask()->add_paths("status");
    rw::BotSession got;
    grpc::Status s = m_bots->UpdateBotSession(&ctx, req, &got);
    bool woken = false;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_poll = nullptr;
      woken = m_woken;
    }
    if (s.ok()) {
      backoff = std::chrono::milliseconds(250);
      said_down = false;
      {
        std::vector<std::unique_ptr<LeaseRun>> reported;
        {
          std::lock_guard<std::mutex> lock(m_mutex);
          for (const std::string& id : completed) {
            auto it = m_running.find(id);
            if (it != m_running.end()) {
              reported.push_back(std::move(it->second));
              m_running.erase(it);
            }
          }
        }
        join(reported);
      }
      m_session = got;
      take_leases(got);
      if (idle_stop) {
        log("stopped");
        return 0;
      }
      wait_while_full();
      continue;
    }
    if (s.error_code() == grpc::StatusCode::CANCELLED && (woken || stopping())) {
      continue;  // cut short to report a finished lease, or to stop
    }
    if (s.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
        s.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
      log("error: the server refuses this worker: " + status_text(s));
      return 1;
    }
    if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      continue;  // a long poll with nothing to hand out
    }
    if (s.error_code() == grpc::StatusCode::UNAVAILABLE ||
        s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      if (!said_down) {
        log("the server is unavailable (" + status_text(s) + "); retrying");
        said_down = true;
      }
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(4000));
      continue;
    }
    // The session is gone (expired, closed, a restarted server): the server requeued its
    // leases; start a new one.
    log("the bot session ended (" + status_text(s) + "); starting a new one");
    {
      std::vector<std::unique_ptr<LeaseRun>> dropped;
      {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (auto& [id, run] : m_running) {
          dropped.push_back(std::move(run));
        }
        m_running.clear();
        m_woken = false;
      }
      join(dropped);
    }
    have_session = false;
  }
}

}  // namespace

int run_worker(const WorkerOptions& options) {
  Worker w(options);
  // A stop request cuts the long poll short, so the worker says BOT_TERMINATING at once.
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      if (options.stop != nullptr && options.stop->load()) {
        w.wake_for_stop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  int rc = w.run();
  done.store(true);
  watcher.join();
  return rc;
}

}  // namespace qd::remote_exec
